package fairness

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s = %.9g, want %.9g", what, got, want)
	}
}

// Jain's index on values worked by hand.
func TestJain(t *testing.T) {
	near(t, "J(1,1)", Jain([]float64{1, 1}), 1)
	near(t, "J(1,0)", Jain([]float64{1, 0}), 0.5)
	near(t, "J(1,2,3)", Jain([]float64{1, 2, 3}), 36.0/42)
	near(t, "J()", Jain(nil), 1)
}

// A hand-worked run (an outside anchor: inputs and expected values worked
// on paper, not taken from a run). One node of 4 A100s; gpt-1.3b, batch
// 128, runs at an iteration time of 5.526 s on 2 A100s in the profile
// database (policy/handworked_test.go); a start costs min(150 s × 2,
// 600 s) = 300 s. FCFS on it: A (100 iterations, VC x) and B (200, VC x)
// arrive at 0 and end at 852.6 and 1405.2; C (100, VC y) arrives at 10,
// starts at 900 and ends at 1752.6. The timeline (running + pending, one
// row per 300-s round): 2 at 0, 3 at 300 and 600 (C waits), 2 at 900 and
// 1200, 1 at 1500.
//
// T_alone: A and C 100 × 5.526 + 300 = 852.6 s, B 1105.2 + 300 = 1405.2 s.
// N (time-average of the rows over each job's life):
//
//	A [0, 852.6]:   (300·2 + 300·3 + 252.6·3) / 852.6            = 2257.8 / 852.6
//	B [0, 1405.2]:  (300·2 + 300·3 + 300·3 + 300·2 + 205.2·2) / 1405.2 = 3410.4 / 1405.2
//	C [10, 1752.6]: (290·2 + 300·3 + 300·3 + 300·2 + 300·2 + 252.6·1) / 1742.6 = 3832.6 / 1742.6
//
// T_id = T_alone · max(1, 2·N/4); ρ = JCT / T_id:
// ρ_A = 2/N_A = 0.7552..., ρ_B = 2/N_B = 0.8240..., ρ_C = 1742.6 / (852.6·N_C/2) = 1.8586...
func TestHandWorkedRho(t *testing.T) {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimator.ParseModel("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	w := estimator.Workload{Model: m, Batch: 128}
	specs := []sim.JobSpec{
		{ID: 0, Workload: w, Iterations: 100, GPU: "a100", GPUs: 2, VirtualCluster: "x"},
		{ID: 1, Workload: w, Iterations: 200, GPU: "a100", GPUs: 2, VirtualCluster: "x"},
		{ID: 2, Submit: 10, Workload: w, Iterations: 100, GPU: "a100", GPUs: 2, VirtualCluster: "y"},
	}
	rec := func(id int32, iters int64, submit, start, finish float64) sim.JobRecord {
		return sim.JobRecord{ID: id, Iterations: iters, RequestedGPU: "a100", RequestedN: 2, FinalGPU: "a100", FinalN: 2, FinalNodes: 1,
			Submit: submit, FirstStart: start, Finish: finish, JCT: finish - submit, GPUSeconds: 2 * (finish - start), State: "finished"}
	}
	res := &sim.Result{
		Jobs: []sim.JobRecord{rec(0, 100, 0, 0, 852.6), rec(1, 200, 0, 0, 1405.2), rec(2, 100, 10, 900, 1752.6)},
		Timeline: []sim.RoundRecord{{Time: 0, Running: 2}, {Time: 300, Running: 2, Pending: 1}, {Time: 600, Running: 2, Pending: 1},
			{Time: 900, Running: 2}, {Time: 1200, Running: 2}, {Time: 1500, Running: 1}, {Time: 1800}},
		Allocations: []sim.AllocRecord{{Job: 0, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 0, End: 852.6},
			{Job: 1, GPU: "a100", FirstSlot: 2, Slots: 2, Start: 0, End: 1405.2}, {Job: 2, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 900, End: 1752.6}},
	}
	// x is capped at 2 GPUs: A and B together hold 4 over [0, 852.6], 2 GPUs
	// over the cap for 852.6 s.
	ten, err := tenants.New("hand", false, tenants.Tenant{Name: "x", Cap: 2}, tenants.Tenant{Name: "y"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compute(res, specs, c, ten, db.View(estimator.ViewOptimal), Options{Overhead: sim.Overhead{PerGPU: 150, Cap: 600}})
	if err != nil {
		t.Fatal(err)
	}
	nA, nB, nC := 2257.8/852.6, 3410.4/1405.2, 3832.6/1742.6
	rhoA, rhoB, rhoC := 2/nA, 2/nB, 1742.6/(852.6*nC/2)
	if len(r.Jobs) != 3 {
		t.Fatalf("%d jobs rated, want 3", len(r.Jobs))
	}
	near(t, "T_alone of A", r.Jobs[0].Alone, 852.6)
	near(t, "T_alone of B", r.Jobs[1].Alone, 1405.2)
	near(t, "N_A", r.Jobs[0].N, nA)
	near(t, "N_C", r.Jobs[2].N, nC)
	near(t, "ρ_A", r.Jobs[0].Rho, rhoA)
	near(t, "ρ_B", r.Jobs[1].Rho, rhoB)
	near(t, "ρ_C", r.Jobs[2].Rho, rhoC)
	near(t, "max ρ", r.MaxRho, rhoC)
	near(t, "mean ρ", r.MeanRho, (rhoA+rhoB+rhoC)/3)
	near(t, "fraction ρ > 1", r.FracRhoAbove1, 1.0/3)
	// GPU-seconds: x 2·852.6 + 2·1405.2 = 4515.6, y 2·852.6 = 1705.2.
	shX, shY := 4515.6/6220.8, 1705.2/6220.8
	near(t, "share of x", r.Tenants[0].Share, shX)
	near(t, "Jain share", r.JainShare, 1/(2*(shX*shX+shY*shY)))
	mx, my := (rhoA+rhoB)/2, rhoC
	near(t, "Jain slowdown", r.JainSlowdown, (mx+my)*(mx+my)/(2*(mx*mx+my*my)))
	near(t, "p95 JCT of x", r.Tenants[0].P95JCT, 852.6+0.95*(1405.2-852.6))
	near(t, "over-cap GPU-s of x", r.Tenants[0].OverCapGPUSeconds, 2*852.6)
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ρ > 1 for 33.3%") {
		t.Errorf("report:\n%s", b.String())
	}
}

// The hand-worked run's holdings per VC at each row (worked from its
// allocations): x holds A's and B's 4 GPUs until A ends at 852.6, B's 2
// until 1405.2; y holds C's 2 from 900 to 1752.6.
func TestShareOverTimeHandWorked(t *testing.T) {
	res := &sim.Result{
		Timeline: []sim.RoundRecord{{Time: 0}, {Time: 300}, {Time: 600}, {Time: 900}, {Time: 1200}, {Time: 1500}, {Time: 1800}},
		Allocations: []sim.AllocRecord{{Job: 0, Slots: 2, Start: 0, End: 852.6},
			{Job: 1, Slots: 2, Start: 0, End: 1405.2}, {Job: 2, Slots: 2, Start: 900, End: 1752.6}},
	}
	jobs := []sim.JobSpec{{ID: 0, VirtualCluster: "x"}, {ID: 1, VirtualCluster: "x"}, {ID: 2, VirtualCluster: "y"}}
	s, err := ShareOverTime(res, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{"x": {4, 4, 4, 2, 2, 0, 0}, "y": {0, 0, 0, 2, 2, 2, 0}}
	for i, name := range s.Tenants {
		if w, ok := want[name]; ok && !slices.Equal(s.GPUs[i], w) {
			t.Errorf("%s holds %v, want %v", name, s.GPUs[i], w)
		}
	}
}

// The integral form of N agrees with the pass over every round it
// replaced (contending, kept as the reference), on random timelines and
// intervals, before, inside and after the rows. Guard against change.
func TestAreasAgreeWithThePass(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var tl []sim.RoundRecord
		at := r.Float64() * 100
		for range 1 + r.IntN(30) {
			tl = append(tl, sim.RoundRecord{Time: at, Running: int32(r.IntN(20)), Pending: int32(r.IntN(20))})
			at += 300 * r.Float64()
		}
		a := newAreas(tl)
		for range 20 {
			from := r.Float64()*at*1.2 - 50
			to := from + r.Float64()*at
			if r.IntN(10) == 0 {
				to = from
			}
			if r.IntN(10) == 0 {
				from = tl[r.IntN(len(tl))].Time
			}
			want, got := contending(tl, from, to), a.contending(from, to)
			if math.Abs(want-got) > 1e-9*math.Max(1, want) {
				t.Fatalf("N over [%v, %v] = %v, the pass gives %v", from, to, got, want)
			}
		}
	}
}
