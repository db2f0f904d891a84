package sim

import (
	"runtime/debug"
	"sync"
)

// Identity is what names a run in every results file: the columns that
// make a row of jobs.parquet, timeline.parquet or allocations.parquet
// meaningful on its own, after files of many runs are concatenated.
// InputHash is a digest of everything the run read (the trace's jobs after
// load scaling, the cluster, the policy and its options, the engine's
// parameters), so two rows with the same hash come from the same inputs.
type Identity struct {
	Policy    string  `parquet:"policy" json:"policy"`
	Trace     string  `parquet:"trace" json:"trace"`
	Cluster   string  `parquet:"cluster" json:"cluster"`
	Timing    string  `parquet:"timing" json:"timing"`
	Seed      int64   `parquet:"seed" json:"seed"`
	Density   float64 `parquet:"density" json:"density"`
	Version   string  `parquet:"arena_version" json:"arena_version"`
	InputHash string  `parquet:"input_hash" json:"input_hash"`
}

// Identity returns the summary's identity columns.
func (s *Summary) Identity() Identity {
	return Identity{Policy: s.Policy, Trace: s.Trace, Cluster: s.Cluster, Timing: s.Timing, Seed: s.Seed,
		Density: s.Density, Version: s.Version, InputHash: s.InputHash}
}

// ReleaseVersion is arena's release number; Version adds the source
// revision the binary was built from.
const ReleaseVersion = "0.9.0"

// revision is set by the Makefile's build (-ldflags -X, from git
// describe --always --dirty), for toolchains told not to stamp VCS data.
var revision string

var versionOnce = sync.OnceValue(func() string {
	v := ReleaseVersion
	if revision != "" {
		return v + "+" + revision
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += "+" + rev + dirty
	}
	return v
})

// Version is this binary's arena version: the release number, plus
// "+<git revision>" (and "-dirty" for uncommitted changes) when the Go
// toolchain recorded it (go build in a git checkout; not go test).
// --resume refuses to mix results of different versions.
func Version() string { return versionOnce() }
