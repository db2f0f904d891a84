package sim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestResultsRoundTrip(t *testing.T) {
	cfg := baseConfig(t, Artifact, 10)
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	res, err := Run(context.Background(), cfg, p, oneJob(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum := res.Summarize("t", 1, "profiledb")
	sum.Seed, sum.Density, sum.Version, sum.InputHash = 7, 0.5, "v-test", "h-test"
	if err := WriteDir(dir, res, sum); err != nil {
		t.Fatal(err)
	}
	// Every table carries the run's identity in every row.
	want := Identity{Policy: "scripted", Trace: "t", Cluster: "test", Timing: "artifact", Seed: 7, Density: 0.5, Version: "v-test", InputHash: "h-test"}
	for _, file := range []string{JobsFile, TimelineFile, AllocationsFile} {
		ids, err := parquet.ReadFile[Identity](filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 || ids[0] != want || ids[len(ids)-1] != want {
			t.Errorf("%s: identity %+v, want %+v in every row", file, ids, want)
		}
	}
	jobs, err := parquet.ReadFile[JobRecord](filepath.Join(dir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].JCT != 600 || jobs[0].State != "finished" || jobs[0].FinalGPU != "a100" || jobs[0].FinalN != 2 || jobs[0].Alias != "job_0001" {
		t.Errorf("jobs.parquet read back as %+v", jobs)
	}
	f, err := os.Open(filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range pf.Schema().Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	if got := strings.Join(cols, ","); got != "policy,trace,cluster,timing,seed,density,arena_version,input_hash,round,time_s,throughput_samples_per_s,running,pending,busy_gpus_a100,busy_gpus_a40" {
		t.Errorf("timeline columns %s", got)
	}
	if pf.NumRows() != 10 {
		t.Errorf("timeline rows %d, want 10", pf.NumRows())
	}
	digest, _ := os.ReadFile(filepath.Join(dir, DigestFile))
	if !bytes.HasPrefix(digest, []byte("round,running,pending,idle_a100,idle_a40,ended\n0,0,0,8,4,\n")) {
		t.Errorf("rounds.csv starts %q", digest[:min(len(digest), 80)])
	}
}
