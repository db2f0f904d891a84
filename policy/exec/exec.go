package exec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/input"
)

// Protocol is the newest protocol version this adapter speaks; Protocols
// lists every version it accepts in a client's hello (docs: doc.go).
const Protocol = 2

// Protocols are the versions a client may pick. The hello's "protocol"
// field stays 1, the version every client understands, so a version-1
// client written before version 2 still reads a hello it knows.
var Protocols = []int{1, 2}

// Config says how to run the child process.
type Config struct {
	// Command is the program and its arguments (SplitCommand).
	Command []string
	// Dir is the process's working directory ("" = arena's).
	Dir string
	// Timeout bounds the wall-clock wait for each reply (hello and every
	// decision): a safety net that ends the run with an error, never a
	// decision input. 0 means DefaultTimeout.
	Timeout time.Duration
	// View is the estimator view whose answers are sent with each arrival.
	View estimator.View
	// Stderr receives the process's stderr (nil = os.Stderr).
	Stderr io.Writer
	// Context ends the session when done: a wait in progress returns at
	// once and the process group is killed (nil = never).
	Context context.Context
	// MaxLine caps one reply line in bytes (0 = DefaultMaxLine).
	MaxLine int
	// Energy, if set, goes into the hello (its "energy" object: prices,
	// power and carbon intensity), so a policy can trade them; nil sends
	// none.
	Energy *energy.Model

	// expiry, if set, replaces the wall-clock timer of each reply wait:
	// it returns the channel that ends the wait. Tests set it
	// (export_test.go) to expire a chosen wait on cue instead of waiting
	// out a real timeout.
	expiry func(time.Duration) <-chan time.Time
	// writeExpiry does the same for each write's deadline.
	writeExpiry func(time.Duration) <-chan time.Time
}

// DefaultTimeout is the default wait for one reply.
const DefaultTimeout = 10 * time.Minute

// graceAtClose is how long Close waits for the process to exit after bye.
const graceAtClose = 5 * time.Second

// Policy is the adapter. Create it with Start; Close it after the run.
type Policy struct {
	cfg     Config
	cluster *sim.Cluster
	est     estimator.Estimator
	name    string   // the client's name from its hello
	proc    *process // the child (process.go)
	dw      *deadlineWriter
	out     *bufio.Writer
	closed  bool
	buf     bytes.Buffer

	protocol int  // the version the client picked
	quiet    bool // the client's promise: no action in a decision without events
	// nothingWaits is the client's promise: no action in a decision
	// without arrivals and with an empty pending queue (protocol 2).
	nothingWaits bool
	skipped      int // decisions not sent (nothingWaits)
	live         liveFields
	d            *deltaState // protocol 2's record of what was last sent
	slotNode     []int       // node of every slot
	wire         []byte      // protocol 2's message buffer
	resyncs      int
}

type line struct {
	data []byte
	err  error
}

var (
	_ sim.Policy = (*Policy)(nil)
	_ io.Closer  = (*Policy)(nil)
)

// RoundAfterBye is Error.Round of a failure after the session's bye (the
// process did not exit, or exited with an error).
const RoundAfterBye = -2

// Error is a failure of the child process or of the protocol. Round is −1
// before the first decision (the hello), RoundAfterBye after the last;
// Job is −1 when no job is concerned.
type Error struct {
	Command string
	Round   int
	Job     sim.JobID
	// JobName is the job's alias and trace name, "job_0043 (name)", as the
	// engine's own messages write it ("" when the job is unknown).
	JobName string
	Msg     string
	// cause is what ended the session when it was not the process: the
	// run's context (errors.Is(err, context.Canceled) holds).
	cause error
}

// Unwrap returns the context's error of an aborted session (nil else).
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	where := "hello"
	switch {
	case e.Round == RoundAfterBye:
		where = "after bye"
	case e.Round >= 0:
		where = fmt.Sprintf("round %d", e.Round)
	}
	if e.Job >= 0 {
		where += fmt.Sprintf(", job %d", e.Job)
		if e.JobName != "" {
			where += " = " + e.JobName
		}
	}
	return fmt.Sprintf("exec %q: %s: %s", e.Command, where, e.Msg)
}

// Start launches the process and exchanges hellos. c and timing go into
// the hello; src provides the estimator view of cfg.View.
func Start(c *sim.Cluster, src estimator.Source, timing sim.Timing, cfg Config) (*Policy, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("exec: empty command (want e.g. exec:python3 my_policy.py)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	p := &Policy{cfg: cfg, cluster: c, est: src.View(cfg.View)}
	pr, err := startProcess(cfg)
	if err != nil {
		if cfg.Context != nil && errors.Is(err, cfg.Context.Err()) {
			return nil, err
		}
		return nil, p.fail(-1, -1, "cannot start: %v", err)
	}
	p.proc = pr
	p.dw = &deadlineWriter{pr: pr, timeout: cfg.Timeout, expiry: cfg.writeExpiry}
	p.out = bufio.NewWriterSize(p.dw, 1<<16)
	if err := p.hello(timing); err != nil {
		p.shutdown()
		return nil, err
	}
	return p, nil
}

func (p *Policy) fail(round int, job sim.JobID, format string, args ...any) error {
	return &Error{Command: strings.Join(p.cfg.Command, " "), Round: round, Job: job, Msg: fmt.Sprintf(format, args...)}
}

// Name implements sim.Policy: "exec:" and the client's name.
func (p *Policy) Name() string { return "exec:" + p.name }

// send writes one message.
func (p *Policy) send(round int, msg any) error {
	p.buf.Reset()
	if d, ok := msg.(*decideV2); ok {
		p.wire = d.appendJSON(p.wire[:0])
		p.buf.Write(p.wire)
	} else if err := json.NewEncoder(&p.buf).Encode(msg); err != nil {
		return p.fail(round, -1, "encoding the message: %v", err)
	}
	if _, err := p.out.Write(p.buf.Bytes()); err != nil {
		return p.exitError(round, err)
	}
	if err := p.out.Flush(); err != nil {
		return p.exitError(round, err)
	}
	return nil
}

// decode reads one message strictly (decodeStrict: one object, no
// duplicate or unknown key, nothing after it, so a misspelt or repeated
// key is not silently ignored); an error message from the policy is
// reported as such, quoted.
func decode(data []byte, v any) error {
	if err := decodeStrict(data, v); err != nil {
		var probe struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Type == "error" {
			return fmt.Errorf("the policy reported an error: %s", quoteData(probe.Message))
		}
		return fmt.Errorf("reply is not a valid message: %v: %s", err, abbreviate(data))
	}
	return nil
}

func abbreviate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Messages of the protocol (doc.go).

type helloOut struct {
	Type        string     `json:"type"`
	Protocol    int        `json:"protocol"`
	Protocols   []int      `json:"protocols"`
	StateFields []string   `json:"state_fields"`
	JobFields   []string   `json:"job_fields"`
	Timing      string     `json:"timing"`
	View        string     `json:"view"`
	Cluster     clusterOut `json:"cluster"`
	// Energy is sent only when the entry's energy option names a model.
	Energy *energyOut `json:"energy,omitempty"`
}

// energyOut is the hello's energy object: per GPU type of the cluster its
// $/GPU-hour at the tier and its TDP and idle watts; the electricity
// price; the carbon intensity, g CO₂eq/kWh, as a constant or hourly from
// hour 0 at the first decision (repeating).
type energyOut struct {
	Model       string              `json:"model"`
	Tier        string              `json:"price_tier"`
	USDPerGPUH  map[string]float64  `json:"usd_per_gpu_hour"`
	Power       map[string]powerOut `json:"watts"`
	USDPerKWh   float64             `json:"usd_per_kwh"`
	PUE         float64             `json:"pue"`
	Carbon      float64             `json:"carbon_g_per_kwh,omitempty"`
	CarbonHours []float64           `json:"carbon_g_per_kwh_hourly,omitempty"`
}

type powerOut struct {
	TDP  float64 `json:"tdp"`
	Idle float64 `json:"idle"`
}

// energyHello is the hello's energy object of model m for cluster c's
// types (nil for no model).
func energyHello(m *energy.Model, c *sim.Cluster) *energyOut {
	if m == nil {
		return nil
	}
	e := &energyOut{Model: m.Name, Tier: m.Tier, USDPerGPUH: map[string]float64{}, Power: map[string]powerOut{}, USDPerKWh: m.USDPerKWh, PUE: m.PUE}
	for _, t := range c.Types {
		e.USDPerGPUH[t] = m.Price(t)
		if g, err := m.Power(t); err == nil {
			e.Power[t] = powerOut{TDP: g.TDP, Idle: g.Idle}
		}
	}
	if len(m.Intensity.Hourly) > 0 {
		e.CarbonHours = m.Intensity.Hourly
	} else {
		e.Carbon = m.Intensity.Constant
	}
	return e
}

type clusterOut struct {
	Name  string    `json:"name"`
	Types []string  `json:"types"`
	Slots int       `json:"slots"`
	Nodes []nodeOut `json:"nodes"`
	// Topology (clusters with one only; docs/topology.md).
	Topology *topologyOut `json:"topology,omitempty"`
}

// topologyOut is the cluster's topology on the wire: the spec's fast
// domain and tiers, and each node's domain and, per tier, its switch
// group (domains and groups restart with each pool).
type topologyOut struct {
	DomainNodes int        `json:"domain_nodes"`
	DomainGBs   float64    `json:"domain_gbs,omitempty"`
	NetworkGBs  float64    `json:"network_gbs,omitempty"`
	Tiers       []sim.Tier `json:"tiers"`
	Domain      []int      `json:"domain"`
	Groups      [][]int    `json:"groups"`
}

func topologyOf(c *sim.Cluster) *topologyOut {
	t := c.Topology()
	if t == nil {
		return nil
	}
	out := &topologyOut{DomainNodes: t.DomainNodes, DomainGBs: t.DomainGBs, NetworkGBs: t.NetworkGBs, Tiers: nonNil(t.Tiers),
		Domain: make([]int, len(c.Nodes)), Groups: make([][]int, len(t.Tiers))}
	for n := range c.Nodes {
		out.Domain[n] = c.DomainOf(n)
	}
	for k := range t.Tiers {
		out.Groups[k] = make([]int, len(c.Nodes))
		for n := range c.Nodes {
			out.Groups[k][n] = c.GroupOf(k, n)
		}
	}
	return out
}

// contentionOut is a running job's contention slowdown on the wire:
// [job, slowdown] (docs/topology.md).
type contentionOut struct {
	Job      sim.JobID
	Slowdown float64
}

func (c contentionOut) MarshalJSON() ([]byte, error) { return c.append(nil), nil }

func (c contentionOut) append(b []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(c.Job), 10)
	b = append(b, ',')
	b = appendFloat(b, c.Slowdown)
	return append(b, ']')
}

// contentionOf lists the running jobs slowed by contention (slowdown over
// 1), in running-queue order; nil on a cluster without a topology. A
// running job not listed runs at its time alone on the fabric.
func contentionOf(v *sim.View) []contentionOut {
	if v.Cluster.Topology() == nil {
		return nil
	}
	var out []contentionOut
	for _, j := range v.Running {
		if s := v.ContentionSlowdown(j); s > 1 {
			out = append(out, contentionOut{j.Spec.ID, s})
		}
	}
	return out
}

type nodeOut struct {
	GPU       string `json:"gpu"`
	Capacity  int    `json:"capacity"`
	FirstSlot int    `json:"first_slot"`
}

type helloIn struct {
	Type     string   `json:"type"`
	Protocol int      `json:"protocol"`
	Name     string   `json:"name"`
	Live     []string `json:"live"`
	Quiet    bool     `json:"idle_when_quiet"`
	// NothingWaits is the client's promise that a decision in which no
	// job waits (no arrival, empty pending queue) does nothing
	// (protocol 2; scheduleDelta does not send such decisions).
	NothingWaits bool `json:"idle_when_nothing_waits"`
}

// Grid is a uniform shape as the protocol writes it.
type Grid struct {
	GPU     string `json:"gpu"`
	Nodes   int    `json:"nodes"`
	PerNode int    `json:"per_node"`
}

type estimateOut struct {
	Grid
	Throughput float64 `json:"throughput"`
	IterTime   float64 `json:"iter_time"`
}

// stateOut is the dynamic part of a job.
type stateOut struct {
	ID         sim.JobID `json:"id"`
	Status     string    `json:"status"`
	GPUs       []int     `json:"gpus"`
	Grid       *Grid     `json:"grid"`
	Progress   float64   `json:"progress"`
	Remaining  int64     `json:"remaining"`
	Total      int64     `json:"total"`
	FirstStart float64   `json:"first_start"`
	Reconfigs  int       `json:"reconfigs"`
	QueueTime  float64   `json:"queue_time"`
}

// jobOut is an arrival: static and dynamic parts.
type jobOut struct {
	stateOut
	Name       string        `json:"name"`
	Alias      string        `json:"alias"`
	Model      string        `json:"model"`
	Batch      int           `json:"batch"`
	Iterations int64         `json:"iterations"`
	GPU        string        `json:"gpu"`
	NumGPUs    int           `json:"num_gpus"`
	Submit     float64       `json:"submit"`
	Deadline   float64       `json:"deadline"`
	User       string        `json:"user"`
	VC         string        `json:"vc"`
	Best       Grid          `json:"best"`
	Estimates  []estimateOut `json:"estimates"`
}

type decideOut struct {
	Type        string      `json:"type"`
	Round       int         `json:"round"`
	Now         float64     `json:"now"`
	RoundLength float64     `json:"round_length"`
	Occupant    []sim.JobID `json:"occupant"`
	Running     []stateOut  `json:"running"`
	Pending     []stateOut  `json:"pending"`
	Arrivals    []jobOut    `json:"arrivals"`
	Ended       []stateOut  `json:"ended"`
	// Faults (runs with cluster events only): each node's availability
	// and the jobs interrupted since the last decision (in pending).
	Nodes       []nodeAvailOut `json:"nodes,omitempty"`
	Interrupted []sim.JobID    `json:"interrupted,omitempty"`
	// Contention (clusters with a topology only): the running jobs slowed
	// by jobs sharing their uplinks, [job, slowdown].
	Contention []contentionOut `json:"contention,omitempty"`
}

// nodeAvailOut is a node's availability on the wire: [state, until], state
// "up", "draining", "reclaiming" or "down", until the time a drain's or
// reclaim's notice expires (0 otherwise).
type nodeAvailOut struct {
	State string
	Until float64
}

func (n nodeAvailOut) MarshalJSON() ([]byte, error) { return n.append(nil), nil }

func (n nodeAvailOut) append(b []byte) []byte {
	b = append(b, '[')
	b = appendString(b, n.State)
	b = append(b, ',')
	b = appendFloat(b, n.Until)
	return append(b, ']')
}

// nodesOut is a View's node availability on the wire; nil without faults.
func nodesOut(v *sim.View) []nodeAvailOut {
	if v.Nodes == nil {
		return nil
	}
	out := make([]nodeAvailOut, len(v.Nodes))
	for i, n := range v.Nodes {
		out[i] = nodeAvailOut{n.State.String(), float64(n.Until)}
	}
	return out
}

func jobIDs(jobs []*sim.Job) []sim.JobID {
	var out []sim.JobID
	for _, j := range jobs {
		out = append(out, j.Spec.ID)
	}
	return out
}

type actionIn struct {
	Kind   string    `json:"kind"`
	Job    sim.JobID `json:"job"`
	GPUs   []int     `json:"gpus"`
	Reason string    `json:"reason"`
}

type actionsIn struct {
	Type    string     `json:"type"`
	Round   int        `json:"round"`
	Actions []actionIn `json:"actions"`
	Message string     `json:"message"`
}

func (p *Policy) hello(timing sim.Timing) error {
	c := p.cluster
	h := helloOut{Type: "hello", Protocol: 1, Protocols: Protocols, StateFields: StateFields, JobFields: JobFields, Timing: timing.String(), View: p.cfg.View.String(),
		Cluster: clusterOut{Name: c.Name, Types: nonNil(c.Types), Slots: c.NumSlots(), Nodes: make([]nodeOut, len(c.Nodes)), Topology: topologyOf(c)}, Energy: energyHello(p.cfg.Energy, c)}
	for i, n := range c.Nodes {
		h.Cluster.Nodes[i] = nodeOut{GPU: n.GPU, Capacity: n.Capacity, FirstSlot: n.FirstSlot}
	}
	if err := p.send(-1, h); err != nil {
		return err
	}
	data, err := p.receive(-1)
	if err != nil {
		return err
	}
	var in helloIn
	if err := decode(data, &in); err != nil {
		return p.fail(-1, -1, "%v", err)
	}
	if in.Type != "hello" {
		return p.fail(-1, -1, "want a hello reply, got type %q", in.Type)
	}
	if !slices.Contains(Protocols, in.Protocol) {
		return p.fail(-1, -1, "the policy speaks protocol %d, arena speaks 1 and 2", in.Protocol)
	}
	p.protocol, p.quiet = in.Protocol, in.Quiet
	if in.NothingWaits && in.Protocol < 2 {
		return p.fail(-1, -1, "hello: idle_when_nothing_waits needs protocol 2 (the skipped decisions' changes go with the next delta)")
	}
	p.nothingWaits = in.NothingWaits
	for _, f := range in.Live {
		switch f {
		case "remaining":
			p.live.remaining = true
		case "queue_time":
			p.live.queueTime = true
		default:
			return p.fail(-1, -1, "hello: live field %q: want remaining or queue_time", f)
		}
	}
	if p.protocol >= 2 {
		p.d = newDeltaState()
		p.slotNode = make([]int, c.NumSlots())
		for i, n := range c.Nodes {
			for s := n.FirstSlot; s < n.FirstSlot+n.Capacity; s++ {
				p.slotNode[s] = i
			}
		}
	}
	// The name appears in errors and logs: the rule of every name arena
	// shows (no control, bidi or zero-width character, the field cap).
	if err := input.Name(in.Name); err != nil {
		return p.fail(-1, -1, "hello: name: %v", err)
	}
	p.name = in.Name
	if p.name == "" {
		p.name = strings.Join(p.cfg.Command, " ")
	}
	return nil
}

func state(v *sim.View, j *sim.Job) stateOut {
	s := stateOut{ID: j.Spec.ID, Status: j.Status.String(), GPUs: j.GPUs, Progress: j.Progress(),
		Remaining: j.Remaining, Total: j.IterNum, FirstStart: float64(j.FirstStart), Reconfigs: j.Reconfigs, QueueTime: j.QueueTime()}
	s.GPUs = nonNil(s.GPUs)
	if j.Status == sim.Running {
		s.Grid = &Grid{GPU: j.Config.GPU, Nodes: j.Config.Nodes, PerNode: j.Config.PerNode}
	}
	return s
}

// nonNil keeps empty lists "[]" on the wire (JSON null would make every
// client check for it; an empty cluster has no types and no slots).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func states(v *sim.View, jobs []*sim.Job) []stateOut {
	out := make([]stateOut, len(jobs))
	for i, j := range jobs {
		out[i] = state(v, j)
	}
	return out
}

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (it only serialises them).
func (*Policy) ReadsViewOnly() bool { return true }

// IdleWhenQuiet implements sim.QuietRounds with the client's promise from
// its hello ("idle_when_quiet": true): a decision with no arrival and no
// ended job is then not sent at all.
func (p *Policy) IdleWhenQuiet() bool { return p.quiet }

// Resyncs is how many times the client asked for the full state again
// (protocol 2): 0 in a healthy run.
func (p *Policy) Resyncs() int { return p.resyncs }

// Schedule implements sim.Policy: one decide message, one actions reply.
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	if p.d != nil {
		return p.scheduleDelta(v)
	}
	msg := decideOut{Type: "decide", Round: v.Round, Now: float64(v.Now), RoundLength: float64(v.RoundLength), Occupant: nonNil(v.Occupant),
		Running: states(v, v.Running), Pending: states(v, v.Pending), Ended: states(v, v.Ended), Arrivals: make([]jobOut, len(v.Arrivals))}
	for i, j := range v.Arrivals {
		msg.Arrivals[i] = p.arrival(v, j)
	}
	msg.Nodes, msg.Interrupted = nodesOut(v), jobIDs(v.Interrupted)
	msg.Contention = contentionOf(v)
	if err := p.send(v.Round, msg); err != nil {
		return nil, err
	}
	data, err := p.receive(v.Round)
	if err != nil {
		return nil, err
	}
	inView := map[sim.JobID]bool{}
	for _, list := range [][]*sim.Job{v.Running, v.Pending, v.Arrivals} {
		for _, j := range list {
			inView[j.Spec.ID] = true
		}
	}
	actions, job, err := ParseActions(data, v.Round, inView, p.cluster.NumSlots())
	if err != nil {
		return nil, p.failJob(v, inView[job], job, err)
	}
	return actions, nil
}

// failJob is fail with the job's name when the job is known.
func (p *Policy) failJob(v *sim.View, known bool, job sim.JobID, err error) error {
	e := p.fail(v.Round, job, "%v", err).(*Error)
	if known && job >= 0 {
		if j := v.Job(job); j != nil {
			e.JobName = j.Spec.Alias() + " (" + j.Spec.Name + ")"
		}
	}
	return e
}

// ParseActions checks one reply to the decision of round: its type and
// round, and each action's kind, job (one of inView) and GPU slots (in
// 0..slots−1). On an error it returns the job concerned, or −1. The engine
// then validates the actions as it does any policy's.
func ParseActions(data []byte, round int, inView map[sim.JobID]bool, slots int) ([]sim.Action, sim.JobID, error) {
	var in actionsIn
	if err := parseActions(data, &in); err != nil {
		return nil, -1, err
	}
	return checkActions(&in, round, func(id sim.JobID) bool { return inView[id] }, slots)
}

// checkActions is ParseActions on a decoded reply.
func checkActions(in *actionsIn, round int, inView func(sim.JobID) bool, slots int) ([]sim.Action, sim.JobID, error) {
	switch {
	case in.Type == "error":
		return nil, -1, fmt.Errorf("the policy reported an error: %s", quoteData(in.Message))
	case in.Type != "actions":
		return nil, -1, fmt.Errorf("want an actions reply, got type %q", in.Type)
	case in.Round != round:
		return nil, -1, fmt.Errorf("reply is for round %d", in.Round)
	}
	actions := make([]sim.Action, 0, len(in.Actions))
	for i, a := range in.Actions {
		kind, ok := kinds[a.Kind]
		if !ok {
			return nil, a.Job, fmt.Errorf("action %d: kind %q: want start, reallocate, suspend or drop", i, a.Kind)
		}
		if !inView(a.Job) {
			return nil, a.Job, fmt.Errorf("action %d (%s): the job is not running, pending or arriving in this decision", i, a.Kind)
		}
		if (kind == sim.Start || kind == sim.Reallocate) && len(a.GPUs) == 0 {
			return nil, a.Job, fmt.Errorf("action %d (%s): no gpus given", i, a.Kind)
		}
		if (kind == sim.Suspend || kind == sim.Drop) && len(a.GPUs) > 0 {
			return nil, a.Job, fmt.Errorf("action %d (%s): gpus given to a %s", i, a.Kind, a.Kind)
		}
		for _, g := range a.GPUs {
			if g < 0 || g >= slots {
				return nil, a.Job, fmt.Errorf("action %d (%s): GPU slot %d out of range 0..%d", i, a.Kind, g, slots-1)
			}
		}
		actions = append(actions, sim.Action{Kind: kind, Job: a.Job, GPUs: a.GPUs, Reason: a.Reason})
	}
	return actions, -1, nil
}

var kinds = map[string]sim.ActionKind{"start": sim.Start, "reallocate": sim.Reallocate, "suspend": sim.Suspend, "drop": sim.Drop}

// arrival renders a newly submitted job with the estimator's answers.
func (p *Policy) arrival(v *sim.View, j *sim.Job) jobOut {
	s := j.Spec
	best := estimator.BestLocality(s.GPU, s.GPUs, p.cluster.NodeCapacity(s.GPU))
	out := jobOut{stateOut: state(v, j), Name: s.Name, Alias: s.Alias(), Model: s.Workload.Model.Name(), Batch: s.Workload.Batch,
		Iterations: s.Iterations, GPU: s.GPU, NumGPUs: s.GPUs, Submit: float64(s.Submit), Deadline: float64(s.Deadline),
		User: s.User, VC: s.VirtualCluster, Best: Grid{GPU: best.GPU, Nodes: best.Nodes, PerNode: best.PerNode}, Estimates: []estimateOut{}}
	for _, c := range Candidates(p.cluster, s.GPUs, best) {
		e := p.est.Estimate(s.Workload, c)
		if !e.Feasible() {
			continue
		}
		out.Estimates = append(out.Estimates, estimateOut{Grid: Grid{GPU: c.GPU, Nodes: c.Nodes, PerNode: c.PerNode}, Throughput: e.Throughput, IterTime: e.IterTime})
	}
	return out
}

// Candidates lists the grids whose estimates are sent with a job that
// requested n GPUs: per GPU type of the cluster (in its type order), every
// count that is a power of two or n, up to the type's total, on every
// uniform shape (nodes × per-node) that fits the type's nodes; plus best.
// The order is deterministic: type, count, then GPUs per node descending.
func Candidates(c *sim.Cluster, n int, best estimator.Config) []estimator.Config {
	var out []estimator.Config
	seen := map[estimator.Config]bool{}
	add := func(cfg estimator.Config) {
		if cfg.Nodes > 0 && cfg.PerNode > 0 && !seen[cfg] {
			seen[cfg] = true
			out = append(out, cfg)
		}
	}
	for _, gpu := range c.Types {
		nodes := c.NodesOfType(gpu)
		var counts []int
		for k := 1; k <= c.TotalGPUs(gpu); k *= 2 {
			counts = append(counts, k)
		}
		if n > 0 && n <= c.TotalGPUs(gpu) && n&(n-1) != 0 {
			counts = append(counts, n)
		}
		slices.Sort(counts)
		for _, k := range counts {
			for q := min(k, c.NodeCapacity(gpu)); q >= 1; q-- {
				if k%q != 0 {
					continue
				}
				fit := 0 // nodes of the type with at least q GPUs
				for _, i := range nodes {
					if c.Nodes[i].Capacity >= q {
						fit++
					}
				}
				if k/q <= fit {
					add(estimator.Config{GPU: gpu, Nodes: k / q, PerNode: q})
				}
			}
		}
	}
	add(best)
	return out
}

// SplitCommand splits a command line into words the way a POSIX shell
// would for plain words and quotes ('…' literal, "…" with \" and \\
// escapes, \ outside quotes escapes the next character), without running
// a shell: no variables, globs or redirections.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q: unterminated ' quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("command %q: unterminated \" quote", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
