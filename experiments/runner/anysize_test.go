package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// Jobs of any size (issue 37): 36 jobs of 1, 3, 6, 12, 24, 32, 64, 128
// and 256 GPUs on paper-1280 under the hybrid estimator, every built-in
// policy with the invariant checker on (a start on an uneven grid, or a
// GPU held twice, fails the run). Small models whose data-parallel
// replica fits every GPU type, so the baselines' DP memory filter passes
// them too. FCFS, which starts every job as asked, must finish them all.
// (At this commit every policy finishes all 36 but ftf, which drops two
// 1-GPU jobs by its own rule.)
func TestAnySizeEveryPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("every policy on 36 jobs")
	}
	sizes := []int{1, 3, 6, 12, 24, 32, 64, 128, 256}
	types := []string{"a100", "v100", "a40", "a10"}
	var b strings.Builder
	b.WriteString("id,submit_s,duration_s,censored,iterations,iteration_scale,gpus,gpu_type,model,batch,deadline_s,user,vc,status,attempt,zone,source\n")
	for i := range 36 {
		fmt.Fprintf(&b, "j%02d,%d,0,false,%d,5,%d,%s,moe-690m,256,0,u,vc,,0,,anysize\n", i, 900*i, 1000+100*(i%7), sizes[i%len(sizes)], types[i/len(sizes)])
	}
	path := filepath.Join(t.TempDir(), "anysize.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := policy.NewRegistry()
	for _, pol := range []string{"fcfs", "arena", "arena-dp", "gavel", "sia", "elasticflow", "elasticflow-ls", "tiresias", "srtf", "ftf", "gavel-fair", "quota(fcfs)"} {
		r := Run{Trace: path, Cluster: "paper-1280", Policy: pol, Estimator: "hybrid", Timing: sim.Exact, Rounds: 400, Check: true}
		s, err := Resolve(reg, r)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Execute(context.Background(), nil)
		if err != nil {
			t.Errorf("%s: %v", pol, err)
			continue
		}
		t.Logf("%s: %d of %d finished, %d dropped, %d stuck", pol, out.Summary.Finished, len(s.Jobs), out.Summary.Dropped, out.Summary.StuckPending)
		if pol == "fcfs" && out.Summary.Finished != len(s.Jobs) {
			t.Errorf("fcfs finished %d of %d jobs of 1–256 GPUs", out.Summary.Finished, len(s.Jobs))
		}
	}
}
