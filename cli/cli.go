package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
)

// Main runs the arena command line with reg's policies and exits the
// process: status 0 on success, 130 when interrupted, 1 on any error (printed
// to stderr as "arena: ..."). A module that adds its own policies calls it
// from its main function:
//
//	reg := policy.NewRegistry()
//	if err := reg.Register(registry.Entry{Name: "mine", ...}); err != nil { ... }
//	cli.Main(reg)
func Main(reg *registry.Registry) {
	// GOGC in the environment wins over sim.GCPercent (why 400: there).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sim.GCPercent)
	}
	// GOMEMLIMIT in the environment wins over sim.PaceMemory (why: there).
	if os.Getenv("GOMEMLIMIT") == "" {
		sim.PaceMemory()
	}
	os.Exit(run(reg))
}

// stopGrace is how long a command stopped by a signal is given to return
// on its own (removing its temporaries, killing an exec policy's process
// group) before Main removes the temporaries itself and exits: a command
// blocked where it cannot see the context (opening a FIFO no one writes)
// must not keep arena alive.
var stopGrace = 2 * time.Second

// stopSignals stop a command cleanly: Ctrl-C (SIGINT), SIGTERM (a batch
// system's cancel, a container's stop) and SIGHUP (the terminal or the
// ssh session closed), whose default action would kill arena mid-write.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// run executes the command line and returns the exit status. One handler
// serves every command: a stop signal (stopSignals) cancels the context
// the command runs with; from then on
// no result is put in place (outdir.Interrupt: a write is whole or absent);
// the command has stopGrace to return, after which the temporaries it
// registered (outdir) are removed for it; the status is 130. A second
// signal kills at once (its default action is restored), leaving the
// temporaries for the next run's cleanup.
func run(reg *registry.Registry) int {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	root := New(reg)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		outdir.Interrupt()
		stop()
		select {
		case <-done:
		case <-time.After(stopGrace):
		}
		outdir.RemoveTemporaries()
		fmt.Fprintln(os.Stderr, "arena: interrupted")
		return 130
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			outdir.RemoveTemporaries()
			fmt.Fprintln(os.Stderr, "arena: interrupted")
			return 130
		}
		fmt.Fprintln(os.Stderr, "arena:", err)
		return 1
	}
	return 0
}

// New builds the root command with every subcommand, resolving policy names
// in reg. It does not touch os.Args or exit; tests and embedding programs set
// the arguments and output with cobra's SetArgs / SetOut.
func New(reg *registry.Registry) *cobra.Command {
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
var commands = []func(*registry.Registry) *cobra.Command{
	newSimulateCmd,
	newPoliciesCmd,
	newTraceCmd,
	newFaultsCmd,
	newSweepCmd,
	newReproduceCmd,
	newPlotCmd,
	newExportCmd,
	newRegressCmd,
	newEstimateCmd,
	newCalibrateCmd,
	newReplayCmd,
}
