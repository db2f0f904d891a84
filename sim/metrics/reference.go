package metrics

import (
	"fmt"
	"strings"
)

// ReferencePage is docs/metrics.md, generated from the catalogue (make
// docs; TestReferencePageCurrent fails when the committed page differs).
const ReferencePage = "docs/metrics.md"

// Reference renders the catalogue as the Markdown page docs/metrics.md:
// every metric with its summary.parquet column, summary.json path, unit,
// direction, section, whether it has across-seed intervals and paired
// comparisons, and its doc line.
func Reference() string {
	var b strings.Builder
	b.WriteString(`# Metrics

Every figure a run reports, generated from the metric catalogue (sim/metrics) by ` + "`make docs`" + `;
a test fails when this page and the catalogue differ. A metric is one row of the catalogue.

- **column**: the run's value in a sweep's ` + "`summary.parquet`" + ` (` + "`-`" + `: summary.json only).
- **summary.json**: where the run's ` + "`summary.json`" + ` holds it; regression golden files name metrics this way.
- **better**: the direction of improvement (` + "`–`" + `: none).
- **section**: ` + "`core`" + ` metrics exist for every run, ` + "`faults`" + ` for runs with a fault model
  (docs/faults.md), ` + "`fairness`" + ` for runs with tenants (docs/tenants.md), ` + "`machine`" + ` are
  wall-clock figures that differ between identical runs. A table gains a section's columns only when one of
  its runs has the section; in a row without it they are null.
- **seeds**: the table also has ` + "`<key>_mean`" + `, ` + "`_ci_lo`" + `, ` + "`_ci_hi`" + `: the mean and 95 % Student-t
  interval over the seeds of the row's cell (every parameter but the seed) and policy.
- **compared**: the paired comparison between policies, per seed then over seeds with its interval
  (` + "`_ci_lo`" + `, ` + "`_ci_hi`" + `): a reduction 1 − a/b where lower is better, a ratio a/b where higher is
  (docs/statistics.md).

| key | column | summary.json | unit | better | section | seeds | compared | what it is |
|---|---|---|---|---|---|---|---|---|
`)
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return ""
	}
	for i := range Catalogue {
		m := &Catalogue[i]
		col := m.ColumnName()
		if col == m.Key {
			col = "="
		}
		path := m.JSONPath()
		if path == m.Key {
			path = "="
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", m.Key, code(col), code(path), m.Unit, m.Better, m.Section,
			yes(m.Stats), code(m.Compared), escape(m.Doc))
	}
	b.WriteString("\n`=`: the same as the key.\n\n## Families\n\n")
	fmt.Fprintf(&b, "- `utilization_<type>` (one column per GPU type of any row; `-` in a type's name written `_`): %s.\n", UtilizationDoc)
	b.WriteString("- `tenant_<name>_<metric>` (section fairness; per tenant of any row, each with `_mean`, `_ci_lo`, `_ci_hi`):\n")
	for _, t := range TenantMetrics {
		fmt.Fprintf(&b, "  - `%s` (%s, %s is better): %s.\n", t.Key, t.Unit, t.Better, t.Doc)
	}
	return b.String()
}

func code(s string) string {
	switch s {
	case "", "=", "-":
		return s
	}
	return "`" + s + "`"
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
