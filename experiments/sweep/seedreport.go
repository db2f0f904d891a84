package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// CheckBaseline reports an error naming baseline when no run of plan has
// that policy ("" = the paper's form, always fine): a sweep should fail
// before it runs, not after.
func CheckBaseline(plan *Plan, baseline string) error {
	if baseline == "" {
		return nil
	}
	var have []string
	for _, r := range plan.Runs {
		if r.Run.Policy == baseline {
			return nil
		}
		if !strings.Contains(","+strings.Join(have, ",")+",", ","+r.Run.Policy+",") {
			have = append(have, r.Run.Policy)
		}
	}
	return fmt.Errorf("baseline %q is not among the policies run (%s)", baseline, strings.Join(have, ", "))
}

// Accounting is "828 finished · 158 unfinished · 0 dropped" for a policy's
// rows of one cell, averaged over its seeds: what stands behind its mean
// JCT, printed beside it.
func Accounting(rs []*SummaryRow) string {
	var f, u, d float64
	for _, r := range rs {
		f += float64(r.Finished)
		u += float64(r.Running + r.Pending)
		d += float64(r.Dropped)
	}
	n := float64(len(rs))
	g := func(v float64) string { return strconv.FormatFloat(math.Round(v/n*10)/10, 'f', -1, 64) }
	return g(f) + " fin · " + g(u) + " unfin · " + g(d) + " drop"
}

// Neglected says whether any of rs dropped jobs, left a queue on an idle
// cluster or left more than sim.StuckThreshold of its submitted jobs
// stuck (sim.Summary.Neglects, the rule of the ⚠ in 'arena simulate'): the
// policy's means get a ⚠.
func Neglected(rs []*SummaryRow) bool {
	for _, r := range rs {
		if r.Neglects() {
			return true
		}
	}
	return false
}

// WriteSeedTable prints, for every cell of rows (every parameter but the
// seed and the policy), one line per policy with its across-seed means and
// 95 % t-intervals: jobs finished / unfinished / dropped, submitted mean
// JCT (the default comparison: every submitted job, unfinished and dropped
// ones at their charge: age at the horizon plus remaining work at its
// best rate), mean throughput, and the comparison
// columns, paired by seed: arena's JCT reduction (submitted, then the
// artifact's padded mean) and throughput ratio against each policy, or
// each policy's against the baseline (SetBaseline). Each cell is one
// table, headed by every parameter that varies between cells, by the
// number of seeds any policy of the cell has and by what those seeds are
// draws of (SummaryRow.Population). A row over fewer seeds (a partial
// merge) shows its own "n=…", and so does a comparison over fewer seeds
// than the header's (the seeds both policies have, less any whose runs
// ran different jobs: Unpaired, flagged under the table). Under the
// tables: how many comparisons they make and the false positives to
// expect of them, and, when SetHolm was called, which survive Holm's
// step-down (‡). A policy that dropped, stranded or left stuck jobs is
// marked ⚠ (Neglected). It prints nothing when no cell has two seeds.
func WriteSeedTable(w io.Writer, rows []SummaryRow) error {
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1
	}
	if !multi {
		return nil
	}
	var b strings.Builder
	var flagged, unpaired []string
	format, robustHead := "  %-18s %-34s %-24s %-20s %-26s %-26s %s%s\n", ""
	if rows[0].SensitivityGrid != "" { // a robustness column (sensitivity.go)
		format, robustHead = "  %-18s %-34s %-24s %-20s %-26s %-26s %-26s %s\n", "under model error"
	}
	if windowMode(rows) {
		rows = familyView(rows)
	}
	vary := varyingAxes(rows)
	for _, c := range cellsInOrder(rows) {
		r0 := c[0]
		n := cellSeeds(c, vary)
		over, jobsHead := ci.DescribeOver(ci.T, n, "seed", r0.Population), "jobs (mean over seeds)"
		if w := r0.Window; w != nil && w.nested != nil {
			jobsHead = "jobs (mean over runs)"
			n = 0
			for _, r := range c {
				n = max(n, r.Seeds)
			}
			over = ci.DescribeNested(n, "window", w.nested.Of)
		}
		fmt.Fprintf(&b, "\n%s — mean [%s]\n", CellHeading(r0, vary), over)
		red, thr := RefPolicy+" JCT reduction", RefPolicy+" thr. ratio"
		if baselineMode(rows) {
			red, thr = "JCT reduction vs "+vary.label(r0.RefPolicy), "thr. ratio vs "+vary.label(r0.RefPolicy)
		}
		fmt.Fprintf(&b, format, "policy", jobsHead, "submitted mean JCT (s)", "mean thr. (sam/s)", red, "(artifact padded)", thr, robustHead)
		for _, r := range c {
			rs := vary.seeds[CellKey(r)+"|"+r.Policy]
			name := vary.label(r.Policy)
			if Neglected(rs) {
				name += " ⚠"
				flagged = append(flagged, vary.label(r.Policy))
			}
			if r.Seeds != n {
				name += fmt.Sprintf(" n=%d", r.Seeds)
			}
			if len(r.Unpaired) > 0 {
				unpaired = append(unpaired, fmt.Sprintf("%s: seed %s left out (its runs record different workload_hash values: not the same jobs)", r.Comparison, joinSeeds(r.Unpaired)))
			}
			cmpCell := func(name string, digits int, unit string) string {
				if r.Inconclusive != "" {
					return "inconclusive"
				}
				iv, ok := r.Cmp(name)
				if !ok {
					return "–"
				}
				s := ci.Format(iv, digits, unit)
				if iv.N != n {
					s += fmt.Sprintf(" n=%d", iv.N)
				}
				if p, ok := r.Holm[name]; ok && p <= 1-ci.Level {
					s += " ‡"
				}
				return s
			}
			fmt.Fprintf(&b, format, name, Accounting(rs),
				ci.Format(r.Stat("submitted_mean_jct_s"), 0, ""), ci.Format(r.Stat("mean_throughput"), 0, ""),
				cmpCell("jct_reduction", 1, "%"), cmpCell("padded_jct_reduction", 1, "%"), cmpCell("throughput_ratio", 2, "×"), RobustCell(r))
		}
	}
	writeFamily(&b, rows)
	if len(unpaired) > 0 {
		fmt.Fprintf(&b, "\n⚠ not paired: %s.\n", strings.Join(unpaired, "; "))
	}
	if len(flagged) > 0 {
		fmt.Fprintf(&b, "\n⚠ %s dropped jobs, left them queued on an idle cluster or left over 1 %% of them stuck (never started though idle GPUs could have held them): such jobs count in the submitted mean at their charge (age at the horizon plus remaining work at its best rate); the mean over finished jobs alone would flatter them.\n", strings.Join(dedupe(flagged), ", "))
	}
	if err := WriteRobustness(&b, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellsInOrder groups rows by cell, cells in order of first appearance,
// and keeps one row per policy of each (its first: every seed's row of a
// policy carries the same across-seed figures), policies in order of
// first appearance. One cell is one comparison: one table.
func cellsInOrder(rows []SummaryRow) [][]*SummaryRow {
	var out [][]*SummaryRow
	at := map[string]int{}
	seen := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		k := CellKey(r)
		if seen[k+"|"+r.Policy] {
			continue
		}
		seen[k+"|"+r.Policy] = true
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], r)
	}
	return out
}

// axes says which parameters vary between the cells of a table (each is
// then named in every cell's heading), with the policies' display labels
// and every cell's rows per policy.
type axes struct {
	trace, cluster, timing, rounds, density, estimator, tenants, faults, gpuMap bool
	labels                                                                      map[string]string
	seeds                                                                       map[string][]*SummaryRow
}

func varyingAxes(rows []SummaryRow) axes {
	a := axes{seeds: map[string][]*SummaryRow{}}
	first := map[string]string{}
	varies := func(axis, v string) bool {
		if f, ok := first[axis]; ok {
			return f != v
		}
		first[axis] = v
		return false
	}
	for i := range rows {
		r := &rows[i]
		a.seeds[CellKey(r)+"|"+r.Policy] = append(a.seeds[CellKey(r)+"|"+r.Policy], r)
		tenants := ""
		if r.Fairness != nil {
			tenants = r.Fairness.TenantsFrom
		}
		a.trace = varies("trace", r.Trace) || a.trace
		a.cluster = varies("cluster", r.Cluster) || a.cluster
		a.timing = varies("timing", r.Timing) || a.timing
		a.rounds = varies("rounds", fmt.Sprint(r.AskedRounds())) || a.rounds
		a.density = varies("density", fmt.Sprint(r.Density)) || a.density
		a.estimator = varies("estimator", r.Estimator) || a.estimator
		a.tenants = varies("tenants", tenants) || a.tenants
		a.faults = varies("faults", r.FaultsKey) || a.faults || r.FaultsKey != ""
		if r.Label != "" {
			if a.labels == nil {
				a.labels = map[string]string{}
			}
			a.labels[r.Policy] = r.Label
		}
	}
	return a
}

// label is a policy's display name (the spec's labels:, --label).
func (a axes) label(policy string) string {
	if l, ok := a.labels[policy]; ok {
		return l
	}
	return policy
}

// CellHeading names r's cell: trace, cluster, timing and density always,
// and each other parameter that varies between the table's cells (rounds,
// estimator, tenants, faults and checkpoint model).
func CellHeading(r *SummaryRow, vary axes) string {
	h := fmt.Sprintf("%s on %s, %s timing, density %g", displayTrace(r), r.Cluster, r.Timing, r.Density)
	if vary.rounds {
		h += fmt.Sprintf(", %d rounds", r.AskedRounds())
	}
	h += measureHeading(r)
	if vary.estimator {
		h += ", estimator " + r.Estimator
	}
	if vary.tenants {
		t := "none"
		if r.Fairness != nil {
			t = r.Fairness.TenantsFrom
		}
		h += ", tenants " + t
	}
	if vary.faults {
		h += ", faults " + faultsHeading(r)
	}
	return h
}

// faultsHeading is r's faults and checkpoint model in words.
func faultsHeading(r *SummaryRow) string {
	name := r.FaultsName
	if name == "" {
		name = "none"
	}
	if _, ck, ok := strings.Cut(r.FaultsKey, ".ck"); ok {
		parts := strings.Split(ck, "-")
		if len(parts) == 3 {
			name += fmt.Sprintf(" (checkpoint every %s s, %s s to write, %s s to restore)", parts[0], parts[1], parts[2])
		}
	}
	return name
}

// SetLabels gives rows their policies' display labels (policy as run →
// label; a sweep spec's labels:, plot's --label).
func SetLabels(rows []SummaryRow, labels map[string]string) {
	for i := range rows {
		rows[i].Label = labels[rows[i].Policy]
	}
}

// baselineMode: the rows compare each policy with a baseline (SetBaseline)
// rather than arena with each.
func baselineMode(rows []SummaryRow) bool {
	for _, r := range rows {
		if r.Comparison != "" {
			return strings.HasSuffix(r.Comparison, " vs "+r.RefPolicy)
		}
	}
	return false
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// RowsAgainst flattens runs already padded within their groups (PadGroups)
// into summary rows with their across-seed columns, compared with
// baseline ("" = the paper's form; SetBaseline).
func RowsAgainst(rs []*Results, baseline string) ([]SummaryRow, error) {
	rows := SummaryRowsAsPadded(rs)
	return rows, SetBaseline(rows, baseline)
}

// WriteCaptions writes, for each comparison group of rows in order, a
// caption line a figure of the group can carry: each policy's mean JCT
// over all submitted jobs beside its jobs finished / unfinished / dropped
// (⚠ for a policy that dropped or stranded jobs) and, where the row has
// one, its comparison (arena against it, or it against the baseline).
func WriteCaptions(w io.Writer, rows []SummaryRow) error {
	var b strings.Builder
	var order []string
	byGroup := map[string][]*SummaryRow{}
	for i := range rows {
		g := rows[i].Group
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], &rows[i])
	}
	for _, g := range order {
		fmt.Fprintf(&b, "%s:", g)
		for k, r := range byGroup[g] {
			if k > 0 {
				b.WriteString(";")
			}
			writeCaption(&b, r)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCaption(b *strings.Builder, r *SummaryRow) {
	name := r.Policy
	if r.Label != "" {
		name = r.Label
	}
	if r.Neglects() {
		name += " ⚠"
	}
	fmt.Fprintf(b, " %s: mean JCT over all %d submitted jobs %.0f s (%d finished, %d unfinished, %d dropped)",
		name, r.Submitted, r.SubmittedMeanJCT, r.Finished, r.Running+r.Pending, r.Dropped)
	if iv, ok := r.Cmp("jct_reduction"); ok && r.Comparison != "" && r.Seeds == 1 {
		fmt.Fprintf(b, ", %s: JCT reduction %.1f %%", r.Comparison, 100*iv.Mean)
	}
}

// cellSeeds is the number of distinct seeds among a cell's runs, every
// policy's: the header's N (a policy missing seeds shows its own).
func cellSeeds(c []*SummaryRow, vary axes) int {
	seen := map[int64]bool{}
	for _, r := range c {
		for _, x := range vary.seeds[CellKey(r)+"|"+r.Policy] {
			seen[x.Seed] = true
		}
	}
	return len(seen)
}

func joinSeeds(seeds []int64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatInt(s, 10)
	}
	return strings.Join(parts, ", ")
}

// FamilyMetrics are the comparisons of a seed table that count as its
// family of tests (and that SetHolm adjusts): per pair of policies, the
// paired JCT reduction on the default metric and the throughput ratio.
// The artifact-padded reduction, shown for parity with the paper, is the
// same question on another metric and is not counted.
var FamilyMetrics = []string{"jct_reduction", "throughput_ratio"}

// family lists the comparisons of rows' seed table: one row per cell and
// policy, and per FamilyMetrics name with a p-value (two or more seeds
// paired).
type familyMember struct {
	key, metric string
	p           float64
}

func family(rows []SummaryRow) []familyMember {
	var out []familyMember
	for _, c := range cellsInOrder(rows) {
		for _, r := range c {
			for _, m := range FamilyMetrics {
				if p, ok := r.ComparedP[m]; ok && !math.IsNaN(p) {
					out = append(out, familyMember{CellKey(r) + "|" + r.Policy, m, p})
				}
			}
		}
	}
	return out
}

// SetHolm marks rows' comparisons with their Holm-adjusted p-values over
// the family of the seed table they make (FamilyMetrics of every cell's
// pairs; ci.Holm): the table then marks with ‡ those that remain
// significant at a family-wise error rate of 5 %.
func SetHolm(rows []SummaryRow) {
	view := rows
	if windowMode(rows) {
		view = familyView(rows) // the table's families, not its windows
	}
	fam := family(view)
	ps := make([]float64, len(fam))
	for i, f := range fam {
		ps[i] = f.p
	}
	adj := ci.Holm(ps)
	by := map[string]map[string]float64{}
	for i, f := range fam {
		if by[f.key] == nil {
			by[f.key] = map[string]float64{}
		}
		by[f.key][f.metric] = adj[i]
	}
	for i := range rows {
		h := by[CellKey(&view[i])+"|"+view[i].Policy]
		if h == nil {
			h = map[string]float64{}
		}
		if w := rows[i].Window; w != nil && w.nested != nil {
			w.nested.Holm = h
			continue
		}
		rows[i].Holm = h
	}
}

// writeFamily states how many comparisons the table makes, the false
// positives to expect of them at 95 % each, and with SetHolm how many of
// the individually significant survive Holm's step-down.
func writeFamily(b *strings.Builder, rows []SummaryRow) {
	fam := family(rows)
	if len(fam) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%d comparisons at %.0f %% each (JCT reduction and throughput ratio per pair of policies; the artifact-padded column not counted): expect ~%.1f false positives under no effect.",
		len(fam), 100*ci.Level, ci.FalsePositives(len(fam)))
	holm := false
	for _, r := range rows {
		holm = holm || r.Holm != nil
	}
	if !holm {
		b.WriteString(" --holm marks those that survive Holm's step-down.\n")
		return
	}
	alone, kept := 0, 0
	byKey := map[string]*SummaryRow{}
	for i := range rows {
		byKey[CellKey(&rows[i])+"|"+rows[i].Policy] = &rows[i]
	}
	for _, f := range fam {
		if f.p <= 1-ci.Level {
			alone++
			if byKey[f.key].Holm[f.metric] <= 1-ci.Level {
				kept++
			}
		}
	}
	fmt.Fprintf(b, "\n‡ significant after Holm's step-down over the %d (family-wise error ≤ %.0f %%): %d of the %d significant alone.\n", len(fam), 100*(1-ci.Level), kept, alone)
}
