package sweep

import (
	"errors"
	"github.com/arena-sim/arena/sim/input"
	"testing"
)

// A run field's error reaches the spec at the line of the list entry
// that caused it (policies[1] on line 5 below, counted by hand), and a
// rule between fields (schedule_on_events needs exact timing) at the key
// that set the field.
func TestSpecFieldErrorPaths(t *testing.T) {
	for _, c := range []struct {
		spec  string
		line  int
		field string
	}{
		{"traces: [pai]\nclusters: [paper-1280]\npolicies:\n  - fcfs\n  - \"nosuch(x=1)\"\ntiming: exact\n", 5, "policies[1]"},
		{"traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: artifact\nschedule_on_events: true\n", 5, "schedule_on_events"},
	} {
		s, err := ParseSpec("s.yaml", "", []byte(c.spec))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Expand(testRegistry())
		var se *input.Error
		if !errors.As(err, &se) || se.Line != c.line || se.Field != c.field {
			t.Errorf("%q: %v, want s.yaml:%d key %s", c.spec, err, c.line, c.field)
		}
	}
}
