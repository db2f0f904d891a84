package arena

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestShapedTrialRelaxed: a type-change trial whose search ends relaxed is
// told from the search's shape only where the job may run at the relaxed
// locality. Hand-worked (an anchor): one A100 node (job 0 on all 4 GPUs)
// and three A40 nodes of 4, where job 1 holds 2 GPUs on each. Job 0 tried
// on 4 A40s: no idle node, no node with 4 idle GPUs; the RHD pass pairs
// the first two partial nodes and aborts (job 1 spans a third node), so
// the search relaxes to 2 GPUs on each of 2 nodes: gain thr(A40 2×2) −
// thr(A100 1×4) = 36 − 40, the whole pass limit (256) used. Where 2×2 is
// infeasible for job 0's model the search fails, budget untouched.
func TestShapedTrialRelaxed(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, sim.Pool{GPU: "a40", Nodes: 3, GPUsPerNode: 4})
	jobs := []testJob{{"gpt-1.3b", "a100", 4, seq(0, 3)}, {"moe-1.3b", "a40", 6, []int{4, 5, 8, 9, 12, 13}}}
	a100, a40 := 0, 1
	for _, tc := range []struct {
		name     string
		feasible bool
	}{{"relaxed placement", true}, {"relaxed locality infeasible", false}} {
		t.Run(tc.name, func(t *testing.T) {
			est := uniformRates("gpt-1.3b", "moe-1.3b")
			est.infeasible["gpt-1.3b a40:2x2"] = !tc.feasible
			r := newTestRound(t, c, est, jobs)
			tb := r.real.clone()
			before := slices.Clone(tb.occ)
			job := r.registered(0)
			job.t = a40
			if _, known := r.directFit(tb, job); known {
				t.Fatal("directFit tells this trial: the test does not reach the shape")
			}
			shaped := r.typeChangeTrial(job, tb, 4096, 256, a100, loc{1, 4}, []int{0})
			literal := r.literalTrial(job, tb, 4096, 256, []int{0})
			if !slices.Equal(tb.occ, before) {
				t.Fatal("the trials left the table changed")
			}
			for _, m := range []struct {
				how string
				m   migration
			}{{"shaped", shaped}, {"literal", literal}} {
				switch {
				case tc.feasible && (!m.m.ok || !m.m.relaxed || math.Abs(m.m.gain+4) > 1e-9 || m.m.budget != 4096-256):
					t.Errorf("%s: ok=%v relaxed=%v gain %v budget %d; want relaxed, −4, 3840", m.how, m.m.ok, m.m.relaxed, m.m.gain, m.m.budget)
				case !tc.feasible && (m.m.ok || m.m.budget != 4096):
					t.Errorf("%s: ok=%v budget %d; want a failure, 4096", m.how, m.m.ok, m.m.budget)
				}
			}
		})
	}
}

// TestTypeVersionsIdentifyContent: a table's version of a GPU type
// (table.tver) must identify the content of the type's slots across every
// table of the topology and every moment: random writes, nested
// checkpoints rolled back or kept, node restores, copies through the pool
// (by the deltas, by kinship, whole) and rebases, after each of which no
// version may have been seen with two contents; and roomOfType, kept by
// version, must answer as a scan of the table. Self-generated comparison
// (the oracle is the slots themselves); fails if a write does not take a
// new version (tried: set without newTypeVer) or a copy does not take the
// source's versions.
func TestTypeVersionsIdentifyContent(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 6, GPUsPerNode: 4}, sim.Pool{GPU: "v100", Nodes: 5, GPUsPerNode: 2}, sim.Pool{GPU: "a40", Nodes: 3, GPUsPerNode: 2})
	tp := newTopology(c)
	pool := &tablePool{}
	tp.snaps.pool = pool
	rng := rand.New(rand.NewPCG(7, 8))
	slots := len(tp.slotNode)
	seen := map[[2]uint64]string{} // (type, version) → content
	content := func(tb *table, ty int) string {
		var b []byte
		for _, n := range tp.nodesOfType[ty] {
			lo, hi := tb.slots(n)
			for s := lo; s < hi; s++ {
				b = fmt.Appendf(b, "%d/%v ", tb.occ[s], tb.used[s])
			}
		}
		return string(b)
	}
	check := func(step int, tables []*table) {
		for i, tb := range tables {
			for ty := range tb.tver {
				k, got := [2]uint64{uint64(ty), tb.tver[ty]}, content(tb, ty)
				if was, ok := seen[k]; ok && was != got {
					t.Fatalf("step %d table %d: type %d version %d held two contents", step, i, ty, tb.tver[ty])
				}
				seen[k] = got
				scan := blankTable(tp)
				copy(scan.occ, tb.occ)
				copy(scan.used, tb.used)
				copy(scan.free, tb.free)
				wi, wp := scan.roomScan(ty)
				if gi, gp := tb.roomOfType(ty); gi != wi || gp != wp {
					t.Fatalf("step %d table %d: roomOfType(%d) = %d, %d; a scan says %d, %d", step, i, ty, gi, gp, wi, wp)
				}
			}
		}
	}
	write := func(tb *table) {
		s := rng.IntN(slots)
		occ := sim.JobID(rng.IntN(9)) - 1
		tb.set(s, occ, occ != empty)
	}
	tables := []*table{pool.clone(newTable(tp, randomOccupants(rng, slots, 8)))}
	for step := range 3000 {
		tb := tables[rng.IntN(len(tables))]
		switch op := rng.IntN(6); {
		case op == 0 && len(tables) < 6:
			tables = append(tables, pool.clone(tb))
		case op == 1:
			if dst := tables[rng.IntN(len(tables))]; dst != tb {
				dst.copyFrom(tb)
			}
		case op == 2:
			ck := tb.checkpoint()
			for range 1 + rng.IntN(4) {
				write(tb)
			}
			if rng.IntN(2) == 0 {
				inner := tb.checkpoint()
				write(tb)
				check(step, tables)
				tb.rollback(inner)
			}
			check(step, tables)
			if rng.IntN(3) > 0 {
				tb.rollback(ck)
			} else {
				tb.logging-- // kept: the checkpoint closes without a rollback
			}
		case op == 3:
			n := rng.IntN(len(tp.nodeCap))
			lo, hi := tb.slots(n)
			occ, used, f := slices.Clone(tb.occ[lo:hi]), slices.Clone(tb.used[lo:hi]), tb.free[n]
			write(tb)
			tb.restoreNode(n, occ, used, f)
		case op == 4:
			tp.snaps.rebase(tb)
		default:
			write(tb)
		}
		check(step, tables)
	}
}

// TestKeyOfStatMatchesKeyOf: the trial key kept by job ID for a job's
// stats (keyOfStat) is the one keyOf gives for the quota the stats give,
// whatever stats the same job was asked with before: jobs of three
// workloads asked in turn with random types, GPU counts and node counts
// (0: no nodes, the locality then coming from the type's node size).
// Self-generated comparison (the oracle is keyOf itself); fails if the
// node count is left out of the kept entry's stats (tried).
func TestKeyOfStatMatchesKeyOf(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 4, GPUsPerNode: 8}, sim.Pool{GPU: "a40", Nodes: 4, GPUsPerNode: 2})
	jobs := []testJob{
		{"gpt-1.3b", "a100", 2, []int{0, 1}},
		{"moe-1.3b", "a40", 2, []int{32, 33}},
		{"wresnet-1b", "a100", 3, nil},
	}
	r := newTestRound(t, c, uniformRates("gpt-1.3b", "moe-1.3b", "wresnet-1b"), jobs)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		o := sim.JobID(rng.IntN(len(jobs)))
		ty, num := rng.IntN(len(r.p.tp.types)), 1+rng.IntN(16)
		nodes := make([]int, rng.IntN(min(num, 4)+1))
		s := &jobStat{t: int32(ty), num: int32(num), nodes: nodes}
		want := r.p.keyOf(r.p.jobs[o], quota{ty, num, r.localityOf(ty, num, len(nodes))})
		if got := r.keyOfStat(o, s); got != want {
			t.Fatalf("ask %d: job %d type %d num %d nodes %d: keyOfStat %d, keyOf %d", i, o, ty, num, len(nodes), got, want)
		}
	}
}
