package traces

import (
	"github.com/arena-sim/arena/sim/input"
)

// Bounds on trace files are sim/input's caps, one set for every parser
// (docs/limits.md): the line cap (input.LineCap), the field cap
// (input.FieldCap), the input and rows caps, and MaxTime.
const (
	// MaxTime bounds times in seconds (submission, deadline): about 317
	// years, above Unix timestamps in seconds (≈1.7e9, Helios uses them)
	// and below timestamps in milliseconds, the usual mistake.
	MaxTime = input.MaxTime
)

// ErrLimit is what a trace error (an *input.Error) about an input past
// one of the caps unwraps to.
var ErrLimit = input.ErrLimit
