package fcfs

import (
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// OnRefill makes f call fn with its table and the View right after each
// decision's refill (tests only).
func OnRefill(f *FCFS, fn func(*placement.Table, *sim.View)) { f.refilled = fn }
