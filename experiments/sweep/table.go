package sweep

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/metrics"
)

// SummaryRow is one run of a sweep: its identity, its summary (every
// metric column reads it through the catalogue, sim/metrics), and what the
// sweep adds across runs — the across-seed intervals of its cell, the
// paired comparisons with the reference policy and the robustness under
// model error. summary.parquet is these rows laid out by tableColumns.
type SummaryRow struct {
	Key   string // the run's key (run.json)
	Group string // its comparison group: every parameter but the policy
	// Summary is the run's summary.json, padded within its group; its
	// Density and Seed are the run's.
	sim.Summary
	// FaultsKey is the run's faults and checkpoint model as its run key
	// names them (".f-llama3.ck1800-30-60"; "" without): runs differing
	// in them are different cells. FaultsName is the faults input as the
	// spec named it ("none" without).
	FaultsKey, FaultsName string
	// Label is the policy's display name ("" its own; SetLabels).
	Label string
	// Seeds is the number of seeds of the row's cell and policy; Stats
	// each metric's mean and 95 % Student-t interval over them (by
	// metric key, for the catalogue's metrics with Stats and each
	// tenant column).
	Seeds int
	Stats map[string]ci.Interval
	// RefPolicy is the policy compared with (arena, or the baseline);
	// Comparison says which way ("arena vs fcfs", or with a baseline
	// "fcfs vs sia"; "" on the reference's own rows). Compared holds the
	// paired comparisons by column name (a metric's Compared: jct_reduction,
	// padded_jct_reduction, throughput_ratio), over the seeds both have.
	// ComparedP holds each comparison's two-sided paired t-test p-value
	// (PairedInterval); Holm, when asked for (SetHolm), its Holm-adjusted
	// p-value over the table's family of comparisons (nil otherwise).
	// Unpaired lists the seeds left out of the comparisons because the
	// two runs record different workload hashes (not the same jobs).
	RefPolicy, Comparison string
	Compared              map[string]ci.Interval
	ComparedP, Holm       map[string]float64
	Unpaired              []int64
	// Population says what the row's seeds are draws of ("draws of 200
	// jobs from philly-pollux window 35d–37d", or "same trace, seeded
	// faults"), from the run's description (Population).
	Population string
	// Window is the run's synthesised trace window and its window family
	// (nil when its trace is not synthesised with since or until).
	Window *WindowInfo
	// Under model error (sensitivity.go, markRobust): nil/"" when no
	// sensitivity analysis ran.
	// JCTVerdict and ThroughputVerdict are the verdicts on the paired
	// JCT reduction and throughput ratio ("holds", "fragile", "not
	// resolved", "undecided"; "" without a comparison).
	Robust, RankingRobust                          *bool
	Robustness, RankingRobustness, SensitivityGrid string
	JCTVerdict, ThroughputVerdict                  string
	// GridSkipped are the notes of the grid points that do not apply to
	// the row's cell (an estimator that cannot price its cluster); Shifts
	// how far each point moves its comparison's JCT reduction (PointShift;
	// the seed table prints those of comparisons that do not hold).
	GridSkipped []string
	Shifts      []PointShift
	// ChargedAtS is the cell's common horizon its jobs charged at the
	// horizon were re-charged at (recharge, measure.go; 0: its own).
	// Inconclusive says why its comparison is inconclusive (a run of it
	// or of the policy compared with reached its drain cap; "" none).
	ChargedAtS   float64
	Inconclusive string
}

// Cmp is the row's paired comparison name (false: none, e.g. the
// reference's own row or a seed with no value).
func (r *SummaryRow) Cmp(name string) (ci.Interval, bool) {
	iv, ok := r.Compared[name]
	return iv, ok && !math.IsNaN(iv.Mean)
}

// Stat is the row's across-seed interval of metric key (NaN mean when
// none).
func (r *SummaryRow) Stat(key string) ci.Interval {
	if iv, ok := r.Stats[key]; ok {
		return iv
	}
	return ci.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
}

// column is one column of summary.parquet.
type column struct {
	name string
	kind reflect.Type
	// set stores row r's value into v (a field of kind); leaving it
	// unset writes the zero value (null for pointers).
	set func(v reflect.Value, r *SummaryRow)
	// machine columns (wall clock) differ between identical runs.
	machine bool
}

var (
	tString  = reflect.TypeFor[string]()
	tInt32   = reflect.TypeFor[int32]()
	tInt64   = reflect.TypeFor[int64]()
	tFloat   = reflect.TypeFor[float64]()
	tOptF    = reflect.TypeFor[*float64]()
	tOptI    = reflect.TypeFor[*int32]()
	tOptBool = reflect.TypeFor[*bool]()
)

func setOptFloat(v reflect.Value, x float64, ok bool) {
	if ok && !math.IsNaN(x) {
		v.Set(reflect.ValueOf(&x))
	}
}

// dims are the columns that are not metrics: the run's parameters and
// what the sweep adds.
var dims = map[string]column{
	"run":                {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Key) }},
	"group":              {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Group) }},
	"trace":              {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Trace) }},
	"cluster":            {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Cluster) }},
	"policy":             {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Policy) }},
	"timing":             {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Timing) }},
	"estimator":          {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Estimator) }},
	"gpu_map":            {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.GPUMap) }},
	"density":            {kind: tFloat, set: func(v reflect.Value, r *SummaryRow) { v.SetFloat(r.Density) }},
	"seed":               {kind: tInt64, set: func(v reflect.Value, r *SummaryRow) { v.SetInt(r.Seed) }},
	"arena_version":      {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Version) }},
	"input_hash":         {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.InputHash) }},
	"workload_hash":      {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.WorkloadHash) }},
	"seeds":              {kind: tInt32, set: func(v reflect.Value, r *SummaryRow) { v.SetInt(int64(r.Seeds)) }},
	"ref_policy":         {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.RefPolicy) }},
	"ci_method":          {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(string(ci.T)) }},
	"comparison":         {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Comparison) }},
	"robust":             {kind: tOptBool, set: func(v reflect.Value, r *SummaryRow) { setOptBool(v, r.Robust) }},
	"robustness":         {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Robustness) }},
	"ranking_robust":     {kind: tOptBool, set: func(v reflect.Value, r *SummaryRow) { setOptBool(v, r.RankingRobust) }},
	"ranking_robustness": {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.RankingRobustness) }},
	"sensitivity_grid":   {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(gridColumn(r)) }},
	"jct_verdict":        {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.JCTVerdict) }},
	"throughput_verdict": {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.ThroughputVerdict) }},
	"tenants": {kind: tString, set: func(v reflect.Value, r *SummaryRow) {
		if r.Fairness != nil {
			v.SetString(r.Fairness.TenantsFrom)
		}
	}},
	"faults": {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.FaultsName) }},
	// The measurement window's (measure.go): in tables of runs with a
	// window or drain only.
	"measure":           {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Measure) }},
	"drain":             {kind: tOptBool, set: func(v reflect.Value, r *SummaryRow) { d := r.Drain; setOptBool(v, &d) }},
	"asked_rounds":      {kind: tInt32, set: func(v reflect.Value, r *SummaryRow) { v.SetInt(int64(r.AskedRounds())) }},
	"drain_cap_reached": {kind: tOptBool, set: func(v reflect.Value, r *SummaryRow) { c := r.DrainCapReached; setOptBool(v, &c) }},
	"charged_at_s":      {kind: tFloat, set: func(v reflect.Value, r *SummaryRow) { v.SetFloat(r.ChargedAtS) }},
	"inconclusive":      {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.Inconclusive) }},
	"horizon_warning":   {kind: tString, set: func(v reflect.Value, r *SummaryRow) { v.SetString(r.HorizonWarning) }},
}

// measureColumns are in tables of runs with a window or drain only.
var measureColumns = map[string]bool{"measure": true, "drain": true, "asked_rounds": true, "drain_cap_reached": true, "charged_at_s": true, "inconclusive": true}

func setOptBool(v reflect.Value, b *bool) {
	if b != nil {
		x := *b
		v.Set(reflect.ValueOf(&x))
	}
}

// firstLayout is summary.parquet's column order as it was before the
// catalogue, kept so tables of the same runs stay byte-identical across
// versions (sweep --compare, cmp). Entries: a dimension or a metric's
// column; "@stats:K" K's across-seed columns; "@cmp:C" comparison C's
// columns; "@utilization" and "@tenant-metrics" the per-type and
// per-tenant families. Every catalogue metric this list does not name
// follows it, in catalogue order, so a new metric needs no entry here.
var firstLayout = strings.Fields(`
run group trace cluster policy timing estimator gpu_map rounds density seed horizon_s jobs_in_trace
jobs_submitted jobs_finished jobs_running jobs_pending jobs_dropped mean_jct_s median_jct_s p95_jct_s p99_jct_s
censored_mean_jct_s padded_mean_jct_s pad_to pad_value_s makespan_s mean_queueing_s mean_queueing_finished_s
mean_throughput_samples_per_s peak_throughput_samples_per_s reconfigurations solver_budget_hits artifact_assertions_failed
arena_version input_hash wall_run_s wall_decisions wall_decision_total_s wall_decision_p99_s seeds
@stats:jobs_finished @stats:mean_jct_s @stats:median_jct_s @stats:p95_jct_s @stats:p99_jct_s
@stats:censored_mean_jct_s @stats:padded_mean_jct_s @stats:makespan_s @stats:mean_queueing_s
@stats:mean_throughput @stats:peak_throughput
ref_policy @cmp:jct_reduction @cmp:padded_jct_reduction @cmp:throughput_ratio
submitted_mean_jct_s submitted_p50_jct_s submitted_p95_jct_s submitted_p99_jct_s mean_bounded_slowdown p99_bounded_slowdown
jobs_stuck_pending @stats:submitted_mean_jct_s @stats:mean_bounded_slowdown
ci_method comparison robust robustness ranking_robust ranking_robustness sensitivity_grid
@utilization
tenants max_rho @stats:max_rho mean_rho @stats:mean_rho frac_rho_above_1 @stats:frac_rho_above_1
jain_gpu_share @stats:jain_gpu_share jain_slowdown @stats:jain_slowdown over_cap_gpu_seconds @stats:over_cap_gpu_seconds
quota_reclaims @stats:quota_reclaims quota_reclaimed_gpus @stats:quota_reclaimed_gpus quota_vetoed @stats:quota_vetoed
quota_violations @stats:quota_violations
@tenant-metrics
faults jct_verdict throughput_verdict workload_hash
measure drain asked_rounds drain_cap_reached charged_at_s inconclusive horizon_warning`)

// valueColumn is metric m's column of the run's value: int32 or double
// for core metrics (a pointer when Optional), an optional double for a
// section's (null in runs without the section).
func valueColumn(m *metrics.Metric) column {
	c := column{name: m.ColumnName(), machine: m.Section == metrics.Machine}
	switch {
	case m.Section.Optional():
		c.kind = tOptF
		c.set = func(v reflect.Value, r *SummaryRow) { x, ok := m.Value(&r.Summary); setOptFloat(v, x, ok) }
	case m.Optional:
		c.kind = tOptI
		c.set = func(v reflect.Value, r *SummaryRow) {
			if x, ok := m.Value(&r.Summary); ok {
				n := int32(x)
				v.Set(reflect.ValueOf(&n))
			}
		}
	case m.Int:
		c.kind = tInt32
		c.set = func(v reflect.Value, r *SummaryRow) { x, _ := m.Get(&r.Summary); v.SetInt(int64(x)) }
	default:
		// A core statistic with no value (no job finished) is written as
		// the summary holds it, 0, as before the catalogue.
		c.kind = tFloat
		c.set = func(v reflect.Value, r *SummaryRow) { x, _ := m.Get(&r.Summary); v.SetFloat(x) }
	}
	return c
}

// intervalColumns are key's mean, ci_lo and ci_hi over seeds, read by
// get; a section's mean is optional (null without the section), a core
// metric's is not.
func intervalColumns(base string, optionalMean bool, get func(*SummaryRow) (ci.Interval, bool)) []column {
	part := func(name string, f func(ci.Interval) float64, optional bool) column {
		if !optional {
			return column{name: name, kind: tFloat, set: func(v reflect.Value, r *SummaryRow) {
				iv, _ := get(r)
				v.SetFloat(f(iv))
			}}
		}
		return column{name: name, kind: tOptF, set: func(v reflect.Value, r *SummaryRow) {
			iv, ok := get(r)
			setOptFloat(v, f(iv), ok)
		}}
	}
	return []column{
		part(base+"_mean", func(iv ci.Interval) float64 { return iv.Mean }, optionalMean),
		part(base+"_ci_lo", func(iv ci.Interval) float64 { return iv.Lo }, true),
		part(base+"_ci_hi", func(iv ci.Interval) float64 { return iv.Hi }, true),
	}
}

func statColumns(m *metrics.Metric) []column {
	section := m.Section.Optional()
	return intervalColumns(m.Key, section, func(r *SummaryRow) (ci.Interval, bool) {
		iv, ok := r.Stats[m.Key]
		if !ok {
			return ci.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, false
		}
		return iv, true
	})
}

func cmpColumns(name string) []column {
	cols := intervalColumns(name, true, func(r *SummaryRow) (ci.Interval, bool) { return r.Cmp(name) })
	cols[0].name = name // jct_reduction, not jct_reduction_mean
	return cols
}

// tableColumns lays out summary.parquet for rows: firstLayout, then every
// catalogue metric it does not name. A section's columns (faults,
// fairness, the per-tenant family) are there only when some row has the
// section, the faults column only when some row names faults, the gpu_map
// column only when some run rewrote its trace's GPU types, so tables
// without them keep their columns.
func tableColumns(rows []SummaryRow) []column {
	has := func(sec metrics.Section) bool {
		return slices.ContainsFunc(rows, func(r SummaryRow) bool { return sec.Has(&r.Summary) })
	}
	present := map[metrics.Section]bool{metrics.Core: true, metrics.Machine: true, metrics.Faults: has(metrics.Faults), metrics.Fairness: has(metrics.Fairness), metrics.Energy: has(metrics.Energy), metrics.Network: has(metrics.Network)}
	named := map[string]bool{}
	var cols []column
	for _, e := range firstLayout {
		kind, name, _ := strings.Cut(e, ":")
		switch kind {
		case "@stats":
			m, _ := metrics.Lookup(name)
			named["@stats:"+m.Key] = true
			if present[m.Section] {
				cols = append(cols, statColumns(m)...)
			}
		case "@cmp":
			named["@cmp:"+name] = true
			cols = append(cols, cmpColumns(name)...)
		case "@utilization":
			cols = append(cols, utilizationColumns(rows)...)
		case "@tenant-metrics":
			if present[metrics.Fairness] {
				cols = append(cols, tenantColumns(rows)...)
			}
		default:
			if d, ok := dims[e]; ok {
				d.name = e
				switch {
				case e == "tenants" && !present[metrics.Fairness]:
				case e == "faults" && !slices.ContainsFunc(rows, func(r SummaryRow) bool { return r.FaultsKey != "" }):
				case e == "gpu_map" && !slices.ContainsFunc(rows, func(r SummaryRow) bool { return r.GPUMap != "" }):
				case e == "horizon_warning" && !slices.ContainsFunc(rows, func(r SummaryRow) bool { return r.HorizonWarning != "" }):
				case measureColumns[e] && !slices.ContainsFunc(rows, func(r SummaryRow) bool { return r.Drain || r.Measure != "" }):
				default:
					cols = append(cols, d)
				}
				continue
			}
			m, ok := metrics.Lookup(e)
			if !ok {
				panic("sweep: firstLayout names " + e + ", which is neither a dimension nor a metric")
			}
			named[m.Key] = true
			if present[m.Section] {
				cols = append(cols, valueColumn(m))
			}
		}
	}
	for i := range metrics.Catalogue {
		m := &metrics.Catalogue[i]
		if !present[m.Section] || m.ColumnName() == "-" {
			continue
		}
		if !named[m.Key] {
			cols = append(cols, valueColumn(m))
		}
		if m.Stats && !named["@stats:"+m.Key] {
			cols = append(cols, statColumns(m)...)
		}
		if m.Compared != "" && !named["@cmp:"+m.Compared] {
			cols = append(cols, cmpColumns(m.Compared)...)
		}
	}
	return cols
}

// utilizationColumn names a GPU type's utilisation column.
func utilizationColumn(t string) string { return "utilization_" + strings.ReplaceAll(t, "-", "_") }

// utilizationColumns: one per GPU type of any row, sorted; NaN where a
// run's cluster lacks the type.
func utilizationColumns(rows []SummaryRow) []column {
	var types []string
	for _, r := range rows {
		for t := range r.Utilization {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	slices.Sort(types)
	var cols []column
	for _, t := range types {
		cols = append(cols, column{name: utilizationColumn(t), kind: tFloat, set: func(v reflect.Value, r *SummaryRow) {
			u, ok := r.Utilization[t]
			if !ok {
				u = math.NaN()
			}
			v.SetFloat(u)
		}})
	}
	return cols
}

// TenantColumn names a tenant's metric column.
func TenantColumn(tenant, metric string) string {
	return "tenant_" + SanitizeKey(tenant) + "_" + metric
}

// tenantNames are the tenants of rows in order of first appearance.
func tenantNames(rows []SummaryRow) []string {
	var tenants []string
	for i := range rows {
		if f := rows[i].Fairness; f != nil {
			for _, t := range f.Tenants {
				if !slices.Contains(tenants, t.Name) {
					tenants = append(tenants, t.Name)
				}
			}
		}
	}
	return tenants
}

// tenantValue is row r's value of tenant metric tm for tenant name.
func tenantValue(r *SummaryRow, name string, tm *metrics.TenantMetric) (float64, bool) {
	if r.Fairness == nil {
		return 0, false
	}
	for i := range r.Fairness.Tenants {
		if t := &r.Fairness.Tenants[i]; t.Name == name {
			return tm.Get(t)
		}
	}
	return 0, false
}

// tenantColumns: per tenant of any row, each tenant metric with its
// across-seed interval.
func tenantColumns(rows []SummaryRow) []column {
	var cols []column
	for _, t := range tenantNames(rows) {
		for i := range metrics.TenantMetrics {
			tm := &metrics.TenantMetrics[i]
			key := TenantColumn(t, tm.Key)
			cols = append(cols, column{name: key, kind: tOptF, set: func(v reflect.Value, r *SummaryRow) {
				x, ok := tenantValue(r, t, tm)
				setOptFloat(v, x, ok)
			}})
			cols = append(cols, intervalColumns(key, true, func(r *SummaryRow) (ci.Interval, bool) {
				iv, ok := r.Stats[key]
				return iv, ok
			})...)
		}
	}
	return cols
}

// EncodeSummaryParquet encodes summary rows in tableColumns' layout.
func EncodeSummaryParquet(rows []SummaryRow) ([]byte, error) {
	cols := tableColumns(rows)
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		tag := c.name
		if c.kind.Kind() == reflect.Pointer {
			tag += ",optional"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: c.kind, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	rowType := reflect.StructOf(fields)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(rowType).Interface()))
	for i := range rows {
		v := reflect.New(rowType).Elem()
		for k, c := range cols {
			c.set(v.Field(k), &rows[i])
		}
		if err := w.Write(v.Addr().Interface()); err != nil {
			return nil, fmt.Errorf("summary.parquet: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("summary.parquet: %w", err)
	}
	return buf.Bytes(), nil
}

// SummaryTable is a summary.parquet read back: its column names and, per
// row, each cell as text (ParquetCSV's rendering: floats in Go's shortest
// round-trip form, "" for null), so two tables compare cell by cell.
type SummaryTable struct {
	Columns []string
	Rows    [][]string
}

// Cell is row i's value of column name ("" when null or absent).
func (t *SummaryTable) Cell(i int, name string) string {
	if k := slices.Index(t.Columns, name); k >= 0 {
		return t.Rows[i][k]
	}
	return ""
}

// ReadSummaryParquet reads a summary table through the bounded Parquet
// opener.
func ReadSummaryParquet(file string) (*SummaryTable, error) {
	pf, err := pq.Open(file)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	t := &SummaryTable{}
	for _, c := range pf.Schema().Columns() {
		t.Columns = append(t.Columns, strings.Join(c, "."))
	}
	err = pf.EachRow(func(row parquet.Row) error {
		cells := make([]string, len(t.Columns))
		for _, v := range row {
			if c := v.Column(); c >= 0 && c < len(cells) {
				cells[c] = cell(v)
			}
		}
		t.Rows = append(t.Rows, cells)
		return nil
	})
	return t, err
}

// WithoutWallclock returns the table without its machine-dependent
// columns (the catalogue's Machine section): two identical sweeps agree on
// everything else.
func (t *SummaryTable) WithoutWallclock() *SummaryTable {
	var keep []int
	out := &SummaryTable{}
	for i, c := range t.Columns {
		if m, ok := metrics.Lookup(c); ok && m.Section == metrics.Machine {
			continue
		}
		keep = append(keep, i)
		out.Columns = append(out.Columns, c)
	}
	for _, r := range t.Rows {
		row := make([]string, len(keep))
		for k, i := range keep {
			row[k] = r[i]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// WithoutWallclock returns rows with the machine-dependent wall-clock
// figures zeroed: two identical sweeps agree on everything else.
func WithoutWallclock(rows []SummaryRow) []SummaryRow {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Wallclock = sim.Wallclock{}
	}
	return out
}
