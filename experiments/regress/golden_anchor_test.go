package regress

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/data/reference"
)

// precision is half a unit in the last place of a number as a source
// printed it ("6188.71" → 0.005, "125" → 0.5): the figure and ours agree
// when ours rounds to it.
func precision(n json.Number) float64 {
	s := n.String()
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	digits := 0
	if _, frac, ok := strings.Cut(s, "."); ok {
		digits = len(frac)
	}
	return 0.5 * math.Pow(10, -float64(digits))
}

// TestGoldenAnchors: every golden run says what its figures rest on. An
// "outside" run's summary must agree with the outside figures its anchor
// gives, to the precision the source printed them (Philly's are recomputed
// here from the stored file as well); a "guard" run must say why it has no
// outside figure. The committed files hold 4 outside-anchored runs (PAI in
// artifact timing under FCFS, Arena and ElasticFlow-LS; Philly under FCFS)
// and 14 guards: a guard becoming outside, or the reverse, is a change of
// this count, made on purpose.
func TestGoldenAnchors(t *testing.T) {
	kinds := map[string]int{}
	for _, file := range goldenFilesForTest(t) {
		g, err := LoadGolden(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range g.Runs {
			where := filepath.Base(file) + ": runs[" + goldenName(r.Run) + "]"
			a := r.Anchor
			if a == nil {
				t.Errorf("%s: no anchor: say whether an outside source backs it (\"outside\") or it only guards against change (\"guard\")", where)
				continue
			}
			kinds[a.Kind]++
			if strings.TrimSpace(a.Source) == "" {
				t.Errorf("%s: anchor without a source", where)
			}
			switch a.Kind {
			case "guard":
				if len(a.Values) > 0 {
					t.Errorf("%s: a guard anchor with outside values: make it \"outside\"", where)
				}
			case "outside":
				if len(a.Values) == 0 {
					t.Errorf("%s: an outside anchor without the outside figures", where)
				}
				got := flatten(r.Summary)
				for _, k := range sortedKeys(a.Values) {
					want, err := a.Values[k].Float64()
					if err != nil {
						t.Errorf("%s: anchor value %s: %v", where, k, err)
						continue
					}
					v, ok := got[k].(float64)
					if !ok || math.Abs(v-want) > precision(a.Values[k]) {
						t.Errorf("%s: %s = %v, the outside source gives %s", where, k, got[k], a.Values[k])
					}
				}
				if strings.Contains(a.Source, "philly_results.json") {
					checkPhillyAnchor(t, where, r)
				}
			default:
				t.Errorf("%s: anchor kind %q: want \"outside\" or \"guard\"", where, a.Kind)
			}
		}
	}
	if kinds["outside"] != 4 || kinds["guard"] != 14 {
		t.Errorf("anchors: %v; the committed goldens have 4 outside-anchored runs and 14 guards", kinds)
	}
}

// checkPhillyAnchor recomputes a Philly anchor's figures from the stored
// run it names, so they are the file's and not copied from our output.
func checkPhillyAnchor(t *testing.T, where string, r GoldenRun) {
	t.Helper()
	ref, ok := reference.Philly(r.Run.Policy)
	if !ok {
		t.Errorf("%s: no stored Philly run for %s", where, r.Run.Policy)
		return
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	peak := math.Inf(-1)
	for _, x := range ref.Thr {
		peak = max(peak, x)
	}
	stored := map[string]float64{"jobs_finished": float64(len(ref.JCT)), "mean_jct_s": mean(ref.JCT), "mean_throughput": mean(ref.Thr), "peak_throughput": peak}
	for k, n := range r.Anchor.Values {
		want, ok := stored[k]
		got, _ := n.Float64()
		if !ok || math.Abs(got-want) > precision(n) {
			t.Errorf("%s: anchor %s = %s, but the stored run gives %v", where, k, n, want)
		}
	}
}
