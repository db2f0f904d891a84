package runner

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/overheadprofile"
	"github.com/arena-sim/arena/traces"
)

// Field binds one field of Run to its spec key and its 'arena simulate'
// flag: the one table of how a run is written. The CLI binds its flags
// through it, a sweep spec parses its keys through it (every key's value
// may be a list: an axis of the sweep), and errors found by Validate are
// rendered back through it as the flag or the spec key.
type Field struct {
	// Key is the field's key in a run's JSON form (run.json, golden files)
	// and in Validate's error paths.
	Key string
	// SpecKey is the key in a sweep spec ("" = Key); Aliases are other
	// spellings a spec may use (singular/plural).
	SpecKey string
	Aliases []string
	// Flag is the 'arena simulate' flag ("" = none: the field is set
	// otherwise, e.g. synth by a spec's synth mapping).
	Flag  string
	Usage string
	// Bool fields take no value on the command line.
	Bool bool
	// Type names the value's kind in help ("string", "int", "float",
	// "bool").
	Type string
	// Set parses one value into r, checking the field's range rule; Get
	// renders r's value (a flag's default).
	Set func(r *Run, v string) error
	Get func(r *Run) string
}

// SpecName is the field's key in a sweep spec.
func (f *Field) SpecName() string {
	if f.SpecKey != "" {
		return f.SpecKey
	}
	return f.Key
}

func ruleErr(v, rule string) error { return fmt.Errorf("%s: %s", sim.ShowValue(v), rule) }

func setString(get func(r *Run) *string) access {
	return access{func(r *Run, v string) error {
		v = strings.TrimSpace(v)
		if v == "" {
			return errors.New(ruleNonEmpty)
		}
		*get(r) = v
		return nil
	}, func(r *Run) string {
		return *get(r)
	}, "string"}
}

func setBool(get func(r *Run) *bool) access {
	return access{func(r *Run, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return ruleErr(v, ruleBool)
		}
		*get(r) = b
		return nil
	}, func(r *Run) string {
		return strconv.FormatBool(*get(r))
	}, "bool"}
}

func setFloat(get func(r *Run) *float64, check func(float64) error, rule string) access {
	return access{func(r *Run, v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || check(f) != nil {
			return ruleErr(v, rule)
		}
		*get(r) = f
		return nil
	}, func(r *Run) string {
		return strconv.FormatFloat(*get(r), 'g', -1, 64)
	}, "float"}
}

func setInt(get func(r *Run) *int64, ok func(int64) bool, rule string) access {
	return access{func(r *Run, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || !ok(n) {
			return ruleErr(v, rule)
		}
		*get(r) = n
		return nil
	}, func(r *Run) string {
		return strconv.FormatInt(*get(r), 10)
	}, "int"}
}

// access is a field's Set and Get.
type access struct {
	set  func(*Run, string) error
	get  func(*Run) string
	kind string
}

func field(f Field, a access) Field {
	f.Set, f.Get, f.Type = a.set, a.get, a.kind
	return f
}

func custom(kind string, set func(*Run, string) error, get func(*Run) string) access {
	return access{set, get, kind}
}

// Fields is the table, in the order a spec documents its keys. The axes
// a sweep has always had (traces, clusters, policies, timing, density,
// seeds, estimators) keep their plural spec keys.
var Fields = []Field{
	field(Field{Key: "trace", SpecKey: "traces", Aliases: []string{"trace"}, Flag: "trace",
		Usage: "built-in trace (philly, helios, pai, testbed) or a CSV file in the artifact format"},
		setString(func(r *Run) *string { return &r.Trace })),
	field(Field{Key: "cluster", SpecKey: "clusters", Aliases: []string{"cluster"}, Flag: "cluster",
		Usage: "built-in cluster (" + strings.Join(clusterspec.BuiltinNames(), ", ") + ") or a YAML/JSON spec file"},
		setString(func(r *Run) *string { return &r.Cluster })),
	field(Field{Key: "policy", SpecKey: "policies", Aliases: []string{"policy"}, Flag: "policy",
		Usage: "comma-separated policies, each name, name(key=value,…) or exec:COMMAND (default: arena and fcfs, those registered); see 'arena policies'"},
		setString(func(r *Run) *string { return &r.Policy })),
	field(Field{Key: "timing", Aliases: []string{"timings"}, Flag: "timing", Usage: "timing mode: exact or artifact"},
		custom("string", func(r *Run, v string) error {
			t, err := sim.ParseTiming(strings.TrimSpace(v))
			if err != nil {
				return ruleErr(v, ruleTiming)
			}
			r.Timing = t
			return nil
		}, func(r *Run) string { return r.Timing.String() })),
	field(Field{Key: "rounds", Flag: "rounds", Usage: "scheduling rounds of 300 s to simulate (default: the trace's, 2000 for philly, 500 for helios and pai)"},
		custom("int", func(r *Run, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return ruleErr(v, ruleRounds)
			}
			r.Rounds = n
			return nil
		}, func(r *Run) string { return strconv.Itoa(r.Rounds) })),
	// horizon is another way to write rounds.
	field(Field{Key: "horizon", Flag: "horizon", Usage: "simulated time instead of --rounds, e.g. 7d, 36h, 90m (rounded up to whole rounds)"},
		custom("string", func(r *Run, v string) error {
			d, err := ParseHorizon(strings.TrimSpace(v))
			if err != nil {
				return err
			}
			r.Rounds = HorizonRounds(d)
			return nil
		}, func(r *Run) string { return "" })),
	field(Field{Key: "max_rounds", Flag: "max-rounds", Usage: "refuse runs longer than this many rounds (a typo or an outlier timestamp would otherwise run for hours); raise it for a genuinely long run"},
		custom("int", func(r *Run, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 {
				return ruleErr(v, ruleMaxRounds)
			}
			r.MaxRounds = n
			return nil
		}, func(r *Run) string { return strconv.Itoa(r.MaxRounds) })),
	field(Field{Key: "measure", Flag: "measure", Usage: "the jobs whose JCT, queueing and slowdown are measured (the others still run: warm-up and cool-down): by submission time after the first, e.g. 1d..3d, or by arrival index, e.g. #4000..5000; default all"},
		custom("string", func(r *Run, v string) error {
			if _, err := ParseMeasure(v); err != nil {
				return err
			}
			r.Measure = strings.TrimSpace(v)
			if r.Measure == "all" {
				r.Measure = ""
			}
			return nil
		}, func(r *Run) string { return r.Measure })),
	field(Field{Key: "drain", Flag: "drain", Bool: true, Usage: "run past --rounds/--horizon until every measured job has finished, or is stuck on an idle cluster for 100 rounds with nothing left to arrive (cap: max(10 × rounds, rounds + 20 × the measured jobs' arrival span), at most --max-rounds); default in a sweep's exact-timing runs"},
		setBool(func(r *Run) *bool { return &r.Drain })),
	field(Field{Key: "until_done", Flag: "until-done", Bool: true, Usage: "retired: use --drain"},
		custom("bool", func(r *Run, v string) error {
			return errors.New(ruleUntilDone)
		}, func(r *Run) string { return "false" })),
	field(Field{Key: "density", Aliases: []string{"densities"}, Flag: "density", Usage: "iteration scaling (ARENA.md §8): every job's iteration count × this"},
		setFloat(func(r *Run) *float64 { return &r.Density }, checkDensity, ruleDensity)),
	field(Field{Key: "seed", SpecKey: "seeds", Aliases: []string{"seed"}, Flag: "seed", Usage: "random seed (recorded; the built-in policies and traces are deterministic)"},
		setInt(func(r *Run) *int64 { return &r.Seed }, func(int64) bool { return true }, ruleSeed)),
	field(Field{Key: "estimator", SpecKey: "estimators", Aliases: []string{"estimator"}, Flag: "estimator", Usage: "performance model: " + strings.Join(EstimatorNames(), ", ")},
		custom("string", func(r *Run, v string) error {
			v = strings.TrimSpace(v)
			if !slices.Contains(EstimatorNames(), v) {
				return fmt.Errorf("estimator %q: unknown (known: %s)", v, strings.Join(EstimatorNames(), ", "))
			}
			r.Estimator = v
			return nil
		}, func(r *Run) string { return r.Estimator })),
	field(Field{Key: "gpu_map", Flag: "gpu-map", Usage: "rewrite the trace's GPU types for another cluster, e.g. a100=h100,v100=h100,a40=l20,a10=l20"},
		custom("string", func(r *Run, v string) error {
			if _, err := traces.ParseGPUMap(v); err != nil {
				return err
			}
			r.GPUMap = strings.TrimSpace(v)
			return nil
		}, func(r *Run) string { return r.GPUMap })),
	field(Field{Key: "overheads", Flag: "overheads", Usage: "reconfiguration overhead profile: " + strings.Join(overheadprofile.BuiltinNames(), ", ") + " or a YAML file (docs/calibrating.md)"},
		custom("string", func(r *Run, v string) error {
			v = strings.TrimSpace(v)
			if v == "" {
				return fmt.Errorf("want a profile name (%s) or a YAML file", strings.Join(overheadprofile.BuiltinNames(), ", "))
			}
			r.Overheads = v
			return nil
		}, func(r *Run) string { return r.Overheads })),
	field(Field{Key: "overhead_scale", Flag: "overhead-scale", Usage: "multiply every overhead of the profile by this (sensitivity runs)"},
		setFloat(func(r *Run) *float64 { return &r.OverheadScale }, func(f float64) error {
			if !(f > 0) || f > 1e300 {
				return errors.New(ruleOverheadScale)
			}
			return nil
		}, ruleOverheadScale)),
	field(Field{Key: "iteration_scale", Flag: "iteration-scale", Usage: "divide the trace's iteration counts by N instead of the trace's own scale (built-in: 5 for philly/helios/pai, 1 for testbed)"},
		setInt(func(r *Run) *int64 { return &r.IterationScale }, func(n int64) bool { return n > 0 }, ruleIterationScale)),
	field(Field{Key: "slowdown", Flag: "slowdown", Usage: "calibration: multiply every executed iteration time by this factor (policies still decide with the estimator's values; docs/calibrating.md)"},
		setFloat(func(r *Run) *float64 { return &r.Slowdown }, checkFactor, ruleFactor)),
	field(Field{Key: "relaxed_slowdown", Flag: "relaxed-slowdown", Usage: "calibration: factor on executed iteration times of multi-node placements less compact than best locality, instead of --slowdown"},
		setFloat(func(r *Run) *float64 { return &r.RelaxedSlowdown }, checkFactor, ruleFactor)),
	field(Field{Key: "type_slowdowns", Flag: "type-slowdowns", Usage: "calibration per GPU type: multiply executed iteration times on each named type by its factor, on top of --slowdown, e.g. h100=1.2,l20=0.8 (each a type of the cluster; factors 0.01 to 100)"},
		custom("string", func(r *Run, v string) error {
			m, err := ParseTypeSlowdowns(v)
			if err != nil {
				return err
			}
			r.TypeSlowdowns = FormatTypeSlowdowns(m)
			return nil
		}, func(r *Run) string { return r.TypeSlowdowns })),
	field(Field{Key: "profiling_delay", Flag: "profiling-delay", Bool: true, Usage: "prepend each job's disaggregated-profiling time (analytic model) to its first start"},
		setBool(func(r *Run) *bool { return &r.ProfilingDelay })),
	field(Field{Key: "schedule_on_events", Flag: "schedule-on-events", Bool: true, Usage: "exact timing: also call the policy at each arrival and completion, not only every 300-s round"},
		setBool(func(r *Run) *bool { return &r.ScheduleOnEvents })),
	field(Field{Key: "tenants", Flag: "tenants", Usage: "tenants for the fairness figures (ρ, Jain's indices, per-tenant JCT and GPU-hours in summary.json): a tenants file (YAML, docs/tenants.md), a built-in one (philly-vcs) or " + TenantsVCs + " (each virtual cluster of the trace a tenant of weight 1)"},
		custom("string", func(r *Run, v string) error {
			v = strings.TrimSpace(v)
			if v == "" {
				return fmt.Errorf("want a tenants file or %s", TenantsVCs)
			}
			r.Tenants = v
			return nil
		}, func(r *Run) string { return r.Tenants })),
	field(Field{Key: "energy", Flag: "energy", Usage: "also report energy (kWh: busy, idle, reconfiguration, failures), carbon (kg CO2eq) and cost ($) per job, tenant and cluster in summary.json: " + energy.DefaultName + " (the built-in power, price and carbon model: US-average carbon intensity), de-2020-06 (the same with Germany's hourly intensity of a June 2020 week) or an energy file (YAML, docs/energy.md); with --out also DIR/<policy>/energy_jobs.csv"},
		custom("string", func(r *Run, v string) error {
			v = strings.TrimSpace(v)
			if v == "" {
				return fmt.Errorf("want %s or an energy file", energy.DefaultName)
			}
			r.Energy = v
			return nil
		}, func(r *Run) string { return r.Energy })),
	field(Field{Key: "check", Flag: "check", Bool: true, Usage: "run the invariant checker after every event (slower)"},
		setBool(func(r *Run) *bool { return &r.Check })),
	field(Field{Key: "faults", Flag: "faults", Usage: "cluster events (exact timing): a failure preset (synthesised for --seed) or an events file, CSV or Parquet (docs/faults.md); empty: none"},
		custom("string", func(r *Run, v string) error {
			r.Faults = strings.TrimSpace(v)
			return nil
		}, func(r *Run) string { return r.Faults })),
	field(Field{Key: "checkpoint_interval", Flag: "checkpoint-interval", Usage: "every job writes a checkpoint after this much progress time (seconds or 30m, 2h; 0: none): a job on a failed node loses the work since its last one"},
		setSpan(func(r *Run) *float64 { return &r.CheckpointInterval })),
	field(Field{Key: "checkpoint_cost", Flag: "checkpoint-cost", Usage: "time a job spends writing a checkpoint, making no progress (seconds or a duration)"},
		setSpan(func(r *Run) *float64 { return &r.CheckpointCost })),
	field(Field{Key: "checkpoint_restore", Flag: "checkpoint-restore", Usage: "time a job restarted after an interruption spends restoring its checkpoint, on top of the overhead profile's restart cost"},
		setSpan(func(r *Run) *float64 { return &r.CheckpointRestore })),
	field(Field{Key: "job_mtbf", Flag: "job-mtbf", Usage: "jobs fail on their own (a crash, not the cluster): mean running time between a job's failures (seconds or 12h, 7d; 0: none), seeded by --seed"},
		setSpan(func(r *Run) *float64 { return &r.JobMTBF })),
	field(Field{Key: "job_retries", Flag: "job-retries", Usage: "times a job that failed on its own is restarted from its last checkpoint; its next failure ends it (state failed)"},
		setInt(func(r *Run) *int64 { return &r.JobRetries }, func(n int64) bool { return n >= 0 && n <= 1000 }, "want 0 to 1000")),
}

// setSpan binds a span field (ParseSpan; seconds).
func setSpan(get func(r *Run) *float64) access {
	return access{func(r *Run, v string) error {
		f, err := ParseSpan(v)
		if err != nil {
			return err
		}
		*get(r) = f
		return nil
	}, func(r *Run) string {
		return strconv.FormatFloat(*get(r), 'g', -1, 64)
	}, "duration"}
}

// FieldByKey finds a field by its key, spec key or alias.
func FieldByKey(key string) (*Field, bool) {
	for i := range Fields {
		f := &Fields[i]
		if f.Key == key || f.SpecName() == key || slices.Contains(f.Aliases, key) {
			return f, true
		}
	}
	return nil, false
}

// FieldByFlag finds a field by its 'arena simulate' flag.
func FieldByFlag(flag string) (*Field, bool) {
	for i := range Fields {
		if Fields[i].Flag == flag && flag != "" {
			return &Fields[i], true
		}
	}
	return nil, false
}
