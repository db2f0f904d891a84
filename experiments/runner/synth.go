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
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%d", s.From, s.Format, s.Keys, seed)
	synthMu.Lock()
	defer synthMu.Unlock()
	if t, ok := synthBuilt[key]; ok {
		return copyTrace(t), nil
	}
	var src []table.Job
	if s.From != "" {
		skey := s.From + "\x00" + s.Format
		if src, err = synthSources[skey], nil; src == nil {
			if src, err = importers.Open(s.From, s.Format, importers.Options{}); err != nil {
				return nil, err
			}
			synthSources[skey] = src
		}
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
