package cli

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/replay"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

type replayFlags struct {
	on, trace, cluster, policy, mode, out string
	attach                                bool
	partition, workdir, scheduler         string
	keep, deterministic, upOnly, quiet    bool
	speed, maxError                       float64
	jobs                                  int
}

func newReplayCmd(reg *registry.Registry) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Replay a trace on a real Slurm cluster (emulated GPU nodes, or yours) and compare it with the simulator",
		Long: `replay --on slurm runs a trace on Slurm at a compressed time scale and measures the
simulator against it (docs/replay.md).

Without --attach it brings up an emulated Slurm cluster whose nodes, GPU types and
counts are --cluster's: a private munged, slurmctld and one 'slurmd -N NAME' per
node on its own loopback address and port, every GPU a File= gres pointing at an
empty file; every daemon started and stopped by arena by its pid, in its own
process group, killed with arena if arena dies; Ctrl-C stops the jobs and the
daemons. It needs root and Debian's slurmctld, slurmd, slurm-client and munge.
With --attach it uses the Slurm cluster the client commands reach (SLURM_CONF),
the nodes of --partition with GPUs of each type standing for the cluster's nodes
of that type (sorted by name); --workdir must then be a directory every node can
write.

Modes. policy: each arena policy of --policy decides (the simulation runs first)
and its schedule is replayed open loop: every start becomes 'srun -w NODES -N k
--gres=gpu:TYPE:g' at its compressed time on arena's nodes, running a stand-in that
sleeps the holding's compressed length and writes its own start and end times; a
suspension, resize or migration ends the srun and relaunches the remaining work.
native: the jobs are submitted with sbatch at their compressed arrivals (the GPU
type and count asked, -N the fewest nodes that hold them) and Slurm's own scheduler
decides; the simulations it is compared with schedule on every arrival and
completion, as Slurm does.

Each replay measures the hand-off per start (from the moment a start could begin
to its stand-in's start) and re-runs arena with its median as an overhead on every
start; the report gives real vs simulated vs calibrated mean JCT and queueing,
pairwise start-order agreement, placements that differed, and the ranking of the
policies real vs simulated. --deterministic makes each stand-in sleep until its
compressed simulated end, so hand-off delays do not pile up (policy mode).
With --out the report goes to DIR (replay.json, jobs.csv, REPORT.md).`,
		Example: `  sudo arena replay --on slurm --cluster testbed-64 --trace testbed --policy fcfs,srtf --speed 600 --jobs 60
  sudo arena replay --on slurm --mode native --speed 600 --jobs 60 --out replay-native
  sudo arena replay --on slurm --cluster paper-1280 --up-only
  arena replay --on slurm --attach --partition gpu --workdir /shared/arena --cluster my-cluster.yaml --policy fcfs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReplay(cmd, reg, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.on, "on", "", "the real scheduler to replay on: slurm")
	fl.StringVar(&f.trace, "trace", "testbed", "the trace (a built-in name or a file, as simulate's --trace)")
	fl.StringVar(&f.cluster, "cluster", "testbed-64", "the cluster spec (built-in name or file): the emulated cluster's nodes")
	fl.StringVar(&f.policy, "policy", "fcfs,srtf", "comma-separated policy strings (as simulate's --policy)")
	fl.StringVar(&f.mode, "mode", "both", "policy, native or both")
	fl.Float64Var(&f.speed, "speed", 600, "time compression: simulated seconds per real second")
	fl.IntVar(&f.jobs, "jobs", 0, "replay only the trace's first N jobs, in trace order (0 = all)")
	fl.BoolVar(&f.deterministic, "deterministic", false, "policy mode: each stand-in sleeps until its compressed simulated end, so hand-off delays do not pile up")
	fl.BoolVar(&f.attach, "attach", false, "use the existing Slurm cluster the client commands reach instead of starting one")
	fl.StringVar(&f.partition, "partition", "", "with --attach: the partition to run in (required)")
	fl.StringVar(&f.workdir, "workdir", "", "the emulated cluster's work directory (default: a new temporary one); with --attach: a directory every node can write (required for native mode)")
	fl.StringVar(&f.scheduler, "slurm-scheduler", "", "the emulated cluster's SchedulerType, backfill or builtin (default: backfill in policy mode, builtin in native mode; docs/replay.md)")
	fl.BoolVar(&f.keep, "keep", false, "keep the emulated cluster's work directory (configuration, logs)")
	fl.BoolVar(&f.upOnly, "up-only", false, "bring the emulated cluster up, print its start-up time and memory, and stop it")
	fl.Float64Var(&f.maxError, "max-error", 0, "fail (exit 1) if a calibrated mean-JCT error (policy mode: every policy; native mode: the first policy, the model of Slurm's scheduler) exceeds this many percent, a policy-mode placement differed or a start failed (0 = no check)")
	fl.StringVar(&f.out, "out", "", "write replay.json, jobs.csv and REPORT.md to DIR")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	return cmd
}

func runReplay(cmd *cobra.Command, reg *registry.Registry, f replayFlags) error {
	ctx := cmd.Context()
	if f.on != "slurm" {
		return fmt.Errorf("--on %q: want slurm (the only real scheduler arena replays on)", f.on)
	}
	if !(f.speed > 0) || math.IsInf(f.speed, 0) || f.speed > 1e6 {
		return fmt.Errorf("--speed %v: want a positive time compression up to 1e6", f.speed)
	}
	if f.jobs < 0 {
		return fmt.Errorf("--jobs %d: want 0 (all) or a positive count", f.jobs)
	}
	if f.maxError < 0 {
		return fmt.Errorf("--max-error %v: want 0 (no check) or a positive percentage", f.maxError)
	}
	var modes []string
	switch f.mode {
	case "both":
		modes = []string{"policy", "native"}
	case "policy", "native":
		modes = []string{f.mode}
	default:
		return fmt.Errorf("--mode %q: want policy, native or both", f.mode)
	}
	if f.scheduler != "" && f.scheduler != "backfill" && f.scheduler != "builtin" {
		return fmt.Errorf("--slurm-scheduler %q: want backfill or builtin", f.scheduler)
	}
	if f.attach && f.partition == "" {
		return fmt.Errorf("--attach needs --partition")
	}
	if f.attach && f.workdir == "" && slices.Contains(modes, "native") {
		return fmt.Errorf("--attach in native mode needs --workdir, a directory every node can write")
	}
	items, err := registry.SplitList(f.policy)
	if err != nil || len(items) == 0 {
		return fmt.Errorf("--policy: %w", errors.Join(err, errIf(len(items) == 0, "give at least one policy")))
	}
	rv := runner.NewResolver(reg)
	var scs []*runner.Scenario
	for _, p := range items {
		run := simulateDefaults()
		run.Trace, run.Cluster, run.Policy, run.Drain = f.trace, f.cluster, p, true
		sc, err := rv.Resolve(run)
		if err != nil {
			return flagError(err)
		}
		if f.jobs > 0 && f.jobs < len(sc.Jobs) {
			sc.Jobs = sc.Jobs[:f.jobs]
			sc.TraceJobs = f.jobs
		}
		scs = append(scs, sc)
	}
	c, err := sim.NewCluster(scs[0].ClusterSpec)
	if err != nil {
		return err
	}
	var logw = cmd.ErrOrStderr()
	if f.quiet {
		logw = nil
	}
	out := cmd.OutOrStdout()
	// up starts an emulated cluster with the scheduler a mode needs:
	// policy mode backfill (a replayed start waiting for its nodes must
	// not hold back the starts behind it), native mode builtin (strict
	// order per GPU type's partition: FCFS per type). --slurm-scheduler
	// overrides both.
	up := func(mode string) (*replay.Slurm, func(), error) {
		if f.attach {
			s, err := replay.Attach(ctx, c, f.partition, f.workdir)
			return s, func() {}, err
		}
		sched := f.scheduler
		if sched == "" {
			sched = map[string]string{"policy": "backfill", "native": "builtin"}[mode]
		}
		dir := f.workdir
		if dir != "" && f.mode == "both" {
			dir = filepath.Join(dir, mode)
		}
		s, err := replay.Up(ctx, c, replay.UpOptions{Scheduler: sched, Dir: dir, Keep: f.keep || f.workdir != "", Log: logw})
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Down(ctx) }, nil
	}
	if f.upOnly {
		s, done, err := up("policy")
		if err != nil {
			return err
		}
		defer done()
		rss := 0.0
		for _, v := range s.DaemonRSS {
			rss += float64(v)
		}
		fmt.Fprintf(out, "emulated Slurm cluster %s: %d nodes (%d GPUs) idle %.1f s after the first daemon started; slurmd RSS %.1f MiB each on average (%.0f MiB in all), slurmctld %.1f MiB\n",
			c.Name, len(c.Nodes), c.NumSlots(), s.StartupS, rss/1024/float64(max(len(s.DaemonRSS), 1)), rss/1024, float64(s.CtldRSS)/1024)
		return nil
	}
	rep, err := replay.Run(ctx, up, replay.Experiment{Scenarios: scs, Modes: modes,
		Opts: replay.Options{Speed: f.speed, Deterministic: f.deterministic, Log: logw}})
	if err != nil {
		return err
	}
	fmt.Fprint(out, rep.Markdown())
	if f.out != "" {
		if err := rep.Write(f.out); err != nil {
			return err
		}
	}
	if f.maxError > 0 {
		var bad []string
		for _, m := range rep.Runs {
			// Native mode checks the first policy alone: the one given as
			// the model of Slurm's scheduler (fcfs: FCFS per GPU type).
			if m.Mode == "native" && m.Policy != rep.Runs[nativeFirst(rep)].Policy {
				continue
			}
			if math.IsNaN(m.CalErr) || math.Abs(m.CalErr)*100 > f.maxError {
				bad = append(bad, fmt.Sprintf("%s %s: calibrated mean-JCT error %.1f %% (limit %g %%)", m.Mode, m.Policy, 100*m.CalErr, f.maxError))
			}
			if m.Failed > 0 {
				bad = append(bad, fmt.Sprintf("%s %s: %d starts without both timestamps", m.Mode, m.Policy, m.Failed))
			}
			if m.Mode == "policy" && m.PlacementsDiffered > 0 {
				bad = append(bad, fmt.Sprintf("policy %s: %d placements differed from arena's", m.Policy, m.PlacementsDiffered))
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("replay check failed:\n  %s", strings.Join(bad, "\n  "))
		}
	}
	return nil
}

// nativeFirst is the index of the first native-mode run (0 if none).
func nativeFirst(rep *replay.Report) int {
	for i, m := range rep.Runs {
		if m.Mode == "native" {
			return i
		}
	}
	return 0
}

func errIf(cond bool, msg string) error {
	if cond {
		return errors.New(msg)
	}
	return nil
}
