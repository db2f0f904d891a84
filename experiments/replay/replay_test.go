package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// Anchors: every expected value below is worked by hand from the input
// (Slurm's documented formats, the definitions in the doc comments);
// none is output of the code under test saved as a golden.

func testbedLike(t *testing.T) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "mini", Pools: []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 2}, {GPU: "a10", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNodeNamesPerTypeIndex(t *testing.T) {
	c := testbedLike(t)
	got := strings.Join(NodeNames(c), " ")
	// Node order is the cluster's; the index counts within a type.
	want := make([]string, len(c.Nodes))
	seen := map[string]int{}
	for i, n := range c.Nodes {
		want[i] = n.GPU + "-" + string(rune('0'+seen[n.GPU]))
		seen[n.GPU]++
	}
	if got != strings.Join(want, " ") {
		t.Errorf("NodeNames = %q, want %q", got, strings.Join(want, " "))
	}
	if GresType("a100-80g") != "a10080g" || GresType("H100") != "h100" {
		t.Errorf("GresType keeps letters and digits only, lower case")
	}
	if LoopbackAddr(0) != "127.0.1.1" || LoopbackAddr(249) != "127.0.1.250" || LoopbackAddr(250) != "127.0.2.1" {
		t.Errorf("LoopbackAddr: %s %s %s", LoopbackAddr(0), LoopbackAddr(249), LoopbackAddr(250))
	}
}

func TestSlurmConfHasEveryNodeWithItsGPUs(t *testing.T) {
	c := testbedLike(t)
	conf, err := SlurmConf(c, ConfParams{Dir: "/w", MungeSock: "/w/m.sock", CtldPort: 10000, NodePorts: []int{10001, 10002, 10003},
		GPUFiles: "/w/gpu", Partition: "arena", ClusterTag: "x", Scheduler: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	names := NodeNames(c)
	for i, n := range c.Nodes {
		line := "NodeName=" + names[i] + " NodeAddr=" + LoopbackAddr(i) + " NodeHostname=localhost Port=" + []string{"10001", "10002", "10003"}[i]
		if !strings.Contains(conf, line) {
			t.Errorf("slurm.conf lacks %q", line)
		}
		gres := "Gres=gpu:" + n.GPU + ":" + string(rune('0'+n.Capacity))
		if !strings.Contains(conf, gres) {
			t.Errorf("slurm.conf lacks %q for %s", gres, names[i])
		}
	}
	for _, want := range []string{"SlurmctldPort=10000", "AuthInfo=socket=/w/m.sock", "SchedulerType=sched/builtin", "GresTypes=gpu",
		"PartitionName=arena Nodes=ALL Default=YES", "PartitionName=arena-a40 Nodes=a40-0,a40-1 ", "PartitionName=arena-a10 Nodes=a10-0 "} {
		if !strings.Contains(conf, want) {
			t.Errorf("slurm.conf lacks %q:\n%s", want, conf)
		}
	}
	if _, err := SlurmConf(c, ConfParams{NodePorts: []int{1}}); err == nil {
		t.Errorf("one port for three nodes accepted")
	}
	gres := GresConf(c, "/w/gpu")
	// A 2-GPU node points at files 0 and 1; the 4-GPU node at 0–3.
	for _, want := range []string{"AutoDetect=off", "NodeName=a40-0 Name=gpu Type=a40 File=/w/gpu/[0-1]", "NodeName=a10-0 Name=gpu Type=a10 File=/w/gpu/[0-3]"} {
		if !strings.Contains(gres, want) {
			t.Errorf("gres.conf lacks %q:\n%s", want, gres)
		}
	}
}

func TestPickPortsSkipsTakenAndWraps(t *testing.T) {
	taken := map[int]bool{10: true, 12: true}
	free := func(p int) bool { return !taken[p] }
	got, err := PickPorts(3, 10, 15, 12, free)
	// From 12: 12 taken, 13, 14, wrap to 10 taken, 11.
	if err != nil || len(got) != 3 || got[0] != 13 || got[1] != 14 || got[2] != 11 {
		t.Errorf("PickPorts = %v, %v; want [13 14 11]", got, err)
	}
	if _, err := PickPorts(4, 10, 15, 10, free); err == nil {
		t.Errorf("4 ports from a range with 3 free: no error")
	}
}

func TestParseStamps(t *testing.T) {
	out := `srun: some message
arena-standin 1 a40-1 start 1000.250000000
arena-standin 1 a40-1 nodes
arena-standin 0 a40-0 start 1000.125000000
arena-standin 0 a40-0 nodes a40-[0-1]
arena-standin 0 a40-0 end 1010.5
arena-standin 1 a40-1 end 1010.75
`
	s, err := ParseStamps(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// First task's start, last task's end, both nodes sorted.
	if s.Start != 1000.125 || s.End != 1010.75 || strings.Join(s.Nodes, ",") != "a40-0,a40-1" || s.NodeList != "a40-[0-1]" || !s.Complete() {
		t.Errorf("ParseStamps = %+v", s)
	}
	for _, bad := range []string{"arena-standin 0 n start x\n", "arena-standin 0 n start -1\n", "arena-standin 0 n begin 5\n", "arena-standin 0\n"} {
		if _, err := ParseStamps(strings.NewReader("ok\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("ParseStamps(%q): error %v, want one naming line 2", bad, err)
		}
	}
	if s, _ := ParseStamps(strings.NewReader("arena-standin 0 n start 5\n")); s.Complete() {
		t.Errorf("a stand-in without its end line is complete")
	}
}

func TestStandinScript(t *testing.T) {
	s := StandinScript(1.5, 0)
	if !strings.Contains(s, "sleep 1.500;") || strings.Contains(s, "awk") {
		t.Errorf("relative stand-in: %s", s)
	}
	d := StandinScript(1.5, 1765000000.25)
	if !strings.Contains(d, "-v e=1765000000.250000") || strings.Contains(d, "sleep 1.500") {
		t.Errorf("absolute stand-in: %s", d)
	}
}

func TestExpandHostlist(t *testing.T) {
	for in, want := range map[string]string{
		"a40-3":              "a40-3",
		"a40-[0-2,5],a10-7":  "a40-0 a40-1 a40-2 a40-5 a10-7",
		"n[08-10]":           "n08 n09 n10",
		"a10-[1],a40-[2-3]x": "a10-1 a40-2x a40-3x",
		"":                   "",
	} {
		got, err := ExpandHostlist(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ExpandHostlist(%q) = %v, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"n[3-1]", "n[a]", "n[1-2", "n[1][2]"} {
		if _, err := ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q): no error", bad)
		}
	}
}

func TestParseSinfoGres(t *testing.T) {
	out := "b gpu:a40:2(S:0-1)\na gpu:a40:2\nc gpu:a10:4,gpu:a40:1\nd (null)\na gpu:a40:2\n"
	by, err := ParseSinfoGres(out)
	if err != nil {
		t.Fatal(err)
	}
	// a40: a, b, c sorted by name (a listed twice counts once); a10: c.
	if len(by["a40"]) != 3 || by["a40"][0].Name != "a" || by["a40"][1].Name != "b" || by["a40"][2].GPUs != 1 || len(by["a10"]) != 1 || by["a10"][0].GPUs != 4 {
		t.Errorf("ParseSinfoGres = %+v", by)
	}
	if _, err := ParseSinfoGres("x gpu:a40:two\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad count: %v", err)
	}
}

func TestOrderAgreementHandWorked(t *testing.T) {
	// Jobs started at 1, 2, 3 simulated; really at 10, 30, 20: of the
	// pairs (1,2) (1,3) (2,3) the first two keep their order, the third
	// swaps: 2 of 3.
	share, pairs := OrderAgreement([]float64{1, 2, 3}, []float64{10, 30, 20})
	if pairs != 3 || math.Abs(share-2.0/3) > 1e-12 {
		t.Errorf("OrderAgreement = %v of %d, want 2/3 of 3", share, pairs)
	}
	// A tie in the simulated order is not a pair; a tie in the real one
	// is a disagreement; NaN (never started) is left out.
	share, pairs = OrderAgreement([]float64{1, 1, 2, math.NaN()}, []float64{5, 6, 6, 1})
	// Pairs: (0,2): 1<2, 5<6 agree; (1,2): 1<2, 6=6 disagree.
	if pairs != 2 || share != 0.5 {
		t.Errorf("OrderAgreement with ties = %v of %d, want 0.5 of 2", share, pairs)
	}
	if share, pairs := OrderAgreement(nil, nil); share != 1 || pairs != 0 {
		t.Errorf("no pairs: %v of %d", share, pairs)
	}
}

func TestShape(t *testing.T) {
	for _, c := range []struct{ n, cap, nodes, per int }{
		{1, 2, 1, 1}, {2, 2, 1, 2}, {8, 2, 4, 2}, {16, 2, 8, 2}, {6, 4, 2, 3}, {8, 16, 1, 8},
	} {
		nodes, per, ok := Shape(c.n, c.cap)
		if !ok || nodes != c.nodes || per != c.per {
			t.Errorf("Shape(%d, %d) = %d×%d %v, want %d×%d", c.n, c.cap, nodes, per, ok, c.nodes, c.per)
		}
	}
	// 7 GPUs on 4-GPU nodes: 2 nodes cannot split 7 evenly, 7 nodes of 1 can.
	if nodes, per, ok := Shape(7, 4); !ok || nodes != 7 || per != 1 {
		t.Errorf("Shape(7, 4) = %d×%d %v", nodes, per, ok)
	}
	if _, _, ok := Shape(0, 2); ok {
		t.Errorf("Shape(0, 2) ok")
	}
}

func TestAddFixedReachesEveryChange(t *testing.T) {
	o := sim.Overhead{Fixed: 5, PerGPU: 10, Cap: 40, Actions: map[sim.Change]sim.Overhead{sim.Change(1): {Fixed: 7}}}
	got := AddFixed(o, 100)
	// 4 GPUs: 105 + min(40, 40) = 145.
	if got.For(4) != 145 || got.Actions[sim.Change(1)].Fixed != 107 {
		t.Errorf("AddFixed: For(4) = %v, override %v", got.For(4), got.Actions[sim.Change(1)].Fixed)
	}
	if o.Actions[sim.Change(1)].Fixed != 7 {
		t.Errorf("AddFixed changed its argument")
	}
}

func TestNativeHandoffs(t *testing.T) {
	st := func(start, end float64, nodes ...string) Stamps { return Stamps{Start: start, End: end, Nodes: nodes} }
	ls := []Launch{
		{Launch: 100, Stamps: st(100.2, 110, "a")},
		// Submitted at 101 while a was busy; a ended at 110, b started 110.5.
		{Launch: 101, Stamps: st(110.5, 120, "a", "b")},
		// On another node, started 0.1 s after submission.
		{Launch: 105, Stamps: st(105.1, 130, "c")},
		{Launch: 106}, // no timestamps
	}
	h := NativeHandoffs(ls)
	want := []float64{0.2, 0.5, 0.1}
	for i, w := range want {
		if math.Abs(h[i]-w) > 1e-9 {
			t.Errorf("hand-off %d = %v, want %v", i, h[i], w)
		}
	}
	if !math.IsNaN(h[3]) {
		t.Errorf("hand-off without timestamps = %v, want NaN", h[3])
	}
}

func TestRelErrAndQuantile(t *testing.T) {
	if RelErr(110, 100) < 0.0999 || RelErr(110, 100) > 0.1001 || !math.IsNaN(RelErr(1, 0)) {
		t.Errorf("RelErr")
	}
	xs := []float64{4, 1, math.NaN(), 3, 2}
	if quantile(xs, 0.5) != 2 || quantile(xs, 1) != 4 || mean(xs) != 2.5 {
		t.Errorf("quantile/mean: %v %v %v", quantile(xs, 0.5), quantile(xs, 1), mean(xs))
	}
}

func TestSegmentsMergeAHoldingsRecords(t *testing.T) {
	c := testbedLike(t) // slots: a40-0 {0,1}, a40-1 {2,3}, a10-0 {4..7} (node order: a40 first?)
	first := map[string]int{}
	for _, n := range c.Nodes {
		if _, ok := first[n.GPU]; !ok {
			first[n.GPU] = n.FirstSlot
		}
	}
	a40, a10 := int32(first["a40"]), int32(first["a10"])
	res := &sim.Result{Allocations: []sim.AllocRecord{
		// Job 1 holds slot 0 of each a40 node over [0, 100): two records
		// (slots a40 and a40+2 are not consecutive), one segment of 2
		// nodes × 1 GPU.
		{Job: 1, GPU: "a40", FirstSlot: a40, Slots: 1, Start: 0, End: 100},
		{Job: 1, GPU: "a40", FirstSlot: a40 + 2, Slots: 1, Start: 0, End: 100},
		// Job 2 on 2 GPUs of the a10 node over [50, 80), then job 1 again
		// there (after a migration) over [150, 200).
		{Job: 2, GPU: "a10", FirstSlot: a10, Slots: 2, Start: 50, End: 80},
		{Job: 1, GPU: "a10", FirstSlot: a10, Slots: 4, Start: 150, End: 200},
	}}
	segs, err := Segments(res, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3: %+v", len(segs), segs)
	}
	s0, s1, s2 := segs[0], segs[1], segs[2]
	if s0.Job != 1 || s0.Index != 0 || len(s0.Nodes) != 2 || s0.PerNode != 1 || s0.Start != 0 || s0.End != 100 {
		t.Errorf("segment 0 = %+v", s0)
	}
	if s1.Job != 2 || s1.PerNode != 2 || len(s1.Nodes) != 1 || s1.Start != 50 {
		t.Errorf("segment 1 = %+v", s1)
	}
	if s2.Job != 1 || s2.Index != 1 || s2.PerNode != 4 || s2.GPU != "a10" {
		t.Errorf("segment 2 = %+v", s2)
	}
	// A holding with 2 GPUs on one node and 1 on another is no grid.
	bad := &sim.Result{Allocations: []sim.AllocRecord{{Job: 3, GPU: "a40", FirstSlot: a40, Slots: 3, Start: 0, End: 1}}}
	if _, err := Segments(bad, c); err == nil {
		t.Errorf("a non-uniform holding gave no error")
	}
}
