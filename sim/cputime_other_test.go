//go:build !unix

package sim

import "math"

func cpuSeconds() float64 { return math.NaN() }
