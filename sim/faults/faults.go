package faults

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// presets are the built-in specs by name, parsed once; a preset that
// does not parse is a build defect, caught by the tests.
var presets = func() map[string]*Spec {
	out := map[string]*Spec{}
	files, _ := fs.Glob(presetFS, "presets/*.yaml")
	for _, f := range files {
		data, _ := presetFS.ReadFile(f)
		s, err := ParseSpec(f, data)
		if err != nil {
			panic(fmt.Sprintf("faults: built-in preset %s: %v", f, err))
		}
		out[s.Name] = s
	}
	return out
}()

// PresetNames lists the built-in presets, sorted.
func PresetNames() []string {
	var out []string
	for k := range presets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Preset returns a built-in preset's spec and its YAML text (whose
// comments cite the source and show the arithmetic).
func Preset(name string) (*Spec, string, bool) {
	s, ok := presets[name]
	if !ok {
		return nil, "", false
	}
	data, _ := presetFS.ReadFile("presets/" + name + ".yaml")
	return s, string(data), true
}

// Load returns the cluster events of a run on cluster c between start and
// end (simulated seconds), sorted by time, then node. name resolves, in
// this order:
//
//   - "" or "none": no events (nil).
//   - a built-in preset (PresetNames): synthesised from its processes
//     with seed in [start, end) (Synthesise).
//   - a path ending .yaml or .yml: a faults spec (ParseSpec), synthesised
//     as a preset is.
//   - a path ending .csv or .parquet: an events file (ReadEventsFile);
//     seed, start and end are unused and every event of the file is
//     returned, as written.
//
// Anything else is an error naming the presets. The same name, cluster,
// seed and window give the same events.
func Load(name string, c *sim.Cluster, seed int64, start, end sim.Time) ([]sim.ClusterEvent, error) {
	if name == "" || name == "none" {
		return nil, nil
	}
	s, err := SpecOf(name)
	if err != nil {
		return nil, err
	}
	if s != nil {
		return Synthesise(s, c, seed, start, end)
	}
	switch strings.ToLower(ext(name)) {
	case ".csv", ".parquet":
		return ReadEventsFile(name, c)
	}
	return nil, unknownName(name)
}

// SpecOf returns the faults spec name synthesises from, as Load resolves
// it: a built-in preset's, or a faults spec file's (.yaml, .yml; parsed,
// named after the file when it has no name); nil for "", "none" and an
// events file, which synthesise nothing.
func SpecOf(name string) (*Spec, error) {
	if s, ok := presets[name]; ok {
		return s, nil
	}
	switch strings.ToLower(ext(name)) {
	case ".yaml", ".yml":
		data, err := readBounded(name, MaxSpecBytes)
		if err != nil {
			return nil, err
		}
		s, err := ParseSpec(name, data)
		if err != nil {
			return nil, err
		}
		if s.Name == "" {
			s.Name = name
		}
		return s, nil
	}
	return nil, nil
}

// unknownName is the error for a name that is no preset, and no file of
// a kind Load reads.
func unknownName(name string) error {
	if _, err := os.Stat(name); err != nil {
		return fmt.Errorf("faults %q: not a preset (%s, none) and no such file", name, strings.Join(PresetNames(), ", "))
	}
	return fmt.Errorf("faults %q: want a preset (%s, none), a faults spec (.yaml) or an events file (.csv, .parquet)", name, strings.Join(PresetNames(), ", "))
}

// CheckName checks what Load would read for name without a cluster or a
// window: a preset's name, a faults spec that parses, an events file that
// exists (its rows are checked against the cluster by Load). A sweep
// checks every run's faults with it before the first run starts.
func CheckName(name string) error {
	if name == "" || name == "none" {
		return nil
	}
	if s, err := SpecOf(name); s != nil || err != nil {
		return err
	}
	switch strings.ToLower(ext(name)) {
	case ".csv", ".parquet":
		if _, err := os.Stat(name); err != nil {
			return fmt.Errorf("faults %q: events file: %w", name, err)
		}
		return nil
	}
	return unknownName(name)
}

// Seeded reports whether the events Load returns for name depend on the
// seed: a preset or a faults spec (.yaml, .yml) is synthesised with it;
// none and an events file are not. A sweep over seeds of a deterministic
// trace runs every seed only where this holds (each seed would repeat the
// same run otherwise).
func Seeded(name string) bool {
	if name == "" || name == "none" {
		return false
	}
	if _, ok := presets[name]; ok {
		return true
	}
	switch strings.ToLower(ext(name)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// readBounded reads at most limit bytes of path, failing on a longer file
// without reading it whole.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("faults %q: not a preset (%s, none) and no such file", path, strings.Join(PresetNames(), ", "))
		}
		return nil, fmt.Errorf("faults: %w", err)
	}
	defer f.Close()
	// The one bounded whole-file read (input.SpecCap); one byte past
	// limit is enough for ParseSpec to refuse the size.
	data, err := input.ReadAll(path, io.LimitReader(f, input.PlusOne(limit)))
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	return data, nil
}
