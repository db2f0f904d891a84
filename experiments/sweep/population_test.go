package sweep

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// popSpec: arena and fcfs on a synthesised workload, three seeds, each a
// fresh draw of 40 jobs, over a fixed 20 rounds (this test is about N, not
// draining: a drained run of this window reaches its cap, and comparisons
// with it are inconclusive).
const popSpec = `name: pop
synth:
  from: philly-pollux
  window: 2+8
  sample: 40
  recipe: arena
  iteration-scale: 1
clusters: [testbed-64]
policies: [arena, fcfs]
timing: exact
rounds: 20
drain: false
seeds: [1, 2, 3]
`

// A partial merge with fcfs's seed 3 missing: the header names the three
// seeds the cell has and what they are draws of; fcfs's row is over 2
// seeds and says so, and so does its comparison with arena (the seeds
// both have). Every policy of a seed records the same workload_hash,
// and the seeds' hashes differ (each is a new draw); summary.parquet has
// the column.
func TestPartialMergeNamesPopulationAndN(t *testing.T) {
	s, err := ParseSpec("pop.yaml", "", []byte(popSpec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	var gone string
	for _, r := range plan.Runs {
		if r.Run.Policy == "fcfs" && r.Run.Seed == 3 {
			gone = r.Key
		}
	}
	if err := os.RemoveAll(RunDir(out, gone)); err != nil {
		t.Fatal(err)
	}
	if _, err := MergeSweep(plan, MergeOptions{Out: out}); err == nil {
		t.Fatal("merge without --partial accepted a missing run")
	}
	rows := merge(t, plan, MergeOptions{Out: out, Partial: true})
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	hashes := map[int64]string{}
	for _, r := range rows {
		if r.WorkloadHash == "" || r.InputHash == r.WorkloadHash {
			t.Fatalf("%s: workload_hash %q (input_hash %q)", r.Key, r.WorkloadHash, r.InputHash)
		}
		if h, ok := hashes[r.Seed]; ok && h != r.WorkloadHash {
			t.Errorf("seed %d: arena and fcfs record different workload hashes", r.Seed)
		}
		hashes[r.Seed] = r.WorkloadHash
	}
	if len(hashes) != 3 || hashes[1] == hashes[2] || hashes[2] == hashes[3] {
		t.Errorf("workload hashes by seed %v: want three different draws", hashes)
	}
	read, err := ReadSummaryParquet(filepath.Join(out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	if read.Cell(0, "workload_hash") != rows[0].WorkloadHash {
		t.Errorf("summary.parquet workload_hash %q, want %q", read.Cell(0, "workload_hash"), rows[0].WorkloadHash)
	}
	var f *SummaryRow
	for i := range rows {
		if rows[i].Policy == "fcfs" {
			f = &rows[i]
		}
	}
	if iv, _ := f.Cmp("jct_reduction"); f.Seeds != 2 || iv.N != 2 {
		t.Errorf("fcfs: %d seeds, comparison over %d; want 2 and 2", f.Seeds, iv.N)
	}
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{
		"95 % t-interval over 3 seeds (draws of 40 jobs from philly-pollux window 2+8 h; each seed also redraws: recipe arena's labels)",
		"fcfs ⚠ n=2", "] n=2 ",
		"2 comparisons at 95 % each",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("seed table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "arena n=") {
		t.Errorf("arena has every seed but shows its own n:\n%s", table)
	}
}

// Runs of one seed whose workload hashes differ ran different jobs: the
// comparison leaves that seed out (its N drops to 1, no interval), lists
// it in Unpaired, and the table flags it. Hashes absent (older results)
// pair by seed as before.
func TestDifferentWorkloadsAreNotPaired(t *testing.T) {
	rows := seedRows()[:4]
	for i := range rows {
		rows[i].WorkloadHash = "w" + string(rune('0'+rows[i].Seed))
	}
	rows[3].WorkloadHash = "other" // fcfs, seed 1
	addSeedStats(rows)
	f := rows[1]
	iv, _ := f.Cmp("jct_reduction")
	if iv.N != 1 || iv.Mean != 0.5 || len(f.Unpaired) != 1 || f.Unpaired[0] != 1 {
		t.Errorf("fcfs comparison over %d seeds, mean %g, unpaired %v; want 1 seed (seed 0: 1 − 50/100), seed 1 unpaired", iv.N, iv.Mean, f.Unpaired)
	}
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "⚠ not paired: arena vs fcfs: seed 1 left out") {
		t.Errorf("table does not flag the unpaired seed:\n%s", b.String())
	}
	rows = seedRows()[:4]
	addSeedStats(rows)
	if iv, _ := rows[1].Cmp("jct_reduction"); iv.N != 2 || rows[1].Unpaired != nil {
		t.Errorf("without hashes: comparison over %d seeds, unpaired %v; want 2, none", iv.N, rows[1].Unpaired)
	}
}

// Hand-worked: the paired throughput ratio is the geometric mean of the
// per-seed ratios. arena 10 and 12 against fcfs 5 and 24: ratios 2 and
// 1/2, geometric mean 1 (the arithmetic mean, 1.25, would call arena 25 %
// faster when it is twice as fast on one draw and half as fast on the
// other), p-value 1 (mean log ratio exactly 0).
func TestThroughputRatioOnLogScale(t *testing.T) {
	rows := seedRows()[:4]
	rows[3].MeanThroughput = 24
	addSeedStats(rows)
	iv, _ := rows[1].Cmp("throughput_ratio")
	if math.Abs(iv.Mean-1) > 1e-12 || math.Abs(rows[1].ComparedP["throughput_ratio"]-1) > 1e-12 {
		t.Errorf("throughput ratio %+v, p %g; want geometric mean 1, p 1", iv, rows[1].ComparedP["throughput_ratio"])
	}
}

// SetHolm adjusts over the table's family (JCT reduction and throughput
// ratio of every pair) and the table marks survivors with ‡. Hand-worked
// (anchored outside the code: Student's t on 1 degree of freedom is the
// Cauchy distribution, p = 2·atan(1/|t|)/π). Three cells of two seeds,
// fcfs against arena in each; with two values se = |x₁ − x₂|/2:
//
//   - density 1: reductions {0.50, 0.51}, t = 0.505/0.005 = 101, p =
//     0.00630; throughput ratio 2 on both seeds, p = 0;
//   - density 2: {0.10, 0.11}, t = 21, p = 0.03029; equal throughputs, p = 1;
//   - density 3: {0.20, 0.22}, t = 21, p = 0.03029; p = 1.
//
// Six comparisons, four significant alone. Holm: 0 ≤ 0.05/6, 0.0063 ≤
// 0.05/5, 0.0303 > 0.05/4 stops: two survive (density 1's), adjusted
// 5·0.0063 = 0.0315 and 4·0.0303 = 0.1212 for both of the others.
func TestSeedTableHolm(t *testing.T) {
	var rows []SummaryRow
	mk := func(density float64, policy string, seed int64, jct, thr float64) SummaryRow {
		return row("", sim.Summary{Trace: "t", Cluster: "c", Timing: "exact", Density: density, Estimator: "profiledb",
			Policy: policy, Seed: seed, SubmittedMeanJCT: jct, PaddedMeanJCT: jct, MeanThroughput: thr})
	}
	for _, c := range []struct {
		density  float64
		red      [2]float64
		arenaThr float64
	}{{1, [2]float64{0.50, 0.51}, 10}, {2, [2]float64{0.10, 0.11}, 5}, {3, [2]float64{0.20, 0.22}, 5}} {
		for s, red := range c.red {
			rows = append(rows, mk(c.density, "arena", int64(s), 100*(1-red), c.arenaThr), mk(c.density, "fcfs", int64(s), 100, 5))
		}
	}
	addSeedStats(rows)
	SetHolm(rows)
	p1, p2 := 2*math.Atan(1.0/101)/math.Pi, 2*math.Atan(1.0/21)/math.Pi
	want := map[float64][4]float64{ // p and Holm-adjusted p: reduction, ratio
		1: {p1, 5 * p1, 0, 0},
		2: {p2, 4 * p2, 1, 1},
		3: {p2, 4 * p2, 1, 1},
	}
	for _, r := range rows {
		if r.Policy != "fcfs" {
			continue
		}
		w := want[r.Density]
		got := [4]float64{r.ComparedP["jct_reduction"], r.Holm["jct_reduction"], r.ComparedP["throughput_ratio"], r.Holm["throughput_ratio"]}
		for k := range got {
			if math.Abs(got[k]-w[k]) > 1e-6 {
				t.Errorf("density %g: p, Holm p (reduction, ratio) = %v, want %v", r.Density, got, w)
				break
			}
		}
	}
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"6 comparisons at 95 % each", "expect ~0.3 false positives under no effect", "‡ significant after Holm's step-down over the 6 (family-wise error ≤ 5 %): 2 of the 4 significant alone"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "‡"); n != 3 {
		t.Errorf("%d ‡ in the table, want 3 (density 1's two comparisons and the note):\n%s", n, out)
	}
	// Without SetHolm the count is stated and nothing is marked.
	addSeedStats(rows)
	b.Reset()
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "‡") || !strings.Contains(out, "--holm marks") {
		t.Errorf("without SetHolm:\n%s", out)
	}
}

// What the seeds are draws of, from the run's description: a synthesised
// trace names its source, window and what each seed draws; a replayed
// trace names what the seed drives (only the faults, the job failures, or
// a policy's own randomness).
func TestPopulation(t *testing.T) {
	synth := func(keys ...[2]string) *runner.Run {
		return &runner.Run{Synth: &runner.SynthTrace{Name: "x", From: "philly-pollux", Keys: keys}}
	}
	s := &sim.Summary{JobsInTrace: 960}
	for _, c := range []struct {
		run  *runner.Run
		want string
	}{
		{synth([2]string{"since", "35d"}, [2]string{"until", "37d"}, [2]string{"sample", "960"}), "draws of 960 jobs from philly-pollux window 35d–37d"},
		{synth([2]string{"since", "35d"}, [2]string{"rate", "40"}, [2]string{"recipe", "arena"}), "960 jobs of philly-pollux from 35d on; each seed redraws: Poisson arrivals at 40 jobs/h, recipe arena's labels"},
		// No random stage: every seed the same trace.
		{synth([2]string{"since", "35d"}), "same trace, seeded policy randomness"},
		{&runner.Run{Trace: "philly", Faults: "llama3"}, "same trace, seeded faults"},
		{&runner.Run{Trace: "philly", Faults: "llama3", JobMTBF: 3600}, "same trace, seeded faults and job failures"},
		{nil, ""},
	} {
		if got := Population(c.run, s); got != c.want {
			t.Errorf("Population(%+v) = %q, want %q", c.run, got, c.want)
		}
	}
}
