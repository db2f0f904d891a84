package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/traces"
	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/table"
)

func newTraceCmd(reg *registry.Registry) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Inspect job traces",
	}
	var rounds int
	var cluster, format string
	var keepNeverRan bool
	var model map[string]*rawFlag // --estimator and --gpu-map, simulate's
	inspect := &cobra.Command{
		Use:   "inspect TRACE...",
		Short: "Print a trace's jobs, span, arrivals, durations, GPU and type mix, offered GPU-hours and load",
		Long: `inspect reads any trace: a built-in one (` + strings.Join(importers.SourceNames(), ", ") + `), a canonical
table written by 'arena trace import' or 'arena trace synth' (CSV or Parquet, labelled
or not), an artifact-format CSV, or a raw public trace with --format. It prints the
number of jobs, the submission span, arrivals per hour, run-time percentiles, the
GPU-count, GPU-type, model and state mix, the offered GPU-hours (Σ run time × GPUs)
and the offered load on --cluster (offered GPU-hours over the cluster's GPU-hours
during the submission span; above 1 the cluster cannot keep up). A trace that
carries iterations instead of run times (the artifact's) gets run times estimated
on each job's best-locality plan, and says so.

--estimator and --gpu-map are simulate's: the figures are those of a run with
them (the GPU map rewrites the jobs' GPU types, the estimator prices their run
times), and the output names both. As simulate does, inspect refuses a runnable
trace on a cluster with GPU types the estimator cannot price.`,
		Example: `  arena trace inspect philly philly-pollux
  arena trace inspect pp.parquet --cluster testbed-64
  arena trace inspect philly --cluster h100-l20 --estimator analytic --gpu-map a100=h100,v100=h100,a40=l20,a10=l20
  arena trace inspect --format helios cluster_log.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := clusterspec.Load(cluster)
			if err != nil {
				return fmt.Errorf("--cluster: %w", err)
			}
			gpus := 0
			for _, p := range spec.Pools {
				gpus += p.Nodes * p.GPUsPerNode
			}
			pr, err := newInspectPricing(cmd, model)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for i, name := range args {
				opt := importers.Options{KeepNeverRan: keepNeverRan}
				tally := newImportTally(&opt)
				jobs, t, estimated, err := loadForInspect(name, format, opt, pr)
				if err != nil {
					return err
				}
				var missing map[string]int
				if t != nil {
					// As a run would be refused (runner.Resolve).
					if err := runner.CheckPriced(spec, pr.run.Estimator, pr.src, t.Jobs); err != nil {
						return fmt.Errorf("--estimator: %w", err)
					}
					missing = runner.MissingTypes(t.Jobs, runner.ClusterTypes(spec))
				}
				if i > 0 {
					fmt.Fprintln(w)
				}
				if len(tally.skipped)+len(tally.warned) > 0 {
					fmt.Fprintf(w, "reading %s:\n", name)
					tally.print(w, keepNeverRan)
				}
				s := traces.InspectTable(jobs)
				s.DurationsEstimated = estimated
				printTableStats(w, name, s, spec.Name, gpus, pr.describe(estimated))
				if len(missing) > 0 {
					fmt.Fprintf(w, "  warning: %d jobs request GPU types %s lacks (%s): a run cannot place them as requested; map them with --gpu-map, e.g. %s\n",
						sumCounts(missing), spec.Name, counts(missing), runner.SuggestGPUMap(missing, runner.ClusterTypes(spec)))
				}
				printTenantMix(w, jobs)
				if spec.Topology != nil {
					c, err := sim.NewCluster(spec)
					if err != nil {
						return fmt.Errorf("--cluster: %w", err)
					}
					printTraceTopology(w, c, jobs)
				}
				if t != nil {
					r := rounds
					if r == 0 {
						r = defaultRoundsFor(t)
					}
					printStats(w, t, traces.Inspect(t, r))
				}
			}
			return nil
		},
	}
	inspect.Flags().IntVar(&rounds, "rounds", 0, "window in 300-s rounds for the 'submitted in window' count (default: the trace's)")
	inspect.Flags().StringVar(&cluster, "cluster", "paper-1280", "cluster for the offered load: built-in ("+strings.Join(clusterspec.BuiltinNames(), ", ")+") or a YAML/JSON spec")
	inspect.Flags().StringVar(&format, "format", "", "read TRACE as this raw public format (see 'arena trace import --help')")
	inspect.Flags().BoolVar(&keepNeverRan, "keep-never-ran", false, "with --format: count jobs that never ran too (kept with their state, no run time)")
	model = bindRunFlags(inspect.Flags(), simulateDefaults(), "estimator", "gpu_map")
	cmd.AddCommand(inspect)
	cmd.AddCommand(newTraceTileCmd())
	cmd.AddCommand(newTraceImportCmd(), newTraceSynthCmd())
	return cmd
}

func defaultRoundsFor(t *traces.Trace) int {
	switch t.Name {
	case "philly":
		return 2000
	case "helios", "pai":
		return 500
	case "testbed":
		return 72
	}
	return 0
}

func printStats(w io.Writer, t *traces.Trace, s traces.Stats) {
	fmt.Fprintf(w, "engine-ready trace %s (first submission %.0f s)\n", t.Name, float64(s.First))
	fmt.Fprintf(w, "  iteration scale: ÷%d (%s)\n", t.IterationScale, t.ScaleSource)
	if s.Rounds > 0 {
		fmt.Fprintf(w, "  submitted within %d rounds of 300 s: %d\n", s.Rounds, s.InWindow)
	}
	fmt.Fprintf(w, "  iterations (trace, before the scale): min %d, median %d, max %d; with deadline: %d\n", s.MinIter, s.MedianIter, s.MaxIter, s.WithDeadline)
	fmt.Fprintf(w, "  GPUs requested: %s\n", countsInt(s.ByGPUs))
	fmt.Fprintf(w, "  GPU types:      %s\n", counts(s.ByType))
	fmt.Fprintf(w, "  families:       %s\n", counts(s.ByFamily))
	fmt.Fprintf(w, "  models:         %s\n", counts(s.ByModel))
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func countsInt(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// inspectPricing is how inspect prices a trace's jobs: as a run with
// the same --estimator and --gpu-map would (runner.SourceFor, the
// engine's view; the map rewrites the jobs' GPU types first).
type inspectPricing struct {
	run    runner.Run // Estimator and GPUMap as given
	src    estimator.Source
	gpuMap map[string]string
}

func newInspectPricing(cmd *cobra.Command, raw map[string]*rawFlag) (*inspectPricing, error) {
	pr := &inspectPricing{run: simulateDefaults()}
	if err := setRunFlags(cmd, raw, &pr.run); err != nil {
		return nil, err
	}
	var err error
	if pr.src, err = runner.SourceFor(pr.run.Estimator); err != nil {
		return nil, fmt.Errorf("--estimator: %w", err)
	}
	if pr.gpuMap, err = traces.ParseGPUMap(pr.run.GPUMap); err != nil {
		return nil, fmt.Errorf("--gpu-map: %w", err)
	}
	return pr, nil
}

// table is t's jobs as canonical rows, t's GPU types rewritten by the map
// and run times priced by the estimator.
func (pr *inspectPricing) table(t *traces.Trace) []table.Job {
	traces.RemapGPUs(t, pr.gpuMap)
	return traces.TableOf(t, pr.src.View(estimator.ViewOptimal))
}

// describe names the estimator and the GPU map behind the figures: the
// run times when they are estimated, the GPU types always.
func (pr *inspectPricing) describe(estimated bool) string {
	var parts []string
	if estimated {
		parts = append(parts, "run times priced by estimator "+pr.run.Estimator)
	} else {
		parts = append(parts, "run times as the trace records them (no estimator)")
	}
	if len(pr.gpuMap) > 0 {
		parts = append(parts, "GPU types rewritten by GPU map "+traces.FormatGPUMap(pr.gpuMap))
	} else {
		parts = append(parts, "no GPU map")
	}
	return strings.Join(parts, ", ")
}

// loadForInspect reads any trace inspect accepts as canonical rows; t is
// the engine-ready trace when the input is one (nil for an unlabelled
// table), and estimated says the rows' run times come from iterations,
// priced as pr prices them. pr's GPU map rewrites every row's GPU type.
func loadForInspect(name, format string, opt importers.Options, pr *inspectPricing) (jobs []table.Job, t *traces.Trace, estimated bool, err error) {
	jobs, t, estimated, err = readForInspect(name, format, opt, pr)
	if err == nil && !estimated {
		for i := range jobs {
			if to, ok := pr.gpuMap[jobs[i].GPUType]; ok {
				jobs[i].GPUType = to
			}
		}
		if t != nil {
			traces.RemapGPUs(t, pr.gpuMap)
		}
	}
	return jobs, t, estimated, err
}

func readForInspect(name, format string, opt importers.Options, pr *inspectPricing) (jobs []table.Job, t *traces.Trace, estimated bool, err error) {
	if format != "" {
		jobs, err = importers.Open(name, format, opt)
		if err != nil {
			return nil, nil, false, err
		}
		if tt, ferr := traces.FromTable(name, name, jobs); ferr == nil {
			t = tt
			if !slices.ContainsFunc(jobs, func(j table.Job) bool { return j.HasDuration() }) {
				// Iterations only (the arena and gavel formats): estimate.
				return pr.table(t), t, true, nil
			}
		}
		return jobs, t, false, nil
	}
	if _, serr := os.Stat(name); serr != nil && !slices.Contains(importers.SourceNames(), name) {
		return nil, nil, false, fmt.Errorf("%q is neither a built-in trace (%s) nor a file: %w", name, strings.Join(importers.SourceNames(), ", "), serr)
	}
	t, err = traces.Load(name)
	if err == nil {
		return pr.table(t), t, true, nil
	}
	// An unlabelled canonical table (imported, or synthesised without a
	// recipe) or a public built-in source: not runnable, but inspectable.
	if errors.Is(err, traces.ErrNotRunnable) || slices.Contains(importers.SourceNames(), name) {
		jobs, err = importers.Open(name, "", opt)
		return jobs, nil, false, err
	}
	return nil, nil, false, err
}

// printTableStats prints what every table has: size, span, arrivals, run
// times, GPU demand and offered work, and the offered load on a cluster.
func printTableStats(w io.Writer, name string, s traces.TableStats, cluster string, clusterGPUs int, pricing string) {
	zone := ""
	if s.Zone != "" {
		zone = ", local zone " + s.Zone
	}
	fmt.Fprintf(w, "trace %s: %d jobs submitted over %s (%.1f h%s)\n", name, s.Jobs, sim.Duration(s.Last-s.First), s.SpanHours(), zone)
	if s.SpanHours() > 0 {
		rate := strconv.FormatFloat(s.ArrivalsPerHour, 'f', 1, 64)
		if s.ArrivalsPerHour < 1 {
			rate = strconv.FormatFloat(s.ArrivalsPerHour, 'g', 2, 64) // a sparse trace keeps its digits
		}
		fmt.Fprintf(w, "  arrivals per hour: mean %s, busiest hour %d, hours without an arrival %.0f %%\n", rate, s.PeakHour, 100*s.IdleHours)
	}
	how := "the trace's"
	if s.DurationsEstimated {
		how = "estimated: iterations ÷ scale × best-locality iteration time, no overheads"
	}
	fmt.Fprintf(w, "  priced as a run: %s\n", pricing)
	if s.WithDuration == 0 {
		fmt.Fprintf(w, "  run time: none of the jobs has one\n")
	} else {
		fmt.Fprintf(w, "  run time (%s): p10 %s, p50 %s, p90 %s, p99 %s, max %s, mean %s\n", how,
			sim.Duration(s.DurationP[0]), sim.Duration(s.DurationP[1]), sim.Duration(s.DurationP[2]), sim.Duration(s.DurationP[3]), sim.Duration(s.DurationP[4]), sim.Duration(s.MeanDuration))
		if s.WithDuration < s.Jobs || s.Censored > 0 {
			fmt.Fprintf(w, "    %d jobs without a run time (left out of the percentiles and GPU-hours); %d censored (still running at the trace's end: a lower bound)\n", s.Jobs-s.WithDuration, s.Censored)
		}
	}
	fmt.Fprintf(w, "  GPUs per job:   %s (max %s)\n", gpuMix(s.ByGPUs, s.Jobs), fmtGPUs(s.MaxGPUs))
	fmt.Fprintf(w, "  GPU types:      %s\n", share(s.ByType, s.Jobs, "any"))
	fmt.Fprintf(w, "  models:         %s\n", share(s.ByModel, s.Jobs, "unlabelled"))
	if len(s.ByStatus) > 1 || s.ByStatus[""] == 0 {
		fmt.Fprintf(w, "  final states:   %s\n", share(s.ByStatus, s.Jobs, "none"))
	}
	if s.ByOutcome[""] < s.Jobs {
		fmt.Fprintf(w, "  outcomes:       %s (the job's own end; docs/faults.md)\n", share(s.ByOutcome, s.Jobs, "passed or unknown"))
	}
	fmt.Fprintf(w, "  offered work:   %.0f GPU-hours\n", s.GPUHours)
	if l := s.OfferedLoad(clusterGPUs); l > 0 {
		verdict := "the cluster can keep up on average"
		if l > 1 {
			verdict = "more than the cluster can serve: queues grow"
		}
		fmt.Fprintf(w, "  offered load on %s (%d GPUs): %.2f (%s)\n", cluster, clusterGPUs, l, verdict)
	}
	if s.MaxGPUs > float64(clusterGPUs) {
		fmt.Fprintf(w, "  warning: jobs ask for up to %s GPUs; %s has %d\n", fmtGPUs(s.MaxGPUs), cluster, clusterGPUs)
	}
}

func fmtGPUs(g float64) string { return strconv.FormatFloat(g, 'f', -1, 64) }

// gpuMix renders "1: 76,440 (92.9 %), 2: …" in GPU-count order, the
// rarest counts after the ten most common folded into "other".
func gpuMix(m map[float64]int, n int) string {
	keys := make([]float64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	if len(keys) > 10 {
		byCount := slices.Clone(keys)
		sort.SliceStable(byCount, func(a, b int) bool { return m[byCount[a]] > m[byCount[b]] })
		keep := map[float64]bool{}
		for _, k := range byCount[:10] {
			keep[k] = true
		}
		other := 0
		var kept []float64
		for _, k := range keys {
			if keep[k] {
				kept = append(kept, k)
			} else {
				other += m[k]
			}
		}
		parts := mixParts(kept, m, n)
		return strings.Join(parts, ", ") + fmt.Sprintf(", other %d (%s)", other, pct(other, n))
	}
	return strings.Join(mixParts(keys, m, n), ", ")
}

func mixParts(keys []float64, m map[float64]int, n int) []string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d (%s)", fmtGPUs(k), m[k], pct(m[k], n))
	}
	return parts
}

func pct(k, n int) string {
	if n == 0 {
		return "0 %"
	}
	p := 100 * float64(k) / float64(n)
	if p < 0.1 && k > 0 {
		return "<0.1 %"
	}
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', 1, 64) + " %"
}

// share renders "name count (pct), …", most common first, "" shown as
// blank, the rest after twelve folded into "N more".
func share(m map[string]int, n int, blank string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-12))
			break
		}
		label := k
		if label == "" {
			label = "(" + blank + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s)", label, m[k], pct(m[k], n)))
	}
	return strings.Join(parts, ", ")
}
