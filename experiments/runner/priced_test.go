package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces"
)

// A run whose cluster has GPU types its estimator cannot price is refused
// by Resolve and by Check, before anything runs, for every estimator and
// every cluster: the built-in ones and one cluster per catalog GPU type
// (alone, and beside a100, which every estimator prices). The error names
// the estimator, exactly the cluster's unpriced types and the fix; a
// cluster the estimator prices whole resolves.
func TestUnpricedClusterRefusedEveryEstimatorAndType(t *testing.T) {
	reg := policy.NewRegistry()
	dir := t.TempDir()
	clusters := slices.Clone(clusterspec.BuiltinNames())
	for _, g := range estimator.GPUNames() {
		alone := filepath.Join(dir, g+".yaml")
		mixed := filepath.Join(dir, "a100+"+g+".yaml")
		write(t, alone, fmt.Sprintf("name: only-%s\npools:\n  - {gpu: %s, nodes: 2, gpus_per_node: 8}\n", g, g))
		write(t, mixed, fmt.Sprintf("name: a100-and-%s\npools:\n  - {gpu: a100, nodes: 2, gpus_per_node: 4}\n  - {gpu: %s, nodes: 2, gpus_per_node: 8}\n", g, g))
		clusters = append(clusters, alone, mixed)
	}
	refused := 0
	for _, est := range EstimatorNames() {
		src, err := SourceFor(est)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range clusters {
			spec, err := clusterspec.Load(c)
			if err != nil {
				t.Fatal(err)
			}
			want := estimator.Unpriced(src, ClusterTypes(spec))
			r := Run{Trace: "philly", Cluster: c, Policy: "fcfs", Timing: sim.Exact, Rounds: 5, Estimator: est}
			rv := NewResolver(reg)
			checkErr := rv.Check(r)
			_, resolveErr := rv.Resolve(r)
			for what, err := range map[string]error{"Check": checkErr, "Resolve": resolveErr} {
				if len(want) == 0 {
					if err != nil {
						t.Errorf("%s %s on %s: %v", what, est, spec.Name, err)
					}
					continue
				}
				var fe *input.Error
				var ue *UnpricedError
				if !errors.As(err, &fe) || fe.Field != "estimator" || !errors.As(err, &ue) {
					t.Errorf("%s %s on %s: %v, want an estimator field error", what, est, spec.Name, err)
					continue
				}
				msg := err.Error()
				if !slices.Equal(ue.Types, want) || !strings.Contains(msg, "cannot price: "+strings.Join(want, ", ")) ||
					!strings.Contains(msg, "the "+est+" estimator") || !strings.Contains(msg, "--estimator analytic") {
					t.Errorf("%s %s on %s: %q, want the unpriced types %v named", what, est, spec.Name, msg, want)
				}
				// Philly asks for a100, v100, a40, a10: a cluster
				// lacking some gets a map onto its own types.
				missing := MissingTypes(mustTrace(t, rv).Jobs, ClusterTypes(spec))
				if (len(missing) > 0) != strings.Contains(msg, "--gpu-map ") {
					t.Errorf("%s %s on %s: %q: a GPU map suggested iff philly asks for types the cluster lacks (%v)", what, est, spec.Name, msg, missing)
				}
			}
			if len(want) > 0 {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Fatal("no cluster was refused: the test checks nothing")
	}
}

// The suggested map sends every missing type to a type of the cluster,
// and parses as a GPU map.
func TestSuggestGPUMap(t *testing.T) {
	got := SuggestGPUMap(map[string]int{"a100": 1, "v100": 2, "a40": 3, "a10": 4}, []string{"l20", "h100"})
	if got != "a100=h100,a40=h100,a10=l20,v100=l20" {
		t.Errorf("SuggestGPUMap = %q", got)
	}
	if SuggestGPUMap(nil, []string{"h100"}) != "" {
		t.Error("a map suggested with nothing missing")
	}
}

func mustTrace(t *testing.T, rv *Resolver) *traces.Trace {
	t.Helper()
	tr, err := rv.Trace(Run{Trace: "philly"})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
}
