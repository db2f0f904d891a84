package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
)

// simulateFlags are the command's flags: the run they describe, bound
// field by field through runner.Fields (raw values, applied and checked
// by simulateRun), and the flags that only say how to show it.
type simulateFlags struct {
	raw                map[string]*rawFlag // by flag name, the run's flags
	quiet, noReference bool
	out                string
	progressEvery      time.Duration
}

// rawFlag holds a run flag's value as given; runner.Fields parses it.
type rawFlag struct {
	field *runner.Field
	value string
}

func (f *rawFlag) String() string     { return f.value }
func (f *rawFlag) Set(v string) error { f.value = v; return nil }
func (f *rawFlag) Type() string       { return f.field.Type }

// simulateDefaults is the run 'arena simulate' describes without flags
// (the policy aside: arena and fcfs, those registered).
func simulateDefaults() runner.Run {
	return runner.Run{Trace: "philly", Cluster: "paper-1280", Timing: sim.Exact, Estimator: "profiledb", Overheads: sim.DefaultOverheads,
		Density: 1, OverheadScale: 1, Slowdown: 1, RelaxedSlowdown: 1, MaxRounds: runner.DefaultMaxRounds}
}

// bindRunFlags defines a flag for every field of runner.Fields that has
// one, its default taken from def.
func bindRunFlags(fl *pflag.FlagSet, def runner.Run) map[string]*rawFlag {
	raw := map[string]*rawFlag{}
	for i := range runner.Fields {
		f := &runner.Fields[i]
		if f.Flag == "" {
			continue
		}
		v := &rawFlag{field: f}
		if f.Key != "policy" && f.Key != "horizon" {
			v.value = f.Get(&def)
		}
		fl.Var(v, f.Flag, f.Usage)
		if f.Bool {
			fl.Lookup(f.Flag).NoOptDefVal = "true"
		}
		raw[f.Flag] = v
	}
	return raw
}

// flagError renders a run's field error as its flag ("--slowdown: …").
func flagError(err error) error {
	var fe *runner.FieldError
	if errors.As(err, &fe) {
		if f, ok := runner.FieldByKey(fe.Key()); ok && f.Flag != "" {
			return fmt.Errorf("--%s: %w", f.Flag, fe.Err)
		}
	}
	return err
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
	f.raw = bindRunFlags(fl, simulateDefaults())
	fl.StringVar(&f.out, "out", "", "write each policy's results to DIR/<policy>/")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.DurationVar(&f.progressEvery, "progress", defaultProgressEvery, "when stderr is not a terminal: print a progress line this often (0 = never)")
	fl.BoolVar(&f.noReference, "no-reference", false, "do not print the artifact's stored results next to ours")
	addProfileFlags(cmd)
	return cmd
}

// simulateRun applies the run flags to the defaults through runner.Fields,
// in the table's order, naming the flag of a bad value.
func simulateRun(cmd *cobra.Command, f simulateFlags) (runner.Run, error) {
	run := simulateDefaults()
	changed := func(flag string) bool { return cmd.Flags().Changed(flag) }
	if changed("rounds") && changed("horizon") {
		return run, fmt.Errorf("--rounds and --horizon are alternatives; give one")
	}
	for i := range runner.Fields {
		fd := &runner.Fields[i]
		if fd.Flag == "" || fd.Key == "policy" || !changed(fd.Flag) {
			continue
		}
		if err := fd.Set(&run, f.raw[fd.Flag].value); err != nil {
			return run, fmt.Errorf("--%s: %w", fd.Flag, err)
		}
	}
	return run, nil
}

func runSimulate(cmd *cobra.Command, reg *policy.Registry, f simulateFlags) error {
	base, err := simulateRun(cmd, f)
	if err != nil {
		return err
	}
	base.Policy = "fcfs" // checked per policy below
	if err := base.Validate(); err != nil {
		return flagError(err)
	}
	from := fmt.Sprintf("--rounds %d", base.Rounds)
	if cmd.Flags().Changed("horizon") {
		from = "--horizon " + f.raw["horizon"].value
	}
	if err := runner.CheckRounds(base.Rounds, base.MaxRounds, from); err != nil {
		return err
	}
	var names []string
	if f.raw["policy"].value == "" {
		for _, n := range []string{"arena", "fcfs"} {
			if _, err := reg.Lookup(n); err == nil {
				names = append(names, n)
			}
		}
	} else {
		items, err := policy.SplitList(f.raw["policy"].value)
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
	// Every input is loaded once, for all the policies: a bad trace or
	// cluster is reported once, under its flag, not once per policy run.
	rv := runner.NewResolver(reg)
	scenarios := make([]*runner.Scenario, len(names))
	for i, name := range names {
		run := base
		run.Policy = name
		if scenarios[i], err = rv.Resolve(run); err != nil {
			return flagError(err)
		}
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

	outcomes := make([]*runner.Outcome, len(names))
	errs := make([]error, len(names))
	var mu sync.Mutex
	done := make([]int, len(names))
	// The sweep's pool, one worker per policy.
	runner.Each(cmd.Context(), len(names), len(names), func(i int) {
		var onRound func(d, t int)
		if prog != nil {
			onRound = func(d, t int) {
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
		outcomes[i], errs[i] = scenarios[i].Execute(cmd.Context(), onRound)
	})
	prog.finish()
	if err := cmd.Context().Err(); err != nil {
		return err
	}
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
	printSummaries(cmd.OutOrStdout(), outcomes, base.Timing == sim.Artifact && base.Trace == "philly" && !f.noReference && outcomes[0].Summary.Rounds == 2000 && base.Cluster == "paper-1280")
	if base.Timing == sim.Artifact && base.Trace == "pai" && !f.noReference && outcomes[0].Summary.Rounds == 500 && base.Cluster == "paper-1280" {
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

func printSummaries(w io.Writer, outcomes []*experiments.Outcome, withReference bool) {
	s0 := outcomes[0].Summary
	fmt.Fprintf(w, "trace %s (%d jobs, %d submitted in the window) on %s, %s timing, %d rounds of 300 s (%s)\n\n",
		s0.Trace, s0.JobsInTrace, s0.Submitted, s0.Cluster, s0.Timing, s0.Rounds, sim.Duration(s0.HorizonS))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "metric\t"
	for _, o := range outcomes {
		head += o.Summary.Policy + "\t"
		if withReference {
			head += "(artifact)\t"
		}
	}
	fmt.Fprintln(tw, head)
	type row struct {
		name string
		get  func(s *sim.Summary) string
		ref  func(r experiments.ReferenceRun) string
	}
	f0 := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	f1 := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	// JCT statistics over finished jobs are undefined when none finished.
	jct := func(get func(s *sim.Summary) float64) func(s *sim.Summary) string {
		return func(s *sim.Summary) string {
			if s.Finished == 0 {
				return "–"
			}
			return f0(get(s))
		}
	}
	rows := []row{
		{"jobs finished", func(s *sim.Summary) string { return fmt.Sprint(s.Finished) }, func(r experiments.ReferenceRun) string { return fmt.Sprint(len(r.JCT)) }},
		{"jobs running at end", func(s *sim.Summary) string { return fmt.Sprint(s.Running) }, nil},
		{"jobs pending at end", func(s *sim.Summary) string {
			if s.StuckPending > 0 {
				return fmt.Sprintf("%d ⚠", s.Pending)
			}
			return fmt.Sprint(s.Pending)
		}, nil},
		{"jobs dropped", func(s *sim.Summary) string { return fmt.Sprint(s.Dropped) }, nil},
		{"censored mean JCT (s)", func(s *sim.Summary) string { return f0(s.CensoredMeanJCT) }, nil},
		{"mean JCT, finished (s)", jct(func(s *sim.Summary) float64 { return s.MeanJCT }), func(r experiments.ReferenceRun) string { return f0(stat.Mean(r.JCT, nil)) }},
		{"artifact padded mean JCT (s)", jct(func(s *sim.Summary) float64 { return s.PaddedMeanJCT }), nil},
		{"median JCT (s)", jct(func(s *sim.Summary) float64 { return s.MedianJCT }), nil},
		{"p95 JCT (s)", jct(func(s *sim.Summary) float64 { return s.P95JCT }), nil},
		{"makespan (s)", func(s *sim.Summary) string {
			if s.MakespanLowerBound {
				return "≥ " + f0(s.Makespan)
			}
			return f0(s.Makespan)
		}, nil},
		// The stored lists cover every admitted job, except FCFS's, which
		// holds finished jobs only; each reference value sits in its row.
		{"mean queueing, admitted (s)", func(s *sim.Summary) string { return f0(s.MeanQueueing) }, func(r experiments.ReferenceRun) string {
			if len(r.Queueing) == len(r.JCT) {
				return ""
			}
			return f0(stat.Mean(r.Queueing, nil))
		}},
		{"mean queueing, finished (s)", func(s *sim.Summary) string { return f0(s.MeanQueueingFinished) }, func(r experiments.ReferenceRun) string {
			if len(r.Queueing) != len(r.JCT) {
				return ""
			}
			return f0(stat.Mean(r.Queueing, nil))
		}},
		{"mean throughput (samples/s)", func(s *sim.Summary) string { return f1(s.MeanThroughput) }, func(r experiments.ReferenceRun) string { return f1(stat.Mean(r.Thr, nil)) }},
		{"peak throughput (samples/s)", func(s *sim.Summary) string { return f1(s.PeakThroughput) }, func(r experiments.ReferenceRun) string { return f1(floats.Max(r.Thr)) }},
		{"reconfigurations", func(s *sim.Summary) string { return fmt.Sprint(s.Reconfigurations) }, nil},
		{"wall time (s)", func(s *sim.Summary) string { return fmt.Sprintf("%.2f", s.Wallclock.RunS) }, nil},
		{"decision p99 (ms)", func(s *sim.Summary) string { return fmt.Sprintf("%.2f", s.Wallclock.DecisionP99*1e3) }, nil},
	}
	if s0.UntilDone {
		// Each run ends when its jobs do: lengths (and the rounds the
		// throughput means average over) differ.
		rows = append([]row{{"rounds simulated (until done)", func(s *sim.Summary) string { return fmt.Sprint(s.Rounds) }, nil}}, rows...)
	}
	for _, r := range rows {
		line := r.name + "\t"
		for _, o := range outcomes {
			line += r.get(&o.Summary) + "\t"
			if withReference {
				ref, ok := experiments.Reference(o.Summary.Policy)
				if ok && r.ref != nil {
					line += r.ref(ref) + "\t"
				} else {
					line += "\t"
				}
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	printWarnings(w, outcomes)
	printArenaRatios(w, outcomes)
	if withReference {
		for _, o := range outcomes {
			if ref, err := experiments.ReferenceDigest(o.Summary.Trace, o.Summary.Policy); err == nil {
				if d, err := sim.CompareDigests(ref, o.Result.DigestCSV()); err == nil {
					fmt.Fprintf(w, "\n%s per-round digest vs the authors' run: %s", o.Summary.Policy, d)
				}
			}
		}
		fmt.Fprintln(w)
	}
}

// printWarnings notes runs whose figures need care: a queue left on an
// idle cluster (the policy may never place those jobs) and an until-done
// run stopped by its cap, and artifact-timing results the artifact could
// not have produced (an internal assertion of its was false).
func printWarnings(w io.Writer, outcomes []*experiments.Outcome) {
	for _, o := range outcomes {
		s := &o.Summary
		if s.StuckPending > 0 {
			fmt.Fprintf(w, "⚠ %s ends with %d pending jobs and nothing running: it may never place them; they count in the censored mean at their age, not in the mean over finished jobs\n", s.Policy, s.StuckPending)
		}
		if s.UntilDoneCapReached {
			fmt.Fprintf(w, "⚠ %s: --until-done stopped at the --max-rounds cap (%d rounds) with %d jobs unfinished\n", s.Policy, s.Rounds, s.Unfinished)
		}
		if a := s.ArtifactAssertionsFailed; a != nil && *a > 0 {
			fmt.Fprintf(w, "⚠ %s: an internal assertion of the artifact was false %s (skipped, as in exact timing): the artifact would have stopped on this workload, so these artifact-timing results are arena's, not the artifact's\n", s.Policy, times(*a))
		}
	}
}

// relative says how a is placed against b in words: "12.3% lower",
// "4.0% higher" or "equal".
func relative(a, b float64) string {
	switch {
	case a < b:
		return fmt.Sprintf("%.1f%% lower", 100*(b-a)/b)
	case a > b:
		return fmt.Sprintf("%.1f%% higher", 100*(a-b)/b)
	}
	return "equal"
}

// printArenaRatios states Arena's standing against each other policy: the
// censored mean JCT (independent of which runs are compared), the
// artifact's padded mean JCT (the paper's metric; it depends on the group)
// and the ratio of mean and peak throughput.
func printArenaRatios(w io.Writer, outcomes []*experiments.Outcome) {
	var arena *sim.Summary
	for _, o := range outcomes {
		if o.Summary.Policy == "arena" {
			arena = &o.Summary
		}
	}
	if arena == nil || len(outcomes) < 2 {
		return
	}
	fmt.Fprintln(w)
	for _, o := range outcomes {
		s := &o.Summary
		if s == arena || s.CensoredMeanJCT == 0 || s.MeanThroughput == 0 || s.PeakThroughput == 0 {
			continue
		}
		line := fmt.Sprintf("arena vs %s: censored mean JCT %s", s.Policy, relative(arena.CensoredMeanJCT, s.CensoredMeanJCT))
		if s.PaddedMeanJCT > 0 && arena.PaddedMeanJCT > 0 {
			line += fmt.Sprintf(" (artifact padded mean %s)", relative(arena.PaddedMeanJCT, s.PaddedMeanJCT))
		}
		fmt.Fprintf(w, "%s, mean throughput %.2fx, peak %.2fx\n", line, arena.MeanThroughput/s.MeanThroughput, arena.PeakThroughput/s.PeakThroughput)
	}
}

// times renders a count of occurrences: "once", "16 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
