package experiments

import (
	"embed"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// The authors' stored Philly results and per-round digests, copied from the
// artifact data (../shared/arena-data/reference-results; see
// data/reference/PROVENANCE.md).
//
//go:embed data/reference/philly_results.json
var philllyResultsJSON []byte

//go:embed data/reference/*.csv
var referenceDigests embed.FS

// ReferenceRun is one policy's stored result: per-job JCTs (seconds, in the
// order jobs finished), the queueing list and per-round cluster throughput.
type ReferenceRun struct {
	JCT      []float64 `json:"jct"`
	Queueing []float64 `json:"queuing_time"`
	Thr      []float64 `json:"thr"`
}

// artifactNames maps this project's policy names to the artifact's.
var artifactNames = map[string]string{
	"arena": "crius", "arena-ns": "crius-ns", "arena-nh": "crius-nh", "arena-ddl": "crius-ddl",
	"elasticflow-ls": "elasticflow-l", "fcfs": "fcfs", "gavel": "gavel", "sia": "sia",
	"gavel-head": "gavel", "sia-head": "sia", "sia-glpk": "sia", "gavel-stored": "gavel", "sia-stored": "sia",
	"gandiva": "gandiva", "elasticflow": "elasticflow",
}

var (
	refOnce sync.Once
	refRuns map[string]ReferenceRun
	refErr  error
)

// Reference returns the authors' stored Philly result of a policy (this
// project's name or the artifact's).
func Reference(policyName string) (ReferenceRun, bool) {
	refOnce.Do(func() {
		var all map[string]map[string]ReferenceRun
		refErr = json.Unmarshal(philllyResultsJSON, &all)
		refRuns = all["philly"]
	})
	if refErr != nil {
		return ReferenceRun{}, false
	}
	if a, ok := artifactNames[policyName]; ok {
		policyName = a
	}
	r, ok := refRuns[policyName]
	return r, ok
}

// ReferenceDigest returns the authors' per-round digest CSV of a run on a
// built-in trace, as produced by their simulator at the ae-eurosys head:
// Philly (fcfs, arena, arena-ns, arena-ddl, elasticflow-ls; 2000 rounds)
// and PAI (fcfs, arena, elasticflow-ls; 500 rounds), both on paper-1280.
func ReferenceDigest(trace, policyName string) ([]byte, error) {
	b, err := referenceDigests.ReadFile("data/reference/" + trace + "_" + policyName + "_rounds.csv")
	if err != nil {
		return nil, fmt.Errorf("no reference digest for policy %q on trace %q", policyName, trace)
	}
	return b, nil
}
