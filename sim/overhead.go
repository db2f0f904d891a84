package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/arena-sim/arena/estimator"
)

// Change is the kind of allocation change an overhead is charged for
// (one byte: a Job keeps its last one beside its Status).
type Change int8

const (
	// FirstStart is a job's first start.
	FirstStart Change = iota
	// Restart is a start after a suspension.
	Restart
	// Resize is a reallocation to another GPU count of the same type.
	Resize
	// TypeChange is a reallocation to another GPU type.
	TypeChange
	// Migration is a reallocation to other GPUs of the same type and count.
	Migration
)

var changeNames = [...]string{"first_start", "restart", "resize", "type_change", "migration"}

func (c Change) String() string {
	if c < 0 || int(c) >= len(changeNames) {
		return fmt.Sprintf("change(%d)", int(c))
	}
	return changeNames[c]
}

// ChangeNames lists the action kinds an overhead profile may price apart.
func ChangeNames() []string { return append([]string(nil), changeNames[:]...) }

// ChangeOf classifies moving a job from the shape it holds (from; the zero
// shape when it is not running) to the shape to: everStarted says whether
// the job ran before.
func ChangeOf(everStarted bool, from, to estimator.Config) Change {
	switch {
	case from.GPU == "" && !everStarted:
		return FirstStart
	case from.GPU == "":
		return Restart
	case from.GPU != to.GPU:
		return TypeChange
	case from.GPUs() != to.GPUs():
		return Resize
	}
	return Migration
}

// Overhead is what a policy's start or reallocation costs: during it the
// job holds its GPUs and makes no progress. The cost of a change onto n
// GPUs is
//
//	Fixed + min(PerGPU·n, Cap) + ByGPUs[n]
//
// (no cap when Cap is 0; a count missing from ByGPUs pays the next larger
// count's entry, above the largest entry the largest). Actions, when set,
// replaces the whole formula for the kinds it names (their own Actions are
// ignored). The artifact prices every change as min(PerGPU·n, Cap).
type Overhead struct {
	Fixed  Duration
	PerGPU Duration
	Cap    Duration
	ByGPUs map[int]Duration
	// Actions overrides the cost of some kinds of change.
	Actions map[Change]Overhead
}

// For returns the default cost (no per-action override) of a change onto
// n GPUs, seconds.
func (o Overhead) For(n int) Duration {
	t := o.Fixed
	if o.PerGPU != 0 {
		v := o.PerGPU * Duration(n)
		if o.Cap > 0 {
			v = min(v, o.Cap)
		}
		t += v
	}
	if len(o.ByGPUs) > 0 {
		t += o.byGPUs(n)
	}
	return t
}

func (o Overhead) byGPUs(n int) Duration {
	if v, ok := o.ByGPUs[n]; ok {
		return v
	}
	best, largest := -1, -1
	for k := range o.ByGPUs {
		if k > n && (best < 0 || k < best) {
			best = k
		}
		largest = max(largest, k)
	}
	if best < 0 {
		best = largest
	}
	return o.ByGPUs[best]
}

// Cost returns the cost of a change of kind c onto n GPUs, seconds.
func (o Overhead) Cost(c Change, n int) Duration {
	if a, ok := o.Actions[c]; ok {
		return a.For(n)
	}
	return o.For(n)
}

// Scale returns o with every duration multiplied by f (sensitivity runs).
func (o Overhead) Scale(f float64) Overhead {
	s := func(d Duration) Duration { return Duration(float64(d) * f) }
	out := Overhead{Fixed: s(o.Fixed), PerGPU: s(o.PerGPU), Cap: s(o.Cap)}
	if o.ByGPUs != nil {
		out.ByGPUs = map[int]Duration{}
		for k, v := range o.ByGPUs {
			out.ByGPUs[k] = s(v)
		}
	}
	if o.Actions != nil {
		out.Actions = map[Change]Overhead{}
		for k, v := range o.Actions {
			out.Actions[k] = v.Scale(f)
		}
	}
	return out
}

// String renders the default formula, e.g. "10s/GPU ≤ 40s" or
// "55s + table{1:32 2:69}".
func (o Overhead) String() string {
	var parts []string
	if o.Fixed != 0 {
		parts = append(parts, fmt.Sprintf("%gs", float64(o.Fixed)))
	}
	if o.PerGPU != 0 {
		p := fmt.Sprintf("%gs/GPU", float64(o.PerGPU))
		if o.Cap > 0 {
			p += fmt.Sprintf(" ≤ %gs", float64(o.Cap))
		}
		parts = append(parts, p)
	}
	if len(o.ByGPUs) > 0 {
		keys := make([]int, 0, len(o.ByGPUs))
		for k := range o.ByGPUs {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var t []string
		for _, k := range keys {
			t = append(t, fmt.Sprintf("%d:%g", k, float64(o.ByGPUs[k])))
		}
		parts = append(parts, "by GPUs {"+strings.Join(t, " ")+"}")
	}
	if len(parts) == 0 {
		parts = []string{"0s"}
	}
	s := strings.Join(parts, " + ")
	if len(o.Actions) > 0 {
		var kinds []string
		for c := range o.Actions {
			kinds = append(kinds, c.String())
		}
		sort.Strings(kinds)
		s += " (own cost for " + strings.Join(kinds, ", ") + ")"
	}
	return s
}

// OverheadClass names the overhead a policy pays, most specific first: a
// profile prices the policy with the first class it defines (e.g. fcfs is
// {"fcfs", "full-search"}: a measured cluster may price FCFS itself, the
// artifact prices every full-search baseline alike).
type OverheadClass []string

func (c OverheadClass) String() string { return strings.Join(c, ",") }

// DefaultOverheadClass is the class of a policy that declares none: a
// baseline with a full search.
var DefaultOverheadClass = OverheadClass{"full-search"}

// OverheadProfile prices every policy class on one cluster: the artifact's
// constants, a measured testbed, or a user's YAML file.
type OverheadProfile struct {
	Name string
	Doc  string
	// Classes maps a class name to its cost; Docs to its explanation.
	Classes map[string]Overhead
	Docs    map[string]string
}

// ErrNoOverheadClass is returned when a profile prices none of a policy's
// classes.
var ErrNoOverheadClass = errors.New("sim: no overhead for the policy's class")

// Resolve returns the overhead of the first class of c the profile defines.
// An empty class is DefaultOverheadClass.
func (p *OverheadProfile) Resolve(c OverheadClass) (Overhead, error) {
	if len(c) == 0 {
		c = DefaultOverheadClass
	}
	for _, name := range c {
		if o, ok := p.Classes[name]; ok {
			return o, nil
		}
	}
	known := make([]string, 0, len(p.Classes))
	for k := range p.Classes {
		known = append(known, k)
	}
	sort.Strings(known)
	return Overhead{}, fmt.Errorf("overhead profile %s: %w (tried %s; the profile defines %s)", p.Name, ErrNoOverheadClass,
		strings.Join(c, ", "), strings.Join(known, ", "))
}

// ClassNames lists the profile's classes, sorted.
func (p *OverheadProfile) ClassNames() []string {
	out := make([]string, 0, len(p.Classes))
	for k := range p.Classes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
