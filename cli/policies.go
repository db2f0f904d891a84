package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/policy"
)

func init() { commands = append(commands, newPoliciesCmd) }

func newPoliciesCmd(reg *policy.Registry) *cobra.Command {
	return &cobra.Command{
		Use:   "policies",
		Short: "List the registered scheduling policies and their options",
		Long: `policies lists every registered policy: its name, aliases, reconfiguration
overhead and description, then its options with type, default and meaning.

Options are set in the policy string, in --policy and in experiment specs:
  tiresias(queues=3,threshold=4h)
Values holding a comma, parenthesis, quote or '=' are quoted: name(key='a,b').
Any program speaking the JSON-lines protocol of docs/writing-a-policy.md is a
policy too: exec:COMMAND (e.g. exec:python3 examples/python/fifo.py).`,
		Example: "  arena policies\n  arena simulate --policy 'tiresias(queues=3,threshold=4h)' --rounds 500",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tALIASES\tOVERHEAD\tDESCRIPTION")
			for _, e := range reg.Entries() {
				fmt.Fprintf(tw, "%s\t%s\t%gs/GPU, max %gs\t%s\n", e.Name, strings.Join(e.Aliases, ","), float64(e.Overhead.PerGPU), float64(e.Overhead.Cap), e.Doc)
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
}
