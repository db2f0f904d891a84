package reference

import (
	"embed"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

//go:embed philly_results.json
var phillyResultsJSON []byte

//go:embed *.csv
var digests embed.FS

// Run is one policy's stored result: per-job JCTs (seconds, in the
// order jobs finished), the queueing list and per-round cluster throughput.
type Run struct {
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
	refRuns map[string]Run
	refErr  error
)

// Philly returns the authors' stored Philly result of a policy (this
// project's name or the artifact's).
func Philly(policyName string) (Run, bool) {
	refOnce.Do(func() {
		var all map[string]map[string]Run
		refErr = json.Unmarshal(phillyResultsJSON, &all)
		refRuns = all["philly"]
	})
	if refErr != nil {
		return Run{}, false
	}
	if a, ok := artifactNames[policyName]; ok {
		policyName = a
	}
	r, ok := refRuns[policyName]
	return r, ok
}

// Digest returns the authors' per-round digest CSV of a run on a
// built-in trace, as produced by their simulator at the ae-eurosys head:
// Philly (fcfs, arena, arena-ns, arena-ddl, elasticflow-ls; 2000 rounds)
// and PAI (fcfs, arena, elasticflow-ls; 500 rounds), both on paper-1280.
func Digest(trace, policyName string) ([]byte, error) {
	b, err := digests.ReadFile(trace + "_" + policyName + "_rounds.csv")
	if err != nil {
		return nil, fmt.Errorf("no reference digest for policy %q on trace %q", policyName, trace)
	}
	return b, nil
}
