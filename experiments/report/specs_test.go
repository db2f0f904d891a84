package report

import (
	"slices"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// Every section of the paper's evaluation has a built-in spec that parses
// and expands (moved from package sweep's spec_test.go with the sections).
func TestBuiltinSpecsParse(t *testing.T) {
	for _, name := range Sections {
		s, err := BuiltinSpec(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Timings) != 2 {
			t.Errorf("%s: the paper's evaluation runs both timing modes, got %v", name, s.Timings)
		}
		if _, err := s.Expand(policy.NewRegistry()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	load, _ := BuiltinSpec("load")
	if !slices.Equal(load.Densities, []float64{0.1, 0.5, 1.0, 1.5, 2.0, 2.5}) {
		t.Errorf("load densities %v", load.Densities)
	}
}
