package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/traces"
)

type simulateFlags struct {
	trace, policies, cluster, timing, horizon, out, estimator, gpuMap string
	overheads, baseline                                               string
	rounds, maxRounds                                                 int
	iterationScale                                                    int64
	slowdown, relaxedSlowdown                                         float64
	seed                                                              int64
	check, quiet, noReference, onEvents, profiling, untilDone         bool
	progressEvery                                                     time.Duration
}

func init() { commands = append(commands, newSimulateCmd) }

func newSimulateCmd(reg *policy.Registry) *cobra.Command {
	var f simulateFlags
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Run one trace on one cluster under one or more policies and compare them",
		Long: `simulate replays a trace against each policy given and prints a side-by-side
summary. With --out DIR each policy's results go to DIR/<policy>/: jobs.parquet,
timeline.parquet, rounds.csv (per-round digest) and summary.json (<policy> is the
policy string with characters other than letters, digits, '_', '+', '-' and '='
replaced by '_'; summary.json keeps the string itself).

A policy is a registered name ('arena policies'), a name with options such as
'tiresias(queues=3,threshold=16h)', or 'exec:COMMAND', a policy in any language
that speaks the JSON-lines protocol of docs/writing-a-policy.md.

Timing modes: "exact" integrates progress between events (a job finishes at its
exact completion time); "artifact" reproduces the Arena artifact's round-based
simulator bit for bit (300 s rounds and its accounting quirks). On the built-in
Philly trace in artifact timing the authors' stored results are printed alongside.`,
		Example: `  arena simulate
  arena simulate --trace philly --policy fcfs --timing artifact --rounds 2000
  arena simulate --trace my_trace.csv --cluster my_cluster.yaml --policy fcfs --horizon 7d --out results
  arena simulate --cluster h100-l20 --estimator analytic --gpu-map a100=h100,v100=h100,a40=l20,a10=l20
  arena simulate --policy 'tiresias,tiresias(queues=3,threshold=4h)' --rounds 500
  arena simulate --policy 'fcfs,exec:python3 examples/python/fifo.py' --rounds 500`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, reg, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "philly", "built-in trace (philly, helios, pai, testbed) or a CSV file in the artifact format")
	fl.StringVar(&f.policies, "policy", "", "comma-separated policies, each name, name(key=value,…) or exec:COMMAND (default: arena and fcfs, those registered); see 'arena policies'")
	fl.StringVar(&f.cluster, "cluster", "paper-1280", "built-in cluster ("+strings.Join(sim.BuiltinClusterNames(), ", ")+") or a YAML/JSON spec file")
	fl.StringVar(&f.timing, "timing", "exact", "timing mode: exact or artifact")
	fl.IntVar(&f.rounds, "rounds", 0, "scheduling rounds of 300 s to simulate (default: the trace's, 2000 for philly, 500 for helios and pai)")
	fl.IntVar(&f.maxRounds, "max-rounds", experiments.DefaultMaxRounds, "refuse runs longer than this many rounds (a typo or an outlier timestamp would otherwise run for hours); raise it for a genuinely long run")
	fl.StringVar(&f.horizon, "horizon", "", "simulated time instead of --rounds, e.g. 7d, 36h, 90m (rounded up to whole rounds)")
	fl.StringVar(&f.estimator, "estimator", "profiledb", "performance model: "+strings.Join(experiments.EstimatorNames(), ", "))
	fl.Int64Var(&f.seed, "seed", 0, "random seed (recorded; the built-in policies and traces are deterministic)")
	fl.StringVar(&f.out, "out", "", "write each policy's results to DIR/<policy>/")
	fl.StringVar(&f.gpuMap, "gpu-map", "", "rewrite the trace's GPU types for another cluster, e.g. a100=h100,v100=h100,a40=l20,a10=l20")
	fl.StringVar(&f.overheads, "overheads", sim.DefaultOverheads, "reconfiguration overhead profile: "+strings.Join(sim.BuiltinOverheadNames(), ", ")+" or a YAML file (docs/calibrating.md)")
	fl.Int64Var(&f.iterationScale, "iteration-scale", 0, "divide the trace's iteration counts by N instead of the trace's own scale (built-in: 5 for philly/helios/pai, 1 for testbed)")
	fl.Float64Var(&f.slowdown, "slowdown", 1, "calibration: multiply every executed iteration time by this factor (policies still decide with the estimator's values; docs/calibrating.md)")
	fl.Float64Var(&f.relaxedSlowdown, "relaxed-slowdown", 1, "calibration: factor on executed iteration times of multi-node placements less compact than best locality, instead of --slowdown")
	fl.BoolVar(&f.profiling, "profiling-delay", false, "prepend each job's disaggregated-profiling time (analytic model) to its first start")
	fl.BoolVar(&f.onEvents, "schedule-on-events", false, "exact timing: also call the policy at each arrival and completion, not only every 300-s round")
	fl.BoolVar(&f.check, "check", false, "run the invariant checker after every event (slower)")
	fl.BoolVar(&f.untilDone, "until-done", false, "run past --rounds/--horizon until every job of the trace has finished or been dropped (cap: --max-rounds; stops early if the policy leaves jobs queued on an idle cluster for 100 rounds)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.DurationVar(&f.progressEvery, "progress", defaultProgressEvery, "when stderr is not a terminal: print a progress line this often (0 = never)")
	fl.StringVar(&f.baseline, "baseline", "", "compare every policy with this one (JCT reduction and throughput ratio); default: the paper's form, arena against each")
	fl.BoolVar(&f.noReference, "no-reference", false, "do not print the artifact's stored results next to ours")
	addProfileFlags(cmd)
	return cmd
}

func runSimulate(cmd *cobra.Command, reg *policy.Registry, f simulateFlags) error {
	timing, err := sim.ParseTiming(f.timing)
	if err != nil {
		return fmt.Errorf("--timing: %w", err)
	}
	if f.onEvents && timing != sim.Exact {
		return fmt.Errorf("--schedule-on-events needs --timing exact (the artifact schedules only at rounds)")
	}
	if f.rounds < 0 {
		return fmt.Errorf("--rounds %d: want a positive number of rounds", f.rounds)
	}
	if f.iterationScale < 0 || (cmd.Flags().Changed("iteration-scale") && f.iterationScale == 0) {
		return fmt.Errorf("--iteration-scale %d: want a positive integer (1: iterations as the trace gives them)", f.iterationScale)
	}
	for name, v := range map[string]float64{"slowdown": f.slowdown, "relaxed-slowdown": f.relaxedSlowdown} {
		if !(v > 0) || v > 100 {
			return fmt.Errorf("--%s %v: want a factor in (0, 100] (1 = none)", name, v)
		}
	}
	if _, err := sim.LoadOverheads(f.overheads); err != nil {
		return fmt.Errorf("--overheads: %w", err)
	}
	if f.horizon != "" {
		if cmd.Flags().Changed("rounds") {
			return fmt.Errorf("--rounds and --horizon are alternatives; give one")
		}
		d, err := experiments.ParseHorizon(f.horizon)
		if err != nil {
			return fmt.Errorf("--%w", err)
		}
		f.rounds = experiments.HorizonRounds(d)
		if err := experiments.CheckRounds(f.rounds, f.maxRounds, "--horizon "+f.horizon); err != nil {
			return err
		}
	} else if err := experiments.CheckRounds(f.rounds, f.maxRounds, fmt.Sprintf("--rounds %d", f.rounds)); err != nil {
		return err
	}
	var names []string
	if f.policies == "" {
		for _, n := range []string{"arena", "fcfs"} {
			if _, err := reg.Lookup(n); err == nil {
				names = append(names, n)
			}
		}
	} else {
		items, err := policy.SplitList(f.policies)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		for _, it := range items {
			ps, err := reg.Parse(it)
			if err != nil {
				return fmt.Errorf("--policy: %w", err)
			}
			if n := ps.String(); slices.Contains(names, n) {
				return fmt.Errorf("--policy: %s given twice", n)
			} else {
				names = append(names, n)
			}
		}
	}
	if f.baseline != "" {
		if ps, err := reg.Parse(f.baseline); err == nil {
			f.baseline = ps.String()
		}
		if !slices.Contains(names, f.baseline) {
			return fmt.Errorf("--baseline %s: not among the policies run (%s)", f.baseline, strings.Join(names, ", "))
		}
	}
	// The trace and cluster are the same for every policy: a bad one is
	// reported once, under its flag, not once per policy run.
	if _, err := traces.Load(f.trace); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	if spec, err := sim.LoadClusterSpec(f.cluster); err != nil {
		return fmt.Errorf("--cluster: %w", err)
	} else if _, err := sim.NewCluster(spec); err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	if f.out != "" {
		// Before simulating: an --out that cannot be written, or that
		// another run is writing, should fail now, not after the run.
		lock, err := outdir.LockDir(f.out)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer lock.Unlock()
		if err := outdir.Clean(f.out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	stderr := cmd.ErrOrStderr()
	prog := newProgress(stderr, chooseProgress(stderr, f.quiet, f.progressEvery), "simulate "+strings.Join(names, ","), "rounds", f.progressEvery)

	outcomes := make([]*experiments.Outcome, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := make([]int, len(names))
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := experiments.Run{Trace: f.trace, Cluster: f.cluster, Policy: name, Timing: timing, Rounds: f.rounds, Check: f.check, Estimator: f.estimator, ScheduleOnEvents: f.onEvents, GPUMap: f.gpuMap, ProfilingDelay: f.profiling, Overheads: f.overheads, IterationScale: f.iterationScale, MaxRounds: f.maxRounds, Slowdown: f.slowdown, RelaxedSlowdown: f.relaxedSlowdown, UntilDone: f.untilDone}
			if prog != nil {
				run.OnRound = func(d, t int) {
					mu.Lock()
					defer mu.Unlock()
					done[i] = d
					sum := 0
					for _, n := range done {
						sum += n
					}
					prog.update(sum, t*len(names))
				}
			}
			outcomes[i], errs[i] = experiments.Execute(cmd.Context(), reg, run)
		}()
	}
	wg.Wait()
	prog.finish()
	for i, err := range errs {
		if err != nil {
			// Name the policy unless the error already does (policy
			// construction and exec errors say "policy NAME: …").
			if strings.Contains(err.Error(), names[i]) {
				return err
			}
			return fmt.Errorf("%s: %w", names[i], err)
		}
	}
	sums := make([]*sim.Summary, len(outcomes))
	jcts := make([][]float64, len(outcomes))
	for i, o := range outcomes {
		o.Summary.Seed = f.seed
		sums[i], jcts[i] = &o.Summary, o.Result.JCTs
	}
	sim.PadMeans(sums, jcts)
	if f.out != "" {
		for _, o := range outcomes {
			dir := filepath.Join(f.out, experiments.PolicyDir(o.Summary.Policy))
			if err := sim.WriteDir(dir, o.Result, o.Summary); err != nil {
				return err
			}
		}
	}
	warnMissingTypes(stderr, outcomes[0])
	printSummaries(cmd.OutOrStdout(), outcomes, timing == sim.Artifact && f.trace == "philly" && !f.noReference && outcomes[0].Summary.Rounds == 2000 && f.cluster == "paper-1280", f.baseline)
	if timing == sim.Artifact && f.trace == "pai" && !f.noReference && outcomes[0].Summary.Rounds == 500 && f.cluster == "paper-1280" {
		// The authors' PAI runs are stored as per-round digests only.
		for _, o := range outcomes {
			if ref, err := experiments.ReferenceDigest("pai", o.Summary.Policy); err == nil {
				if d, err := sim.CompareDigests(ref, o.Result.DigestCSV()); err == nil {
					fmt.Fprintf(cmd.OutOrStdout(), "\n%s per-round digest vs the authors' run: %s", o.Summary.Policy, d)
				}
			}
		}
		fmt.Fprintln(cmd.OutOrStdout())
	}
	if f.out != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "\nresults written to %s/<policy>/ (jobs.parquet, timeline.parquet, rounds.csv, summary.json)\n", f.out)
	}
	return nil
}

// warnMissingTypes points at --gpu-map when the trace asks for GPU types
// the cluster does not have (such jobs are infeasible as requested).
func warnMissingTypes(w io.Writer, o *experiments.Outcome) {
	have := map[string]bool{}
	for _, t := range o.Cluster.Types {
		have[t] = true
	}
	missing := map[string]int{}
	for _, j := range o.Result.Jobs {
		if !have[j.RequestedGPU] {
			missing[j.RequestedGPU]++
		}
	}
	if len(missing) == 0 {
		return
	}
	fmt.Fprintf(w, "note: %s jobs request GPU types cluster %s lacks (%s); map them with e.g. --gpu-map %s\n\n",
		fmt.Sprint(sumCounts(missing)), o.Cluster.Name, counts(missing), exampleMap(missing, o.Cluster.Types))
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// exampleMap suggests a mapping: the missing types, most capable first
// (peak TFLOPS), spread in order over the cluster's types, most capable first.
func exampleMap(missing map[string]int, types []string) string {
	peak := func(name string) float64 {
		g, _ := estimator.LookupGPU(name)
		return g.PeakTFLOPS
	}
	byPeak := func(xs []string) {
		sort.SliceStable(xs, func(a, b int) bool {
			if peak(xs[a]) != peak(xs[b]) {
				return peak(xs[a]) > peak(xs[b])
			}
			return xs[a] < xs[b]
		})
	}
	var from []string
	for k := range missing {
		from = append(from, k)
	}
	to := append([]string(nil), types...)
	byPeak(from)
	byPeak(to)
	parts := make([]string, len(from))
	for i, k := range from {
		parts[i] = k + "=" + to[i*len(to)/len(from)]
	}
	return strings.Join(parts, ",")
}

func isTerminal(w io.Writer) bool {
	if os.Getenv("CI") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// times renders a count of occurrences: "once", "16 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
