package estimator

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

func mustModel(t *testing.T, s string) Model {
	t.Helper()
	m, err := ParseModel(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The expected values below were worked out from the stored database
// entries (estimator/data/prof_database_optimal.json) with the artifact's
// formulas: thr = round(batch/t, 3), then × 0.9^k or × 1.8^s.
func TestProfileDBLookupRules(t *testing.T) {
	db, err := DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	// Variables, not constants: the products below must be computed in
	// float64 at run time, as the artifact computes them.
	var (
		gpt13b128a100x2 = 23.164 // round(128 / 5.525832176208496, 3)
		gpt13b128a100x4 = 43.302 // round(128 / 2.9559504985809326, 3)
		gpt13b128a100v4 = 43.254 // round(128 / 2.959280490875244, 3)
	)
	cases := []struct {
		name     string
		model    string
		batch    int
		cfg      Config
		view     View
		thr      float64
		reason   Reason
		fallback FallbackKind
		steps    int
	}{
		{"exact entry", "gpt-1.3b", 128, Config{"a100", 1, 2}, ViewOptimal, gpt13b128a100x2, Feasible, Exact, 0},
		{"relaxed locality scales by 0.9^1 in the optimal view", "gpt-1.3b", 128, Config{"a100", 2, 1}, ViewOptimal, gpt13b128a100x2 * 0.9, Feasible, RelaxedLocality, 1},
		{"relaxed locality is unscaled in the DP view", "gpt-1.3b", 128, Config{"a100", 2, 1}, ViewDataParallelNoMemCheck, gpt13b128a100x2, Feasible, RelaxedLocality, 1},
		{"missing size falls back to the next larger size × 1.8", "gpt-760m", 128, Config{"a100", 1, 4}, ViewOptimal, gpt13b128a100x4 * 1.8, Feasible, LargerSize, 1},
		{"larger-size fallback uses the original (relaxed) key, never combined with (b)", "gpt-760m", 128, Config{"a100", 2, 2}, ViewOptimal, gpt13b128a100v4 * 1.8, Feasible, LargerSize, 1},
		{"larger-size fallback unscaled in the DP view", "gpt-760m", 128, Config{"a100", 2, 2}, ViewDataParallelNoMemCheck, gpt13b128a100v4, Feasible, LargerSize, 1},
		{"stored -1 is out of memory", "gpt-2.6b", 512, Config{"a100", 2, 2}, ViewOptimal, InfeasibleThroughput, OutOfMemory, Exact, 0},
		{"stored time over 300 s is infeasible", "wresnet-6.8b", 512, Config{"a40", 4, 2}, ViewOptimal, InfeasibleThroughput, OverIterationCap, Exact, 0},
		{"no entry and no larger size is not profiled", "gpt-39b", 128, Config{"a100", 1, 1}, ViewOptimal, InfeasibleThroughput, NotProfiled, Exact, 0},
		{"unknown GPU", "gpt-1.3b", 128, Config{"b200", 1, 1}, ViewOptimal, InfeasibleThroughput, UnknownGPU, Exact, 0},
		// DP memory filter: gpt-760m/128 needs 24.129 GB on 1 GPU;
		// 1.2·24.129 = 28.95 ≤ 0.8·40 = 32 on an A100, > 0.8·24 = 19.2 on an A10.
		{"DP filter passes when 1.2·need ≤ 0.8·memory", "gpt-760m", 128, Config{"a100", 1, 1}, ViewDataParallel, 19.467, Feasible, Exact, 0},
		{"DP filter rejects when 1.2·need > 0.8·memory", "gpt-760m", 128, Config{"a10", 1, 1}, ViewDataParallel, InfeasibleThroughput, OutOfMemory, Exact, 0},
		{"DP filter rejects a need of -1", "gpt-1.3b", 128, Config{"a100", 1, 1}, ViewDataParallel, InfeasibleThroughput, OutOfMemory, Exact, 0},
		{"optimal view ignores the DP filter", "moe-10b", 256, Config{"v100", 1, 16}, ViewOptimal, InfeasibleThroughput, OutOfMemory, Exact, 0},
		{"a model whose DP row is all -1 is never DP-feasible", "moe-10b", 256, Config{"a100", 2, 4}, ViewDataParallel, InfeasibleThroughput, OutOfMemory, Exact, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{Model: mustModel(t, c.model), Batch: c.batch}
			got := db.Estimate(w, c.cfg, c.view)
			if got.Reason != c.reason {
				t.Fatalf("%s on %s (%s): reason %v, want %v", w, c.cfg, c.view, got.Reason, c.reason)
			}
			if got.Throughput != c.thr {
				t.Errorf("throughput %.17g, want %.17g", got.Throughput, c.thr)
			}
			if c.reason == Feasible {
				if got.Fallback != c.fallback || got.Steps != c.steps {
					t.Errorf("fallback %v/%d, want %v/%d", got.Fallback, got.Steps, c.fallback, c.steps)
				}
				if want := PyRound(float64(c.batch)/c.thr, 3); got.IterTime != want {
					t.Errorf("iteration time %v, want round(batch/thr, 3) = %v", got.IterTime, want)
				}
			} else if got.IterTime != InfeasibleIterTime || got.Feasible() {
				t.Errorf("infeasible estimate has iter %v feasible %v", got.IterTime, got.Feasible())
			}
		})
	}
}

func TestPyRoundMatchesPython(t *testing.T) {
	// Values printed by CPython 3.11's round(x, 3).
	cases := []struct{ in, want float64 }{
		{23.16371757, 23.164},
		{1.0005, 1.0},     // 1.0005 is 1.000499999… in binary
		{2.0015, 2.002},   // 2.00150000000000005684… rounds up
		{0.0625, 0.062},   // exact tie → even
		{0.1875, 0.188},   // exact tie → even
		{-1.2345, -1.234}, // -1.23449999…
		{1e9, 1e9},
	}
	for _, c := range cases {
		if got := PyRound(c.in, 3); got != c.want {
			t.Errorf("PyRound(%v, 3) = %v, want %v", c.in, got, c.want)
		}
	}
	if naive := math.Round(1.0005*1000) / 1000; naive == 1.0 {
		t.Log("naive rounding happens to agree on 1.0005")
	}
}

func TestPowCorrectlyRounded(t *testing.T) {
	if got := powCorrect(0.9, 1); got != 0.9 {
		t.Errorf("0.9^1 = %v", got)
	}
	if got := powCorrect(1.8, 2); got != 3.24 {
		t.Errorf("1.8^2 = %.17g, want 3.24 (CPython 1.8**2)", got)
	}
	if got := powCorrect(0.9, 3); got != 0.7290000000000001 {
		t.Errorf("0.9^3 = %.17g, want 0.7290000000000001 (CPython 0.9**3)", got)
	}
}

func TestParseModelForms(t *testing.T) {
	for in, want := range map[string]string{
		"bert__2.6B": "gpt-2.6b", "gpt-2.6b": "gpt-2.6b", "moe__10B": "moe-10b",
		"wide_resnet__500M": "wresnet-500m", "wresnet-6.8b": "wresnet-6.8b", "MoE-690M": "moe-690m",
	} {
		m, err := ParseModel(in)
		if err != nil {
			t.Errorf("ParseModel(%q): %v", in, err)
			continue
		}
		if m.Name() != want {
			t.Errorf("ParseModel(%q) = %s, want %s", in, m.Name(), want)
		}
	}
	for _, bad := range []string{"", "gpt", "gpt-3b", "llama-7b", "bert__"} {
		if _, err := ParseModel(bad); err == nil {
			t.Errorf("ParseModel(%q) accepted", bad)
		}
	}
}

func BenchmarkProfileDBEstimate(b *testing.B) {
	db, _ := DefaultProfileDB()
	w := Workload{Model: Model{Family: GPT, Size: "1.3B", SizeIndex: 1}, Batch: 128}
	cfgs := []Config{{"a100", 1, 2}, {"a100", 2, 1}, {"a40", 2, 2}, {"v100", 1, 8}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		db.Estimate(w, cfgs[i%len(cfgs)], ViewOptimal)
	}
}

// TestEstimateCacheConcurrent: goroutines asking overlapping questions at
// once get, from the shared cache, exactly what the uncached lookup
// answers (the oracle), while the cache publishes new maps under them.
// Run with -race to check the publication.
func TestEstimateCacheConcurrent(t *testing.T) {
	db, err := LoadProfileDB(profileDBJSON, dpMemJSON)
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		w Workload
		c Config
		v View
	}
	for _, name := range []string{"gpt-760m", "gpt-1.3b", "gpt-2.6b", "gpt-6.7b", "moe-1.3b", "wresnet-1b"} {
		m, err := ParseModel(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{128, 256, 512} {
			for _, g := range []string{"a100", "v100", "a40", "a10"} {
				for _, c := range []Config{{g, 1, 1}, {g, 1, 2}, {g, 1, 4}, {g, 2, 2}, {g, 2, 4}, {g, 4, 4}} {
					for _, v := range []View{ViewOptimal, ViewDataParallel} {
						qs = append(qs, struct {
							w Workload
							c Config
							v View
						}{Workload{m, batch}, c, v})
					}
				}
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range qs {
				q := qs[(i*(g+1)+g)%len(qs)]
				if got, want := db.Estimate(q.w, q.c, q.v), db.estimate(q.w, q.c, q.v); got != want {
					errs <- fmt.Sprintf("%v %v %v: cached %+v, uncached %+v", q.w, q.c, q.v, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// BenchmarkProfileDBEstimateParallel is the cached lookup from concurrent
// runs (GOMAXPROCS goroutines sharing the database, as `arena simulate`
// with several policies does).
func BenchmarkProfileDBEstimateParallel(b *testing.B) {
	db, _ := DefaultProfileDB()
	w := Workload{Model: Model{Family: GPT, Size: "1.3B", SizeIndex: 1}, Batch: 128}
	cfgs := []Config{{"a100", 1, 2}, {"a100", 2, 1}, {"a40", 2, 2}, {"v100", 1, 8}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			db.Estimate(w, cfgs[i%len(cfgs)], ViewOptimal)
		}
	})
}

// The database prices exactly the GPU types it measures, and a type
// outside the catalog is unpriced by every source: each catalog type is
// checked against whether some model of the database has a feasible
// best-locality entry on it.
func TestUnpricedByTheDatabaseIsWhatItMeasures(t *testing.T) {
	db, err := DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	measured := map[string]bool{}
	for _, g := range GPUNames() {
		gt, _ := LookupGPU(g)
		for _, m := range Models() {
			for _, b := range m.Family.BatchSizes() {
				for n := 1; n <= 16 && !measured[g]; n *= 2 {
					if db.Estimate(Workload{Model: m, Batch: b}, BestLocality(g, n, gt.GPUsPerNode), ViewOptimal).Feasible() {
						measured[g] = true
					}
				}
			}
		}
	}
	if len(measured) == 0 || len(measured) == len(GPUNames()) {
		t.Fatalf("the database measures %v of the catalog's %v: the check below would test nothing", measured, GPUNames())
	}
	types := append(GPUNames(), "b200")
	got := Unpriced(db, types)
	var want []string
	for _, g := range types {
		if !measured[g] {
			want = append(want, g)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Unpriced(profiledb) = %v, want %v", got, want)
	}
	if fmt.Sprint(db.GPUTypes()) != "[a100 v100 a40 a10]" {
		t.Errorf("GPUTypes = %v", db.GPUTypes())
	}
	// A source without Coverage prices the whole catalog.
	if got := Unpriced(everyType{}, types); fmt.Sprint(got) != "[b200]" {
		t.Errorf("Unpriced(no Coverage) = %v, want [b200]", got)
	}
}

type everyType struct{}

func (everyType) View(View) Estimator { return nil }

// Hand-worked anchors: the most compact uniform shape of n GPUs. Powers of
// two on power-of-two nodes keep the artifact's full nodes; other counts
// take the fewest nodes that split them evenly.
func TestBestLocalityAnySize(t *testing.T) {
	for _, c := range []struct {
		n, cap, nodes, per int
	}{
		{1, 4, 1, 1}, {3, 4, 1, 3}, {4, 4, 1, 4}, {16, 4, 4, 4}, {128, 8, 16, 8},
		{6, 4, 2, 3}, {12, 8, 2, 6}, {24, 16, 2, 12}, {7, 4, 7, 1}, {16384, 8, 2048, 8}, {20, 16, 2, 10},
	} {
		got := BestLocality("a100", c.n, c.cap)
		if got.Nodes != c.nodes || got.PerNode != c.per {
			t.Errorf("BestLocality(%d GPUs, nodes of %d) = %d × %d, want %d × %d", c.n, c.cap, got.Nodes, got.PerNode, c.nodes, c.per)
		}
	}
}

// TestWideKeyIsOneToOne: WideKey gives distinct queries distinct keys
// (every catalog model, batches 1 to 2²⁴−1, every catalog GPU type,
// localities up to 16,383 nodes × 63 GPUs, every view) and refuses what
// does not fit its fields, so a memo keyed by it never answers one
// question with another's answer.
func TestWideKeyIsOneToOne(t *testing.T) {
	seen := map[uint64]string{}
	for _, m := range Models() {
		for _, b := range []int{1, 128, 256, 4096, 1<<24 - 1} {
			for _, g := range catalog {
				for _, n := range []int{1, 2, 1023, 1024, 8192, 1<<14 - 1} {
					for _, p := range []int{1, 2, 8, 63} {
						for _, v := range []View{ViewOptimal, ViewDataParallel, ViewDataParallelNoMemCheck} {
							w, c := Workload{Model: m, Batch: b}, Config{GPU: g.Name, Nodes: n, PerNode: p}
							k, ok := WideKey(w, c, v)
							if !ok {
								t.Fatalf("%v %v %v: not keyed", w, c, v)
							}
							q := fmt.Sprint(w, c, v)
							if prev, dup := seen[k]; dup {
								t.Fatalf("%s and %s share key %x", prev, q, k)
							}
							seen[k] = q
						}
					}
				}
			}
		}
	}
	m := Models()[0]
	for _, bad := range []struct {
		w Workload
		c Config
	}{
		{Workload{Model: m, Batch: 1 << 24}, Config{GPU: "a100", Nodes: 1, PerNode: 1}},
		{Workload{Model: m, Batch: 8}, Config{GPU: "a100", Nodes: 1 << 14, PerNode: 1}},
		{Workload{Model: m, Batch: 8}, Config{GPU: "a100", Nodes: 1, PerNode: 64}},
		{Workload{Model: m, Batch: 8}, Config{GPU: "custom-gpu", Nodes: 1, PerNode: 1}},
		{Workload{Model: m, Batch: 0}, Config{GPU: "a100", Nodes: 1, PerNode: 1}},
	} {
		if _, ok := WideKey(bad.w, bad.c, ViewOptimal); ok {
			t.Errorf("%v %v keyed", bad.w, bad.c)
		}
	}
}
