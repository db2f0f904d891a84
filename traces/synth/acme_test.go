package synth

import (
	"math"
	"slices"
	"testing"

	"github.com/arena-sim/arena/traces/table"
)

// Anchor (published): 200,000 jobs drawn for each Acme cluster reproduce
// its published GPU-job statistics (cluster_summary.csv of the AcmeTrace
// release, NSDI'24) within stated bands: mean GPUs ±5 %, median GPUs 1,
// largest count the published maximum (1,024), mean run time ±10 % and
// median ±5 % (the log-normal tail above the published maximum is
// redrawn, which lowers the mean), completed/cancelled/failed shares by
// count ±0.01 and by GPU time ±0.08 (a few 1,024-GPU jobs of days carry a
// large share of the GPU time, so that share converges slowly).
func TestAcmeMatchesPublished(t *testing.T) {
	for _, name := range []string{"seren", "kalos"} {
		s := AcmeClusters[name]
		in := make([]table.Job, 200000)
		o := Options{Acme: name, Seed: 1}
		if err := acme(in, o, &Report{}); err != nil {
			t.Fatal(err)
		}
		var gpus, runs []float64
		var count, gtime [3]float64
		var total float64
		for _, j := range in {
			gpus, runs = append(gpus, j.GPUs), append(runs, j.Duration)
			o := map[string]int{"": 0, table.OutcomeKilled: 1, table.OutcomeFailed: 2}[j.Outcome]
			count[o]++
			gtime[o] += j.GPUs * j.Duration
			total += j.GPUs * j.Duration
		}
		n := float64(len(in))
		if m := mean(gpus); math.Abs(m/s.MeanGPUs-1) > 0.05 {
			t.Errorf("%s: mean GPUs %.2f, published %.2f", name, m, s.MeanGPUs)
		}
		if md, mx := median(gpus), slices.Max(gpus); md != s.MedianGPUs || mx != s.MaxGPUs {
			t.Errorf("%s: median / max GPUs %v / %v, published %v / %v", name, md, mx, s.MedianGPUs, s.MaxGPUs)
		}
		if m := mean(runs); math.Abs(m/s.MeanRun-1) > 0.10 {
			t.Errorf("%s: mean run %.0f s, published %.0f", name, m, s.MeanRun)
		}
		if md := median(runs); math.Abs(md/s.MedianRun-1) > 0.05 || slices.Max(runs) > s.MaxRun {
			t.Errorf("%s: median run %.0f s (max %.0f), published %.0f (max %.0f)", name, md, slices.Max(runs), s.MedianRun, s.MaxRun)
		}
		for o := range 3 {
			if c := count[o] / n; math.Abs(c-s.Count[o]) > 0.01 {
				t.Errorf("%s: outcome %d share by count %.3f, published %.3f", name, o, c, s.Count[o])
			}
			if g := gtime[o] / total; math.Abs(g-s.Time[o]) > 0.08 {
				t.Errorf("%s: outcome %d share by GPU time %.3f, published %.3f", name, o, g, s.Time[o])
			}
		}
	}
}

// Hand-worked: the job-type rule on its boundaries.
func TestAcmeTypeRule(t *testing.T) {
	for _, c := range []struct {
		gpus, run float64
		outcome   int
		want      string
	}{
		{256, 60, 2, AcmePretrain}, {128, 1e5, 0, AcmeFinetune}, {16, 30, 1, AcmeFinetune},
		{8, 599, 2, AcmeDebug}, {8, 600, 2, AcmeEval}, {1, 30, 0, AcmeEval},
	} {
		if got := acmeType(c.gpus, c.run, c.outcome); got != c.want {
			t.Errorf("%v GPUs, %v s, outcome %d: %s, want %s", c.gpus, c.run, c.outcome, got, c.want)
		}
	}
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
