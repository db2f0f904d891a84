package faults

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// testCluster: nodes 0–2 are a100 (4 GPUs), nodes 3–4 v100 (16 GPUs).
func testCluster(t testing.TB) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 3, GPUsPerNode: 4}, {GPU: "v100", Nodes: 2, GPUsPerNode: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A valid file, read by hand: the expected events are written out below
// from the rows (outside anchor: the format as docs/faults.md states it).
func TestReadEventsCSV(t *testing.T) {
	text := `time,node,event,notice,cause
# node 1 fails and is repaired
100,1,down,,hbm3
400,1,up,,
# the whole v100 pool is drained with an hour's notice
50,v100,drain,3600,
7200,v100/1,up,,
200,a100/2,reclaim,120,spot
`
	got, err := ReadEventsCSV("e.csv", strings.NewReader(text), testCluster(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.ClusterEvent{
		{Time: 50, Node: 3, Kind: sim.NodeDrain, Notice: 3600, Cause: "maintenance"},
		{Time: 50, Node: 4, Kind: sim.NodeDrain, Notice: 3600, Cause: "maintenance"},
		{Time: 100, Node: 1, Kind: sim.NodeDown, Cause: "hbm3"},
		{Time: 200, Node: 2, Kind: sim.NodeReclaim, Notice: 120, Cause: "spot"},
		{Time: 400, Node: 1, Kind: sim.NodeUp},
		{Time: 7200, Node: 4, Kind: sim.NodeUp},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Every refusal names the file, the line (counted by hand in the texts)
// and the field. Each case fails on a reader that accepts the row.
func TestReadEventsCSVErrors(t *testing.T) {
	const head = "time,node,event,notice,cause\n"
	for _, c := range []struct {
		name, text string
		line       int
		field, msg string
	}{
		{"node out of range", head + "10,5,down,,\n", 2, "node", "no such node"},
		{"unknown pool", head + "10,h100,down,,\n", 2, "node", "not a node index"},
		{"pool ordinal out of range", head + "10,a100/3,down,,\n", 2, "node", "a100/0 to a100/2"},
		{"repair before failure", head + "10,1,up,,\n20,1,down,,\n", 2, "event", "repair before its failure"},
		{"up of an up node", head + "10,1,down,,\n20,1,up,,\n30,1,up,,\n", 4, "event", "the node is up"},
		{"down twice", head + "10,1,down,,\n20,1,down,,\n", 3, "event", "already down"},
		{"up while draining", head + "10,1,drain,100,\n20,1,up,,\n", 3, "event", "draining until 110s"},
		{"drain of a down node", head + "10,1,down,,\n20,1,drain,5,\n", 3, "event", "it is down"},
		{"add of a present node", head + "10,1,down,,\n20,1,add,,\n", 3, "event", "already in the cluster"},
		{"add after other events", head + "20,1,add,,\n10,1,drain,5,\n", 2, "event", "already in the cluster"},
		{"negative time", head + "-1,1,down,,\n", 2, "time", "≥ 0"},
		{"NaN time", head + "NaN,1,down,,\n", 2, "time", "finite"},
		{"infinite notice", head + "1,1,drain,+Inf,\n", 2, "notice", "finite"},
		{"negative notice", head + "1,1,drain,-5,\n", 2, "notice", "≥ 0"},
		// The shared time bound (input.Time): above 1e10 s is milliseconds
		// or garbage; before, 1e308 was accepted.
		{"time of 1e308", head + "1e308,1,down,,\n", 2, "time", "milliseconds instead of seconds"},
		{"time just past the bound", head + "10000000001,1,down,,\n", 2, "time", "over 1e+10 s"},
		{"notice of 1e308", head + "1,1,drain,1e308,\n", 2, "notice", "over 1e+10 s"},
		{"notice on down", head + "1,1,down,60,\n", 2, "notice", "takes no notice"},
		{"cause on up", head + "1,1,down,,\n2,1,up,,x\n", 3, "cause", "takes no cause"},
		{"unknown event", head + "1,1,explode,,\n", 2, "event", "want one of down, up, drain, reclaim, add"},
		{"unknown column", "time,node,event,notcie\n", 1, "notcie", "unknown column"},
		{"missing column", "time,node\n", 1, "event", "missing column"},
		{"short row", head + "1,1\n", 2, "", "2 fields"},
		{"bad cause", head + "1,1,down,,a b\n", 2, "cause", "short word"},
		{"price on reclaim", "time,node,event,notice,cause,price\n1,1,reclaim,120,,1.5\n", 2, "price", "a reclaim event takes no price (only up and add do"},
		{"negative price", "time,node,event,price\n1,1,add,-1\n", 2, "price", "want $ per GPU-hour in [0, 1000]"},
		{"NaN price", "time,node,event,price\n1,1,add,NaN\n", 2, "price", "want $ per GPU-hour"},
	} {
		_, err := ReadEventsCSV("e.csv", strings.NewReader(c.text), testCluster(t))
		var ie *input.Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an *input.Error", c.name, err)
			continue
		}
		if ie.File != "e.csv" || ie.Line != c.line || ie.Field != c.field || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q at line %d field %q, want line %d field %q containing %q", c.name, err, ie.Line, ie.Field, c.line, c.field, c.msg)
		}
	}
}

// The time bound is inclusive: an event at input.MaxTime is read; past
// the window it is the run's to refuse or warn about (PastWindow).
func TestEventTimeBound(t *testing.T) {
	ev, err := ReadEventsCSV("e.csv", strings.NewReader("time,node,event\n10000000000,1,down\n"), testCluster(t))
	if err != nil || len(ev) != 1 || ev[0].Time != input.MaxTime {
		t.Fatalf("an event at the bound: %v, %v", ev, err)
	}
	evs := []sim.ClusterEvent{{Time: 10}, {Time: 20}, {Time: 30}, {Time: 30}}
	for end, want := range map[sim.Time]int{0: 4, 10: 4, 11: 3, 30: 2, 31: 0} {
		if got := PastWindow(evs, end); got != want {
			t.Errorf("PastWindow(end %v) = %d, want %d", end, got, want)
		}
	}
}

// An added node is absent until its add, then behaves as any node; a
// drain's notice expires into down, so an up after it is a valid return.
func TestAddAndDrainExpiry(t *testing.T) {
	text := "time,pool,event,notice\n5,4,add,\n10,4,drain,10\n30,4,up,\n"
	got, err := ReadEventsCSV("e.csv", strings.NewReader(text), testCluster(t))
	if err != nil || len(got) != 3 || got[0].Kind != sim.NodeAdd || got[2].Kind != sim.NodeUp {
		t.Fatalf("%v %v", got, err)
	}
}

type parquetEvent struct {
	Time   float64 `parquet:"time"`
	Node   string  `parquet:"node"`
	Event  string  `parquet:"event"`
	Notice float64 `parquet:"notice"`
}

// The Parquet form reads as the CSV form does (a cause column is
// optional), and its errors name the row.
func TestReadEventsParquet(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "e.parquet")
	rows := []parquetEvent{{100, "1", "down", 0}, {400, "1", "up", 0}, {50, "v100", "drain", 3600}}
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEventsFile(path, testCluster(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Node != 3 || got[0].Kind != sim.NodeDrain || got[0].Notice != 3600 || got[2].Cause != "failure" {
		t.Errorf("%+v", got)
	}
	rows = append(rows, parquetEvent{500, "1", "up", 0})
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	_, err = ReadEventsFile(path, testCluster(t))
	var ie *input.Error
	if !errors.As(err, &ie) || ie.Line != 4 || ie.Field != "event" {
		t.Errorf("%v, want row 4, field event", err)
	}
}

// What WriteEventsCSV writes, ReadEventsCSV reads back unchanged.
func TestWriteReadRoundTrip(t *testing.T) {
	c := testCluster(t)
	ev, err := Load("llama3", c, 7, 0, 3*365*86400)
	if err != nil || len(ev) == 0 {
		t.Fatalf("%d events, %v", len(ev), err)
	}
	var buf bytes.Buffer
	if err := WriteEventsCSV(&buf, ev); err != nil {
		t.Fatal(err)
	}
	back, err := ReadEventsCSV("w.csv", &buf, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(ev) {
		t.Fatalf("%d events back, wrote %d", len(back), len(ev))
	}
	for i := range ev {
		if back[i] != ev[i] {
			t.Fatalf("event %d: %+v back, wrote %+v", i, back[i], ev[i])
		}
	}
	// The Parquet form too, drains' notices and spot reclaims included.
	ev, err = Load("llama3", c, 7, 0, 3*365*86400)
	if err != nil {
		t.Fatal(err)
	}
	spot, err := Load("aws-spot", c, 7, 0, 365*86400)
	if err != nil {
		t.Fatal(err)
	}
	for _, evs := range [][]sim.ClusterEvent{ev, spot} {
		path := filepath.Join(t.TempDir(), "w.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteEventsParquet(f, evs); err != nil {
			t.Fatal(err)
		}
		f.Close()
		back, err := ReadEventsFile(path, c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, evs) {
			t.Fatalf("Parquet: %d events back, wrote %d; first back %+v, wrote %+v", len(back), len(evs), back[:min(1, len(back))], evs[:min(1, len(evs))])
		}
	}
}

// TestPricedEvents: a price column is read onto add and up events, and
// both writers keep it (and add no column when no event has a price).
func TestPricedEvents(t *testing.T) {
	c := testCluster(t)
	text := "time,node,event,notice,cause,price\n0,a100/2,add,,,1.25\n100,a100/2,reclaim,120,,\n900,a100/2,up,,,1.5\n"
	ev, err := ReadEventsCSV("p.csv", strings.NewReader(text), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.ClusterEvent{
		{Time: 0, Node: 2, Kind: sim.NodeAdd, Price: 1.25},
		{Time: 100, Node: 2, Kind: sim.NodeReclaim, Notice: 120, Cause: "spot"},
		{Time: 900, Node: 2, Kind: sim.NodeUp, Price: 1.5},
	}
	if !reflect.DeepEqual(ev, want) {
		t.Fatalf("got %+v, want %+v", ev, want)
	}
	var buf bytes.Buffer
	if err := WriteEventsCSV(&buf, ev); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadEventsCSV("w.csv", bytes.NewReader(buf.Bytes()), c); err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("CSV round trip: %v %+v\n%s", err, back, buf.String())
	}
	path := filepath.Join(t.TempDir(), "p.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteEventsParquet(f, ev); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if back, err := ReadEventsFile(path, c); err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("Parquet round trip: %v %+v", err, back)
	}
	buf.Reset()
	if err := WriteEventsCSV(&buf, want[1:2]); err != nil || strings.Contains(buf.String(), "price") {
		t.Errorf("no prices, yet a price column: %q %v", buf.String(), err)
	}
	if err := Check([]sim.ClusterEvent{{Time: 1, Node: 0, Kind: sim.NodeDown, Price: 2}}, c); err == nil || !strings.Contains(err.Error(), "takes no price") {
		t.Errorf("Check of a priced down: %v", err)
	}
}

// TestSpotExample: the shipped priced events file (docs/energy.md) reads
// on paper-1280: 80 a100 adds at $1.50, a reclaim, an up at $1.80.
func TestSpotExample(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "paper-1280", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 80, GPUsPerNode: 4}, {GPU: "v100", Nodes: 20, GPUsPerNode: 16}, {GPU: "a40", Nodes: 160, GPUsPerNode: 2}, {GPU: "a10", Nodes: 160, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ReadEventsFile("../../examples/energy/spot-a100.csv", c)
	if err != nil {
		t.Fatal(err)
	}
	priced := 0
	for _, e := range ev {
		if e.Price != 0 {
			priced++
		}
	}
	if len(ev) != 82 || priced != 81 || ev[len(ev)-1].Price != 1.8 {
		t.Errorf("%d events, %d priced, last %+v", len(ev), priced, ev[len(ev)-1])
	}
}

func FuzzReadEventsCSV(f *testing.F) {
	f.Add("time,node,event,notice,cause\n100,1,down,,hbm3\n400,1,up,,\n")
	f.Add("time,pool,event,notice\n50,v100,drain,3600\n7200,v100/1,up,\n")
	f.Add("time,node,event\n5,4,add\n")
	f.Add("time,node,event,notice,cause\n\"1\n\",1,down,,\n")
	c := testCluster(f)
	f.Fuzz(func(t *testing.T, text string) {
		ev, err := ReadEventsCSV("f.csv", strings.NewReader(text), c)
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) || ie.File != "f.csv" {
				t.Fatalf("error %v is not an *input.Error for the file", err)
			}
			return
		}
		// Accepted events are sorted, on existing nodes, with finite
		// non-negative times and notices only where they belong.
		for i, e := range ev {
			if e.Node < 0 || e.Node >= len(c.Nodes) || !(e.Time >= 0) || !(e.Notice >= 0) {
				t.Fatalf("event %+v", e)
			}
			if e.Notice != 0 && e.Kind != sim.NodeDrain && e.Kind != sim.NodeReclaim {
				t.Fatalf("notice on %+v", e)
			}
			if i > 0 && (ev[i-1].Time > e.Time || ev[i-1].Time == e.Time && ev[i-1].Node > e.Node) {
				t.Fatalf("not sorted at %d", i)
			}
		}
	})
}

func TestLoadNames(t *testing.T) {
	c := testCluster(t)
	for _, n := range []string{"", "none"} {
		if ev, err := Load(n, c, 1, 0, 1e6); ev != nil || err != nil {
			t.Errorf("%q: %v %v", n, ev, err)
		}
	}
	if _, err := Load("llama4", c, 1, 0, 1e6); err == nil || !strings.Contains(err.Error(), "llama3") {
		t.Errorf("unknown name: %v, want the presets listed", err)
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "e.csv")
	os.WriteFile(csvPath, []byte("time,node,event\n10,0,down\n"), 0o644)
	if ev, err := Load(csvPath, c, 1, 0, 1); err != nil || len(ev) != 1 || ev[0].Time != 10 {
		t.Errorf("csv: %v %v (file events are not clipped to the window)", ev, err)
	}
	specPath := filepath.Join(dir, "s.yaml")
	os.WriteFile(specPath, []byte("spot:\n  - {rate: 0.01, notice: 2m, returns: 1h}\n"), 0o644)
	a, err := Load(specPath, c, 3, 0, 1e7)
	b, _ := Load(specPath, c, 3, 0, 1e7)
	if err != nil || len(a) == 0 || len(a) != len(b) {
		t.Errorf("spec: %d events, %v", len(a), err)
	}
	os.WriteFile(filepath.Join(dir, "x.txt"), nil, 0o644)
	if _, err := Load(filepath.Join(dir, "x.txt"), c, 1, 0, 1); err == nil || !strings.Contains(err.Error(), ".parquet") {
		t.Errorf("other extension: %v", err)
	}
}

// Check refuses what the file reader refuses, for events built in code.
func TestCheck(t *testing.T) {
	c := testCluster(t)
	ok := []sim.ClusterEvent{{Time: 1, Node: 0, Kind: sim.NodeDown}, {Time: 2, Node: 0, Kind: sim.NodeUp}}
	if err := Check(ok, c); err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string][]sim.ClusterEvent{
		"no such node":   {{Time: 1, Node: 9, Kind: sim.NodeDown}},
		"up of up":       {{Time: 1, Node: 0, Kind: sim.NodeUp}},
		"notice on down": {{Time: 1, Node: 0, Kind: sim.NodeDown, Notice: 5}},
		"negative time":  {{Time: -1, Node: 0, Kind: sim.NodeDown}},
	} {
		if err := Check(ev, c); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
