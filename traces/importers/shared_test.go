package importers

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedTrace returns the path of rel inside the shared trace samples
// (TRACES.md §0): $ARENA_SHARED/traces/rel when ARENA_SHARED is set, else
// ../shared/traces/rel from the repository root — ../../../shared from this
// package's directory, as CI lays it out. A test that reads one runs in a
// plain `go test`. It is skipped, with the path it looked at, only when the
// shared folder itself is absent; a folder that is there but lacks the
// file, or an ARENA_SHARED that points nowhere, fails the test, so the
// real-trace checks cannot go quietly unrun.
func sharedTrace(t *testing.T, rel string) string {
	t.Helper()
	root, fromEnv := os.Getenv("ARENA_SHARED"), true
	if root == "" {
		root, fromEnv = filepath.Join("..", "..", "..", "shared"), false
	}
	abs, _ := filepath.Abs(root)
	p := filepath.Join(root, "traces", rel)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if _, err := os.Stat(root); err != nil && !fromEnv {
		t.Skipf("NOT RUN: the shared trace samples are absent (%s does not exist); link ../shared next to the repository or set ARENA_SHARED", abs)
	}
	if fromEnv {
		t.Fatalf("shared trace sample %s is missing (ARENA_SHARED=%s)", filepath.Join(abs, "traces", rel), root)
	}
	t.Fatalf("shared trace sample %s is missing, though the shared folder %s exists", filepath.Join(abs, "traces", rel), abs)
	return ""
}
