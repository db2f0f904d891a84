package traces

import (
	"sort"
	"strings"

	"github.com/arena-sim/arena/sim/input"

	"github.com/arena-sim/arena/estimator"
)

// ParseGPUMap parses a GPU-type remapping such as
// "a100=h100,v100=h100,a40=l20,a10=l20" (both sides catalog GPU types).
func ParseGPUMap(s string) (map[string]string, error) {
	m := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, pair := range strings.Split(s, ",") {
		from, to, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return nil, input.Errorf("GPU map %q: entry %q: want FROM=TO, e.g. a100=h100", s, pair)
		}
		for _, g := range []string{from, to} {
			if _, err := estimator.LookupGPU(g); err != nil {
				return nil, input.Errorf("GPU map %q: %w", s, err)
			}
		}
		from, to = strings.ToLower(strings.TrimSpace(from)), strings.ToLower(strings.TrimSpace(to))
		if _, dup := m[from]; dup {
			return nil, input.Errorf("GPU map %q: %s is mapped twice", s, from)
		}
		m[from] = to
	}
	return m, nil
}

// RemapGPUs rewrites every job's requested GPU type through m (types not in
// m are kept), so a trace written for one cluster can run on another.
func RemapGPUs(t *Trace, m map[string]string) {
	for i := range t.Jobs {
		if to, ok := m[t.Jobs[i].GPU]; ok {
			t.Jobs[i].GPU = to
		}
	}
}

// FormatGPUMap renders m in ParseGPUMap's form, sorted.
func FormatGPUMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}
