package cli

import (
	"strings"
	"testing"
)

// TestEstimateTrafficAtEverySize: `arena estimate --cluster` says where a
// job's traffic goes both on the exhaustive search's path and on the
// bounded 3D search's (jobs of thousands of GPUs). The counts are worked
// by hand from the built-in specs: h100-racks has racks of 2 nodes of 8
// GPUs, so 64 GPUs packed fill 8 nodes in 4 racks; h100-24k has racks of
// 2 nodes and pods of 384 nodes, so 16,384 GPUs fill 2,048 nodes, 1,024
// racks and ⌈2048/384⌉ = 6 pods.
func TestEstimateTrafficAtEverySize(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"estimate", "--model", "gpt-6.7b", "--batch", "256", "--gpu", "h100", "--gpus", "64", "--cluster", "h100-racks"},
			[]string{"Traffic on h100-racks", "64 GPUs on 8 nodes in 8 fast domain(s), 4 rack(s)", "rack: 4 of them"}},
		{[]string{"estimate", "--model", "gpt-405b", "--batch", "2048", "--gpu", "h100", "--gpus", "16384", "--cluster", "h100-24k"},
			[]string{"Bounded 3D search", "Traffic on h100-24k", "16384 GPUs on 2048 nodes in 2048 fast domain(s), 1024 rack(s), 6 pod(s)", "pod: 6 of them"}},
	} {
		out, err := runCLI(t, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(c.args, " "), err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", strings.Join(c.args, " "), w, out)
			}
		}
	}
}
