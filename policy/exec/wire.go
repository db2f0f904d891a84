package exec

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/arena-sim/arena/sim"
)

// Protocol 2 writes job states and new jobs as JSON arrays, not objects:
// field names repeated in every one of 82,000 arrivals and every state
// change were most of the bytes a client parsed (decoding objects was the
// largest cost of a Python client). The hello lists the fields in order
// (StateFields, JobFields), so a client can check the layout it assumes.

// StateFields is the layout of a state array.
var StateFields = []string{"id", "status", "gpus", "grid", "remaining", "total", "first_start", "reconfigs", "queue_time"}

// JobFields is the layout of a job array: its state, then its static part.
var JobFields = append(append([]string{}, StateFields...),
	"name", "alias", "model", "batch", "iterations", "trace_iterations", "gpu", "num_gpus",
	"submit", "deadline", "user", "vc", "best", "estimates")

// MarshalJSON writes the state as an array in StateFields order; grid is
// [gpu, nodes, per_node] or null.
func (s stateV2) MarshalJSON() ([]byte, error) { return s.append(nil), nil }

func (s *stateV2) append(b []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(s.ID), 10)
	b = append(b, ',')
	b = appendString(b, s.Status)
	b = append(b, ",["...)
	for i, g := range s.GPUs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(g), 10)
	}
	b = append(b, "],"...)
	if s.Grid == nil {
		b = append(b, "null"...)
	} else {
		b = appendGrid(b, *s.Grid)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Remaining, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Total, 10)
	b = append(b, ',')
	b = appendFloat(b, s.FirstStart)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Reconfigs), 10)
	b = append(b, ',')
	b = appendFloat(b, s.QueueTime)
	return append(b, ']')
}

// MarshalJSON writes the job as an array in JobFields order.
func (j jobV2) MarshalJSON() ([]byte, error) { return j.append(nil), nil }

func (j *jobV2) append(b []byte) []byte {
	b = j.stateV2.append(b)
	b = b[:len(b)-1] // reopen the state's array
	for _, s := range []string{j.Name, j.Alias, j.Model} {
		b = append(b, ',')
		b = appendString(b, s)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.Batch), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, j.Iterations, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, j.TraceIterations, 10)
	b = append(b, ',')
	b = appendString(b, j.GPU)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.NumGPUs), 10)
	b = append(b, ',')
	b = appendFloat(b, j.Submit)
	b = append(b, ',')
	b = appendFloat(b, j.Deadline)
	b = append(b, ',')
	b = appendString(b, j.User)
	b = append(b, ',')
	b = appendString(b, j.VC)
	b = append(b, ',')
	b = appendGrid(b, j.Best)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.Estimates), 10)
	return append(b, ']')
}

func appendGrid(b []byte, g Grid) []byte {
	b = append(b, '[')
	b = appendString(b, g.GPU)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(g.Nodes), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(g.PerNode), 10)
	return append(b, ']')
}

// appendString quotes s as JSON; plain printable ASCII directly, anything
// else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat writes f as encoding/json does (so a whole number stays an
// integer on the wire, as in protocol 1's objects).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSON writes the decide message as encoding/json would write the
// struct (same keys, omitempty), without reflection: at one message per
// decision on a long trace, encoding/json and its compaction of the
// Marshalers' output were a fifth of the adapter's time.
func (m *decideV2) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"decide","seq":`...)
	b = strconv.AppendInt(b, int64(m.Seq), 10)
	b = append(b, `,"round":`...)
	b = strconv.AppendInt(b, int64(m.Round), 10)
	b = append(b, `,"now":`...)
	b = appendFloat(b, m.Now)
	b = append(b, `,"round_length":`...)
	b = appendFloat(b, m.RoundLength)
	if m.Full {
		b = append(b, `,"full":true`...)
	}
	if len(m.Tables) > 0 {
		t, _ := json.Marshal(m.Tables) // once per workload and request
		b = append(b, `,"tables":`...)
		b = append(b, t...)
	}
	b = appendJobList(b, "jobs", m.Jobs, false)
	b = appendJobList(b, "arrivals", m.Arrivals, true)
	b = appendStateList(b, "states", m.States)
	b = appendStateList(b, "ended", m.Ended)
	b = appendIDList(b, "gone", m.Gone)
	b = appendIDList(b, "occupant", m.Occupant)
	b = appendSlots(b, m.Slots)
	b = appendIDList(b, "running", m.Running)
	b = appendIDList(b, "pending", m.Pending)
	b = appendIDList(b, "running_removed", m.RunningRemoved)
	b = appendIDList(b, "running_added", m.RunningAdded)
	b = appendIDList(b, "pending_removed", m.PendingRemoved)
	b = appendIDList(b, "pending_added", m.PendingAdded)
	if c := m.Check; c != nil {
		b = append(b, `,"check":{"occupant":`...)
		b = strconv.AppendUint(b, uint64(c.Occupant), 10)
		b = append(b, `,"queues":`...)
		b = strconv.AppendUint(b, uint64(c.Queues), 10)
		b = append(b, `,"jobs":`...)
		b = strconv.AppendUint(b, uint64(c.Jobs), 10)
		b = append(b, '}')
	}
	if len(m.Nodes) > 0 {
		b = append(b, `,"nodes":[`...)
		for i, n := range m.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = n.append(b)
		}
		b = append(b, ']')
	}
	b = appendIDList(b, "interrupted", m.Interrupted)
	if len(m.Contention) > 0 {
		b = append(b, `,"contention":[`...)
		for i, c := range m.Contention {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.append(b)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

// appendJobList writes `,"key":[…]` with the jobs whole; an empty list is
// left out unless always. appendJobList, appendStateList, appendIDList and
// appendSlots are the message's list encodings, one per element type, each
// written as encoding/json would (omitempty).
func appendJobList(b []byte, key string, js []jobV2, always bool) []byte {
	if len(js) == 0 && !always {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i := range js {
		if i > 0 {
			b = append(b, ',')
		}
		b = js[i].append(b)
	}
	b = append(b, ']')
	return b
}

// appendStateList writes `,"key":[…]` with the job states, or nothing for
// an empty list.
func appendStateList(b []byte, key string, ss []stateV2) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = ss[i].append(b)
	}
	b = append(b, ']')
	return b
}

// appendIDList writes `,"key":[…]` with the job IDs, or nothing for an
// empty list.
func appendIDList(b []byte, key string, l []sim.JobID) []byte {
	if len(l) == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, id := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	b = append(b, ']')
	return b
}

// appendSlots writes `,"slots":[[first,count,job],…]`, or nothing for no
// slot changes.
func appendSlots(b []byte, slots [][3]int) []byte {
	if len(slots) > 0 {
		b = append(b, `,"slots":[`...)
		for i, r := range slots {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(r[0]), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r[1]), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r[2]), 10)
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	return b
}

// parseActions decodes an actions reply into in: by parseActionsFast when
// the line is in the plain form clients write, otherwise by decode (which
// also gives the errors). Both give the same actionsIn for every line the
// fast parser accepts (TestFastActionsMatchEncodingJSON).
func parseActions(data []byte, in *actionsIn) error {
	if parseActionsFast(data, in) {
		return nil
	}
	*in = actionsIn{}
	return decode(data, in)
}

// parseActionsFast reads the plain form of an actions reply without
// reflection: an object with the keys type, round, actions and message,
// each at most once, actions an array of objects with the keys kind, job,
// gpus and reason, each at most once; strings of printable ASCII without
// escapes, integers of at most 18 digits, JSON whitespace anywhere. It
// reports false for anything else, and the caller then decodes with
// encoding/json: decoding one reply per decision by reflection was a
// quarter of the adapter's time on a long trace.
func parseActionsFast(data []byte, in *actionsIn) bool {
	r := fastReader{b: data}
	*in = actionsIn{}
	var seen [4]bool
	ok := r.object(func(key []byte) bool {
		k := keyIndex(key, "type", "round", "actions", "message")
		if k < 0 || seen[k] {
			return false
		}
		seen[k] = true
		switch k {
		case 0:
			s, ok := r.str()
			in.Type = s
			return ok
		case 1:
			n, ok := r.int()
			in.Round = int(n)
			return ok
		case 2:
			in.Actions = []actionIn{}
			return r.array(func() bool {
				var a actionIn
				var seenA [4]bool
				if !r.object(func(key []byte) bool {
					k := keyIndex(key, "kind", "job", "gpus", "reason")
					if k < 0 || seenA[k] {
						return false
					}
					seenA[k] = true
					ok := true
					switch k {
					case 0:
						a.Kind, ok = r.str()
					case 1:
						var n int64
						n, ok = r.int()
						a.Job = sim.JobID(n)
					case 2:
						a.GPUs = []int{}
						ok = r.array(func() bool {
							n, ok := r.int()
							a.GPUs = append(a.GPUs, int(n))
							return ok
						})
					case 3:
						a.Reason, ok = r.str()
					}
					return ok
				}) {
					return false
				}
				in.Actions = append(in.Actions, a)
				return true
			})
		default:
			s, ok := r.str()
			in.Message = s
			return ok
		}
	})
	r.ws()
	return ok && r.i == len(r.b)
}

// keyIndex is the position of key among the four names, or −1.
func keyIndex(key []byte, a, b, c, d string) int {
	switch string(key) {
	case a:
		return 0
	case b:
		return 1
	case c:
		return 2
	case d:
		return 3
	}
	return -1
}

// fastReader is parseActionsFast's cursor; every method skips leading
// whitespace and reports false on anything outside the plain form.
type fastReader struct {
	b []byte
	i int
}

func (r *fastReader) ws() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

func (r *fastReader) next(c byte) bool {
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// rawStr reads a string of printable ASCII without escapes.
func (r *fastReader) rawStr() ([]byte, bool) {
	if !r.next('"') {
		return nil, false
	}
	start := r.i
	for ; r.i < len(r.b); r.i++ {
		switch c := r.b[r.i]; {
		case c == '"':
			r.i++
			return r.b[start : r.i-1], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

func (r *fastReader) str() (string, bool) {
	s, ok := r.rawStr()
	return string(s), ok
}

// int reads an integer as JSON writes it: no leading zeros, no fraction
// or exponent, at most 18 digits (no overflow).
func (r *fastReader) int() (int64, bool) {
	r.ws()
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	start := r.i
	var n int64
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		n = n*10 + int64(r.b[r.i]-'0')
		r.i++
	}
	digits := r.i - start
	if digits == 0 || digits > 18 || (digits > 1 && r.b[start] == '0') {
		return 0, false
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// object reads {"key": value, …}, calling member with each key with the
// cursor before the value.
func (r *fastReader) object(member func(key []byte) bool) bool {
	if !r.next('{') {
		return false
	}
	if r.next('}') {
		return true
	}
	for {
		key, ok := r.rawStr()
		if !ok || !r.next(':') || !member(key) {
			return false
		}
		if r.next('}') {
			return true
		}
		if !r.next(',') {
			return false
		}
	}
}

// array reads [value, …], calling elem with the cursor before each value.
func (r *fastReader) array(elem func() bool) bool {
	if !r.next('[') {
		return false
	}
	if r.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if r.next(']') {
			return true
		}
		if !r.next(',') {
			return false
		}
	}
}
