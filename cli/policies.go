package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

func init() { commands = append(commands, newPoliciesCmd) }

func newPoliciesCmd(reg *policy.Registry) *cobra.Command {
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
			prof, err := sim.LoadOverheads(overheads)
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
					if o.Type == policy.Enum {
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
	cmd.Flags().StringVar(&overheads, "overheads", sim.DefaultOverheads, "overhead profile: "+strings.Join(sim.BuiltinOverheadNames(), ", ")+" or a YAML file")
	return cmd
}
