package sim

import "github.com/arena-sim/arena/sim/input"

// ShowValue renders a value read from an input file for an error message
// without echoing the file (input.ShowValue).
func ShowValue(s string) string { return input.ShowValue(s) }
