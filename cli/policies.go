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
		Use:     "policies",
		Short:   "List the registered scheduling policies",
		Example: "  arena policies",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tALIASES\tOVERHEAD\tDESCRIPTION")
			for _, e := range reg.Entries() {
				fmt.Fprintf(tw, "%s\t%s\t%gs/GPU, max %gs\t%s\n", e.Name, strings.Join(e.Aliases, ","), float64(e.Overhead.PerGPU), float64(e.Overhead.Cap), e.Doc)
			}
			return tw.Flush()
		},
	}
}
