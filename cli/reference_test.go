package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// TestReferenceCurrent regenerates the flag reference and compares it with
// docs/cli/ byte for byte: a flag added, renamed or re-documented without
// `make docs` fails here, naming the page.
func TestReferenceCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := WriteReference(dir, policy.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", ReferenceDir)
	want, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	have, _ := filepath.Glob(filepath.Join(committed, "arena*.md"))
	if len(want) == 0 {
		t.Fatal("no reference pages generated")
	}
	seen := map[string]bool{}
	for _, w := range want {
		name := filepath.Base(w)
		seen[name] = true
		gen, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		cur, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("%s/%s is missing: run make docs", ReferenceDir, name)
			continue
		}
		if !bytes.Equal(gen, cur) {
			t.Errorf("%s/%s is out of date with the command's flags: run make docs", ReferenceDir, name)
		}
	}
	for _, h := range have {
		if !seen[filepath.Base(h)] {
			t.Errorf("%s/%s documents a command that no longer exists: run make docs", ReferenceDir, filepath.Base(h))
		}
	}
	if !seen[referenceName("arena simulate")] {
		t.Errorf("no page for arena simulate among %d pages", len(want))
	}
}
