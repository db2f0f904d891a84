package resultsdir

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// oneJobRun is the engine tests' one-job run (sim's baseConfig and
// oneJob): gpt-1.3b/128 on two a100s of a 2×4 a100 + 2×2 a40 cluster,
// started by a scripted policy at round 0, artifact timing, 10 rounds.
func oneJobRun(t *testing.T) *sim.Result {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "test", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, {GPU: "a40", Nodes: 2, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimator.ParseModel("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig(c, db.View(estimator.ViewOptimal))
	cfg.IterationScale = 5
	cfg.Timing, cfg.Rounds, cfg.Check = sim.Artifact, 10, true
	cfg.Overhead = sim.Overhead{PerGPU: 150, Cap: 600}
	jobs := []sim.JobSpec{{ID: 0, Name: "j0", Submit: 1000, Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: 500, GPU: "a100", GPUs: 2}}
	res, err := sim.Run(context.Background(), cfg, startAtZero{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// startAtZero starts job 0 on GPUs 0 and 1 at round 0.
type startAtZero struct{}

func (startAtZero) Name() string { return "scripted" }
func (startAtZero) Schedule(v *sim.View) ([]sim.Action, error) {
	if v.Round != 0 {
		return nil, nil
	}
	return []sim.Action{{Kind: sim.Start, Job: 0, GPUs: []int{0, 1}}}, nil
}

func TestResultsRoundTrip(t *testing.T) {
	res := oneJobRun(t)
	dir := t.TempDir()
	sum := res.Summarize("t", 1, "profiledb")
	sum.Seed, sum.Density, sum.Version, sum.InputHash = 7, 0.5, "v-test", "h-test"
	if err := Write(dir, res, sum); err != nil {
		t.Fatal(err)
	}
	// Every table carries the run's identity in every row.
	want := sim.Identity{Policy: "scripted", Trace: "t", Cluster: "test", Timing: "artifact", Seed: 7, Density: 0.5, Version: "v-test", InputHash: "h-test"}
	for _, file := range []string{JobsFile, TimelineFile, AllocationsFile} {
		ids, err := parquet.ReadFile[sim.Identity](filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 || ids[0] != want || ids[len(ids)-1] != want {
			t.Errorf("%s: identity %+v, want %+v in every row", file, ids, want)
		}
	}
	jobs, err := parquet.ReadFile[sim.JobRecord](filepath.Join(dir, JobsFile))
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

// oneJobConfig is oneJobRun's configuration (the engine tests' baseConfig).
func oneJobConfig(t *testing.T) sim.Config {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "test", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, {GPU: "a40", Nodes: 2, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig(c, db.View(estimator.ViewOptimal))
	cfg.IterationScale = 5
	cfg.Check = true
	cfg.Overhead = sim.Overhead{PerGPU: 150, Cap: 600}
	return cfg
}

// oneJob is gpt-1.3b/128 on two a100s submitted at 1000 s.
func oneJob(t *testing.T, iterations int64) []sim.JobSpec {
	m, err := estimator.ParseModel("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	return []sim.JobSpec{{ID: 0, Name: "j0", Submit: 1000, Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: iterations, GPU: "a100", GPUs: 2}}
}

// scripted returns fixed actions per round.
type scripted map[int][]sim.Action

func (scripted) Name() string                                 { return "scripted" }
func (s scripted) Schedule(v *sim.View) ([]sim.Action, error) { return s[v.Round], nil }

// TestFaultResultsFiles: a run with faults writes its fault columns,
// availability.parquet and summary.json's faults section; a run without
// writes none of them (its files as they always were).
func TestFaultResultsFiles(t *testing.T) {
	for _, faulty := range []bool{false, true} {
		cfg := oneJobConfig(t)
		cfg.Timing, cfg.Rounds = sim.Exact, 30
		if faulty {
			cfg.Events = []sim.ClusterEvent{{Time: 3700, Node: 0, Kind: sim.NodeDown, Cause: "gpu"}}
		}
		p := scripted{0: {{Kind: sim.Start, Job: 0, GPUs: []int{0, 1}}}}
		if faulty {
			p[9] = []sim.Action{{Kind: sim.Start, Job: 0, GPUs: []int{4, 5}}}
		}
		res, err := sim.Run(context.Background(), cfg, p, oneJob(t, 5000))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := Write(dir, res, res.Summarize("t", 1, "profiledb")); err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(dir, AvailabilityFile))
		summary, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
		rows, err := parquet.ReadFile[sim.JobFaultRecord](filepath.Join(dir, JobsFile))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(filepath.Join(dir, JobsFile))
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		_, hasCol := pf.Schema().Lookup("interruptions")
		f.Close()
		if faulty {
			av, err := parquet.ReadFile[sim.AvailRecord](filepath.Join(dir, AvailabilityFile))
			if err != nil || len(av) != 1 || av[0].Event != "down" || av[0].Interrupted != 1 || av[0].Available != 4 {
				t.Errorf("availability.parquet %+v, %v", av, err)
			}
			if !hasCol || rows[0].Interruptions != 1 || !strings.Contains(string(summary), `"faults"`) {
				t.Errorf("fault run: column %v, rows %+v, summary has faults %v", hasCol, rows, strings.Contains(string(summary), `"faults"`))
			}
		} else if statErr == nil || hasCol || strings.Contains(string(summary), `"faults"`) {
			t.Errorf("fault-free run: availability.parquet %v, fault column %v, summary faults %v", statErr == nil, hasCol, strings.Contains(string(summary), `"faults"`))
		}
	}
}

// TestNetworkResultsFile: a run on a cluster with a topology writes
// network.parquet (a row per job across fast domains) and summary.json's
// network section; a run without writes neither. Hand-worked: the job
// holds one GPU on each A100 node (2 nodes, racks of 1 node at 2:1) and is
// alone, so its slowdown is 1 over the whole time it runs.
func TestNetworkResultsFile(t *testing.T) {
	for _, topo := range []bool{false, true} {
		cfg := oneJobConfig(t)
		cfg.Timing, cfg.Rounds = sim.Exact, 30
		if topo {
			c, err := sim.NewCluster(sim.ClusterSpec{Name: "test", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, {GPU: "a40", Nodes: 2, GPUsPerNode: 2}},
				Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 1, Oversubscription: 2}}}})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Cluster = c
			cfg.NetworkShare = func(estimator.Workload, estimator.Config) float64 { return 0.2 }
		}
		p := scripted{0: {{Kind: sim.Start, Job: 0, GPUs: []int{0, 4}}}}
		res, err := sim.Run(context.Background(), cfg, p, oneJob(t, 5000))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := Write(dir, res, res.Summarize("t", 1, "profiledb")); err != nil {
			t.Fatal(err)
		}
		summary, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
		rows, err := parquet.ReadFile[sim.JobNetRecord](filepath.Join(dir, NetworkFile))
		if !topo {
			if err == nil || strings.Contains(string(summary), `"network"`) {
				t.Errorf("run without topology: network.parquet read %v, summary has network %v", err == nil, strings.Contains(string(summary), `"network"`))
			}
			continue
		}
		if err != nil || len(rows) != 1 || rows[0].Job != 0 || rows[0].Slowdown != 1 || !(rows[0].AcrossS > 0) || !strings.Contains(string(summary), `"network"`) {
			t.Errorf("network.parquet %+v (%v), summary has network %v", rows, err, strings.Contains(string(summary), `"network"`))
		}
	}
}
