package runner

import (
	"fmt"
	"slices"
	"sync"

	"github.com/arena-sim/arena/traces"
	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/synth"
	"github.com/arena-sim/arena/traces/table"
)

// SynthTrace is a trace a spec synthesises (its synth mapping): a source
// and synthesis keys (package synth), built anew for each seed of the
// sweep — the seed drives every random choice.
//
//	synth:
//	  from: philly-pollux      # built-in trace (importers.SourceNames), canonical table or raw file (+ format:)
//	  recipe: arena
//	  rate: [20, 40]           # a list makes an axis: one trace per value
type SynthTrace struct {
	// Name is the trace's name in results ("philly-pollux.arena.rate=20").
	Name   string      `json:"name" yaml:"name"`
	From   string      `json:"from,omitempty" yaml:"from,omitempty"` // resolved path or built-in name; "" = from scratch
	Format string      `json:"format,omitempty" yaml:"format,omitempty"`
	Keys   [][2]string `json:"keys,omitempty" yaml:"keys,omitempty"` // synthesis keys in spec order (seed excluded)
}

// Options returns the synthesis options for one seed.
func (s *SynthTrace) Options(seed int64) (synth.Options, error) {
	var o synth.Options
	for _, kv := range s.Keys {
		if err := synth.Set(&o, kv[0], kv[1]); err != nil {
			return o, err
		}
	}
	o.Seed = uint64(seed)
	return o, nil
}

// Deterministic reports whether every seed gives the same trace.
func (s *SynthTrace) Deterministic() bool {
	o, err := s.Options(0)
	return err == nil && o.Deterministic()
}

// KeyRows is the jobs the trace holds for one seed as far as its keys
// say, without reading its source: jobs (with rate) or sample, and
// known=false when only the source's size decides (Size counts it).
func (s *SynthTrace) KeyRows() (n int64, known bool) {
	o, err := s.Options(0)
	if err != nil {
		return 0, false
	}
	switch {
	case o.Jobs > 0 && (o.Rate > 0 || s.From == ""):
		return int64(o.Jobs), true
	case o.Sample > 0:
		return int64(o.Sample), true
	}
	return 0, false
}

// Size is the jobs the trace holds for seed, counted on its source
// (loaded, and kept for Build) without synthesising (synth.Size).
func (s *SynthTrace) Size(seed int64) (int, error) {
	o, err := s.Options(seed)
	if err != nil {
		return 0, err
	}
	synthMu.Lock()
	defer synthMu.Unlock()
	src, err := s.source()
	if err != nil {
		return 0, err
	}
	n, err := synth.Size(src, o)
	if err != nil {
		return 0, fmt.Errorf("synth %s: %w", s.Name, err)
	}
	return n, nil
}

// source loads (once a process) the trace's source; synthMu held.
func (s *SynthTrace) source() ([]table.Job, error) {
	if s.From == "" {
		return nil, nil
	}
	skey := s.From + "\x00" + s.Format
	if src := synthSources[skey]; src != nil {
		return src, nil
	}
	src, err := importers.Open(s.From, s.Format, importers.Options{})
	if err != nil {
		return nil, err
	}
	synthSources[skey] = src
	return src, nil
}

var (
	synthMu      sync.Mutex
	synthSources = map[string][]table.Job{}
	synthBuilt   = map[string]*traces.Trace{}
)

// Build synthesises the trace for seed. Sources and results are cached
// for the process (a sweep runs every policy on the same trace); callers
// get their own copy of the job list.
func (s *SynthTrace) Build(seed int64) (*traces.Trace, error) {
	o, err := s.Options(seed)
	if err != nil {
		return nil, err
	}
	if o.Deterministic() {
		seed = 0 // every seed gives this trace: build and keep it once
	}
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%d", s.From, s.Format, s.Keys, seed)
	synthMu.Lock()
	defer synthMu.Unlock()
	if t, ok := synthBuilt[key]; ok {
		return copyTrace(t), nil
	}
	src, err := s.source()
	if err != nil {
		return nil, err
	}
	jobs, err := synth.Run(src, o)
	if err != nil {
		return nil, fmt.Errorf("synth %s: %w", s.Name, err)
	}
	t, err := traces.FromTable(s.Name, s.Name, jobs)
	if err != nil {
		return nil, fmt.Errorf("synth %s: %w", s.Name, err)
	}
	synthBuilt[key] = t
	return copyTrace(t), nil
}

func copyTrace(t *traces.Trace) *traces.Trace {
	c := *t
	c.Jobs = slices.Clone(t.Jobs)
	return &c
}
