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
