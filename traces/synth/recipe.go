package synth

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/traces/table"
)

// The artifact's re-labelling thresholds (ARENA.md §8,
// traces/regenerate_sim_trace.py): a value v drawn uniformly from
// [0, last) picks the first index whose threshold exceeds v.
var (
	familyOrder      = []estimator.Family{estimator.WideResNet, estimator.GPT, estimator.MoE}
	familyThresholds = []int{15, 40, 100}            // WRN 15 %, GPT 25 %, MoE 60 %
	sizeThresholds   = []int{10, 25, 50, 70, 85, 95} // of 95
	gpuCounts        = []int{1, 2, 4, 8, 16}         //
	gpuThresholds    = []int{10, 25, 45, 65, 80}     // of 80
	typeOrder        = []string{"a100", "v100", "a40", "a10"}
	typeThresholds   = []int{15, 30, 60, 90} // of 90
	batchThresholds  = []int{50, 60, 65}     // of 65
	maxRelabelDraws  = 10000
)

func pick(r *rand.Rand, thresholds []int) int {
	v := r.IntN(thresholds[len(thresholds)-1])
	for i, t := range thresholds {
		if v < t {
			return i
		}
	}
	return len(thresholds) - 1
}

// Label is one draw of the arena recipe.
type Label struct {
	Workload estimator.Workload
	GPU      string
	GPUs     int
	IterTime float64 // seconds per iteration of the best-locality plan
}

// DrawLabel draws (family, size, GPUs, type, batch) with the artifact's
// thresholds until the profile database finds the best-locality plan
// feasible. gpus > 0 fixes the GPU count instead of drawing it.
func DrawLabel(r *rand.Rand, db *estimator.ProfileDB, gpus int) (Label, error) {
	return drawLabel(r, func(w estimator.Workload, c estimator.Config) estimator.Estimate {
		return db.Estimate(w, c, estimator.ViewOptimal)
	}, gpus)
}

// drawLabel is DrawLabel with any estimate in the optimal view.
func drawLabel(r *rand.Rand, estimate func(estimator.Workload, estimator.Config) estimator.Estimate, gpus int) (Label, error) {
	models := estimator.Models()
	for range maxRelabelDraws {
		fam := familyOrder[pick(r, familyThresholds)]
		size := pick(r, sizeThresholds)
		n := gpus
		if n == 0 {
			gi := min(pick(r, gpuThresholds), size+2)
			n = gpuCounts[gi]
		}
		gpu := typeOrder[pick(r, typeThresholds)]
		batches := fam.BatchSizes()
		batch := batches[pick(r, batchThresholds)]
		var m estimator.Model
		for _, mm := range models {
			if mm.Family == fam && mm.SizeIndex == size {
				m = mm
			}
		}
		g, _ := estimator.LookupGPU(gpu)
		w := estimator.Workload{Model: m, Batch: batch}
		e := estimate(w, estimator.BestLocality(gpu, n, g.GPUsPerNode))
		if e.Feasible() {
			return Label{Workload: w, GPU: gpu, GPUs: n, IterTime: e.IterTime}, nil
		}
	}
	return Label{}, fmt.Errorf("synth: no feasible label in %d draws (GPUs %d)", maxRelabelDraws, gpus)
}

// roundGPUs rounds a GPU count up to a power of two in [1, 16].
func roundGPUs(g float64) int {
	n := int(math.Ceil(g))
	if n <= 1 {
		return 1
	}
	p := 1 << bits.Len(uint(n-1))
	return min(p, 16)
}

// arenaRecipe re-labels jobs in place (ARENA.md §8). Jobs that carry
// iterations and a batch keep their work in samples: iterations ×
// old batch / new batch (the artifact's Philly rule, on the trace's
// scale); jobs with a run time get duration / iteration time, redrawn
// uniformly in [IterMin, IterMax] when outside (the Helios/PAI rule).
func arenaRecipe(jobs []table.Job, o Options, rep *Report) error {
	db := o.ProfileDB
	if db == nil {
		var err error
		if db, err = estimator.DefaultProfileDB(); err != nil {
			return err
		}
	}
	lo, hi := o.IterMin, o.IterMax
	if lo == 0 && hi == 0 {
		lo, hi = 2000, 10000
	}
	scale := o.IterationScale
	if scale == 0 {
		scale = 5
		if o.KeepDurations {
			scale = 1
		}
	}
	factor := o.DeadlineFactor
	if !o.DeadlineSet {
		factor = 1.5
	}
	var hybrid func(estimator.Workload, estimator.Config) estimator.Estimate
	if o.KeepGPUsExact {
		an, err := analytic.DefaultSource()
		if err != nil {
			return err
		}
		hybrid = (&analytic.Hybrid{DB: db, Analytic: an}).View(estimator.ViewOptimal).Estimate
	}
	r := o.rng(streamLabel)
	rc := newRecipeCounts(jobs)
	defer rc.finish(rep, jobs)
	for i := range jobs {
		j := &jobs[i]
		fixed := 0
		var l Label
		var err error
		switch {
		case o.KeepGPUsExact:
			// Any count as the trace has it (at least 1), labelled where
			// the hybrid estimator finds the plan feasible.
			l, err = drawLabel(r, hybrid, max(1, int(math.Ceil(j.GPUs))))
		case o.KeepGPUs:
			fixed = roundGPUs(j.GPUs)
			fallthrough
		default:
			l, err = DrawLabel(r, db, fixed)
		}
		if err != nil {
			return fmt.Errorf("job %s: %w", j.ID, err)
		}
		switch {
		case j.Iterations > 0 && j.Batch > 0:
			j.Iterations = max(1, j.Iterations*j.Batch/int64(l.Workload.Batch))
			// keeps the trace's iteration scale
		case j.HasDuration() && o.KeepDurations:
			// The engine runs iterations ÷ scale × iteration time: the
			// trace's run time on the drawn plan.
			j.Iterations = max(1, int64(math.Round(j.Duration*float64(scale)/l.IterTime)))
			j.IterationScale = scale
			if factor > 0 {
				j.Deadline = j.Submit + factor*j.Duration
			}
		case j.HasDuration():
			it := j.Duration / l.IterTime
			if it < lo || it > hi {
				it = lo + (hi-lo)*r.Float64()
				rc.redrawn++
			}
			j.Iterations = max(1, int64(it))
			j.IterationScale = scale
			if factor > 0 {
				j.Deadline = j.Submit + factor*j.Duration
			}
		case j.Iterations > 0:
			// iterations of another model (Gavel): keep the count
		default:
			return fmt.Errorf("synth: job %s has neither a duration nor iterations to derive work from (use durations: gavel)", j.ID)
		}
		j.Model, j.Batch, j.GPUType, j.GPUs = l.Workload.Model.Name(), int64(l.Workload.Batch), l.GPU, float64(l.GPUs)
		rc.iterTime[i] = l.IterTime
	}
	return nil
}

// bucketRecipe assigns Pollux's (or Sia's) application by GPU-time:
// < 1 GPU-h cifar10 or ncf (Sia: cifar10), 1–10 deepspeech2 (half of them
// bert), 10–100 yolov3, ≥ 100 imagenet. Sia also caps GPUs at 16.
func bucketRecipe(jobs []table.Job, o Options, rep *Report) error {
	r := o.rng(streamLabel)
	rc := newRecipeCounts(jobs)
	defer rc.finish(rep, jobs)
	for i := range jobs {
		j := &jobs[i]
		if !j.HasDuration() {
			return fmt.Errorf("synth: job %s has no duration; the %s recipe buckets by GPU-time", j.ID, o.Recipe)
		}
		h := j.Duration * math.Max(j.GPUs, 1) / 3600
		switch {
		case h < 1:
			j.Model = "cifar10"
			if o.Recipe == "pollux" && r.IntN(2) == 1 {
				j.Model = "ncf"
			}
		case h < 10:
			j.Model = "deepspeech2"
			if r.IntN(2) == 1 {
				j.Model = "bert"
			}
		case h < 100:
			j.Model = "yolov3"
		default:
			j.Model = "imagenet"
		}
		if o.Recipe == "sia" {
			j.GPUs = math.Min(j.GPUs, 16)
		}
	}
	return nil
}
