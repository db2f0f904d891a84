package regress_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// freshPoissonDir holds a workload the artifact's bundled traces never
// contain (submission times with fractions of a second) and the authors'
// simulator's per-round digests on it (../shared/arena-data/README.md,
// "fresh-poisson"). Reached as ../shared from the repository root, as CI
// has it.
const freshPoissonDir = "../../../shared/arena-data/reference-results/fresh-poisson"

// TestFreshPoissonArtifactParity runs FCFS, Arena and ElasticFlow-LS in
// artifact timing on the fresh-poisson workload (800 jobs, Poisson
// arrivals, fractional submission times, starting at 1,000,000 s) and
// requires the authors' per-round digests row for row over 300 rounds.
// Outside anchor: the authors' simulator at the ae-eurosys head, run on
// this file.
//
// Before artifact timing truncated submission times and deadlines to
// whole seconds, as the artifact's trace loader does (int() in
// trace_manager.py; sim.ArtifactSecond), all three digests departed at
// round 2 (running 5 vs the authors' 6 for FCFS and Arena, 3 vs 4 for
// ElasticFlow-LS): a job submitted at T0 + 300 s and a fraction was one
// round late.
//
// The order of the ended column. The fresh-poisson digests list every
// round's ended jobs in alias order (all 555 rounds where more than one
// job ended, over the three files), while the authors' Philly FCFS log
// lists them in running-queue order (rounds 463, 492, 693, … of
// philly_fcfs_rounds.csv are out of alias order, and arena matches each).
// The simulator's code appends a restarted pending job to the end of the
// running queue and detects ends in that order (_update_and_check_end), so
// a job that waited and a later one that started at once end in
// running-queue order; the fresh-poisson digests were evidently sorted
// when made. Arena and ElasticFlow-LS keep their running queues in alias
// order here and must match as written; FCFS (26 rounds with a restarted
// job ending beside a later arrival) is compared with each round's ended
// list sorted on both sides. freshEndedSorted checks the premise, so a
// re-made reference in log order turns this test strict again.
func TestFreshPoissonArtifactParity(t *testing.T) {
	workload := filepath.Join(freshPoissonDir, "workload.csv")
	if _, err := os.Stat(workload); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("SKIPPED, NOT CHECKED: the authors' fresh-poisson data is absent (%s; ../shared must link to the shared data, as in CI)", workload)
	}
	for _, c := range []struct {
		policy, artifact string
		strict           bool // ended lists compared as written
		finished         int
		meanJCT, meanThr float64 // as the authors' run printed them (../shared/arena-data/README.md)
	}{
		{"fcfs", "fcfs", false, 629, 12600.0, 2605.6},
		{"arena", "crius", true, 770, 4322.3, 3299.7},
		{"elasticflow-ls", "elasticflow-l", true, 529, 8692.1, 1526.3},
	} {
		t.Run(c.policy, func(t *testing.T) {
			ref, err := os.ReadFile(filepath.Join(freshPoissonDir, "authors_"+c.artifact+".rounds.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !freshEndedSorted(t, ref) {
				t.Fatal("the reference lists some round's ended jobs out of alias order: it is in log order, compare it strictly (drop the sorting here)")
			}
			o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
				Trace: workload, Cluster: "paper-1280", Policy: c.policy, Timing: sim.Artifact, Rounds: 300, Check: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			s := o.Summary
			// Printed to 0.1 s and 0.1 samples/s: the tolerance is that rounding.
			if s.Finished != c.finished || math.Abs(s.MeanJCT-c.meanJCT) > 0.05 || math.Abs(s.MeanThroughput-c.meanThr) > 0.05 {
				t.Errorf("summary %d jobs / mean JCT %.2f s / mean throughput %.3f, the authors' %d / %.1f / %.1f",
					s.Finished, s.MeanJCT, s.MeanThroughput, c.finished, c.meanJCT, c.meanThr)
			}
			if a := s.ArtifactAssertionsFailed; a != nil && *a != 0 {
				t.Errorf("artifact_assertions_failed = %d; the authors' run went through all 300 rounds", *a)
			}
			ours := o.Result.DigestCSV()
			strict, err := sim.CompareDigests(ref, ours)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("as written: %s", strict)
			if c.strict {
				if !strict.Identical || strict.Rounds != 300 {
					t.Errorf("per-round digest vs the authors' run: %s", strict)
				}
				return
			}
			d, err := sim.CompareDigests(sortEnded(t, ref), sortEnded(t, ours))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Identical || d.Rounds != 300 {
				t.Errorf("per-round digest vs the authors' run (ended lists in alias order): %s", d)
			}
		})
	}
}

// freshEndedSorted reports whether every round's ended list of a digest is
// in alias order.
func freshEndedSorted(t *testing.T, digest []byte) bool {
	rows, err := csv.NewReader(bytes.NewReader(digest)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if e := r[len(r)-1]; e != "" && !slices.IsSorted(strings.Split(e, ";")) {
			return false
		}
	}
	return true
}

// sortEnded returns a digest with each round's ended list in alias order.
func sortEnded(t *testing.T, digest []byte) []byte {
	rows, err := csv.NewReader(bytes.NewReader(digest)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if e := r[len(r)-1]; e != "" {
			l := strings.Split(e, ";")
			slices.Sort(l)
			r[len(r)-1] = strings.Join(l, ";")
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows)
	return b.Bytes()
}
