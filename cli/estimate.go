package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/input"
)

type estimateFlags struct {
	model, gpu, params, cluster string
	batch, gpus, nodes          int
	validate                    bool
}

func newEstimateCmd(reg *registry.Registry) *cobra.Command {
	var f estimateFlags
	cmd := &cobra.Command{
		Use:   "estimate",
		Short: "Plan one job with the analytic performance model, or validate the model",
		Long: `estimate runs the calibrated analytic model (docs/perf-model.md) on one job:
for every uniform locality of the GPU count (or the one given by --nodes) it
lists the job's grids (GPU type × nodes × GPUs per node × pipeline stages)
with the exhaustive search's best plan and the pruned (Pareto) search's proxy
plan, then prints the best plan's iteration time, memory and breakdown, the
profile database's value for the configuration when it has one, and the
profiling cost of the job's grids.

With --validate it refits the model, cross-validates it against the profile
database (leave-one-out), compares it with Megatron-LM's A100 and Alpa's V100
tables, measures
the pruned search against the exhaustive one over the database's models on
1-16 GPUs, and reports the profiling-cost reduction (a few minutes).`,
		Example: `  arena estimate --model gpt-6.7b --batch 256 --gpu a100 --gpus 8
  arena estimate --model gpt-6.7b --batch 256 --gpu a100 --gpus 8 --nodes 2
  arena estimate --model gpt-175b --batch 512 --gpu h100 --gpus 64
  arena estimate --model gpt-6.7b --batch 256 --gpu h100 --gpus 16 --cluster h100-racks
  arena estimate --validate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.validate {
				v, err := analytic.Validate(cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				v.Print(cmd.OutOrStdout())
				return nil
			}
			return runEstimate(cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "gpt-6.7b", "model: <family>-<size> (gpt, moe, wresnet; sizes of the catalog plus gpt-76b, gpt-145b, gpt-175b, moe-140b)")
	fl.IntVar(&f.batch, "batch", 256, "global batch size")
	fl.StringVar(&f.gpu, "gpu", "a100", "GPU type: "+strings.Join(estimator.GPUNames(), ", "))
	fl.IntVar(&f.gpus, "gpus", 8, "number of GPUs")
	fl.IntVar(&f.nodes, "nodes", 0, "number of nodes (0 = every uniform locality)")
	fl.StringVar(&f.params, "params", "", "fitted-parameter JSON (default: the embedded estimator/data/analytic_params.json)")
	fl.BoolVar(&f.validate, "validate", false, "refit and print the validation tables instead")
	fl.StringVar(&f.cluster, "cluster", "", "also show where the job's traffic goes on this cluster's topology, packed alone: built-in ("+strings.Join(clusterspec.BuiltinNames(), ", ")+") or a YAML spec with a topology")
	return cmd
}

func runEstimate(w io.Writer, f estimateFlags) error {
	m, err := analytic.ParseModel(f.model)
	if err != nil {
		return err
	}
	gpu, err := estimator.LookupGPU(f.gpu)
	if err != nil {
		return err
	}
	if f.gpus <= 0 || f.batch <= 0 {
		return fmt.Errorf("--gpus and --batch must be positive (got %d, %d)", f.gpus, f.batch)
	}
	params, err := analytic.DefaultParams()
	if f.params != "" {
		var data []byte
		if data, err = input.ReadFile(f.params); err == nil {
			params, err = analytic.ParseParams(data)
		}
	}
	if err != nil {
		return err
	}
	wl := estimator.Workload{Model: m, Batch: f.batch}
	job, err := analytic.JobFor(wl)
	if err != nil {
		return err
	}
	var configs []estimator.Config
	for nodes := 1; nodes <= f.gpus; nodes++ {
		if f.gpus%nodes != 0 || (f.nodes > 0 && nodes != f.nodes) {
			continue
		}
		per := f.gpus / nodes
		// An explicit --nodes may exceed the catalog's node size (e.g. the
		// AE testbed's 4 A40 in one box); otherwise list what fits.
		if per > gpu.GPUsPerNode && f.nodes == 0 {
			continue
		}
		configs = append(configs, estimator.Config{GPU: gpu.Name, Nodes: nodes, PerNode: per})
	}
	if len(configs) == 0 {
		return fmt.Errorf("no uniform locality of %d %s GPUs (node size %d) with --nodes %d", f.gpus, gpu.Name, gpu.GPUsPerNode, f.nodes)
	}
	a := job.Arch
	fmt.Fprintf(w, "%s, batch %d: %.3g parameters, %.3g GFLOPs forward per sample (%s)\n", m.Name(), f.batch, a.Params(), a.FwdFLOPs()/1e9, a.Spec)
	fmt.Fprintf(w, "%s: %.0f GB (%.0f%% usable), %.1f peak TFLOPS, %.0f / %.2f GB/s intra / inter-node per GPU, %d GPUs per node\n\n",
		gpu.Name, gpu.MemoryGB, 80.0, gpu.PeakTFLOPS, gpu.IntraNodeGBs, gpu.InterNodeGBs, gpu.GPUsPerNode)

	pl := analytic.Planner{Params: params}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		return err
	}
	if analytic.UsesSearch3D(job, estimator.BestLocality(gpu.Name, f.gpus, gpu.GPUsPerNode)) {
		return estimate3D(w, pl, db, wl, job, gpu, f)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var best analytic.Choice
	var bestCfg estimator.Config
	bestT := 0.0
	for _, c := range configs {
		rep := pl.Search(job, c)
		fmt.Fprintf(w, "Grids on %s (%d nodes × %d GPUs)\n", c, c.Nodes, c.PerNode)
		fmt.Fprintln(tw, "grid\tplans\texhaustive best (s)\tplan\tproxy plan (s)\tproxy plan\tPareto evals\t")
		for _, g := range rep.Grids {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", g.Grid, g.Plans, secs(g.Exhaustive), planText(g.Exhaustive), secs(g.Proxy), planText(g.Proxy), g.ParetoEvaluations)
		}
		tw.Flush()
		share := 0.0
		if rep.Plans > 0 {
			share = 100 * float64(rep.Evaluated) / float64(rep.Plans)
		}
		fmt.Fprintf(w, "best: exhaustive %s s, proxy of the best grid %s s, best Pareto plan %s s; pruned search evaluated %d of %d plans (%.1f%%)\n",
			secs(rep.Exhaustive), secs(rep.Proxy), secs(rep.PrunedBest), rep.Evaluated, rep.Plans, share)
		if t, ok := db.Has(wl, c); ok {
			fmt.Fprintf(w, "profile database: %s\n", dbText(t))
		} else if e := db.Estimate(wl, c, estimator.ViewOptimal); e.Feasible() {
			fmt.Fprintf(w, "profile database: no exact entry (fallback %s: %.3f s)\n", fallbackText(e), e.IterTime)
		} else {
			fmt.Fprintf(w, "profile database: no entry (%s)\n", e.Reason)
		}
		fmt.Fprintln(w)
		if rep.Exhaustive.Found() && (bestT == 0 || rep.Exhaustive.Result.IterTime < bestT) {
			best, bestCfg, bestT = rep.Exhaustive, c, rep.Exhaustive.Result.IterTime
		}
	}
	if bestT == 0 {
		fmt.Fprintf(w, "no plan fits in memory on %d %s GPUs\n", f.gpus, gpu.Name)
		return nil
	}
	r := best.Result
	fmt.Fprintf(w, "Best plan: %s on grid %s\n", best.Plan, best.Grid)
	fmt.Fprintf(w, "  iteration time %.3f s, throughput %.2f samples/s\n", r.IterTime, float64(f.batch)/r.IterTime)
	fmt.Fprintf(w, "  peak memory %.1f GB per GPU of %.1f GB usable\n", r.PeakMemory/1e9, 0.8*gpu.MemoryGB)
	fmt.Fprintf(w, "  breakdown: compute %.3f s, tensor/expert collectives %.3f s, pipeline p2p %.3f s, bubble %.3f s, data-parallel all-reduce %.3f s, optimizer %.3f s\n",
		r.Compute, r.TPComm, r.PipeComm, r.Bubble, r.DPComm, r.Optimizer)
	if f.cluster != "" {
		if err := estimateTraffic(w, f, wl, best, bestCfg); err != nil {
			return err
		}
	}
	if pc, err := pl.ProfilingCostOf(wl, []estimator.Config{bestCfg}); err == nil {
		fmt.Fprintf(w, "Profiling %s's grids on %s: direct measurement %.0f GPU·s (%d plans), disaggregated %.0f GPU·s (%d stage programs on one GPU): %.1f× less\n",
			m.Name(), bestCfg, pc.DirectGPUSeconds, pc.Plans, pc.DisaggregatedGPUSeconds, pc.StagePrograms, pc.Reduction())
	}
	return nil
}

// estimate3D is estimate where the exhaustive space is too large
// (analytic.UsesSearch3D): the bounded 3D search
// (analytic.Search3D) on the most compact locality (or --nodes), the plan
// simulations use there, instead of every locality's exhaustive search.
func estimate3D(w io.Writer, pl analytic.Planner, db *estimator.ProfileDB, wl estimator.Workload, job analytic.Job, gpu estimator.GPUType, f estimateFlags) error {
	c := estimator.BestLocality(gpu.Name, f.gpus, gpu.GPUsPerNode)
	if f.nodes > 0 {
		c = estimator.Config{GPU: gpu.Name, Nodes: f.nodes, PerNode: f.gpus / f.nodes}
	}
	ch := pl.Search3D(job, c)
	cut := ""
	if ch.Cut {
		cut = " (stopped at the bound)"
	}
	fmt.Fprintf(w, "Bounded 3D search on %s (%d nodes × %d GPUs): tensor parallelism inside a node, pipeline and data parallelism across; %d of at most %d steps%s\n",
		c, c.Nodes, c.PerNode, ch.Evaluated, analytic.MaxPlanSteps, cut)
	if e := db.Estimate(wl, c, estimator.ViewOptimal); e.Feasible() {
		fmt.Fprintf(w, "profile database: %.3f s\n", e.IterTime)
	} else {
		fmt.Fprintf(w, "profile database: no entry (%s); --estimator hybrid or analytic prices it\n", e.Reason)
	}
	if !ch.Found() {
		fmt.Fprintf(w, "no plan fits in memory on %s\n", c)
		return nil
	}
	r := ch.Result
	fmt.Fprintf(w, "\nBest plan: %s on grid %s\n", ch.Plan, ch.Grid)
	fmt.Fprintf(w, "  iteration time %.3f s, throughput %.2f samples/s\n", r.IterTime, float64(f.batch)/r.IterTime)
	fmt.Fprintf(w, "  peak memory %.1f GB per GPU of %.1f GB usable\n", r.PeakMemory/1e9, 0.8*gpu.MemoryGB)
	fmt.Fprintf(w, "  breakdown: compute %.3f s, tensor/expert collectives %.3f s, pipeline p2p %.3f s, bubble %.3f s, data-parallel all-reduce %.3f s, optimizer %.3f s\n",
		r.Compute, r.TPComm, r.PipeComm, r.Bubble, r.DPComm, r.Optimizer)
	if f.cluster != "" {
		return estimateTraffic(w, f, wl, ch, c)
	}
	return nil
}

func secs(c analytic.Choice) string {
	if !c.Found() {
		return "OOM"
	}
	return fmt.Sprintf("%.3f", c.Result.IterTime)
}

func planText(c analytic.Choice) string {
	if !c.Found() {
		return "-"
	}
	p := c.Plan
	return fmt.Sprintf("dp%d tp%d m%d cuts%v", p.Shape.DP, p.Shape.TP, p.Micro, p.Cuts)
}

func dbText(t float64) string {
	if t < 0 {
		return "measured out of memory"
	}
	return fmt.Sprintf("%.3f s measured", t)
}

func fallbackText(e estimator.Estimate) string {
	switch e.Fallback {
	case estimator.RelaxedLocality:
		return fmt.Sprintf("best locality ×0.9^%d", e.Steps)
	case estimator.LargerSize:
		return fmt.Sprintf("larger size ×1.8^%d", e.Steps)
	}
	return "exact"
}

// estimateTraffic prints where the job's traffic goes on --cluster's
// topology, packed alone at best locality.
func estimateTraffic(w io.Writer, f estimateFlags, wl estimator.Workload, best analytic.Choice, cfg estimator.Config) error {
	spec, err := clusterspec.Load(f.cluster)
	if err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	if c.Topology() == nil {
		fmt.Fprintf(w, "Traffic on %s: the cluster has no topology (docs/topology.md): two link tiers, inside a node and between nodes\n", c.Name)
		return nil
	}
	if c.TotalGPUs(f.gpu) == 0 {
		return fmt.Errorf("--cluster: %s has no %s GPUs", c.Name, f.gpu)
	}
	fmt.Fprintf(w, "Traffic on %s (%s):\n", c.Name, describeTopology(c))
	share := -1.0
	if src, err := analytic.DefaultSource(); err == nil && f.params == "" {
		share = src.NetworkShare(wl, placement.Best(c, f.gpu, f.gpus))
	}
	printTraffic(w, c, f.gpu, f.gpus, share, "  ")
	return nil
}
