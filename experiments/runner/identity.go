package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"strconv"

	"github.com/arena-sim/arena/sim"
)

// InputHash is the digest recorded as input_hash in every results file:
// SHA-256 over a canonical text of what the run read — the policy string
// (options included), the cluster spec, the engine's parameters (timing,
// rounds, round length, overhead model, iteration scale, deadline scale,
// profiling delay on/off, scheduling on events), the estimator, seed,
// density, GPU map, the slowdowns when set, and every job as simulated (after load scaling and
// GPU remapping). Runs with equal hashes had equal inputs; the hash does
// not cover the code (that is arena_version).
func InputHash(r Run, policy string, spec sim.ClusterSpec, cfg sim.Config, jobs []sim.JobSpec) string {
	h := sha256.New()
	writeInputHeader(h, r, policy, spec, cfg)
	writeJobs(jobs, h)
	return hex.EncodeToString(h.Sum(nil))
}

// writeInputHeader writes InputHash's text up to the jobs.
func writeInputHeader(h io.Writer, r Run, policy string, spec sim.ClusterSpec, cfg sim.Config) {
	cs, _ := json.Marshal(spec)
	// JSON, not %v: a pointer inside the overhead model would print as an
	// address and make the hash differ between identical runs.
	ov, err := json.Marshal(cfg.Overhead)
	if err != nil {
		ov = []byte(fmt.Sprintf("%T", cfg.Overhead))
	}
	fmt.Fprintf(h, "arena inputs v1\npolicy %s\ncluster %s\ntiming %s rounds %d round %v overhead %s divisor %d deadline-scale %g profiling %t on-events %t\n",
		policy, cs, cfg.Timing, cfg.Rounds, cfg.RoundLength, ov, cfg.IterationScale, cfg.DeadlineScale,
		cfg.ProfilingDelay != nil, cfg.ScheduleOnEvents)
	fmt.Fprintf(h, "estimator %s seed %d density %g gpu-map %q\n", r.Estimator, r.Seed, Density(r.Density), r.GPUMap)
	if r.Slowdown != 0 && r.Slowdown != 1 || r.RelaxedSlowdown != 0 && r.RelaxedSlowdown != 1 {
		fmt.Fprintf(h, "slowdown %g relaxed %g\n", r.Slowdown, r.RelaxedSlowdown)
	}
	// Per-type slowdowns, only when set: other runs keep their hashes.
	if r.TypeSlowdowns != "" {
		fmt.Fprintf(h, "type-slowdowns %s\n", r.TypeSlowdowns)
	}
	// The measurement window and draining, only when set: other runs
	// keep their hashes.
	if !cfg.Measure.All() || cfg.Drain {
		fmt.Fprintf(h, "measure %s drain %t\n", cfg.Measure, cfg.Drain)
	}
	// The fault model, only when there is one: fault-free runs keep their
	// hashes.
	if cfg.Checkpoint != (sim.Checkpoint{}) {
		fmt.Fprintf(h, "checkpoint %v %v %v\n", float64(cfg.Checkpoint.Interval), float64(cfg.Checkpoint.Cost), float64(cfg.Checkpoint.Restore))
	}
	if cfg.JobFailures.MTBF > 0 {
		fmt.Fprintf(h, "job failures %v %d %d\n", float64(cfg.JobFailures.MTBF), cfg.JobFailures.Retries, cfg.JobFailures.Seed)
	}
	if r.Faults != "" || len(cfg.Events) > 0 {
		fmt.Fprintf(h, "faults %q %d\n", r.Faults, len(cfg.Events))
		for _, ev := range cfg.Events {
			fmt.Fprintf(h, "%v %d %s %v %q\n", float64(ev.Time), ev.Node, ev.Kind, float64(ev.Notice), ev.Cause)
			if ev.Price != 0 { // only priced events: unpriced runs keep their hashes
				fmt.Fprintf(h, "price %v\n", ev.Price)
			}
		}
	}
}

// WorkloadHash is the digest recorded as workload_hash in summary.json:
// SHA-256 over the iteration scale and every job as the engine runs it
// (after synthesis, load scaling and GPU remapping; the same lines as
// InputHash's jobs), and nothing else — not the policy or its options,
// the cluster, the timing or the faults. Two runs of one seed with equal
// workload hashes ran the same jobs: a paired comparison of them is one.
func WorkloadHash(iterationScale int64, jobs []sim.JobSpec) string {
	h := sha256.New()
	writeWorkloadHeader(h, iterationScale)
	writeJobs(jobs, h)
	return hex.EncodeToString(h.Sum(nil))
}

func writeWorkloadHeader(h io.Writer, iterationScale int64) {
	fmt.Fprintf(h, "arena workload v1\niteration-scale %d\n", iterationScale)
}

// Hashes returns InputHash and WorkloadHash (with cfg.IterationScale)
// together: the jobs' lines, which both hash, are rendered once.
func Hashes(r Run, policy string, spec sim.ClusterSpec, cfg sim.Config, jobs []sim.JobSpec) (input, workload string) {
	hi, hw := sha256.New(), sha256.New()
	writeInputHeader(hi, r, policy, spec, cfg)
	writeWorkloadHeader(hw, cfg.IterationScale)
	writeJobs(jobs, hi, hw)
	return hex.EncodeToString(hi.Sum(nil)), hex.EncodeToString(hw.Sum(nil))
}

// writeJobs writes every job's line (appendJob) to each of hs, 64 KiB at
// a time.
func writeJobs(jobs []sim.JobSpec, hs ...hash.Hash) {
	buf := make([]byte, 0, 64<<10+1024)
	flush := func() {
		for _, h := range hs {
			h.Write(buf)
		}
		buf = buf[:0]
	}
	for _, j := range jobs {
		buf = appendJob(buf, j)
		if len(buf) >= 64<<10 {
			flush()
		}
	}
	flush()
}

// appendQuote is strconv.AppendQuote(b, s), with a shortcut for the
// names traces hold: printable ASCII without a double quote or a
// backslash is quoted as it is (AppendQuote escapes nothing of it).
// FuzzAppendQuote checks it against AppendQuote.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJob appends the hashed text of job j to b: what fmt makes of
//
//	"%d %q %v %s %d %d %s %d %v %q %q\n", ID, Name, Submit, model name, batch,
//	Iterations, GPU, GPUs, Deadline, User, VirtualCluster
//
// written without fmt, which was most of the hash's cost on a trace of
// thousands of jobs: %d is AppendInt, %q AppendQuote, %v of a float
// AppendFloat's shortest 'g' form, ±Inf and NaN included
// (TestAppendJobIsTheFmtText).
func appendJob(b []byte, j sim.JobSpec) []byte {
	b = strconv.AppendInt(b, int64(j.ID), 10)
	b = append(b, ' ')
	b = appendQuote(b, j.Name)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, float64(j.Submit), 'g', -1, 64)
	b = append(b, ' ')
	b = append(b, j.Workload.Model.Name()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(j.Workload.Batch), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, j.Iterations, 10)
	b = append(b, ' ')
	b = append(b, j.GPU...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(j.GPUs), 10)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, float64(j.Deadline), 'g', -1, 64)
	b = append(b, ' ')
	b = appendQuote(b, j.User)
	b = append(b, ' ')
	b = appendQuote(b, j.VirtualCluster)
	// The job's own checkpoint model, only when it has one: other jobs'
	// lines (and so fault-free runs' hashes) are as they were.
	if ck := j.Checkpoint; ck != (sim.Checkpoint{}) {
		b = append(b, " ck "...)
		for _, v := range []sim.Duration{ck.Interval, ck.Cost, ck.Restore} {
			b = strconv.AppendFloat(b, float64(v), 'g', -1, 64)
			b = append(b, ' ')
		}
	}
	return append(b, '\n')
}
