package replay

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arena-sim/arena/sim"
)

// Options are a replay's time scale and how it runs.
type Options struct {
	// Speed compresses time: a simulated second lasts 1/Speed s.
	Speed float64
	// Deterministic: each stand-in sleeps until the absolute instant of
	// its simulated end (policy mode), so hand-off delays do not pile up.
	Deterministic bool
	// Name is the Slurm job name of every replayed job (scancel --name).
	Name string
	Log  io.Writer
}

func (o Options) logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "replay: "+format+"\n", a...)
	}
}

// Launch is what happened to one replayed segment (policy mode) or job
// (native mode) on Slurm: when arena asked (Launch, epoch seconds), what
// the stand-in wrote, and an error if the launch failed.
type Launch struct {
	Launch float64
	Stamps Stamps
	Err    error
}

// clock maps simulated instants to wall-clock epoch seconds and back:
// simulated t0 is wall w0, and Speed simulated seconds last one second.
type clock struct {
	t0, w0, speed float64
}

func (k clock) wall(t float64) float64 { return k.w0 + (t-k.t0)/k.speed }
func (k clock) sim(w float64) float64  { return k.t0 + (w-k.w0)*k.speed }

func epoch(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// sleepUntil waits until epoch instant w or ctx ends.
func sleepUntil(ctx context.Context, w float64) error {
	d := time.Duration((w - epoch(time.Now())) * 1e9)
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// RunPolicy replays a simulated schedule on Slurm, open loop: each
// segment becomes `srun -w NODES -N k --gres=gpu:TYPE:g` at its
// compressed start on exactly arena's nodes (Slurm holds it until the
// nodes are free, if an earlier stand-in ran late), a job's next segment
// waits for its previous one to end (suspend, resize and migrate are an
// end and a relaunch with the remaining work), and each stand-in sleeps
// its segment's compressed length (Deterministic: until its compressed
// end). It returns one Launch per segment, in segs' order, and the clock.
func RunPolicy(ctx context.Context, s *Slurm, segs []Segment, t0 float64, o Options) ([]Launch, clock, error) {
	k := clock{t0: t0, w0: epoch(time.Now()) + 1, speed: o.Speed}
	out := make([]Launch, len(segs))
	done := make([]chan struct{}, len(segs))
	prev := make([]int, len(segs)) // the job's previous segment, -1
	last := map[sim.JobID]int{}
	for i, sg := range segs {
		done[i] = make(chan struct{})
		prev[i] = -1
		if p, ok := last[sg.Job]; ok {
			prev[i] = p
		}
		last[sg.Job] = i
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := range segs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			sg := segs[i]
			if prev[i] >= 0 {
				select {
				case <-done[prev[i]]:
				case <-ctx.Done():
					out[i].Err = ctx.Err()
					return
				}
			}
			if err := sleepUntil(ctx, k.wall(sg.Start)); err != nil {
				out[i].Err = err
				return
			}
			nodes := make([]string, len(sg.Nodes))
			for j, n := range sg.Nodes {
				nodes[j] = s.Nodes[n]
			}
			until := 0.0
			if o.Deterministic {
				until = k.wall(sg.End)
			}
			script := StandinScript((sg.End-sg.Start)/o.Speed, until)
			cmd := s.Command(ctx, "srun", "--quiet", "-p", s.Partition, "-J", o.Name, "-w", strings.Join(nodes, ","),
				"-N", strconv.Itoa(len(nodes)), "--ntasks-per-node=1", "--cpus-per-task=1",
				fmt.Sprintf("--gres=gpu:%s:%d", GresType(sg.GPU), sg.PerNode), "/bin/sh", "-c", script)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out[i].Launch = epoch(time.Now())
			b, err := cmd.Output()
			if err != nil {
				out[i].Err = fmt.Errorf("job %d segment %d: srun: %w: %s", sg.Job, sg.Index, err, strings.TrimSpace(stderr.String()))
			}
			st, perr := ParseStamps(strings.NewReader(string(b)))
			if perr != nil && out[i].Err == nil {
				out[i].Err = fmt.Errorf("job %d segment %d: stand-in output: %w", sg.Job, sg.Index, perr)
			}
			out[i].Stamps = st
			if ctx.Err() != nil {
				out[i].Err = ctx.Err() // stopped: the srun's complaints are ours
			} else if out[i].Err != nil {
				o.logf("%v", out[i].Err)
			}
		}()
	}
	progress := time.NewTicker(10 * time.Second)
	defer progress.Stop()
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	for {
		select {
		case <-all:
			return out, k, ctx.Err()
		case <-ctx.Done():
			s.CancelJobs(o.Name)
			<-all
			return out, k, ctx.Err()
		case <-progress.C:
			n := 0
			for i := range done {
				select {
				case <-done[i]:
					n++
				default:
				}
			}
			o.logf("%d of %d starts done, simulated time %.0f s", n, len(segs), k.sim(epoch(time.Now()))-t0)
		}
	}
}

// NativeJob is one job of a native replay: submitted at Submit
// (simulated) asking for GPUs of type GPU, running Seconds (simulated).
type NativeJob struct {
	Job             sim.JobID
	Submit, Seconds float64
	GPU             string
	Nodes, PerNode  int
}

// RunNative submits each job with sbatch at its compressed arrival
// (`-N nodes --gres=gpu:TYPE:g`, the stand-in sleeping its compressed
// run time) and lets Slurm's own scheduler decide; it returns one Launch
// per job once every stand-in has written its end (or ctx ends).
func RunNative(ctx context.Context, s *Slurm, jobs []NativeJob, t0 float64, o Options, limit time.Duration) ([]Launch, clock, error) {
	k := clock{t0: t0, w0: epoch(time.Now()) + 1, speed: o.Speed}
	out := make([]Launch, len(jobs))
	dir := filepath.Join(s.Dir, "native", o.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, k, err
	}
	files := make([]string, len(jobs))
	var ids []string
	defer func() {
		if ctx.Err() != nil {
			s.CancelJobs(o.Name)
		}
	}()
	for i, j := range jobs {
		if err := sleepUntil(ctx, k.wall(j.Submit)); err != nil {
			return out, k, err
		}
		files[i] = filepath.Join(dir, fmt.Sprintf("job-%d.out", j.Job))
		out[i].Launch = epoch(time.Now())
		id, err := s.output(ctx, "sbatch", "--parsable", "-p", s.partitionOf(j.GPU), "-J", o.Name, "-o", files[i],
			"-N", strconv.Itoa(j.Nodes), "--ntasks-per-node=1", "--cpus-per-task=1",
			fmt.Sprintf("--gres=gpu:%s:%d", GresType(j.GPU), j.PerNode), "--wrap", StandinScript(j.Seconds/o.Speed, 0))
		if err != nil {
			out[i].Err = err
			o.logf("job %d: %v", j.Job, err)
			continue
		}
		ids = append(ids, strings.TrimSpace(id))
	}
	end := time.Now().Add(limit)
	for {
		left := 0
		for i := range jobs {
			if out[i].Err != nil || out[i].Stamps.Complete() {
				continue
			}
			if f, err := os.Open(files[i]); err == nil {
				st, perr := ParseStamps(io.LimitReader(f, 1<<20))
				f.Close()
				if perr != nil {
					out[i].Err = perr
					continue
				}
				out[i].Stamps = st
				if st.Complete() {
					if st.NodeList != "" {
						if ns, err := ExpandHostlist(st.NodeList); err == nil {
							out[i].Stamps.Nodes = ns
						}
					}
					continue
				}
			}
			left++
		}
		if left == 0 {
			return out, k, nil
		}
		if time.Now().After(end) {
			s.CancelJobs(o.Name)
			return out, k, fmt.Errorf("replay: %d native jobs unfinished after %v", left, limit)
		}
		select {
		case <-ctx.Done():
			return out, k, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// partitionOf is the partition native jobs of a GPU type go to: the
// type's own on an emulated cluster, the attached partition otherwise.
func (s *Slurm) partitionOf(gpu string) string {
	if s.Emulated {
		return TypePartition(s.Partition, GresType(gpu))
	}
	return s.Partition
}

// CancelJobs cancels every job of this replay (by its job name) and
// waits up to 10 s for them to leave the queue. On an emulated cluster it
// does nothing: Down kills the whole cluster, jobs and all.
func (s *Slurm) CancelJobs(name string) {
	if s.Emulated {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	args := []string{"--name", name}
	if u := os.Getenv("USER"); u != "" && !s.Emulated {
		args = append(args, "-u", u)
	}
	s.output(ctx, "scancel", args...)
	for ctx.Err() == nil {
		q, err := s.output(ctx, "squeue", "-h", "--name", name, "-o", "%i")
		if err != nil || strings.TrimSpace(q) == "" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nan is math.NaN, for unmeasured values.
var nan = math.NaN()
