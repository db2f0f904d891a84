package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/arena-sim/arena/traces/table"
)

// AcmeStats are the published statistics of one Acme cluster's GPU jobs
// (Hu et al., Characterization of Large Language Model Development in the
// Datacenter, NSDI'24; InternLM/AcmeTrace data/cluster_summary.csv at
// commit 6d6ac9cd, CC BY 4.0): run time mean, median and max (s), GPUs
// per job mean, median and max, and the completed / cancelled / failed
// shares by job count and by GPU time.
type AcmeStats struct {
	Name                          string
	MeanRun, MedianRun, MaxRun    float64
	MeanGPUs, MedianGPUs, MaxGPUs float64
	// Count and Time: completed, cancelled, failed.
	Count, Time [3]float64
}

// AcmeClusters are Seren and Kalos, the two clusters of the Acme trace.
var AcmeClusters = map[string]AcmeStats{
	"seren": {Name: "Seren", MeanRun: 1414.335, MedianRun: 122, MaxRun: 1209604, MeanGPUs: 5.68, MedianGPUs: 1, MaxGPUs: 1024,
		Count: [3]float64{0.497, 0.075, 0.429}, Time: [3]float64{0.212, 0.664, 0.124}},
	"kalos": {Name: "Kalos", MeanRun: 1259.689, MedianRun: 124, MaxRun: 625740, MeanGPUs: 26.77, MedianGPUs: 1, MaxGPUs: 1024,
		Count: [3]float64{0.541, 0.062, 0.397}, Time: [3]float64{0.313, 0.607, 0.080}},
}

// acmeOneGPU is the assumed share of 1-GPU jobs: the published median is
// 1 GPU (so at least half), the summary gives no more; 0.55 is this
// recipe's choice.
const acmeOneGPU = 0.55

// The job types of LLM development (the Acme paper's taxonomy), assigned
// by this recipe's rule (acmeType), written to the vc column.
const (
	AcmePretrain = "pretrain"
	AcmeFinetune = "finetune"
	AcmeEval     = "evaluation"
	AcmeDebug    = "debugging"
)

// acmeModel is the sampling model of one cluster, derived once from its
// statistics (newAcmeModel).
type acmeModel struct {
	s      AcmeStats
	counts []int     // GPU counts: 1, 2, 4, …, MaxGPUs
	gcdf   []float64 // their cumulative probabilities
	sigma  float64   // log-normal shape of run times
	mu     [3]float64
}

// newAcmeModel fits the model: GPU counts are 1 with probability
// acmeOneGPU and 2^k (k = 1 … log2 max) with probability ∝ r^k, r solved
// so the mean is the published mean. Run times are log-normal per outcome
// with one shape σ: the outcome o's mean is mean·Time_o/Count_o (so the
// GPU-time shares come out as published when counts and run times are
// independent), and σ is solved so the mixture's median is the published
// median. Draws above the published maximum are redrawn.
func newAcmeModel(s AcmeStats) (*acmeModel, error) {
	m := &acmeModel{s: s}
	for n := 1; float64(n) <= s.MaxGPUs; n *= 2 {
		m.counts = append(m.counts, n)
	}
	if len(m.counts) < 2 || s.MeanGPUs <= acmeOneGPU+(1-acmeOneGPU)*2 || s.MeanGPUs >= acmeOneGPU+(1-acmeOneGPU)*s.MaxGPUs {
		return nil, fmt.Errorf("synth: acme %s: mean GPUs %v cannot be matched on 1…%v", s.Name, s.MeanGPUs, s.MaxGPUs)
	}
	weights := func(r float64) []float64 {
		w := make([]float64, len(m.counts))
		w[0] = acmeOneGPU
		var sum float64
		for k := 1; k < len(w); k++ {
			w[k] = math.Pow(r, float64(k))
			sum += w[k]
		}
		for k := 1; k < len(w); k++ {
			w[k] *= (1 - acmeOneGPU) / sum
		}
		return w
	}
	mean := func(r float64) float64 {
		var e float64
		for k, w := range weights(r) {
			e += w * float64(m.counts[k])
		}
		return e
	}
	r := bisect(1e-3, 1e3, func(r float64) float64 { return mean(r) - s.MeanGPUs }, true)
	var c float64
	for _, w := range weights(r) {
		c += w
		m.gcdf = append(m.gcdf, c)
	}
	logMeans := [3]float64{}
	for o := range 3 {
		logMeans[o] = math.Log(s.MeanRun * s.Time[o] / s.Count[o])
	}
	median := func(sigma float64) float64 {
		var p float64
		for o := range 3 {
			mu := logMeans[o] - sigma*sigma/2
			p += s.Count[o] * 0.5 * math.Erfc(-(math.Log(s.MedianRun)-mu)/(sigma*math.Sqrt2))
		}
		return p - 0.5
	}
	m.sigma = bisect(0.05, 5, median, true)
	for o := range 3 {
		m.mu[o] = logMeans[o] - m.sigma*m.sigma/2
	}
	return m, nil
}

// bisect finds x in [lo, hi] with f(x) = 0 for f increasing (or
// decreasing when inc is false), to 1e-12 relative, in a fixed number of
// steps.
func bisect(lo, hi float64, f func(float64) float64, inc bool) float64 {
	if !inc {
		g := f
		f = func(x float64) float64 { return -g(x) }
	}
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// draw fills one job: GPUs, run time, outcome and type.
func (m *acmeModel) draw(r *rand.Rand, j *table.Job) {
	u := r.Float64()
	k, _ := slices.BinarySearch(m.gcdf, u)
	j.GPUs = float64(m.counts[min(k, len(m.counts)-1)])
	v := r.Float64() * (m.s.Count[0] + m.s.Count[1] + m.s.Count[2])
	o := 0
	for o < 2 && v >= m.s.Count[o] {
		v -= m.s.Count[o]
		o++
	}
	for {
		d := math.Exp(m.mu[o] + m.sigma*r.NormFloat64())
		if d <= m.s.MaxRun {
			j.Duration = math.Max(1, math.Round(d))
			break
		}
	}
	j.Censored = false
	j.Outcome, j.Status = [3]string{"", table.OutcomeKilled, table.OutcomeFailed}[o], [3]string{"COMPLETED", "CANCELLED", "FAILED"}[o]
	j.VC = acmeType(j.GPUs, j.Duration, o)
}

// acmeType is this recipe's job-type rule (the stored summary has no
// per-type breakdown): pre-training on 256 GPUs or more; fine-tuning on
// 16–128; on fewer, a job that failed or was cancelled within 10 minutes
// is debugging, any other evaluation.
func acmeType(gpus, run float64, outcome int) string {
	switch {
	case gpus >= 256:
		return AcmePretrain
	case gpus >= 16:
		return AcmeFinetune
	case outcome != 0 && run < 600:
		return AcmeDebug
	}
	return AcmeEval
}

// acme redraws every job's GPUs, run time, outcome and type from o.Acme's
// cluster statistics, on its own stream.
func acme(out []table.Job, o Options, rep *Report) error {
	s, ok := AcmeClusters[o.Acme]
	if !ok {
		return fmt.Errorf("synth: acme %q: want seren or kalos", o.Acme)
	}
	if o.AcmeMaxGPUs > 0 {
		s.MaxGPUs = float64(o.AcmeMaxGPUs)
	}
	m, err := newAcmeModel(s)
	if err != nil {
		return err
	}
	r := o.rng(streamAcme)
	for i := range out {
		m.draw(r, &out[i])
	}
	rep.DurationsRedrawn = len(out)
	rep.GPUsRedrawn = len(out)
	return nil
}
