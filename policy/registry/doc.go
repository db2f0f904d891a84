// Package registry defines what a policy package declares about itself and
// how policy strings are read: Entry (name, aliases, doc line, options,
// overhead class, relative cost, constructor), Option and its typed
// Values, the policy-string grammar (name(key=value,…), exec:COMMAND, a
// wrapper's policy written first) and Registry, which maps names to
// entries.
//
// It is a leaf under the policy packages: each of them (policy/fcfs,
// policy/tiresias, …) exports its Entry or Entries built from these types
// and turns its option values into its own configuration there, and the
// package policy holds only the explicit list of built-in entries
// (policy.NewRegistry). The arrows: policy → policy/<name> → registry →
// sim, estimator. A wrapper (policy/quota) needs no registry to build its
// inner policy: Parse resolves the wrapped policy string in the registry
// that parses the wrapper and hands it over in Values.Wrapped.
//
// Errors in a policy string are *input.Error values (NewOptionError) naming
// the policy and the option.
package registry
