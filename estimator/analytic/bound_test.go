package analytic

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestBestBoundedEqualsBest is the bounded search's anchor: on catalog
// models of every family (GPT, MoE, WideResNet: 6, 8 and 16 units) at
// batches 32, 256 and 1024, on localities of 1 to 256 nodes of three GPU
// types, and for the largest model of each family on 2,048 and 8,192
// 8-GPU nodes (16,384 and 65,536 GPUs, grids of h100-98k), BestBounded
// returns Best's grid, plan and result exactly — Best is the unbounded
// exhaustive search, the definition — and costs under a quarter of the
// plans (about 1.5 %: 146,842 of 9,761,481).
func TestBestBoundedEqualsBest(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	pl := Planner{Params: p}
	models := []string{"gpt-760m", "gpt-6.7b", "gpt-39b", "moe-690m", "moe-27b", "moe-70b", "wresnet-500m", "wresnet-6.8b", "wresnet-13b"}
	configs := []estimator.Config{
		{GPU: "h100", Nodes: 1, PerNode: 1}, {GPU: "h100", Nodes: 1, PerNode: 8}, {GPU: "a100", Nodes: 2, PerNode: 4},
		{GPU: "v100", Nodes: 4, PerNode: 8}, {GPU: "h100", Nodes: 16, PerNode: 2}, {GPU: "h100", Nodes: 64, PerNode: 8},
		{GPU: "a100", Nodes: 256, PerNode: 4},
	}
	// The largest localities of h100-98k, for one model of each family.
	wide := []estimator.Config{{GPU: "h100", Nodes: 2048, PerNode: 8}, {GPU: "h100", Nodes: 8192, PerNode: 8}}
	var all, bounded int
	for _, name := range models {
		for _, batch := range []int{32, 256, 1024} {
			j := mustJob(t, name, batch)
			cs := configs
			if batch == 1024 && (name == "gpt-39b" || name == "moe-70b" || name == "wresnet-13b") && !testing.Short() {
				cs = append(cs[:len(cs):len(cs)], wide...)
			}
			for _, c := range cs {
				if UsesSearch3D(j, c) {
					continue
				}
				want, got := pl.Best(j, c), pl.BestBounded(j, c)
				all += want.Evaluated
				bounded += got.Evaluated
				want.Evaluated, got.Evaluated = 0, 0
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s batch %d on %v: bounded %v %v %+v, exhaustive %v %v %+v", name, batch, c, got.Grid, got.Plan, got.Result, want.Grid, want.Plan, want.Result)
				}
			}
		}
	}
	t.Logf("plans costed: %d exhaustive, %d bounded", all, bounded)
	if bounded*4 > all {
		t.Errorf("bounded search costed %d of %d plans, want under a quarter", bounded, all)
	}
}

// TestHybridMemoAnswersAsBefore: the hybrid's memo returns, for every
// question asked twice (in two orders, every view, database entries,
// analytic-only localities, a locality too wide for the packed key, an
// unknown GPU), the answer the database or the analytic source gives
// directly — the definition of the hybrid.
func TestHybridMemoAnswersAsBefore(t *testing.T) {
	src, err := DefaultSource()
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	h := &Hybrid{DB: db, Analytic: src}
	var ws []estimator.Workload
	for _, m := range []string{"gpt-760m", "gpt-6.7b", "moe-690m", "moe-10b", "wresnet-1b"} {
		for _, b := range []int{128, 256} {
			ws = append(ws, estimator.Workload{Model: mustModel(t, m), Batch: b})
		}
	}
	var cs []estimator.Config
	for _, gpu := range []string{"a100", "v100", "h100", "x999"} {
		for _, nc := range [][2]int{{1, 1}, {1, 2}, {1, 4}, {2, 4}, {4, 2}, {3, 1}, {16384, 1}, {1, 64}} {
			cs = append(cs, estimator.Config{GPU: gpu, Nodes: nc[0], PerNode: nc[1]})
		}
	}
	want := func(w estimator.Workload, c estimator.Config, v estimator.View) estimator.Estimate {
		if _, ok := db.Has(w, c); ok {
			return db.Estimate(w, c, v)
		}
		return src.Estimate(w, c, v)
	}
	fromDB := 0
	for pass := range 2 {
		for i := range ws {
			w := ws[i]
			if pass == 1 {
				w = ws[len(ws)-1-i]
			}
			for _, c := range cs {
				if c.Nodes*c.PerNode > 64 && !(c.Nodes == 16384 && w.Model.Size == "760M") {
					continue // keep the test quick: one wide locality
				}
				for _, v := range []estimator.View{estimator.ViewOptimal, estimator.ViewDataParallel, estimator.ViewDataParallelNoMemCheck} {
					if got, exp := h.View(v).Estimate(w, c), want(w, c, v); got != exp {
						t.Fatalf("pass %d %v %v %v: hybrid %+v, direct %+v", pass, w, c, v, got, exp)
					}
					if _, ok := db.Has(w, c); ok && pass == 0 {
						fromDB++
					}
				}
			}
		}
	}
	if fromDB == 0 {
		t.Fatal("no question hit the database; the test needs some")
	}
}
