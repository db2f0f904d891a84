package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/arena-sim/arena/experiments/report"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/fairness"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/sim/overheadprofile"
)

// simulateFlags are the command's flags: the run they describe, bound
// field by field through runner.Fields (raw values, applied and checked
// by simulateRun), and the flags that only say how to show it.
type simulateFlags struct {
	raw                map[string]*rawFlag // by flag name, the run's flags
	quiet, noReference bool
	out, baseline      string
	// fairness prints (and with --out writes) finish-time fairness and
	// per-tenant figures, each VC of the trace a tenant unless --tenants
	// (a run field, runner.Fields) names a tenants file; --tenants
	// implies it.
	fairness      bool
	progressEvery time.Duration
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
	return runner.Run{Trace: "philly", Cluster: "paper-1280", Timing: sim.Exact, Estimator: "profiledb", Overheads: overheadprofile.Default,
		Density: 1, OverheadScale: 1, Slowdown: 1, RelaxedSlowdown: 1, MaxRounds: runner.DefaultMaxRounds}
}

// bindRunFlags defines a flag for every field of runner.Fields that has
// one (only the fields keyed keys, when given), its default taken from
// def: 'arena simulate' binds them all, other commands the few they share
// with it (trace inspect: estimator, gpu_map).
func bindRunFlags(fl *pflag.FlagSet, def runner.Run, keys ...string) map[string]*rawFlag {
	raw := map[string]*rawFlag{}
	for i := range runner.Fields {
		f := &runner.Fields[i]
		if f.Flag == "" || len(keys) > 0 && !slices.Contains(keys, f.Key) {
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
	var fe *input.Error
	// A run's field error has no file (an error of a file a field names
	// keeps its file:line).
	if errors.As(err, &fe) && fe.File == "" {
		if f, ok := runner.FieldByKey(fe.Key()); ok && f.Flag != "" {
			return fmt.Errorf("--%s: %w", f.Flag, fe.Err)
		}
	}
	return err
}

func newSimulateCmd(reg *registry.Registry) *cobra.Command {
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
	fl.StringVar(&f.baseline, "baseline", "", "compare every policy with this one (JCT reduction and throughput ratio); default: the paper's form, arena against each")
	fl.BoolVar(&f.fairness, "fairness", false, "also report finish-time fairness (ρ), Jain's index and per-tenant JCT and GPU-hours, each virtual cluster of the trace a tenant (docs/tenants.md); with --out also DIR/<policy>/fairness.json")
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
	err := setRunFlags(cmd, f.raw, &run, "policy")
	return run, err
}

// setRunFlags applies the run flags of raw given on the command line to
// run through runner.Fields, in the table's order, but for the fields
// keyed skip; a bad value is an error naming its flag.
func setRunFlags(cmd *cobra.Command, raw map[string]*rawFlag, run *runner.Run, skip ...string) error {
	for i := range runner.Fields {
		fd := &runner.Fields[i]
		v, bound := raw[fd.Flag]
		if fd.Flag == "" || !bound || slices.Contains(skip, fd.Key) || !cmd.Flags().Changed(fd.Flag) {
			continue
		}
		if err := fd.Set(run, v.value); err != nil {
			return fmt.Errorf("--%s: %w", fd.Flag, err)
		}
	}
	return nil
}

func runSimulate(cmd *cobra.Command, reg *registry.Registry, f simulateFlags) error {
	base, err := simulateRun(cmd, f)
	if err != nil {
		return err
	}
	base.Policy = "fcfs" // checked per policy below
	if f.fairness && base.Tenants == "" {
		base.Tenants = runner.TenantsVCs
	}
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
	names, err := simulatePolicies(reg, &f)
	if err != nil {
		return err
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
		// Only the results files and the energy and fairness accounts
		// read the allocation records: without them, none are kept; with
		// the results files alone, they are encoded as the run goes
		// (runner.Scenario.StreamAllocations), none kept either.
		scenarios[i].Config.NoAllocations = f.out == "" && base.Tenants == "" && scenarios[i].Energy == nil
		if f.out != "" && base.Tenants == "" && scenarios[i].Energy == nil {
			scenarios[i].StreamAllocations = filepath.Join(f.out, sweep.PolicyDir(name))
			// With one policy, nothing but jobs.parquet reads the job
			// table either (two policies' comparison reads both): it is
			// encoded as the engine hands it over, never kept whole.
			scenarios[i].StreamJobs = len(names) == 1
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
	outcomes, errs, err := runScenarios(cmd, scenarios, names, f)
	if err != nil {
		for _, o := range outcomes {
			if o != nil {
				o.DiscardStreams() // the rows streamed, never to be written
			}
		}
		return err
	}
	// A policy that fails does not take the others' results with it: they
	// are printed and written, and the command ends with an error naming
	// each failed policy and why (exit status 1).
	var failed []string
	var ok []*runner.Outcome
	for i, err := range errs {
		if err == nil {
			ok = append(ok, outcomes[i])
			continue
		}
		// Name the policy unless the error already does (policy
		// construction and exec errors say "policy NAME: …").
		msg := err.Error()
		if !strings.Contains(msg, names[i]) {
			msg = names[i] + ": " + msg
		}
		failed = append(failed, clip(msg))
	}
	if len(ok) == 0 {
		if len(failed) == 1 {
			return errors.New(failed[0])
		}
		return fmt.Errorf("every policy failed:\n  %s", strings.Join(failed, "\n  "))
	}
	outcomes = ok
	if f.baseline != "" && !slices.ContainsFunc(ok, func(o *runner.Outcome) bool { return o.Summary.Policy == f.baseline }) {
		f.baseline = "" // it failed: the comparisons fall back to the paper's form
	}
	byPolicy := make(map[string]*runner.Scenario, len(names))
	for i, n := range names {
		byPolicy[n] = scenarios[i]
	}
	return reportSimulate(cmd, base, f, byPolicy, outcomes, failed, len(names))
}

// reportSimulate pads the runs' means together, writes each policy's
// results under --out, prints the side-by-side summary (beside the
// authors' stored results where they exist) and, when some policies
// failed, names them and why; the error is then theirs.
func reportSimulate(cmd *cobra.Command, base runner.Run, f simulateFlags, scenarios map[string]*runner.Scenario, outcomes []*runner.Outcome, failed []string, policies int) error {
	sums := make([]*sim.Summary, len(outcomes))
	jcts := make([][]float64, len(outcomes))
	for i, o := range outcomes {
		sums[i], jcts[i] = &o.Summary, o.Result.JCTs
	}
	sim.PadMeans(sums, jcts)
	var fair []*fairness.Report
	if base.Tenants != "" {
		fair = fairnessReports(outcomes)
	}
	if f.out != "" {
		if err := sweep.WritePolicyDirs(f.out, outcomes); err != nil {
			return err
		}
	}
	warnMissingTypes(cmd.ErrOrStderr(), outcomes[0])
	report.WriteRunTable(cmd.OutOrStdout(), outcomes, report.RunTableOptions{Baseline: f.baseline, NoReference: f.noReference})
	if fair != nil {
		if err := printFairness(cmd.OutOrStdout(), outcomes, fair); err != nil {
			return err
		}
	}
	if f.out != "" {
		written := "jobs.parquet, timeline.parquet, rounds.csv, summary.json"
		if fair != nil {
			written += ", " + strings.Join(fairness.FileNames, ", ")
		}
		if base.Energy != "" {
			written += ", " + strings.Join(energy.FileNames, ", ")
		}
		fmt.Fprintf(cmd.OutOrStdout(), "\nresults written to %s/<policy>/ (%s)\n", f.out, written)
	}
	if len(failed) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "\n⚠ %d of %d policies failed (their columns are missing above):\n", len(failed), policies)
		for _, m := range failed {
			fmt.Fprintf(cmd.OutOrStdout(), "  %s\n", m)
		}
		return fmt.Errorf("%d of %d policies failed: %s", len(failed), policies, strings.Join(failed, "; "))
	}
	return nil
}

// simulatePolicies returns the canonical policy strings --policy names (by
// default arena and fcfs, those registered), refusing a policy given
// twice, two whose results directories coincide, and a --baseline not
// among them (canonicalised in f).
func simulatePolicies(reg *registry.Registry, f *simulateFlags) ([]string, error) {
	var names []string
	if f.raw["policy"].value == "" {
		for _, n := range []string{"arena", "fcfs"} {
			if _, err := reg.Lookup(n); err == nil {
				names = append(names, n)
			}
		}
	} else {
		items, err := registry.SplitList(f.raw["policy"].value)
		if err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		for _, it := range items {
			ps, err := reg.Parse(it)
			if err != nil {
				return nil, fmt.Errorf("--policy: %w", err)
			}
			if n := ps.String(); slices.Contains(names, n) {
				return nil, fmt.Errorf("--policy: %s given twice", n)
			} else {
				names = append(names, n)
			}
		}
	}
	// Two policy strings whose results directories would be one (they
	// differ only in characters PolicyDir replaces) would overwrite each
	// other: refused before anything runs.
	if f.out != "" {
		dirs := map[string]string{}
		for _, n := range names {
			d := sweep.PolicyDir(n)
			if other, dup := dirs[d]; dup {
				return nil, fmt.Errorf("--policy: %s and %s would both write %s; give one of them different options or run them apart", other, n, filepath.Join(f.out, d))
			}
			dirs[d] = n
		}
	}
	if f.baseline != "" {
		if ps, err := reg.Parse(f.baseline); err == nil {
			f.baseline = ps.String()
		}
		if !slices.Contains(names, f.baseline) {
			return nil, fmt.Errorf("--baseline %s: not among the policies run (%s)", f.baseline, strings.Join(names, ", "))
		}
	}
	return names, nil
}

// runScenarios runs every policy's scenario on the sweep's pool (one
// worker per policy) with one progress display for all, and returns each
// one's outcome or error; the error is the interruption, if any.
// roundsProgress sums the rounds done and the lengths of several runs. A
// run's length is its own and grows while a draining run drains, so the
// total is the sum of each run's latest, never one run's times the count.
type roundsProgress struct{ done, total []int }

func newRoundsProgress(scenarios []*runner.Scenario) *roundsProgress {
	rp := &roundsProgress{done: make([]int, len(scenarios)), total: make([]int, len(scenarios))}
	for i, s := range scenarios {
		rp.total[i] = s.Config.Rounds
	}
	return rp
}

// set records run i at d rounds done of t, and returns the sums.
func (rp *roundsProgress) set(i, d, t int) (done, total int) {
	rp.done[i], rp.total[i] = d, max(t, d)
	for k := range rp.done {
		done, total = done+rp.done[k], total+rp.total[k]
	}
	return done, total
}

func runScenarios(cmd *cobra.Command, scenarios []*runner.Scenario, names []string, f simulateFlags) ([]*runner.Outcome, []error, error) {
	stderr := cmd.ErrOrStderr()
	prog := newProgress(stderr, chooseProgress(stderr, f.quiet, f.progressEvery), "simulate "+strings.Join(names, ","), "rounds", f.progressEvery)

	outcomes := make([]*runner.Outcome, len(names))
	errs := make([]error, len(names))
	var mu sync.Mutex
	rp := newRoundsProgress(scenarios)
	// The sweep's pool, one worker per policy.
	runner.Each(cmd.Context(), len(names), len(names), func(i int) {
		var onRound func(d, t int)
		if prog != nil {
			onRound = func(d, t int) {
				mu.Lock()
				defer mu.Unlock()
				prog.update(rp.set(i, d, t))
			}
		}
		outcomes[i], errs[i] = scenarios[i].Execute(cmd.Context(), onRound)
	})
	prog.finish()
	return outcomes, errs, cmd.Context().Err()
}

// warnMissingTypes points at --gpu-map when the trace asks for GPU types
// the cluster does not have (such jobs are infeasible as requested).
func warnMissingTypes(w io.Writer, o *runner.Outcome) {
	have := map[string]bool{}
	for _, t := range o.Cluster.Types {
		have[t] = true
	}
	missing := map[string]int{}
	for t, n := range o.RequestedTypes { // the job table's, kept or streamed
		if !have[t] {
			missing[t] += n
		}
	}
	if len(missing) == 0 {
		return
	}
	fmt.Fprintf(w, "note: %s jobs request GPU types cluster %s lacks (%s); map them with e.g. --gpu-map %s\n\n",
		fmt.Sprint(sumCounts(missing)), o.Cluster.Name, counts(missing), runner.SuggestGPUMap(missing, o.Cluster.Types))
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

func isTerminal(w io.Writer) bool {
	if os.Getenv("CI") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
