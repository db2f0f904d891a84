package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/policy/policytest"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim/overheadprofile"
)

func newPoliciesCmd(reg *registry.Registry) *cobra.Command {
	var overheads string
	cmd := &cobra.Command{
		Use:   "policies",
		Short: "List the registered scheduling policies and their options",
		Long: `policies lists every registered policy: its name, aliases, reconfiguration
overhead and description, then its options with type, default and meaning.
The overhead is what the policy's overhead class (the classes an overhead
profile prices it by, most specific first) resolves to in the profile given
by --overheads (a built-in name or a YAML file; docs/calibrating.md).

Options are set in the policy string, in --policy and in experiment specs:
  tiresias(queues=3,threshold=4h)
Values holding a comma, parenthesis, quote or '=' are quoted: name(key='a,b').
Any program speaking the JSON-lines protocol of docs/writing-a-policy.md is a
policy too: exec:COMMAND (e.g. exec:python3 examples/python/fifo.py).`,
		Example: "  arena policies\n  arena policies --overheads testbed\n  arena simulate --policy 'tiresias(queues=3,threshold=4h)' --rounds 500",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			prof, err := overheadprofile.Load(overheads)
			if err != nil {
				return fmt.Errorf("--overheads: %w", err)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "NAME\tALIASES\tOVERHEAD (%s)\tDESCRIPTION\n", prof.Name)
			for _, e := range reg.Entries() {
				cost := "none in this profile"
				if o, err := prof.Resolve(e.Overhead); err == nil {
					cost = o.String()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, strings.Join(e.Aliases, ","), cost, e.Doc)
				for _, o := range e.Options {
					typ := o.Type.String()
					if o.Type == registry.Enum {
						typ = strings.Join(o.Values, "|")
					}
					def := "=" + o.Default
					switch {
					case o.Required:
						def, typ = "", typ+", required"
					case o.Default == "":
						def = "=''"
					}
					fmt.Fprintf(tw, "\t\t\t  option %s%s (%s): %s\n", o.Name, def, typ, o.Help)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&overheads, "overheads", overheadprofile.Default, "overhead profile: "+strings.Join(overheadprofile.BuiltinNames(), ", ")+" or a YAML file")
	cmd.AddCommand(newPoliciesCheckCmd(reg))
	return cmd
}

func newPoliciesCheckCmd(reg *registry.Registry) *cobra.Command {
	return &cobra.Command{
		Use:   "check POLICY...",
		Short: "Run the conformance suite on policies (built-in, with options, or exec:COMMAND)",
		Long: `check runs the conformance suite of package policytest on each policy given:
every rule in both timing modes, with the engine's invariant checker on, on
small hand-built clusters and workloads. The rules: a minimum workload
finishes; two runs of fresh instances are identical (determinism); the
policy does not modify the View; jobs larger than any node or than the
cluster are handled; a cluster without the requested GPU type and an empty
cluster are handled; nodes failing under running jobs and a drain with notice
are handled (docs/writing-a-policy.md, "The conformance suite").

It prints each case's verdict as it is known and exits with status 1 when
any case of any policy failed, so a policy author's CI can call it. A
policy in another language is checked through the exec protocol exactly as
'arena simulate' runs it.`,
		Example: `  arena policies check fcfs 'tiresias(queues=3)'
  arena policies check 'exec:python3 examples/python/sjf.py'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPoliciesCheck(cmd.OutOrStdout(), reg, args)
		},
	}
}

// runPoliciesCheck checks each policy string and reports the verdicts;
// the error names every policy that failed a case.
func runPoliciesCheck(w io.Writer, reg *registry.Registry, args []string) error {
	var failed []string
	for i, p := range args {
		if i > 0 {
			fmt.Fprintln(w)
		}
		name, overhead, newPolicy, err := policytest.Factory(reg, p)
		if err != nil {
			return fmt.Errorf("policy %s: %w", clip(p), err)
		}
		fmt.Fprintf(w, "%s: conformance suite, %d cases (%d rules × %s timing)\n", name, policytest.Cases(), policytest.Cases()/len(policytest.Timings), timingNames())
		bad := 0
		verdicts, err := policytest.Check(name, overhead, newPolicy, func(v policytest.Verdict) {
			mark := "ok  "
			if !v.Passed() {
				mark, bad = "FAIL", bad+1
			}
			fmt.Fprintf(w, "  %s  %-8s %s\n", mark, v.Timing, v.Rule)
			for _, e := range v.Errs {
				for _, line := range strings.Split(clip(e.Error()), "\n") {
					fmt.Fprintf(w, "          %s\n", line)
				}
			}
		})
		if err != nil {
			return fmt.Errorf("policy %s: %w", name, err)
		}
		fmt.Fprintf(w, "%s: %d of %d cases passed\n", name, len(verdicts)-bad, len(verdicts))
		if bad > 0 {
			failed = append(failed, fmt.Sprintf("%s (%d of %d cases)", name, bad, len(verdicts)))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("conformance failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

func timingNames() string {
	names := make([]string, len(policytest.Timings))
	for i, t := range policytest.Timings {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}

// clip bounds what a message echoes of a policy's own output: a policy's
// error can be megabytes.
func clip(s string) string {
	const max = 2000
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%d more bytes)", len(s)-cut)
}
