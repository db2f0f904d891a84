package sweep_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// execute resolves and runs r, streaming its allocation rows and its job
// table for the results directory out/<policy> when out is set (as
// simulate --out does with one policy).
func execute(t *testing.T, ctx context.Context, r runner.Run, out string, onRound func(int, int)) (*runner.Outcome, error) {
	t.Helper()
	s, err := runner.Resolve(policy.NewRegistry(), r)
	if err != nil {
		t.Fatal(err)
	}
	if out != "" {
		s.StreamAllocations, s.StreamJobs = filepath.Join(out, sweep.PolicyDir(s.Policy.String())), true
	}
	return s.Execute(ctx, onRound)
}

var wallLine = regexp.MustCompile(`(?m)^\s*"(run_s|decision_[a-z0-9_]*_s)":.*\n`)

// The results directory of a run whose allocation rows were streamed as it
// went and whose job table was streamed as the engine handed it over
// (Scenario.StreamAllocations and StreamJobs, resultsdir.AllocStream and
// JobStream) is the one the same run writes from rows kept in memory, file
// for file and byte for byte (summary.json but its wall-clock lines): the
// rows, their order, their identity columns and the Parquet layout are the
// same. ElasticFlow-LS reconfigures often (more rows than several of the
// writer's 4,096-row batches), the 9,000-job run more jobs than two
// batches (the engine's parts of 1,024 end where a batch does not); the
// fault run adds availability.parquet and jobs.parquet's fault columns.
// The streamed run keeps no row and no job table in memory, and counts
// the jobs' requested GPU types as the kept run does. A
// self-referential check (the in-memory path is the reference), not an
// anchor: the 1M-job figures in bench/scale-1m-streaming.md are diff -r
// against the previous binary.
func TestStreamedAllocationsSameBytes(t *testing.T) {
	for _, tc := range []struct {
		name             string
		run              runner.Run
		minRows, minJobs int
	}{
		{"elasticflow-ls", runner.Run{Trace: "philly", Cluster: "paper-1280", Policy: "elasticflow-ls", Timing: sim.Exact, Rounds: 2000, Seed: 1}, 2 * 4096, 1},
		{"fcfs-faults", runner.Run{Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 600, Seed: 1, Faults: "llama3"}, 1, 1},
		{"fcfs-9k-jobs", runner.Run{Trace: "s9k", Synth: &runner.SynthTrace{Name: "s9k", From: "philly-pollux",
			Keys: [][2]string{{"recipe", "arena"}, {"jobs", "9000"}, {"rate", "300"}}},
			Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 400, Seed: 1}, 1, 2*4096 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, err := execute(t, context.Background(), tc.run, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			outA, outB := t.TempDir(), t.TempDir()
			streamed, err := execute(t, context.Background(), tc.run, outB, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(streamed.Result.Allocations) != 0 || streamed.Allocations == nil {
				t.Fatalf("streamed run kept %d rows, stream %v", len(streamed.Result.Allocations), streamed.Allocations)
			}
			if got, want := streamed.Allocations.Rows(), len(kept.Result.Allocations); got != want {
				t.Errorf("%d rows streamed, %d kept", got, want)
			}
			if len(streamed.Result.Jobs) != 0 || streamed.Jobs == nil || (streamed.Result.Faults != nil && len(streamed.Result.Faults.Jobs) != 0) {
				t.Fatalf("streamed run kept %d job records, stream %v", len(streamed.Result.Jobs), streamed.Jobs)
			}
			if got, want := streamed.Jobs.Rows(), len(kept.Result.Jobs); got != want || want < tc.minJobs {
				t.Errorf("%d job rows streamed, %d kept (want at least %d)", got, want, tc.minJobs)
			}
			if len(kept.RequestedTypes) == 0 || !reflect.DeepEqual(streamed.RequestedTypes, kept.RequestedTypes) {
				t.Errorf("requested types: streamed run %v, kept %v", streamed.RequestedTypes, kept.RequestedTypes)
			}
			if n := len(kept.Result.Allocations); n < tc.minRows {
				t.Errorf("%d allocation rows, want at least %d", n, tc.minRows)
			}
			if err := sweep.WritePolicyDirs(outA, []*runner.Outcome{kept}); err != nil {
				t.Fatal(err)
			}
			if err := sweep.WritePolicyDirs(outB, []*runner.Outcome{streamed}); err != nil {
				t.Fatal(err)
			}
			dirA := filepath.Join(outA, sweep.PolicyDir(kept.Summary.Policy))
			dirB := filepath.Join(outB, sweep.PolicyDir(streamed.Summary.Policy))
			entries, err := os.ReadDir(dirA)
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for _, e := range entries {
				if e.Name() == ".arena-files" {
					continue
				}
				a, errA := os.ReadFile(filepath.Join(dirA, e.Name()))
				b, errB := os.ReadFile(filepath.Join(dirB, e.Name()))
				if errA != nil || errB != nil {
					t.Fatalf("%s: %v / %v", e.Name(), errA, errB)
				}
				if e.Name() == resultsdir.SummaryFile {
					a, b = wallLine.ReplaceAll(a, nil), wallLine.ReplaceAll(b, nil)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs: %d bytes streamed, %d from kept rows", e.Name(), len(b), len(a))
				}
				compared++
			}
			if compared < 5 {
				t.Errorf("only %d files compared", compared)
			}
			if left := others(t, outB, sweep.PolicyDir(streamed.Summary.Policy)); len(left) != 0 {
				t.Errorf("left in OUT: %v", left)
			}
		})
	}
}

// others lists dir's entries but the lock file and the names given.
func others(t *testing.T, dir string, except ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != ".arena.lock" && !contains(except, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// A run whose rows were being streamed leaves nothing in OUT when it does
// not end in a results directory: interrupted part-way (its temporary
// directory goes with the error), or finished but refused at the write
// (the policy's directory is a user's; the summary's identity is not the
// one the rows were streamed with). The user's directory is untouched.
func TestStreamedRunLeavesNothing(t *testing.T) {
	run := runner.Run{Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 300, Seed: 1}
	t.Run("interrupted", func(t *testing.T) {
		out := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := execute(t, ctx, run, out, func(done, _ int) {
			if done == 100 {
				if left := others(t, out); len(left) != 1 {
					t.Errorf("mid-run, OUT holds %v, want the stream's temporary", left)
				}
				cancel()
			}
		})
		if err == nil {
			t.Fatal("cancelled run: no error")
		}
		if left := others(t, out); len(left) != 0 {
			t.Errorf("left in OUT: %v", left)
		}
	})
	t.Run("refused", func(t *testing.T) {
		out := t.TempDir()
		o, err := execute(t, context.Background(), run, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		user := filepath.Join(out, sweep.PolicyDir(o.Summary.Policy))
		if err := os.MkdirAll(user, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := sweep.WritePolicyDirs(out, []*runner.Outcome{o}); err == nil {
			t.Fatal("a user's directory replaced")
		}
		if left := others(t, out, sweep.PolicyDir(o.Summary.Policy)); len(left) != 0 {
			t.Errorf("left in OUT: %v", left)
		}
		if got, _ := os.ReadFile(filepath.Join(user, "notes.txt")); string(got) != "mine" {
			t.Errorf("user's file now %q", got)
		}
	})
	t.Run("other identity", func(t *testing.T) {
		out := t.TempDir()
		o, err := execute(t, context.Background(), run, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.Summary.Seed++
		if err := sweep.WritePolicyDirs(out, []*runner.Outcome{o}); err == nil {
			t.Fatal("rows of one run written under another's identity")
		}
		if left := others(t, out); len(left) != 0 {
			t.Errorf("left in OUT: %v", left)
		}
	})
}
