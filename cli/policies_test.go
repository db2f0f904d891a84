package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// brokenPolicy starts every arriving job on GPU slot 0, whoever holds it:
// the second job on the slot is a GPU held twice, which the engine rejects.
const brokenPolicy = `import arena_policy as ap


class Greedy(ap.Policy):
    name = "broken-greedy"

    def decide(self, view):
        return [ap.start(j.id, [0]) for j in view.arrivals]


if __name__ == "__main__":
    ap.run(Greedy())
`

// TestPoliciesCheck runs the conformance command as a policy author's CI
// would: a passing policy exits 0 with every case "ok"; a broken Python
// policy exits non-zero, each failed case marked FAIL with the engine's
// reason, and the error names the policy.
func TestPoliciesCheck(t *testing.T) {
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		root := New(policy.NewRegistry())
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(append([]string{"policies", "check"}, args...))
		err := root.Execute()
		return out.String(), err
	}
	out, err := run("fcfs")
	if err != nil {
		t.Fatalf("fcfs failed the suite: %v\n%s", err, out)
	}
	if !strings.Contains(out, "fcfs: 20 of 20 cases passed") || strings.Contains(out, "FAIL") {
		t.Errorf("fcfs: want 20 of 20 cases passed, got:\n%s", out)
	}

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIPPED: python3 not found; the exec half of this test did not run")
	}
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join("..", "examples", "python", "arena_policy.py"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"arena_policy.py": client, "broken.py": []byte(brokenPolicy)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := "exec:python3 " + filepath.Join(dir, "broken.py")
	out, err = run(p)
	if err == nil {
		t.Fatalf("a policy that puts two jobs on one GPU passed the suite:\n%s", out)
	}
	if !strings.Contains(err.Error(), "conformance failed") || !strings.Contains(err.Error(), "broken.py") {
		t.Errorf("error should name the failing policy: %v", err)
	}
	if !strings.Contains(out, "FAIL  exact    minimum workload finishes under the checker") {
		t.Errorf("the minimum-workload case should fail in exact timing:\n%s", out)
	}
	if !strings.Contains(out, "cases passed") {
		t.Errorf("no per-policy count:\n%s", out)
	}
}

func TestClipBoundsEchoes(t *testing.T) {
	long := strings.Repeat("é", 5000)
	got := clip(long)
	if len(got) > 2100 || !strings.Contains(got, "more bytes") {
		t.Errorf("clip kept %d bytes", len(got))
	}
	if !strings.HasPrefix(long, strings.SplitN(got, " …", 2)[0]) {
		t.Error("clip cut inside a character")
	}
}
