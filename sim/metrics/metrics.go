package metrics

import (
	"fmt"
	"strconv"

	"github.com/arena-sim/arena/sim"
)

// Better says which way a metric improves.
type Better int

const (
	// Neither: a count or setting with no better direction (jobs in the
	// trace, the horizon, the pad value).
	Neither Better = iota
	// Lower is better (JCTs, queueing, lost work).
	Lower
	// Higher is better (throughput, jobs finished, goodput).
	Higher
)

func (b Better) String() string {
	switch b {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	}
	return "–"
}

// Section says which runs have a metric (see the package doc).
type Section int

const (
	Core     Section = iota // every run
	Faults                  // runs with a fault model: summary.json's faults section
	Fairness                // runs with tenants: summary.json's fairness section
	Machine                 // the machine's timings (wall clock): differ between identical runs
	Energy                  // runs with energy accounting: summary.json's energy section
	Network                 // runs on a cluster with a topology: summary.json's network section
)

func (s Section) String() string {
	return [...]string{"core", "faults", "fairness", "machine", "energy", "network"}[s]
}

// Optional reports whether the section is present in some runs only (its
// columns are nullable and a table has them only when a run has it).
func (s Section) Optional() bool { return s == Faults || s == Fairness || s == Energy || s == Network }

// Has reports whether run s has section sec's metrics.
func (sec Section) Has(s *sim.Summary) bool {
	switch sec {
	case Faults:
		return s.Faults != nil
	case Fairness:
		return s.Fairness != nil
	case Energy:
		return s.Energy != nil
	case Network:
		return s.Network != nil
	}
	return true
}

// Metric is one row of the catalogue.
type Metric struct {
	// Key names the metric: its column in summary.parquet (unless Column
	// says otherwise) and the base of its across-seed columns
	// (Key_mean, Key_ci_lo, Key_ci_hi).
	Key string
	// Column is the summary.parquet column of the run's value when it is
	// not Key (the throughputs, whose columns carry their unit).
	Column string
	// Path is where summary.json holds the value (dotted for sections:
	// "faults.lost_gpu_hours"); "" when it is Key. Regression golden files
	// name metrics by it.
	Path string
	// Unit of the value: "s" (simulated seconds), "jobs", "samples/s",
	// "GPU-h", "GPU-s", "ratio" (0–1), "count", "rounds".
	Unit string
	// Doc is one line: what the value is, over which jobs.
	Doc     string
	Better  Better
	Section Section
	// Int values are whole numbers (an int32 column).
	Int bool
	// Optional core metrics exist for some runs only (a null cell
	// otherwise): solver_budget_hits.
	Optional bool
	// Stats: summary.parquet has its mean and 95 % Student-t interval over
	// the seeds of the row's cell (Key_mean, _ci_lo, _ci_hi).
	Stats bool
	// Compared names the paired comparison column between policies
	// (with its _ci_lo/_ci_hi): a reduction, 1 − a/b, for a metric where
	// lower is better, a ratio a/b where higher is; "" not compared.
	Compared string
	// Label is the row of the side-by-side table of 'arena simulate'
	// ("" not in it); Show the cell (nil: the value with Digits decimals,
	// "–" when the run has none); When, if set, shows the row only when
	// some run of the table satisfies it.
	Label  string
	Digits int
	Show   func(*sim.Summary) string
	When   func(*sim.Summary) bool
	// Get reads the value from a run's summary; false when the run has
	// none (a section it lacks, a JCT statistic with no job finished).
	Get func(*sim.Summary) (float64, bool)
}

// ColumnName is the summary.parquet column of the run's value.
func (m *Metric) ColumnName() string {
	if m.Column != "" {
		return m.Column
	}
	return m.Key
}

// JSONPath is where summary.json holds the value.
func (m *Metric) JSONPath() string {
	if m.Path != "" {
		return m.Path
	}
	return m.Key
}

// Value is the metric of run s (false: s has none).
func (m *Metric) Value(s *sim.Summary) (float64, bool) {
	if !m.Section.Has(s) {
		return 0, false
	}
	return m.Get(s)
}

// Cell is the side-by-side table's cell of run s.
func (m *Metric) Cell(s *sim.Summary) string {
	if m.Show != nil && m.Section.Has(s) {
		return m.Show(s)
	}
	v, ok := m.Value(s)
	if !ok {
		return "–"
	}
	if m.Int {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', m.Digits, 64)
}

// Shown says whether the side-by-side table of runs has m's row.
func (m *Metric) Shown(runs []*sim.Summary) bool {
	if m.Label == "" {
		return false
	}
	for _, s := range runs {
		if m.Section.Has(s) && (m.When == nil || m.When(s)) {
			return true
		}
	}
	return false
}

// Lookup returns the metric named key (its Key, its column or its
// summary.json path).
func Lookup(key string) (*Metric, bool) {
	for i := range Catalogue {
		m := &Catalogue[i]
		if m.Key == key || m.ColumnName() == key || m.JSONPath() == key {
			return m, true
		}
	}
	return nil, false
}

// Compared returns the metric whose paired comparison column is name.
func ComparedBy(name string) (*Metric, bool) {
	for i := range Catalogue {
		if Catalogue[i].Compared == name {
			return &Catalogue[i], true
		}
	}
	return nil, false
}

// Pair is the paired comparison of metric m between a and b: 1 − a/b when
// lower is better (a's reduction against b), a/b when higher is; NaN when
// b's value is 0 or either run lacks the metric.
func (m *Metric) Pair(a, b *sim.Summary) float64 {
	x, okA := m.Value(a)
	y, okB := m.Value(b)
	if !okA || !okB || !(y > 0) {
		return nan()
	}
	if m.Better == Lower {
		return 1 - x/y
	}
	return x / y
}

// TenantMetric is one per-tenant figure of runs with tenants: a
// summary.parquet column tenant_<name>_<Key> per tenant of any row.
type TenantMetric struct {
	Key, Unit, Doc string
	Better         Better
	Get            func(*sim.TenantFigures) (float64, bool)
}

// TenantMetrics are the per-tenant figures. A tenant's JCTs exist only
// when it finished a job (null otherwise, not 0).
var TenantMetrics = []TenantMetric{
	{"mean_jct_s", "s", "mean JCT of the tenant's finished jobs", Lower, func(t *sim.TenantFigures) (float64, bool) { return t.MeanJCT, t.Finished > 0 }},
	{"p95_jct_s", "s", "95th percentile JCT of the tenant's finished jobs", Lower, func(t *sim.TenantFigures) (float64, bool) { return t.P95JCT, t.Finished > 0 }},
	{"gpu_hours", "GPU-h", "GPU-hours the tenant's jobs held", Neither, func(t *sim.TenantFigures) (float64, bool) { return t.GPUHours, true }},
}

// UtilizationDoc documents the per-GPU-type columns utilization_<type>.
const UtilizationDoc = "mean share (0–1) of the type's GPUs busy over the rounds; NaN where the run's cluster lacks the type"

func nan() float64 { v := 0.0; return v / v }

// value, count and always build getters.
func value(f func(*sim.Summary) float64) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) { return f(s), true }
}

func count(f func(*sim.Summary) int) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) { return float64(f(s)), true }
}

// finished is a statistic over finished jobs: none when none finished.
func finished(f func(*sim.Summary) float64) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) { return f(s), s.Finished > 0 }
}

func fault(f func(*sim.FaultSummary) float64) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		if s.Faults == nil {
			return 0, false
		}
		return f(s.Faults), true
	}
}

func energy(f func(*sim.Energy) float64) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		if s.Energy == nil {
			return 0, false
		}
		return f(s.Energy), true
	}
}

func fair(f func(*sim.Fairness) float64) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		if s.Fairness == nil {
			return 0, false
		}
		return f(s.Fairness), true
	}
}

// quota counts exist under the quota wrapper only: null, not 0, elsewhere.
func quota(f func(*sim.QuotaCounts) int) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		if s.Fairness == nil || s.Fairness.Quota == nil {
			return 0, false
		}
		return float64(f(s.Fairness.Quota)), true
	}
}

func optionalInt(f func(*sim.Summary) *int) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		p := f(s)
		if p == nil {
			return 0, false
		}
		return float64(*p), true
	}
}

// warnIf shows a count with ⚠ when warn holds.
func warnIf(get func(*sim.Summary) int, warn func(*sim.Summary) bool) func(*sim.Summary) string {
	return func(s *sim.Summary) string {
		if warn(s) {
			return fmt.Sprintf("%d ⚠", get(s))
		}
		return fmt.Sprint(get(s))
	}
}

// bounded shows a value with "≥ " when it is a lower bound.
func bounded(get func(*sim.Summary) (float64, bool)) func(*sim.Summary) string {
	return func(s *sim.Summary) string {
		v, lower := get(s)
		if lower {
			return fmt.Sprintf("≥ %.0f", v)
		}
		return fmt.Sprintf("%.0f", v)
	}
}
