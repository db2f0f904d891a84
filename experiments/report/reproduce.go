package report

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/arena-sim/arena/experiments/data/specs"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// The built-in specs are embedded by package specs (experiments/data/specs),
// next to the files: go:embed cannot reach a parent directory.

// Sections of the paper's evaluation that reproduce runs ("all"), in
// report order; each is a built-in spec (data/specs/<section>.yaml).
var Sections = []string{"philly", "helios", "pai", "ablations", "load"}

// ExtraSections can be asked for by name but are not part of "all":
// "headline" is the philly section's artifact-timing paper comparison.
// "testbed" predicts the authors' physical testbed run (ReproduceTestbed)
// and runs alone.
// "tenants" is the tenants study (TenantsSection: Philly's 15 VCs,
// fairness figures).
// "faults" is the faults study (FaultsSection: Philly under failure and
// maintenance presets, seeded, with a checkpoint model).
// "windows" is the windows study (WindowsSection: 48-hour Philly windows,
// the interval over windows with the seeds nested).
// "energy" is the energy study (EnergySection: JCT beside kWh, $ and CO₂).
// "topology" is the topology study (TopologySection: contention on shared
// uplinks, topology-aware placement); "topology-llm" its LLM-development
// workload on the 24k-GPU cluster (TopologyLLMSection).
var ExtraSections = []string{"headline", TestbedSection, TenantsSection, FaultsSection, WindowsSection, EnergySection, TopologySection, TopologyLLMSection}

// TestbedSection is the name of the testbed prediction.
const TestbedSection = "testbed"

func knownSection(name string) bool {
	return slices.Contains(Sections, name) || slices.Contains(ExtraSections, name)
}

// BuiltinSpec parses the built-in spec of a section.
func BuiltinSpec(section string) (*sweep.Spec, error) {
	file := section + ".yaml"
	data, err := specs.Text(section)
	if err != nil || !knownSection(section) {
		return nil, fmt.Errorf("reproduce: no section %q (known: %s)", section, strings.Join(slices.Concat(Sections, ExtraSections), ", "))
	}
	return sweep.ParseSpec(specs.Dir+file, "", data)
}

// BuiltinSpecText returns the YAML of a built-in spec (to print or copy).
func BuiltinSpecText(section string) ([]byte, error) {
	return specs.Text(section)
}

// ReproduceOptions control Reproduce.
type ReproduceOptions struct {
	Out      string
	Sections []string // default: all
	Parallel int      // default: all cores
	Resume   bool
	// RunTimeout abandons runs longer than this (0 = no limit); they are
	// noted in the report, which is written without them.
	RunTimeout time.Duration
	Format     string // figure format: png (default), svg or pdf
	// Baseline is the reference policy of the report's tables (overrides
	// each spec's baseline key; "" = the paper's Arena-vs-x form).
	Baseline string
	Progress func(done, total int, key string)
	// Sensitivity, when set, re-runs the Philly artifact-timing runs the
	// verdicts are checked on at every other point of the grid and marks
	// each verdict "holds under model error" or "fragile" (sensitivity.go).
	Sensitivity *sweep.Sensitivity
	// Specs replaces the built-in spec of a section (e.g. a shortened one
	// for a smoke test); the report keeps the section's form.
	Specs map[string]*sweep.Spec
}

// ReproduceResult says what Reproduce did.
type ReproduceResult struct {
	Report  string // path of REPORT.md
	Figures []FigureFile
	Sweep   sweep.SweepReport
	Runs    int
	Notes   []string
	Wall    time.Duration
}

// section is one built-in spec resolved to runs.
type section struct {
	name string
	spec *sweep.Spec
	plan *sweep.Plan
}

// Reproduce runs the built-in specs of the chosen sections as one sweep in
// opt.Out (runs shared by sections, e.g. Arena on Philly, run once), then
// writes opt.Out/REPORT.md and its figures in opt.Out/figures/.
func Reproduce(ctx context.Context, reg runner.Policies, opt ReproduceOptions) (*ReproduceResult, error) {
	start := time.Now()
	if len(opt.Sections) == 0 {
		opt.Sections = Sections
	}
	if opt.Format == "" {
		opt.Format = "png"
	}
	res := &ReproduceResult{}
	secs, all, err := planSections(reg, opt, res)
	if err != nil {
		return nil, err
	}
	for _, s := range opt.Sections {
		if s == TestbedSection {
			return nil, fmt.Errorf("reproduce: the testbed section runs alone (ReproduceTestbed, 'arena reproduce testbed')")
		}
		if !knownSection(s) {
			return nil, fmt.Errorf("reproduce: no section %q (known: %s)", s, strings.Join(slices.Concat(Sections, ExtraSections), ", "))
		}
	}
	if err := sweep.CheckBaseline(all, opt.Baseline); err != nil { // fail before running, naming it
		return nil, fmt.Errorf("reproduce: --%w", err)
	}
	res.Runs = len(all.Runs)
	parallel := opt.Parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	rep, sweepErr := sweep.RunSweep(ctx, reg, all, sweep.SweepOptions{Out: opt.Out, Parallel: parallel, Resume: opt.Resume, RunTimeout: opt.RunTimeout, Progress: opt.Progress})
	res.Sweep = rep
	if sweepErr != nil && (ctx.Err() != nil || len(rep.Failed) == 0) {
		return res, sweepErr
	}
	// A failed run (a policy error) leaves a hole in its tables, noted in
	// the report, rather than no report at all.
	for _, k := range sortedKeys(rep.Failed) {
		res.Notes = append(res.Notes, fmt.Sprintf("run %s failed: %v", k, rep.Failed[k]))
	}
	if _, err := sweep.MergeSweep(all, sweep.MergeOptions{Out: opt.Out, Partial: len(rep.Failed) > 0}); err != nil {
		return res, err
	}
	loaded := map[string]*sweep.Results{}
	for _, r := range all.Runs {
		if _, failed := rep.Failed[r.Key]; failed {
			continue
		}
		lr, err := sweep.LoadResults(sweep.RunDir(opt.Out, r.Key), true)
		if err != nil {
			return res, err
		}
		loaded[r.Key] = lr
	}
	w := &reportWriter{out: opt.Out, format: opt.Format, loaded: loaded, parallel: parallel, baseline: opt.Baseline}
	if opt.Sensitivity != nil {
		sens, notes, err := reproduceSensitivity(ctx, reg, opt, *opt.Sensitivity, secs, rep.Failed, parallel)
		if err != nil {
			return res, err
		}
		w.sens, res.Notes = sens, append(res.Notes, notes...)
	}
	w.seedClaims(claimsContext(reg, opt, secs, loaded))
	report, figs, err := w.write(secs, res.Notes)
	if err != nil {
		return res, err
	}
	res.Figures = figs
	res.Wall = time.Since(start)
	report += fmt.Sprintf("\n---\n%d runs (%d ran now, %d reused with --resume) on %d workers; `arena reproduce` took %.1f s of wall-clock time.\n",
		res.Runs, rep.Ran, rep.Skipped, parallel, res.Wall.Seconds())
	res.Report = filepath.Join(opt.Out, "REPORT.md")
	if err := resultsdir.WriteFileAtomic(res.Report, []byte(report)); err != nil {
		return res, err
	}
	if sweepErr != nil {
		return res, fmt.Errorf("%s written without %d failed run(s): %w", res.Report, len(rep.Failed), sweepErr)
	}
	return res, nil
}

// planSections expands the asked sections' specs (opt.Specs, else the
// built-in ones), in the sections' order, into one plan of distinct runs
// (a run two sections share runs once); the plans' notes go to res.
func planSections(reg runner.Policies, opt ReproduceOptions, res *ReproduceResult) ([]section, *sweep.Plan, error) {
	var secs []section
	all := &sweep.Plan{Name: "reproduce"}
	seen := map[string]bool{}
	for _, name := range slices.Concat(Sections, ExtraSections) {
		if !slices.Contains(opt.Sections, name) {
			continue
		}
		spec, ok := opt.Specs[name]
		if !ok {
			var err error
			if spec, err = BuiltinSpec(name); err != nil {
				return nil, nil, err
			}
		}
		plan, err := spec.Expand(reg)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range plan.Notes {
			res.Notes = append(res.Notes, name+": "+n)
		}
		secs = append(secs, section{name, spec, plan})
		for _, r := range plan.Runs {
			if !seen[r.Key] {
				seen[r.Key] = true
				all.Runs = append(all.Runs, r)
			}
		}
	}
	return secs, all, nil
}

// claimsContext gathers what the claim accounting (seedClaims) needs: the
// sections run, which policies are registered, which ran on Philly in
// artifact timing in each section, and the testbed prediction's bands if
// `arena reproduce testbed` wrote them into OUT/testbed (or OUT).
func claimsContext(reg runner.Policies, opt ReproduceOptions, secs []section, loaded map[string]*sweep.Results) claimContext {
	c := claimContext{out: opt.Out, ran: map[string][]string{}, registered: func(name string) bool {
		_, err := reg.Lookup(name)
		return err == nil
	}}
	for _, s := range secs {
		c.sections = append(c.sections, s.name)
		for _, r := range s.plan.Runs {
			if _, ok := loaded[r.Key]; ok && r.Run.Trace == "philly" && r.Run.Timing == sim.Artifact {
				c.ran[s.name] = append(c.ran[s.name], r.Run.Policy)
			}
		}
	}
	for _, p := range []string{filepath.Join(opt.Out, TestbedSection, "testbed.json"), filepath.Join(opt.Out, "testbed.json")} {
		data, err := input.ReadFile(p)
		if err != nil {
			continue
		}
		var tb struct {
			Bands []bandJSON `json:"bands"`
		}
		if json.Unmarshal(data, &tb) == nil && len(tb.Bands) > 0 {
			c.testbed = tb.Bands
			c.testbedAt, _ = filepath.Rel(opt.Out, p)
			break
		}
	}
	return c
}
