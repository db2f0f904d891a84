package synth

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/traces/table"
)

// blank returns n jobs one minute apart with the given duration.
func blank(n int, dur float64) []table.Job {
	out := make([]table.Job, n)
	for i := range out {
		out[i] = table.Job{ID: string(rune('a'+i%26)) + string(rune('0'+i/26%10)), Submit: float64(1000 + 60*i), Duration: dur, IterationScale: 1, GPUs: 1, Source: "t"}
	}
	return out
}

func TestDeterministicAcrossRunsAndSeeds(t *testing.T) {
	in := blank(300, 3600)
	o := Options{Seed: 7, Rate: 20, Recipe: "arena", Sample: 200}
	a, err := Run(in, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(in, o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different workloads")
	}
	o.Seed = 8
	c, _ := Run(in, o)
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 gave the same workload")
	}
	if (&Options{}).Deterministic() != true || o.Deterministic() {
		t.Error("Deterministic() wrong")
	}
}

// Stages draw from their own streams: changing the arrival rate moves
// arrivals but leaves every job's label as it was.
func TestStagesIndependent(t *testing.T) {
	in := blank(100, 3600)
	a, _ := Run(in, Options{Seed: 3, Rate: 10, Recipe: "arena"})
	b, _ := Run(in, Options{Seed: 3, Rate: 40, Recipe: "arena"})
	for i := range a {
		if a[i].Model != b[i].Model || a[i].GPUs != b[i].GPUs || a[i].GPUType != b[i].GPUType || a[i].Batch != b[i].Batch {
			t.Fatalf("job %d relabelled differently at another rate: %+v vs %+v", i, a[i], b[i])
		}
	}
	if a[50].Submit <= b[50].Submit {
		t.Errorf("4× the rate should arrive earlier: %v vs %v", a[50].Submit, b[50].Submit)
	}
}

// Independent oracle: the profile database itself. Every label the recipe
// gives must be feasible at best locality, and respect the GPU cap of the
// size index + 2 (ARENA.md §8).
func TestArenaRecipeFeasibleAndCapped(t *testing.T) {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(blank(2000, 7200), Options{Seed: 1, Recipe: "arena"})
	if err != nil {
		t.Fatal(err)
	}
	fam := map[string]int{}
	for _, j := range out {
		m, err := estimator.ParseModel(j.Model)
		if err != nil {
			t.Fatalf("model %q: %v", j.Model, err)
		}
		g, _ := estimator.LookupGPU(j.GPUType)
		n := int(j.GPUs)
		if e := db.Estimate(estimator.Workload{Model: m, Batch: int(j.Batch)}, estimator.BestLocality(j.GPUType, n, g.GPUsPerNode), estimator.ViewOptimal); !e.Feasible() {
			t.Fatalf("job %s: %s/%d on %d %s is infeasible (%v)", j.ID, j.Model, j.Batch, n, j.GPUType, e.Reason)
		}
		if n > 1<<(m.SizeIndex+2) {
			t.Fatalf("job %s: %d GPUs for size index %d", j.ID, n, m.SizeIndex)
		}
		if j.IterationScale != 5 || j.Iterations < 1 || j.Iterations > 10000 {
			t.Fatalf("job %s: %d iterations at scale %d", j.ID, j.Iterations, j.IterationScale)
		}
		if j.Deadline != j.Submit+1.5*7200 {
			t.Fatalf("job %s: deadline %v, want submit + 1.5·duration", j.ID, j.Deadline)
		}
		fam[m.Family.String()]++
	}
	// MoE is drawn 60 % of the time; feasibility rejections shift the mix
	// but MoE stays the largest family, as in the artifact's trace (1231 of 1938).
	if !(fam["moe"] > fam["gpt"] && fam["gpt"] > fam["wresnet"]) {
		t.Errorf("family mix %v: want moe > gpt > wresnet as in the artifact's Philly trace", fam)
	}
}

// Hand-worked threshold picks: v < 10 → 0, 10 ≤ v < 25 → 1, … of 95.
func TestPickThresholds(t *testing.T) {
	counts := make([]int, len(sizeThresholds))
	r := rand.New(rand.NewPCG(1, 2))
	const n = 95000
	for range n {
		counts[pick(r, sizeThresholds)]++
	}
	want := []float64{10, 15, 25, 20, 15, 10}
	for i, c := range counts {
		if p := float64(c) / n * 95; math.Abs(p-want[i]) > 0.6 {
			t.Errorf("size index %d drawn %.2f/95 of the time, want %v/95", i, p, want[i])
		}
	}
}

// Poisson arrivals at λ = 30 jobs/h have mean gap 120 s; over 20,000 gaps
// the sample mean is within 3 % (5 standard errors).
func TestPoissonRate(t *testing.T) {
	out, err := Run(nil, Options{Seed: 5, Jobs: 20001, Rate: 30, Durations: "gavel", GPUMix: "gavel"})
	if err != nil {
		t.Fatal(err)
	}
	gap := out[len(out)-1].Submit / float64(len(out)-1)
	if math.Abs(gap-120)/120 > 0.03 {
		t.Errorf("mean inter-arrival %.1f s, want 120 ± 3 %%", gap)
	}
	long, ones := 0, 0
	for _, j := range out {
		if j.Duration < 60*math.Pow(10, 1.5) || j.Duration > 60*1e4 {
			t.Fatalf("Gavel duration %v outside [60·10^1.5, 60·10^4]", j.Duration)
		}
		if j.Duration > 60*1e3 {
			long++
		}
		if j.GPUs == 1 {
			ones++
		}
	}
	if p := float64(long) / float64(len(out)); math.Abs(p-0.2) > 0.015 {
		t.Errorf("%.3f of durations above 1000 min, want 0.2 (Gavel's law)", p)
	}
	if p := float64(ones) / float64(len(out)); math.Abs(p-0.7) > 0.015 {
		t.Errorf("%.3f of jobs on 1 GPU, want 0.7 (Gavel's mix)", p)
	}
}

// Hand-worked Pollux window: 02:00–10:00 US-Pacific of each day, pooled;
// arrival = time since 02:00.
func TestTimeOfDayWindow(t *testing.T) {
	const z = "America/Los_Angeles"
	in := []table.Job{
		{ID: "in1", Submit: 1507046340, Duration: 100, IterationScale: 1, GPUs: 1, Zone: z},                  // 2017-10-03 08:59:00 PDT → 6h59m
		{ID: "out", Submit: 1507046340 + 2*3600, Duration: 100, IterationScale: 1, GPUs: 1, Zone: z},         // 10:59 → outside
		{ID: "in2", Submit: 1507046340 + 18*3600 + 3600, Duration: 100, IterationScale: 1, GPUs: 1, Zone: z}, // next day 03:59 → 1h59m
	}
	out, err := Run(in, Options{WindowMode: "tod", WindowStart: 2, WindowHours: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID != "in2" || out[1].ID != "in1" || out[1].Submit-out[0].Submit != 5*3600 {
		t.Errorf("window: %+v; want in2 then in1, 5 h apart", out)
	}
}

func TestFiltersAndRateScale(t *testing.T) {
	in := blank(10, 0)
	for i := range in {
		in[i].Duration = float64(i * 100)
		in[i].GPUs = float64(i % 4 * 8)
	}
	out, err := Run(in, Options{MinDuration: 150, MaxDuration: 750, MaxGPUs: 16, RateScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	// durations 200…700 (jobs 2–7); GPUs i%4·8 ≤ 16 drops i = 3, 7
	var ids []float64
	for _, j := range out {
		ids = append(ids, j.Duration)
	}
	if !reflect.DeepEqual(ids, []float64{200, 400, 500, 600}) {
		t.Errorf("kept durations %v, want [200 400 500 600]", ids)
	}
	if out[1].Submit != 60 { // jobs 2 and 4 were 120 s apart; rate ×2
		t.Errorf("rate-scaled gap %v, want 60", out[1].Submit)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{
		{Recipe: "gandiva"}, {WindowMode: "tod", WindowStart: 25, WindowHours: 1}, {Rate: -1},
		{MinDuration: 10, MaxDuration: 5}, {Sample: 1000}, {Jobs: 5}, {GPUMix: "1:x"},
	} {
		if _, err := Run(blank(5, 60), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// Start shifts the whole output, deadlines included, and changes nothing
// else: hand-worked from the same synthesis at start 0 (the recipe's
// deadline is submit + 1.5·duration either way).
func TestStartOffset(t *testing.T) {
	in := blank(50, 3600)
	o := Options{Seed: 2, Rate: 30, Recipe: "arena"}
	a, err := Run(in, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Start = 1e6
	b, err := Run(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Submit != 0 || b[0].Submit != 1e6 {
		t.Fatalf("first arrivals %v and %v, want 0 and 1e6", a[0].Submit, b[0].Submit)
	}
	for i := range a {
		if b[i].Submit != a[i].Submit+1e6 || (a[i].Deadline > 0) != (b[i].Deadline > 0) || (a[i].Deadline > 0 && math.Abs(b[i].Deadline-a[i].Deadline-1e6) > 1e-6) {
			t.Fatalf("job %d: submit %v → %v, deadline %v → %v; want both +1e6", i, a[i].Submit, b[i].Submit, a[i].Deadline, b[i].Deadline)
		}
		a[i].Submit, a[i].Deadline, b[i].Submit, b[i].Deadline = 0, 0, 0, 0
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("job %d differs beyond its times: %+v vs %+v", i, a[i], b[i])
		}
	}
	if _, err := Run(in, Options{Start: 6e9}); err == nil {
		t.Error("start 6e9 s: no error")
	}
	if err := Set(&o, "start", "11.6d"); err != nil || o.Start != 11.6*86400 {
		t.Errorf("--start 11.6d: %v, start %v", err, o.Start)
	}
}

// Size counts what Run returns, for every stage that changes the count
// (filters, both windows, sample, rate with and without jobs), with Run
// as the oracle; where Run refuses, Size refuses too.
func TestSizeIsRunsCount(t *testing.T) {
	const z = "America/Los_Angeles"
	in := blank(200, 0)
	for i := range in {
		in[i].Duration = float64(i * 50)
		in[i].GPUs = float64(i % 5 * 4)
		in[i].Submit = 1507046340 + float64(i)*977
		in[i].Zone = z
	}
	for _, o := range []Options{
		{},
		{MinDuration: 1000, MaxDuration: 8000, MaxGPUs: 8},
		{MaxGPUTime: 20000, Since: 3600, Until: 100000},
		{WindowMode: "relative", WindowStart: 5, WindowHours: 10, MinDuration: 2000},
		{WindowMode: "tod", WindowStart: 2, WindowHours: 8},
		{WindowMode: "tod", WindowStart: 22, WindowHours: 5, Sample: 10, Seed: 3},
		{Sample: 50, Rate: 10, Seed: 4},
		{Rate: 10, Jobs: 777, Seed: 5},
		{Rate: 10, Jobs: 777, MaxGPUs: 4, Seed: 5},
		{Sample: 1000},
		{Jobs: 5},
		{MinDuration: 1e9},
		{MinDuration: 1e9, Rate: 3, Jobs: 9},
		{WindowMode: "relative", WindowStart: 1e6, WindowHours: 1, Rate: 3, Jobs: 9},
	} {
		out, runErr := Run(in, o)
		n, err := Size(in, o)
		switch {
		case (runErr == nil) != (err == nil):
			t.Errorf("%+v: Run error %v, Size error %v", o, runErr, err)
		case runErr == nil && n != len(out):
			t.Errorf("%+v: Size %d, Run returned %d jobs", o, n, len(out))
		}
	}
}
