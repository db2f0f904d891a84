package cli

import (
	"strings"
	"testing"
)

// TestReplayRejectsBadFlags: every bad flag is refused before any Slurm
// daemon starts (these run without Slurm or root).
func TestReplayRejectsBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, `--on "": want slurm`},
		{[]string{"replay", "--on", "k8s"}, `--on "k8s": want slurm`},
		{[]string{"replay", "--on", "slurm", "--speed", "0"}, "--speed 0: want a positive"},
		{[]string{"replay", "--on", "slurm", "--speed", "-5"}, "--speed -5"},
		{[]string{"replay", "--on", "slurm", "--jobs", "-1"}, "--jobs -1"},
		{[]string{"replay", "--on", "slurm", "--mode", "mixed"}, `--mode "mixed": want policy, native or both`},
		{[]string{"replay", "--on", "slurm", "--slurm-scheduler", "fifo"}, `--slurm-scheduler "fifo"`},
		{[]string{"replay", "--on", "slurm", "--attach"}, "--attach needs --partition"},
		{[]string{"replay", "--on", "slurm", "--attach", "--partition", "gpu"}, "needs --workdir"},
		{[]string{"replay", "--on", "slurm", "--policy", "nosuchpolicy"}, "nosuchpolicy"},
		{[]string{"replay", "--on", "slurm", "--cluster", "nosuchcluster"}, "--cluster"},
		{[]string{"replay", "--on", "slurm", "--max-error", "-1"}, "--max-error -1"},
	} {
		out, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("arena %s: error %v, want one containing %q\n%s", strings.Join(c.args, " "), err, c.want, out)
		}
	}
}
