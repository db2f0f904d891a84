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
