package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/arena-sim/arena/sim/input"
)

// Key is one synthesis parameter as the command line (--key) and an
// experiment spec's synth mapping (key: value) spell it.
type Key struct {
	Name, Help string
	set        func(o *Options, v string) error
}

// Keys lists the parameters in documentation order.
func Keys() []Key { return keys }

// Set applies one key=value to o.
func Set(o *Options, name, value string) error {
	for _, k := range keys {
		if k.Name == name {
			if err := k.set(o, strings.TrimSpace(value)); err != nil {
				return input.Errorf("%s %q: %w", name, value, err)
			}
			return nil
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return input.Errorf("unknown synthesis key %q (known: %s)", name, strings.Join(names, ", "))
}

// ParseSeconds reads a duration: plain seconds ("3600"), a Go duration
// ("31.6m", "166.7h") or days ("7d").
func ParseSeconds(s string) (float64, error) {
	bad := fmt.Errorf("want seconds, or a duration such as 90s, 31.6m, 166.7h or 7d")
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, bad
		}
		return v, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseFloat(d, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return 0, bad
		}
		return v * 86400, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d.Seconds(), nil
}

func number(dst *float64) func(*Options, string) error {
	return func(_ *Options, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 0) {
			return fmt.Errorf("want a number ≥ 0")
		}
		*dst = f
		return nil
	}
}

var keys = []Key{
	{"seed", "seed of every random choice (math/rand/v2 PCG)", func(o *Options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want an integer ≥ 0")
		}
		o.Seed = n
		return nil
	}},
	{"min-duration", "drop jobs shorter than this (e.g. 60s; Blox/Gavel: 31.6m)", func(o *Options, v string) (err error) {
		o.MinDuration, err = ParseSeconds(v)
		return
	}},
	{"max-duration", "drop jobs longer than this (e.g. 166.7h)", func(o *Options, v string) (err error) {
		o.MaxDuration, err = ParseSeconds(v)
		return
	}},
	{"max-gpus", "drop jobs asking for more GPUs (Sia, Blox: 16)", func(o *Options, v string) error { return number(&o.MaxGPUs)(o, v) }},
	{"max-gpu-time", "drop jobs with this much GPU-time or more (Pollux: 1000h)", func(o *Options, v string) (err error) {
		o.MaxGPUTime, err = ParseSeconds(v)
		return
	}},
	{"since", "drop jobs submitted earlier than this after the first job (e.g. 27d)", func(o *Options, v string) (err error) {
		o.Since, err = ParseSeconds(v)
		return
	}},
	{"until", "drop jobs submitted this long or later after the first job", func(o *Options, v string) (err error) {
		o.Until, err = ParseSeconds(v)
		return
	}},
	{"vc", "keep only these virtual clusters (comma-separated)", func(o *Options, v string) error {
		o.VCs = splitList(v)
		return nil
	}},
	{"status", "keep only jobs with these final states (comma-separated, e.g. Pass)", func(o *Options, v string) error {
		o.Status = splitList(v)
		return nil
	}},
	{"window", "START+HOURS: keep jobs submitted in that window (Pollux: 2+8)", func(o *Options, v string) error {
		a, b, ok := strings.Cut(v, "+")
		s, err1 := strconv.ParseFloat(a, 64)
		h, err2 := strconv.ParseFloat(b, 64)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("want START+HOURS, e.g. 2+8 (02:00 for 8 hours)")
		}
		o.WindowStart, o.WindowHours = s, h
		if o.WindowMode == "" {
			o.WindowMode = "tod"
		}
		return nil
	}},
	{"window-mode", "tod: time of day in the trace's zone, every day pooled (Pollux); relative: hours after the first job (Sia)", func(o *Options, v string) error {
		if v != "tod" && v != "relative" {
			return fmt.Errorf("want tod or relative")
		}
		o.WindowMode = v
		return nil
	}},
	{"sample", "draw this many jobs without replacement (Pollux/Sia: 160)", func(o *Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a count ≥ 0")
		}
		o.Sample = n
		return nil
	}},
	{"rate", "Poisson arrivals at this many jobs per hour, replacing the trace's", func(o *Options, v string) error { return number(&o.Rate)(o, v) }},
	{"jobs", "with rate: emit this many jobs (cycling through the input, or from scratch without one)", func(o *Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a count ≥ 0")
		}
		o.Jobs = n
		return nil
	}},
	{"rate-scale", "compress inter-arrival times by this factor (2 = twice the load, same jobs)", func(o *Options, v string) error { return number(&o.RateScale)(o, v) }},
	{"durations", "gavel: redraw run times from Gavel's law (60·10^U(1.5,3) s w.p. 0.8, else 60·10^U(3,4) s)", func(o *Options, v string) error {
		o.Durations = v
		return nil
	}},
	{"gpu-mix", "redraw GPU demand: gavel (1:0.7,2:0.1,4:0.15,8:0.05) or count:weight,…", func(o *Options, v string) error {
		if _, err := ParseGPUMix(v); err != nil {
			return err
		}
		o.GPUMix = v
		return nil
	}},
	{"acme", "redraw GPU counts, run times, outcomes and job types (vc column) from an Acme cluster's published statistics: seren or kalos (NSDI'24; docs/workloads.md)", func(o *Options, v string) error {
		if _, ok := AcmeClusters[v]; !ok {
			return fmt.Errorf("want seren or kalos")
		}
		o.Acme = v
		return nil
	}},
	{"acme-max-gpus", "acme: the largest GPU count drawn, a power of two from the published maximum (1024) to 1048576 (e.g. 8192, Llama 3's largest runs); the counts 2^k up to it keep the published mean (docs/workloads.md)", func(o *Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 || n > 1<<20 || n&(n-1) != 0 {
			return fmt.Errorf("want a power of two from 1024 to 1048576")
		}
		o.AcmeMaxGPUs = n
		return nil
	}},
	{"recipe", "re-label jobs: arena (the artifact's LM workloads, ARENA.md §8), pollux or sia (GPU-time buckets)", func(o *Options, v string) error {
		o.Recipe = v
		return nil
	}},
	{"keep-gpus", "arena recipe: keep the trace's GPU count instead of drawing it: true rounds it up to a power of two ≤ 16 (the profile database's shapes); exact keeps any count (labels priced by the hybrid estimator; run with --estimator hybrid)", func(o *Options, v string) error {
		if v == "exact" {
			o.KeepGPUs, o.KeepGPUsExact = true, true
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true, false or exact")
		}
		o.KeepGPUs, o.KeepGPUsExact = b, false
		return nil
	}},
	{"keep-durations", "arena recipe: keep the trace's run times: iterations = duration × scale ÷ the drawn plan's iteration time, never redrawn (scale default 1)", func(o *Options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		o.KeepDurations = b
		return nil
	}},
	{"iter-range", "arena recipe: MIN:MAX iterations; duration/iteration time outside is redrawn uniformly inside (default 2000:10000)", func(o *Options, v string) error {
		a, b, ok := strings.Cut(v, ":")
		lo, err1 := strconv.ParseFloat(a, 64)
		hi, err2 := strconv.ParseFloat(b, 64)
		if !ok || err1 != nil || err2 != nil || lo < 1 || hi < lo {
			return fmt.Errorf("want MIN:MAX with 1 ≤ MIN ≤ MAX")
		}
		o.IterMin, o.IterMax = lo, hi
		return nil
	}},
	{"iteration-scale", "arena recipe: the engine runs iterations ÷ this (default 5, the artifact's; 1 runs the trace's durations)", func(o *Options, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("want an integer ≥ 1")
		}
		o.IterationScale = n
		return nil
	}},
	{"start", "first job's arrival time (e.g. 1000000 or 11.6d; default 0); > 0 makes a workload the artifact's simulator reads like arena (it takes a 0-s submission as its wall clock)", func(o *Options, v string) (err error) {
		o.Start, err = ParseSeconds(v)
		return
	}},
	{"deadline-factor", "arena recipe: deadline = submit + factor × duration (the artifact: 1.5; 0 = none)", func(o *Options, v string) error {
		o.DeadlineSet = true
		return number(&o.DeadlineFactor)(o, v)
	}},
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
