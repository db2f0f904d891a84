package traces

import (
	"maps"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// FuzzParseGPUMap (--gpu-map): never panics; an accepted map names catalog
// GPU types only and survives a FormatGPUMap round trip.
func FuzzParseGPUMap(f *testing.F) {
	for _, s := range []string{"a100=h100,v100=h100,a40=l20,a10=l20", "", " A100 = H100 ", "a100=h100,a100=l20", "a100", "=", "a100=b200", ",,", "a100=h100,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseGPUMap(s)
		if err != nil {
			return
		}
		for from, to := range m {
			for _, g := range []string{from, to} {
				if gg, err := estimator.LookupGPU(g); err != nil || gg.Name != g {
					t.Fatalf("%q: accepted %q, not a catalog name", s, g)
				}
			}
		}
		back, err := ParseGPUMap(FormatGPUMap(m))
		if err != nil || !maps.Equal(back, m) {
			t.Fatalf("%q: round trip gave %v, %v; want %v", s, back, err, m)
		}
	})
}
