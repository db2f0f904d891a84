package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// ruleTypeSlowdowns is the rule of type_slowdowns / --type-slowdowns.
const ruleTypeSlowdowns = "want TYPE=FACTOR,… e.g. h100=1.2,l20=0.8: each TYPE a GPU type once, each FACTOR from 0.01 to 100 (1 = none)"

// ParseTypeSlowdowns reads per-GPU-type slowdowns (Run.TypeSlowdowns):
// "h100=1.2,l20=0.8", each type a catalog GPU type (estimator.LookupGPU,
// any case) at most once, each factor from MinFactor to 100. "" is none
// (an empty map).
func ParseTypeSlowdowns(s string) (map[string]float64, error) {
	m := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, part := range strings.Split(s, ",") {
		t, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("type slowdowns %s: entry %s: %s", sim.ShowValue(s), sim.ShowValue(part), ruleTypeSlowdowns)
		}
		if _, err := estimator.LookupGPU(t); err != nil {
			return nil, fmt.Errorf("type slowdowns %s: %w", sim.ShowValue(s), err)
		}
		t = strings.ToLower(strings.TrimSpace(t))
		if _, dup := m[t]; dup {
			return nil, fmt.Errorf("type slowdowns %s: %s given twice", sim.ShowValue(s), t)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || checkFactor(f) != nil {
			return nil, fmt.Errorf("type slowdowns %s: %s=%s: %s", sim.ShowValue(s), t, sim.ShowValue(strings.TrimSpace(v)), ruleFactor)
		}
		m[t] = f
	}
	return m, nil
}

// FormatTypeSlowdowns is the canonical form of m: "h100=1.2,l20=0.8",
// types sorted, factors in Go's shortest form; "" for none.
func FormatTypeSlowdowns(m map[string]float64) string {
	types := make([]string, 0, len(m))
	for t := range m {
		types = append(types, t)
	}
	slices.Sort(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = t + "=" + strconv.FormatFloat(m[t], 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// checkTypeSlowdowns refuses per-type slowdowns naming a GPU type the
// cluster does not have (it would change nothing, silently).
func checkTypeSlowdowns(r Run, spec sim.ClusterSpec) (map[string]float64, error) {
	m, err := ParseTypeSlowdowns(r.TypeSlowdowns)
	if err != nil {
		return nil, err
	}
	have := ClusterTypes(spec)
	var missing []string
	for t := range m {
		if !slices.Contains(have, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("%s %s not a GPU type of cluster %s (its types: %s)", strings.Join(missing, ", "), isAre(len(missing)), spec.Name, strings.Join(have, ", "))
	}
	return m, nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
