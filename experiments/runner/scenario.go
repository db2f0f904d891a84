package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/fairness"
	"github.com/arena-sim/arena/sim/faults"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/overheadprofile"
	"github.com/arena-sim/arena/sim/resultsdir"
	"github.com/arena-sim/arena/sim/tenants"
	"github.com/arena-sim/arena/traces"
)

// Policies is where runs find their policies: *registry.Registry, or a
// wrapper (tests plant regressions by substituting an entry).
type Policies interface {
	Lookup(name string) (registry.Entry, error)
	Names() []string
}

// Scenario is a run resolved: every input it names loaded and checked, so
// that executing it reads no file and parses no name (resolved values in,
// as gonum's optimize.Minimize takes a function, not its name).
type Scenario struct {
	// Run is the description it was resolved from, with Rounds filled in
	// (the trace's default when it gave none) and Estimator "profiledb"
	// when it gave none.
	Run Run
	// TraceName is the trace's own name; TraceJobs its job count as loaded.
	TraceName string
	TraceJobs int
	// Jobs are the jobs as simulated (GPU types remapped, iterations
	// scaled by the density); the scenario's own copy.
	Jobs        []sim.JobSpec
	ClusterSpec sim.ClusterSpec
	// Policy is the parsed policy string.
	Policy   registry.Spec
	Source   estimator.Source
	Profile  *sim.OverheadProfile
	Overhead sim.Overhead
	// Config is the engine's configuration but for its Cluster, Exec and
	// OnRound, which Execute sets (a cluster per execution).
	Config sim.Config
	// GPUMap is the run's GPU map in its canonical form
	// (traces.FormatGPUMap; "" none), as the summary records it.
	GPUMap string
	// ExpectedOutages is how many node outages the run's faults preset
	// or spec gives its cluster over the window events are drawn for, on
	// average (faults.Spec.Expected), a window of WindowRounds rounds; nil
	// without faults or for an events file. A run that stops earlier (a
	// drained run) records it scaled to the rounds it simulated.
	ExpectedOutages *float64
	WindowRounds    int
	// EventsPastWindow counts the events of the run's events file at or
	// after the end of its window, which the run never applies (some,
	// never all: a file whose events all fall outside is refused).
	EventsPastWindow, FileEvents int
	// Tenants is the run's tenants file (Run.Tenants), loaded and checked
	// against the cluster and the jobs; nil for none or for TenantsVCs.
	Tenants *tenants.File
	// Energy is the run's energy model (Run.Energy), loaded and checked
	// against the cluster's GPU types; nil for none.
	Energy *energy.Model
	// ClusterEnergy is the cluster spec's energy section (nil for none):
	// the base of an exec policy's energy option, as of Run.Energy.
	ClusterEnergy *energy.Model
	// StreamAllocations, if set, is the run's results directory (to be
	// written after the run): Execute then encodes the allocation rows as
	// the run produces them (resultsdir.AllocStream, its temporaries
	// beside that directory) instead of keeping them, and the Outcome carries
	// the stream (Outcome.Allocations; Result.Allocations stays empty).
	// For a run whose rows nothing else reads (no energy or fairness
	// accounting, no figures).
	StreamAllocations string
	// StreamJobs, with StreamAllocations, encodes the job table too as the
	// engine hands it over after the run (resultsdir.JobStream; the Outcome
	// carries it as Outcome.Jobs, and Result.Jobs and the jobs' fault
	// records stay empty): a million jobs' table is then never in memory
	// beside the engine's jobs. For a run whose job table nothing else reads
	// either (simulate with one policy: a second one's comparison reads
	// both tables; Outcome.RequestedTypes is kept all the same).
	StreamJobs bool
	// Slowdown calibrates execution (Run.Slowdown, Run.RelaxedSlowdown,
	// Run.TypeSlowdowns parsed into typeSlowdowns).
	slowdown      bool
	typeSlowdowns map[string]float64
}

// Resolver loads the inputs of runs, each input once: the runs of a sweep
// or of one 'arena simulate' share their traces, clusters, overhead
// profiles and estimators. It is safe for concurrent use.
type Resolver struct {
	reg      Policies
	mu       sync.Mutex
	traces   map[string]*traces.Trace
	clusters map[string]sim.ClusterSpec
	energies map[string]*energy.Model // the cluster specs' energy sections
	profiles map[string]*sim.OverheadProfile
	sources  map[string]estimator.Source
	policies map[string]registry.Spec
	tenants  map[string]*tenants.File
	delay    func(*sim.JobSpec) sim.Duration
}

// NewResolver returns a resolver finding policies in reg.
func NewResolver(reg Policies) *Resolver {
	return &Resolver{reg: reg, traces: map[string]*traces.Trace{}, clusters: map[string]sim.ClusterSpec{}, energies: map[string]*energy.Model{},
		profiles: map[string]*sim.OverheadProfile{}, sources: map[string]estimator.Source{}, policies: map[string]registry.Spec{},
		tenants: map[string]*tenants.File{}}
}

// Registry is where the resolver finds policies.
func (rv *Resolver) Registry() Policies { return rv.reg }

// Trace loads (or synthesises, for r.Synth and r.Seed) the run's trace,
// once; callers get their own copy of the job list.
func (rv *Resolver) Trace(r Run) (*traces.Trace, error) {
	t, shared, err := rv.sharedTrace(r)
	if err != nil || !shared {
		return t, err
	}
	c := *t
	c.Jobs = slices.Clone(t.Jobs)
	return &c, nil
}

// sharedTrace is Trace without the copy of a loaded trace's job list
// (shared reports it): the caller must not write the jobs. Resolve keeps
// the list it is given as the scenario's (nothing downstream writes specs;
// the engine points into them), so one million jobs are held once, not
// twice.
func (rv *Resolver) sharedTrace(r Run) (t *traces.Trace, shared bool, err error) {
	if r.Synth != nil {
		t, err = r.Synth.Build(r.Seed) // cached by the synthesiser, copied
		return t, false, err
	}
	rv.mu.Lock()
	t, ok := rv.traces[r.Trace]
	rv.mu.Unlock()
	if !ok {
		if t, err = traces.Load(r.Trace); err != nil {
			return nil, false, err
		}
		rv.mu.Lock()
		rv.traces[r.Trace] = t
		rv.mu.Unlock()
	}
	c := *t
	return &c, true, nil
}

// Cluster loads a cluster spec once and checks that it builds.
func (rv *Resolver) Cluster(ref string) (sim.ClusterSpec, error) {
	rv.mu.Lock()
	spec, ok := rv.clusters[ref]
	rv.mu.Unlock()
	if ok {
		return spec, nil
	}
	spec, em, err := clusterspec.LoadWithEnergy(ref)
	if err != nil {
		return spec, err
	}
	if _, err := sim.NewCluster(spec); err != nil {
		return spec, err
	}
	rv.mu.Lock()
	rv.clusters[ref] = spec
	rv.energies[ref] = em
	rv.mu.Unlock()
	return spec, nil
}

// Profile loads an overhead profile once ("" = overheadprofile.Default).
func (rv *Resolver) Profile(ref string) (*sim.OverheadProfile, error) {
	if ref == "" {
		ref = overheadprofile.Default
	}
	rv.mu.Lock()
	p, ok := rv.profiles[ref]
	rv.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := overheadprofile.Load(ref)
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	rv.profiles[ref] = p
	rv.mu.Unlock()
	return p, nil
}

// Source returns the estimator source named ("" = profiledb), once.
func (rv *Resolver) Source(name string) (estimator.Source, error) {
	rv.mu.Lock()
	s, ok := rv.sources[name]
	rv.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := SourceFor(name)
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	rv.sources[name] = s
	rv.mu.Unlock()
	return s, nil
}

// ParsePolicy parses a policy string once (registry.ParseWith in the
// resolver's registry).
func (rv *Resolver) ParsePolicy(s string) (registry.Spec, error) {
	rv.mu.Lock()
	ps, ok := rv.policies[s]
	rv.mu.Unlock()
	if ok {
		return ps, nil
	}
	ps, err := registry.ParseWith(rv.reg.Lookup, s)
	if err != nil {
		return ps, err
	}
	rv.mu.Lock()
	rv.policies[s] = ps
	rv.mu.Unlock()
	return ps, nil
}

// Policy parses a policy string and resolves its overhead class in the
// profile named.
func (rv *Resolver) Policy(s, overheads string) (registry.Spec, *sim.OverheadProfile, sim.Overhead, error) {
	ps, err := rv.ParsePolicy(s)
	if err != nil {
		return ps, nil, sim.Overhead{}, err
	}
	prof, err := rv.Profile(overheads)
	if err != nil {
		return ps, nil, sim.Overhead{}, err
	}
	ov, err := prof.Resolve(ps.Entry.Overhead)
	if err != nil {
		return ps, nil, sim.Overhead{}, fmt.Errorf("policy %s: %w", ps.Entry.Name, err)
	}
	return ps, prof, ov, nil
}

// TenantsFile loads a tenants file once.
func (rv *Resolver) TenantsFile(path string) (*tenants.File, error) {
	rv.mu.Lock()
	f, ok := rv.tenants[path]
	rv.mu.Unlock()
	if ok {
		return f, nil
	}
	f, err := tenants.Load(path)
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	rv.tenants[path] = f
	rv.mu.Unlock()
	return f, nil
}

func (rv *Resolver) profilingDelay() (func(*sim.JobSpec) sim.Duration, error) {
	rv.mu.Lock()
	d := rv.delay
	rv.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := ProfilingDelay()
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	rv.delay = d
	rv.mu.Unlock()
	return d, nil
}

// Check makes the checks of Resolve that refuse a run before it starts,
// without building it (no job list, no cluster events): its fields, its
// policy and overhead profile, its cluster, that its estimator prices
// every GPU type of the cluster (CheckPriced), that its faults name a
// preset or a readable faults file (faults.CheckName) and its tenants
// file loads. Inputs are loaded once per resolver, so a sweep checks
// every planned run with it before the first run starts. Errors are
// the run's field errors, as Resolve's.
func (rv *Resolver) Check(r Run) error {
	if err := r.Validate(); err != nil {
		return err
	}
	at := func(key string, err error) error { return &input.Error{Field: key, Err: err} }
	spec, err := rv.Cluster(r.Cluster)
	if err != nil {
		return at("cluster", err)
	}
	if _, err := checkTypeSlowdowns(r, spec); err != nil {
		return at("type_slowdowns", err)
	}
	ps, err := rv.ParsePolicy(r.Policy)
	if err != nil {
		return at("policy", err)
	}
	prof, err := rv.Profile(r.Overheads)
	if err != nil {
		return at("overheads", err)
	}
	if _, err := prof.Resolve(ps.Entry.Overhead); err != nil {
		return at("overheads", fmt.Errorf("policy %s: %w", ps.Entry.Name, err))
	}
	src, err := rv.Source(r.Estimator)
	if err != nil {
		return at("estimator", err)
	}
	if err := CheckPriced(spec, r.Estimator, src, nil); err != nil {
		// The trace only completes the message (a GPU map to suggest).
		if tr, terr := rv.mappedTrace(r); terr == nil {
			err = CheckPriced(spec, r.Estimator, src, tr.Jobs)
		}
		return at("estimator", err)
	}
	if err := faults.CheckName(r.Faults); err != nil {
		return at("faults", err)
	}
	if r.Tenants != "" && r.Tenants != TenantsVCs {
		if _, err := rv.TenantsFile(r.Tenants); err != nil {
			return at("tenants", err)
		}
	}
	if _, err := rv.energyModel(r, spec); err != nil {
		return at("energy", err)
	}
	return nil
}

// energyModel loads the run's energy model (Run.Energy; nil for none)
// and checks it prices every GPU type of the cluster. A cluster spec's
// energy section (loaded by Cluster) replaces the built-in model under
// Run.Energy: "default" is the section itself, a series name the section
// with that intensity, an energy file the section with the file's keys
// over it.
func (rv *Resolver) energyModel(r Run, spec sim.ClusterSpec) (*energy.Model, error) {
	if r.Energy == "" {
		return nil, nil
	}
	base := energy.Default()
	rv.mu.Lock()
	if em := rv.energies[r.Cluster]; em != nil {
		base = em
	}
	rv.mu.Unlock()
	m, err := energy.LoadOnto(base, r.Energy)
	if err != nil {
		return nil, err
	}
	for _, p := range spec.Pools {
		if _, err := m.Power(p.GPU); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// mappedTrace is the run's trace with its GPU map applied.
func (rv *Resolver) mappedTrace(r Run) (*traces.Trace, error) {
	tr, err := rv.Trace(r)
	if err != nil {
		return nil, err
	}
	if r.GPUMap != "" {
		m, err := traces.ParseGPUMap(r.GPUMap)
		if err != nil {
			return nil, err
		}
		traces.RemapGPUs(tr, m)
	}
	return tr, nil
}

// Resolve validates r and loads its inputs into a Scenario.
func Resolve(reg Policies, r Run) (*Scenario, error) { return NewResolver(reg).Resolve(r) }

// Resolve validates r and loads its inputs into a Scenario, sharing the
// inputs already loaded.
func (rv *Resolver) Resolve(r Run) (*Scenario, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	at := func(key string, err error) error { return &input.Error{Field: key, Err: err} }
	tr, shared, err := rv.sharedTrace(r)
	if err != nil {
		if r.Synth != nil {
			return nil, at("synth", err)
		}
		return nil, at("trace", err)
	}
	var gpuMap string
	if r.GPUMap != "" {
		m, err := traces.ParseGPUMap(r.GPUMap)
		if err != nil {
			return nil, at("gpu_map", err)
		}
		if shared {
			tr.Jobs = slices.Clone(tr.Jobs) // remapped: the run's own copy
		}
		traces.RemapGPUs(tr, m)
		gpuMap = traces.FormatGPUMap(m)
	}
	spec, err := rv.Cluster(r.Cluster)
	if err != nil {
		return nil, at("cluster", err)
	}
	typeSlowdowns, err := checkTypeSlowdowns(r, spec)
	if err != nil {
		return nil, at("type_slowdowns", err)
	}
	ps, err := rv.ParsePolicy(r.Policy)
	if err != nil {
		return nil, at("policy", err)
	}
	prof, err := rv.Profile(r.Overheads)
	if err != nil {
		return nil, at("overheads", err)
	}
	overhead, err := prof.Resolve(ps.Entry.Overhead)
	if err != nil {
		return nil, at("overheads", fmt.Errorf("policy %s: %w", ps.Entry.Name, err))
	}
	src, err := rv.Source(r.Estimator)
	if err != nil {
		return nil, at("estimator", err)
	}
	if err := CheckPriced(spec, r.Estimator, src, tr.Jobs); err != nil {
		return nil, at("estimator", err)
	}
	if r.OverheadScale != 0 && r.OverheadScale != 1 {
		overhead = overhead.Scale(r.OverheadScale)
	}
	scale := tr.IterationScale
	if r.IterationScale != 0 {
		scale = r.IterationScale
	}
	from := fmt.Sprintf("--rounds %d", r.Rounds)
	if r.Rounds <= 0 {
		r.Rounds = DefaultRounds(tr)
		from = fmt.Sprintf("trace %s: its default length (spanning its submissions)", tr.Name)
	}
	if err := CheckRounds(r.Rounds, r.MaxRounds, from); err != nil {
		return nil, at("rounds", err)
	}
	jobs, err := ScaleIterations(tr.Jobs, r.Density)
	if err != nil {
		return nil, at("density", err)
	}
	cfg := sim.DefaultConfig(nil, nil)
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = r.Timing, r.Rounds, overhead, r.Check
	cfg.IterationScale = scale
	cfg.ScheduleOnEvents = r.ScheduleOnEvents
	if cfg.Measure, err = ParseMeasure(r.Measure); err != nil {
		return nil, at("measure", err)
	}
	if _, n, _, _ := cfg.Measure.Select(jobs); n == 0 {
		return nil, at("measure", fmt.Errorf("%s: no job of the trace's %d is in the window", sim.ShowValue(r.Measure), len(jobs)))
	}
	if r.Drain {
		cfg.Drain, cfg.MaxRounds = true, r.MaxRounds
		if cfg.MaxRounds <= 0 {
			cfg.MaxRounds = DefaultMaxRounds
		}
	}
	if r.ProfilingDelay {
		if cfg.ProfilingDelay, err = rv.profilingDelay(); err != nil {
			return nil, at("profiling_delay", err)
		}
	}
	fl, err := setFaults(&cfg, r, spec, jobs)
	if err != nil {
		return nil, err
	}
	ten, err := rv.checkedTenants(r, spec, jobs)
	if err != nil {
		return nil, err
	}
	em, err := rv.energyModel(r, spec)
	if err != nil {
		return nil, at("energy", err)
	}
	if em != nil && fl.spot != nil { // the faults spec's priced spot capacity
		em = em.Clone()
		em.SpotNodes = fl.spot
	}
	if r.Estimator == "" {
		r.Estimator = "profiledb"
	}
	rv.mu.Lock()
	section := rv.energies[r.Cluster]
	rv.mu.Unlock()
	return &Scenario{Tenants: ten, Energy: em, ClusterEnergy: section, GPUMap: gpuMap, ExpectedOutages: fl.expected, WindowRounds: fl.windowRounds, EventsPastWindow: fl.past, FileEvents: fl.fileEvents,
		Run: r, TraceName: tr.Name, TraceJobs: len(tr.Jobs), Jobs: jobs, ClusterSpec: spec,
		Policy: ps, Source: src, Profile: prof, Overhead: overhead, Config: cfg,
		slowdown:      r.Slowdown != 0 && r.Slowdown != 1 || r.RelaxedSlowdown != 0 && r.RelaxedSlowdown != 1 || len(typeSlowdowns) > 0,
		typeSlowdowns: typeSlowdowns,
	}, nil
}

// setFaults sets the fault model of cfg from the run: its checkpoint
// model, its jobs' own failures, and its cluster events (Run.Faults) over
// the run's window; it returns the node outages the faults preset or
// spec is expected to give there (nil for none or an events file) and
// how many events of an events file fall after the window.
// Errors are the run's field errors.
func setFaults(cfg *sim.Config, r Run, spec sim.ClusterSpec, jobs []sim.JobSpec) (faultsLoaded, error) {
	cfg.Checkpoint = sim.Checkpoint{Interval: sim.Duration(r.CheckpointInterval), Cost: sim.Duration(r.CheckpointCost), Restore: sim.Duration(r.CheckpointRestore)}
	cfg.JobFailures = sim.JobFailures{MTBF: sim.Duration(r.JobMTBF), Retries: int(r.JobRetries), Seed: uint64(r.Seed)}
	if r.Faults == "" {
		return faultsLoaded{}, nil
	}
	cfg.FaultModel = true
	fl, err := loadFaults(r, spec, jobs, *cfg)
	if err != nil {
		return fl, &input.Error{Field: "faults", Err: err}
	}
	cfg.Events = fl.events
	return fl, nil
}

// faultsLoaded is what loadFaults gives: the run's cluster events, the
// outages its preset or spec is expected to give (nil for an events
// file), and for an events file its events and those past the window.
type faultsLoaded struct {
	events           []sim.ClusterEvent
	spot             map[int]float64 // faults.Spec.SpotNodes
	expected         *float64
	windowRounds     int
	past, fileEvents int
}

// checkEventsWindow refuses an events file none of whose events fall
// before the end of the run's window — times in milliseconds read as
// seconds give a run without a single fault and no word — and counts
// those of the others that fall after it, for the run's warning.
func checkEventsWindow(name string, events []sim.ClusterEvent, start, end sim.Time) (past int, err error) {
	past = faults.PastWindow(events, end)
	if past > 0 && past == len(events) {
		return past, fmt.Errorf("events file %s: all %d events are at or after the end of the run's window [%g s, %g s) (its first submission plus its rounds), so none would apply and the run would be fault-free; are its times in milliseconds? (want seconds on the trace's clock)",
			input.Clip(filepath.Base(name)), past, float64(start), float64(end))
	}
	return past, nil
}

// checkedTenants loads the run's tenants file (Run.Tenants; nil for none
// or TenantsVCs) and checks it against the cluster and the jobs: a VC no
// job has, or guarantees over the cluster, is refused before the run, not
// found wrong after it.
func (rv *Resolver) checkedTenants(r Run, spec sim.ClusterSpec, jobs []sim.JobSpec) (*tenants.File, error) {
	if r.Tenants == "" || r.Tenants == TenantsVCs {
		return nil, nil
	}
	ten, err := rv.TenantsFile(r.Tenants)
	if err != nil {
		return nil, &input.Error{Field: "tenants", Err: err}
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		return nil, &input.Error{Field: "cluster", Err: err}
	}
	if err := ten.Check(c, jobs); err != nil {
		return nil, &input.Error{Field: "tenants", Err: err}
	}
	return ten, nil
}

// Outcome is a finished run.
type Outcome struct {
	Run     Run
	Result  *sim.Result
	Summary sim.Summary
	Cluster *sim.Cluster
	// Fairness is the run's fairness report (with each job's ρ) when the
	// run has tenants (Run.Tenants); Summary.Fairness holds its figures.
	Fairness *fairness.Report
	// Share is each tenant's GPUs over the run (with Fairness).
	Share *fairness.Series
	// Energy is the run's energy accounting (with each job's) when the
	// run asks for it (Run.Energy); Summary.Energy holds its figures.
	Energy *energy.Report
	// EventsPastWindow of the FileEvents of the run's events file fell
	// after its window and were never applied (Scenario).
	EventsPastWindow, FileEvents int
	// Allocations are the allocation rows streamed as the run went
	// (Scenario.StreamAllocations), for resultsdir.RunDir.Allocations;
	// nil otherwise. Whoever writes the results releases it.
	Allocations *resultsdir.AllocStream
	// Jobs is the job table streamed after the run (Scenario.StreamJobs),
	// for resultsdir.RunDir.Jobs; nil otherwise. Whoever writes the results
	// releases it.
	Jobs *resultsdir.JobStream
	// RequestedTypes counts the submitted jobs (the job table's rows) by
	// requested GPU type, whether the table was kept or streamed.
	RequestedTypes map[string]int
}

// DiscardStreams releases the rows streamed for the results directory
// (Allocations, Jobs) when it will not be written; nil-safe.
func (o *Outcome) DiscardStreams() {
	if o != nil {
		o.Allocations.Discard()
		o.Jobs.Discard()
	}
}

// FairnessFiles are the files a run with tenants adds to its results
// directory (fairness.json, fairness_jobs.csv, tenant_gpus.csv); none
// without tenants.
func (o *Outcome) FairnessFiles() ([]resultsdir.File, error) {
	if o.Fairness == nil {
		return nil, nil
	}
	return o.Fairness.Files(o.Share)
}

// ExtraFiles are the files a run adds to its results directory beside
// the standard ones: FairnessFiles, and with energy accounting
// energy_jobs.csv and energy_power.csv (sim/energy.FileNames).
func (o *Outcome) ExtraFiles() ([]resultsdir.File, error) {
	files, err := o.FairnessFiles()
	if err != nil || o.Energy == nil {
		return files, err
	}
	for i, data := range o.Energy.Files() {
		files = append(files, resultsdir.File{Name: energy.FileNames[i], Data: data})
	}
	return files, nil
}

// Execute resolves r and runs it.
func Execute(ctx context.Context, reg Policies, r Run) (*Outcome, error) {
	s, err := Resolve(reg, r)
	if err != nil {
		return nil, err
	}
	return s.Execute(ctx, r.OnRound)
}

// Execute runs the scenario; onRound (optional) reports progress. A
// scenario may be executed more than once, also concurrently.
func (s *Scenario) Execute(ctx context.Context, onRound func(done, total int)) (*Outcome, error) {
	r := s.Run
	cluster, err := sim.NewCluster(s.ClusterSpec)
	if err != nil {
		return nil, err
	}
	var exec estimator.Estimator = s.Source.View(estimator.ViewOptimal)
	if s.slowdown {
		exec = estimator.Slowdown{Base: exec, Global: r.Slowdown, Relaxed: r.RelaxedSlowdown, PerType: s.typeSlowdowns, NodeCap: cluster.NodeCapacity}
	}
	cfg := s.Config
	cfg.Cluster, cfg.Exec, cfg.OnRound = cluster, exec, onRound
	if cluster.Topology() != nil {
		if cfg.NetworkShare, err = networkShare(); err != nil {
			return nil, err
		}
	}
	ps := s.Policy
	// Built last, so that nothing can fail between its start and its
	// Close (an exec policy holds a process, an ILP one a solver).
	p, err := ps.Entry.New(registry.Options{Cluster: cluster, Source: s.Source, Timing: r.Timing, Values: ps.Values, Overheads: s.Profile, Overhead: s.Overhead, Context: ctx, Energy: s.ClusterEnergy})
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", ps, err)
	}
	// The run's identity, known before it when its allocation rows are
	// streamed (they carry it); the summary's, after the run, must match.
	var inputHash, workloadHash string
	var stream *resultsdir.AllocStream
	var jobStream *resultsdir.JobStream
	discard := func() { stream.Discard(); jobStream.Discard() }
	var rec *sim.ResultRecorder
	var requested requestCounter
	if s.StreamAllocations != "" {
		inputHash, workloadHash = Hashes(r, ps.String(), s.ClusterSpec, cfg, s.Jobs)
		id := sim.Identity{Policy: ps.String(), Trace: s.TraceName, Cluster: cluster.Name, Timing: cfg.Timing.String(), Seed: r.Seed,
			Density: Density(r.Density), Version: sim.Version(), InputHash: inputHash}
		if stream, err = resultsdir.NewAllocStream(s.StreamAllocations, id); err != nil {
			if c, ok := p.(io.Closer); ok {
				c.Close()
			}
			return nil, err
		}
		rec = sim.NewResultRecorderNoAllocations()
		cfg.Recorder = sim.Tee(rec, stream)
		if s.StreamJobs {
			jobStream = resultsdir.NewJobStream(s.StreamAllocations, id)
			requested = requestCounter{}
			rec = sim.NewResultRecorderNoTables()
			cfg.Recorder = sim.Tee(rec, stream, jobStream, requested)
		}
	}
	res, err := sim.Run(ctx, cfg, p, s.Jobs)
	if c, ok := p.(io.Closer); ok { // a policy holding a process or an external solver
		if cerr := c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("policy %s: %w", ps, cerr)
		}
	}
	if err != nil {
		discard()
		return nil, err
	}
	if rec != nil {
		rec.Fill(res)
	}
	// Results record the whole policy string (options included), so two
	// runs of one policy with different options stay apart.
	res.Policy = ps.String()
	sum := res.Summarize(s.TraceName, s.TraceJobs, r.Estimator)
	sum.Seed = r.Seed
	sum.GPUMap = s.GPUMap
	if sum.Faults != nil && s.ExpectedOutages != nil {
		// Events are drawn for the longest the run may last (a drained
		// run: its cap); the expectation is over the rounds it ran. The
		// presets' rates are constant in time, so it scales with the span
		// (a periodic maintenance schedule's, on average).
		e := *s.ExpectedOutages
		if s.WindowRounds > 0 && sum.Rounds < s.WindowRounds {
			e *= float64(sum.Rounds) / float64(s.WindowRounds)
		}
		sum.Faults.ExpectedOutages = &e
	}
	sum.Density = Density(r.Density)
	sum.Version = sim.Version()
	if stream != nil {
		sum.InputHash, sum.WorkloadHash = inputHash, workloadHash
	} else {
		sum.InputHash, sum.WorkloadHash = Hashes(r, ps.String(), s.ClusterSpec, cfg, s.Jobs)
	}
	res.SetUtilization(&sum, cluster)
	res.SetWallclock(&sum)
	if requested == nil {
		requested = requestCounter{}
		requested.Jobs(res.Jobs, nil)
	}
	out := &Outcome{Run: r, Result: res, Summary: sum, Cluster: cluster, EventsPastWindow: s.EventsPastWindow, FileEvents: s.FileEvents,
		Allocations: stream, Jobs: jobStream, RequestedTypes: requested}
	if r.Tenants != "" {
		if out.Fairness, err = s.fairness(p, res, cluster, exec); err != nil {
			discard()
			return nil, err
		}
		if out.Share, err = fairness.ShareOverTime(res, s.Jobs, s.Tenants); err != nil {
			discard()
			return nil, fmt.Errorf("fairness: %w", err)
		}
		f := out.Fairness.Fairness
		out.Summary.Fairness = &f
	}
	if s.Energy != nil {
		em := s.Energy.WithEvents(cfg.Events) // spot prices and outages of the cluster events
		if out.Energy, err = energy.Compute(res, s.Jobs, cluster, exec, em); err != nil {
			discard()
			return nil, err
		}
		e := out.Energy.Energy
		out.Summary.Energy = &e
	}
	return out, nil
}

// requestCounter is a Recorder counting the job table's rows by requested
// GPU type (Outcome.RequestedTypes).
type requestCounter map[string]int

func (requestCounter) Begin(*sim.RunInfo)         {}
func (requestCounter) RoundStart(*sim.DigestRow)  {}
func (requestCounter) RoundEnd(*sim.RoundRecord)  {}
func (requestCounter) JobEnd(sim.JobID, sim.Time) {}
func (requestCounter) Hold(*sim.Holding)          {}
func (requestCounter) NodeEvent(*sim.AvailRecord) {}
func (c requestCounter) Jobs(jobs []sim.JobRecord, _ []sim.JobFaultRecord) {
	for i := range jobs {
		c[jobs[i].RequestedGPU]++
	}
}

// TenantsVCs is the Run.Tenants value that makes each virtual cluster of
// the trace a tenant of weight 1 (no tenants file).
const TenantsVCs = "vcs"

// fairness computes the run's fairness figures (sim/fairness), with the
// quota wrapper's counts when the policy is one (sim.QuotaReporter). T_alone
// is under exec, the estimator the engine executed with.
func (s *Scenario) fairness(p sim.Policy, res *sim.Result, c *sim.Cluster, exec estimator.Estimator) (*fairness.Report, error) {
	var qc *sim.QuotaCounts
	if q, ok := p.(sim.QuotaReporter); ok {
		n := q.QuotaCounts()
		qc = &n
	}
	rep, err := fairness.Compute(res, s.Jobs, c, s.Tenants, exec, fairness.Options{Overhead: s.Overhead, Quota: qc})
	if err != nil {
		return nil, fmt.Errorf("fairness: %w", err)
	}
	rep.TenantsFrom = TenantsVCs
	if s.Tenants != nil {
		rep.TenantsFrom = filepath.Base(s.Run.Tenants)
	}
	return rep, nil
}

// loadFaults reads or synthesises the run's cluster events (Run.Faults),
// and the outages a preset or spec is expected to give (nil for an
// events file), over its window: from its first submission (exact timing's T0) to the
// end of its last possible round (the drain cap's, if it drains), on the
// run's cluster, seeded by the run's seed.
func loadFaults(r Run, spec sim.ClusterSpec, jobs []sim.JobSpec, cfg sim.Config) (faultsLoaded, error) {
	c, err := sim.NewCluster(spec)
	if err != nil {
		return faultsLoaded{}, err
	}
	if len(jobs) == 0 {
		return faultsLoaded{}, nil
	}
	start := jobs[0].Submit
	for _, j := range jobs {
		start = min(start, j.Submit)
	}
	rounds := cfg.Rounds
	if cfg.Drain {
		_, _, first, last := cfg.Measure.Select(jobs)
		rounds = sim.DrainCap(rounds, cfg.MaxRounds, last.Sub(first), cfg.RoundLength)
	}
	end := start.Add(sim.Duration(rounds) * cfg.RoundLength)
	events, err := faults.Load(r.Faults, c, r.Seed, start, end)
	if err != nil {
		return faultsLoaded{}, err
	}
	fs, err := faults.SpecOf(r.Faults)
	if err != nil {
		return faultsLoaded{}, err
	}
	if fs == nil {
		past, err := checkEventsWindow(r.Faults, events, start, end)
		return faultsLoaded{events: events, past: past, fileEvents: len(events)}, err
	}
	e := fs.Expected(c, end.Sub(start))
	return faultsLoaded{events: events, spot: fs.SpotNodes(c), expected: &e, windowRounds: rounds}, nil
}
