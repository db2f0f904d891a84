package replay

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hand-built reports (anchors: the expected text follows from the
// figures given, not from a saved output).
func TestMarkdownRankingAndPlacements(t *testing.T) {
	rep := &Report{Cluster: "testbed-64", Trace: "testbed", Jobs: 2, Nodes: 32, Runs: []*ModeRun{
		{Mode: "policy", Policy: "fcfs", Speed: 600, SimMeanJCT: 100, RealMeanJCT: 130, CalMeanJCT: 125, PlacementsDiffered: 1,
			Rows: []JobRow{{Job: 7, SimNodes: "a40-0", RealNodes: "a40-1", PlacementDiffers: true, SimJCT: 100, RealJCT: 130, CalJCT: math.NaN()}}},
		{Mode: "policy", Policy: "srtf", Speed: 600, SimMeanJCT: 90, RealMeanJCT: 140, CalMeanJCT: 120},
	}}
	md := rep.Markdown()
	// Simulated: srtf (90) < fcfs (100); real: fcfs (130) < srtf (140).
	for _, want := range []string{"simulated srtf < fcfs", "real fcfs < srtf", "calibrated srtf < fcfs", "**the ranking differs on Slurm**", "- job 7: arena a40-0, Slurm a40-1"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	rep.Runs[1].RealMeanJCT = 120 // srtf now faster on Slurm too
	if md := rep.Markdown(); !strings.Contains(md, "the simulated ranking holds on Slurm") {
		t.Errorf("same ranking not reported as holding:\n%s", md)
	}
}

func TestWriteResultsDirectory(t *testing.T) {
	rep := &Report{Cluster: "c", Trace: "t", Runs: []*ModeRun{{Mode: "native", Policy: "fcfs", CalErr: math.NaN(), RawErr: 0.25,
		Rows: []JobRow{{Job: 1, Name: "j1", GPU: "a40", GPUs: 2, Submit: 10, SimJCT: 5, RealJCT: math.NaN()}}}}}
	dir := filepath.Join(t.TempDir(), "out")
	if err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range Files {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var got struct {
		Runs []map[string]any `json:"runs"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "replay.json"))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// NaN is null; a number stays a number.
	if v, ok := got.Runs[0]["cal_error"]; !ok || v != nil || got.Runs[0]["raw_error"] != 0.25 {
		t.Errorf("replay.json run = %v", got.Runs[0])
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "jobs.csv"))
	// The unmeasured real JCT is an empty field.
	if !strings.Contains(string(csv), `native,"fcfs",1,"j1",a40,2,10.000,`) || !strings.Contains(string(csv), ",5.000,0.000,0.000,,0.000,") {
		t.Errorf("jobs.csv:\n%s", csv)
	}
	// A second write replaces the directory (arena's own).
	if err := rep.Write(dir); err != nil {
		t.Errorf("rewrite: %v", err)
	}
}
