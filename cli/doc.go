// Package cli is the arena command line (cobra), importable so that a module
// with its own policies can run the whole CLI with them: build a registry
// (policy.NewRegistry plus Add), then call Main(reg) — or New(reg) for a
// *cobra.Command to embed or test. Each subcommand lives in its own file and
// only parses flags, calls the packages below (experiments, traces, plots,
// estimator) and prints; cmd/arena is Main with the built-in registry.
package cli
