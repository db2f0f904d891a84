//go:build unix

package regress_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/synth"
	"github.com/arena-sim/arena/traces/table"
)

// scaleJobsPolicies are the policies BenchmarkScalingJobs measures
// (ARENA_SCALE_POLICIES overrides, as for BenchmarkScaling).
var scaleJobsPolicies = []string{"fcfs", "tiresias", "srtf", "gavel", "sia", "elasticflow-ls", "arena"}

// scaleJobsSizes are its workloads' job counts (ARENA_SCALE_JOBS
// overrides, comma-separated).
var scaleJobsSizes = []int{100_000, 250_000, 1_000_000}

// scaleJobsRounds is the length of every run of BenchmarkScalingJobs.
const scaleJobsRounds = 4000

// BenchmarkScalingJobs is issue 38's table: per policy, one run per size
// N of scaleJobsSizes: N jobs synthesised from philly-pollux with the
// arena recipe (seed 1) arriving as a Poisson process that brings all N
// within the run's 4,000 rounds of 300 s (N / 333.3 jobs per hour), on
// paper-1280 with every pool's nodes × N/12,500 (10,240 GPUs for 100k
// jobs, 102,400 for 1M), exact timing. Jobs and GPUs grow together, so
// exp is the exponent of CPU time against jobs at a fixed load per GPU
// (and against GPUs: BenchmarkScaling's gpus axis holds the trace fixed).
// Reported per size: CPU seconds (user + system, process), wall seconds,
// peak Go memory (runtime/metrics: mapped less released, sampled every
// 20 ms, after returning the previous run's pages: the bulk of the RSS),
// and engine events (arrivals, completions, rounds) per CPU second.
// A run is stopped at the wall-clock budget (ARENA_SCALE_BUDGET, default
// 5m); its cost is then a lower bound, and so is the exponent
// (exp-at-least). The run loads its trace like `arena simulate` does;
// results are not written. `make bench-scale` runs it after
// BenchmarkScaling.
func BenchmarkScalingJobs(b *testing.B) {
	if os.Getenv("ARENA_BENCH_SCALE") == "" {
		b.Skip("minutes to hours; run with make bench-scale (ARENA_BENCH_SCALE=1)")
	}
	pols, sizes := scalePolicyList(scaleJobsPolicies), scaleJobCounts(b, scaleJobsSizes, 12_500)
	budget := scaleBudget(b)
	// The arena command's collector pace and memory limit (cli.Main), so
	// that memory and CPU are the command's.
	defer debug.SetGCPercent(debug.SetGCPercent(sim.GCPercent))
	defer debug.SetMemoryLimit(math.MaxInt64) // after the pacing stops
	defer sim.PaceMemory()()
	dir := b.TempDir()
	src, err := importers.Open("philly-pollux", "", importers.Options{})
	if err != nil {
		b.Fatal(err)
	}
	base, err := clusterspec.Load("paper-1280")
	if err != nil {
		b.Fatal(err)
	}
	tracePath := func(n int) string {
		hours := float64(scaleJobsRounds) * 300 / 3600
		return synthTrace(b, filepath.Join(dir, fmt.Sprintf("synth-%d.csv", n)), src,
			synth.Options{Seed: 1, Jobs: n, Rate: float64(n) / hours, Recipe: "arena"})
	}
	clusterPath := func(n int) string { return scaledCluster(b, dir, base, n/12_500) }
	reg := policy.NewRegistry()
	for _, pol := range pols {
		b.Run(pol, func(b *testing.B) {
			var xs, cpu, wall, mem, eps []float64
			cut := false
			for b.Loop() {
				xs, cpu, wall, mem, eps = xs[:0], cpu[:0], wall[:0], mem[:0], eps[:0]
				for _, n := range sizes {
					run := runner.Run{Policy: pol, Timing: sim.Exact, Rounds: scaleJobsRounds,
						Trace: tracePath(n), Cluster: clusterPath(n)}
					runtime.GC()
					peak := watchMemory()
					c0, w0 := cpuSeconds(), time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), budget)
					// As `arena simulate` without --out: no allocation
					// records kept (nothing reads them).
					out, err := executeNoAllocations(ctx, reg, run)
					cancel()
					c, w := cpuSeconds()-c0, time.Since(w0).Seconds()
					m := peak()
					events := 0
					if errors.Is(err, context.DeadlineExceeded) {
						cut = true
					} else if err != nil {
						b.Fatal(err)
					} else {
						events = out.Result.Events
					}
					xs, cpu, wall = append(xs, float64(n)), append(cpu, c), append(wall, w)
					mem, eps = append(mem, m/(1<<20)), append(eps, float64(events)/c)
				}
			}
			reportSizes(b, cut, sizes, xs, cpu, wall, mem)
			for i, n := range sizes {
				b.ReportMetric(eps[i], fmt.Sprintf("events/cpu-s@%dk", n/1000))
				if i > 0 && len(sizes) > 2 {
					b.ReportMetric(slope(xs[i-1:i+1], cpu[i-1:i+1]), fmt.Sprintf("exp@%dk-%dk", sizes[i-1]/1000, n/1000))
				}
			}
		})
	}
}

// reportSizes reports what both scaling benchmarks report per policy: the
// exponent of CPU time against jobs (a lower bound, exp-at-least, when a
// run was cut at the budget) and each size's CPU and wall seconds and peak
// memory.
func reportSizes(b *testing.B, cut bool, sizes []int, xs, cpu, wall, mem []float64) {
	if cut {
		b.ReportMetric(slope(xs, cpu), "exp-at-least")
	} else {
		b.ReportMetric(slope(xs, cpu), "exp")
	}
	for i, n := range sizes {
		k := fmt.Sprintf("%dk", n/1000)
		b.ReportMetric(cpu[i], "cpu-s@"+k)
		b.ReportMetric(wall[i], "wall-s@"+k)
		b.ReportMetric(mem[i], "peak-MiB@"+k)
	}
}

// watchMemory returns the pages the Go runtime holds to the OS, and
// samples them until the returned function is called, which returns the
// largest sample (bytes): the memory mapped less what was released.
func watchMemory() func() float64 {
	debug.FreeOSMemory() // the previous run's pages go back to the OS
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	read := func() float64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
			return math.NaN()
		}
		return float64(sample[0].Value.Uint64() - sample[1].Value.Uint64())
	}
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() float64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return max(peak, read())
	}
}

// synthTrace is the path p of the trace synth.Run draws from src with o,
// written there the first time (the benchmarks' traces are made once per
// size and shared by every policy).
func synthTrace(b *testing.B, p string, src []table.Job, o synth.Options) string {
	if _, err := os.Stat(p); err == nil {
		return p
	}
	jobs, err := synth.Run(src, o)
	if err != nil {
		b.Fatal(err)
	}
	if err := table.WriteFile(p, jobs); err != nil {
		b.Fatal(err)
	}
	return p
}

// executeNoAllocations is runner.Execute with sim.Config.NoAllocations, as
// the simulate command runs without results files, energy or tenants.
func executeNoAllocations(ctx context.Context, reg runner.Policies, run runner.Run) (*runner.Outcome, error) {
	s, err := runner.Resolve(reg, run)
	if err != nil {
		return nil, err
	}
	s.Config.NoAllocations = true
	return s.Execute(ctx, nil)
}
