package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/spf13/cobra"
)

// Main runs the arena command line with reg's policies and exits the
// process: status 0 on success, 130 when interrupted, 1 on any error (printed
// to stderr as "arena: ..."). A module that adds its own policies calls it
// from its main function:
//
//	reg := policy.NewRegistry()
//	if err := reg.Register(policy.Entry{Name: "mine", ...}); err != nil { ... }
//	cli.Main(reg)
func Main(reg *policy.Registry) {
	// GOGC in the environment wins over sim.GCPercent (why 400: there).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sim.GCPercent)
	}
	// Ctrl-C and SIGTERM (a batch system's cancel, a container's stop)
	// cancel the same context: every command stops at its next check,
	// removes its temporaries and exits 130 with nothing half-written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := New(reg)
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "arena: interrupted")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "arena:", err)
		os.Exit(1)
	}
}

// New builds the root command with every subcommand, resolving policy names
// in reg. It does not touch os.Args or exit; tests and embedding programs set
// the arguments and output with cobra's SetArgs / SetOut.
func New(reg *policy.Registry) *cobra.Command {
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
		// Counts and sizes named by flags are checked before any command
		// runs (flagrules.go).
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return checkFlagRules(cmd) },
	}
	for _, add := range commands {
		root.AddCommand(add(reg))
	}
	return root
}

// commands are the subcommands, in the order a newcomer meets them (help
// lists them sorted): one explicit list, so what the binary can do is read
// in one place.
var commands = []func(*policy.Registry) *cobra.Command{
	newSimulateCmd,
	newPoliciesCmd,
	newTraceCmd,
	newSweepCmd,
	newReproduceCmd,
	newPlotCmd,
	newExportCmd,
	newRegressCmd,
	newEstimateCmd,
	newCalibrateCmd,
}
