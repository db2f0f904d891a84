package sweep

import (
	"context"

	"github.com/arena-sim/arena/experiments/runner"
)

// One run lives in package runner (the run as a value, its resolution and
// execution); these aliases let the sweep code (moved here from package
// experiments) name them unqualified, as before.
type (
	// Run describes one simulation (runner.Run).
	Run = runner.Run
	// Outcome is a finished run (runner.Outcome).
	Outcome = runner.Outcome
	// Policies is where runs find their policies (runner.Policies).
	Policies = runner.Policies
	// SynthTrace is a trace a spec synthesises (runner.SynthTrace).
	SynthTrace = runner.SynthTrace
)

// Limits of a run (runner).
const (
	DefaultMaxRounds = runner.DefaultMaxRounds
	MinDensity       = runner.MinDensity
	MaxDensity       = runner.MaxDensity
	MaxHorizon       = runner.MaxHorizon
)

// Execute runs one simulation (runner.Execute).
func Execute(ctx context.Context, reg Policies, r Run) (*Outcome, error) {
	return runner.Execute(ctx, reg, r)
}

var (
	// CheckRounds refuses a run length over the cap (runner.CheckRounds).
	CheckRounds = runner.CheckRounds
	// DefaultRounds is the artifact's default length of a trace (runner).
	DefaultRounds = runner.DefaultRounds
	// ScaleIterations scales iteration counts by a density (runner).
	ScaleIterations = runner.ScaleIterations
	// ParseHorizon reads a --horizon / horizon value (runner).
	ParseHorizon = runner.ParseHorizon
	// HorizonRounds is the number of rounds covering a duration (runner).
	HorizonRounds = runner.HorizonRounds
	// SourceFor returns the estimator source a run names (runner).
	SourceFor = runner.SourceFor
	// EstimatorNames lists the performance models (runner).
	EstimatorNames = runner.EstimatorNames
	// ProfilingDelay is the engine's profiling-delay option (runner).
	ProfilingDelay = runner.ProfilingDelay
	// InputHash is the digest of a run's inputs (runner.InputHash).
	InputHash = runner.InputHash
)

func density(d float64) float64 { return runner.Density(d) }
