// Command arena is the command-line interface of the arena GPU-cluster
// scheduling simulator. Each subcommand lives in its own file and only
// parses flags, calls the packages below and prints.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRootCmd()
	if err := root.ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "arena: interrupted")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "arena:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "arena",
		Short: "Trace-driven simulator of GPU clusters training large models (Arena, EuroSys'26)",
		Long: `arena replays GPU-cluster job traces against scheduling policies (Arena's grid
scheduler and its baselines) with the Arena artifact's measured performance
database, and reports job completion times, throughput and queueing.`,
		Example: `  arena simulate                                   # built-in Philly trace, paper-1280 cluster
  arena simulate --policy fcfs --timing artifact --rounds 2000
  arena policies`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, add := range commands {
		root.AddCommand(add())
	}
	return root
}

// commands lists the subcommand constructors; each command's file appends
// its own from init, so adding a command touches one file.
var commands []func() *cobra.Command
