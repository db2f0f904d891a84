package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A preset's events written with -o read back as an events file and give
// the same summary (the file format round-trips through the CLI), and a
// bad file is refused with its line and field.
func TestFaultsEventsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ev.csv")
	gen, err := runCLI(t, "faults", "events", "llama3", "--cluster", "testbed-64", "--seed", "3", "--end", "3650d", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	back, err := runCLI(t, "faults", "events", out, "--cluster", "testbed-64", "--end", "3650d")
	if err != nil {
		t.Fatal(err)
	}
	strip := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }
	if !strings.Contains(gen, "down ") || strip(gen) != strip(back) {
		t.Errorf("generated:\n%s\nread back:\n%s", gen, back)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("time,node,event\n10,0,up\n"), 0o644)
	if _, err := runCLI(t, "faults", "events", bad, "--cluster", "testbed-64"); err == nil || !strings.Contains(err.Error(), "bad.csv:2: event:") {
		t.Errorf("bad file: %v", err)
	}
	list, _ := runCLI(t, "faults")
	if !strings.Contains(list, "llama3 ") || !strings.Contains(list, "aws-spot") {
		t.Errorf("list:\n%s", list)
	}
}

// faults events refuses an empty window, naming both flags (--start 10d
// --end 5d was accepted and summarised nothing), and writes -o in the
// format its extension names: Parquet for .parquet (it wrote CSV), read
// back as the same events; an extension it does not write is refused.
func TestFaultsEventsFlagsFailClosed(t *testing.T) {
	dir := t.TempDir()
	for _, w := range [][2]string{{"10d", "5d"}, {"5d", "5d"}} {
		_, err := runCLI(t, "faults", "events", "llama3", "--cluster", "testbed-64", "--start", w[0], "--end", w[1])
		if err == nil || !strings.Contains(err.Error(), "--end") || !strings.Contains(err.Error(), "--start") {
			t.Errorf("--start %s --end %s: %v; want both flags named", w[0], w[1], err)
		}
	}
	csvOut, pqOut := filepath.Join(dir, "ev.csv"), filepath.Join(dir, "ev.parquet")
	gen, err := runCLI(t, "faults", "events", "aws-spot", "--cluster", "testbed-64", "--seed", "3", "--end", "365d", "-o", csvOut)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "faults", "events", "aws-spot", "--cluster", "testbed-64", "--seed", "3", "--end", "365d", "-o", pqOut); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pqOut)
	if err != nil || len(data) < 8 || string(data[:4]) != "PAR1" || string(data[len(data)-4:]) != "PAR1" {
		t.Fatalf("-o ev.parquet did not write Parquet (%d bytes, %v): %.20q", len(data), err, data)
	}
	back, err := runCLI(t, "faults", "events", pqOut, "--cluster", "testbed-64", "--end", "365d")
	if err != nil {
		t.Fatal(err)
	}
	strip := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }
	if !strings.Contains(gen, "reclaim ") || strip(gen) != strip(back) {
		t.Errorf("generated:\n%s\nread back from Parquet:\n%s", gen, back)
	}
	for _, name := range []string{"ev.txt", "ev.csv.gz", "ev"} {
		_, err := runCLI(t, "faults", "events", "llama3", "--cluster", "testbed-64", "-o", filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), "--out (-o)") || !strings.Contains(err.Error(), ".parquet") {
			t.Errorf("-o %s: %v; want it refused", name, err)
		}
		if _, serr := os.Stat(filepath.Join(dir, name)); serr == nil {
			t.Errorf("-o %s: written", name)
		}
	}
}
