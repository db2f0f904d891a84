package sweep

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
)

func fairRow(seed int64, policy string, f *sim.Fairness) SummaryRow {
	return row(policy+".s"+string(rune('0'+seed)), sim.Summary{Trace: "t", Cluster: "c", Policy: policy, Timing: "exact",
		Rounds: 10, Density: 1, Seed: seed, Estimator: "profiledb", Fairness: f})
}

func columnsOf(t *testing.T, data []byte) []string {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range pf.Schema().Fields() {
		names = append(names, f.Name())
	}
	return names
}

// TestFairnessColumns: the fairness columns of summary.parquet and their
// across-seed intervals. Outside anchor: the Student-t interval of 1, 2, 3
// is 2 ± t(0.975, 2)·1/√3 = 2 ± 4.3027·0.57735 (a t table); a run without
// tenants adds no column (guard: tables of runs without tenants keep
// their schema), and a quota count is null, not 0, for a policy that is
// not the quota wrapper.
func TestFairnessColumns(t *testing.T) {
	plain := []SummaryRow{fairRow(1, "fcfs", nil), fairRow(2, "fcfs", nil)}
	addSeedStats(plain)
	data, err := EncodeSummaryParquet(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range columnsOf(t, data) {
		if c == "tenants" || strings.Contains(c, "rho") || strings.HasPrefix(c, "tenant_") || strings.HasPrefix(c, "quota_") {
			t.Errorf("a table without tenants has column %s", c)
		}
	}

	var rows []SummaryRow
	for s := int64(1); s <= 3; s++ {
		f := &sim.Fairness{TenantsFrom: "vcs", MaxRho: float64(s), Tenants: []sim.TenantFigures{{Name: "vc-a", Finished: 1, MeanJCT: 100 * float64(s)}}}
		rows = append(rows, fairRow(s, "fcfs", f))
		q := *f
		q.Quota = &sim.QuotaCounts{Reclaims: 0}
		rows = append(rows, fairRow(s, "quota(fcfs)", &q))
	}
	addSeedStats(rows)
	iv := rows[0].Stats["max_rho"]
	half := 4.302652729911275 / math.Sqrt(3)
	if math.Abs(iv.Mean-2) > 1e-12 || math.Abs(iv.Lo-(2-half)) > 1e-9 || math.Abs(iv.Hi-(2+half)) > 1e-9 {
		t.Errorf("max_rho over seeds 1,2,3 = %+v, want 2 [%.6f, %.6f]", iv, 2-half, 2+half)
	}
	if iv := rows[0].Stats["tenant_vc-a_mean_jct_s"]; math.Abs(iv.Mean-200) > 1e-9 {
		t.Errorf("tenant mean JCT over seeds = %v, want 200", iv.Mean)
	}
	data, err = EncodeSummaryParquet(rows)
	if err != nil {
		t.Fatal(err)
	}
	cols := strings.Join(columnsOf(t, data), " ")
	for _, want := range []string{"tenants", "max_rho", "max_rho_mean", "max_rho_ci_lo", "jain_slowdown_ci_hi", "quota_reclaims", "tenant_vc-a_mean_jct_s_ci_hi", "tenant_vc-a_gpu_hours"} {
		if !strings.Contains(" "+cols+" ", " "+want+" ") {
			t.Errorf("no column %s in %s", want, cols)
		}
	}
	file := filepath.Join(t.TempDir(), SummaryParquet)
	if err := os.WriteFile(file, data, 0o666); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummaryParquet(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Cell(2, "max_rho"); got != "2" {
		t.Errorf("max_rho of seed 2 read back = %q, want 2", got)
	}
	if got := back.Cell(0, "quota_reclaims"); got != "" {
		t.Errorf("fcfs has a quota_reclaims value %q; want null (not under the wrapper)", got)
	}
	if got := back.Cell(1, "quota_reclaims"); got != "0" {
		t.Errorf("quota(fcfs)'s quota_reclaims = %q; want 0 (zero, not null)", got)
	}
}

// TestTenantsAreCells: runs differing only in their tenants are different
// cells of the seed table (guard: they would otherwise overwrite each
// other's seeds).
func TestTenantsAreCells(t *testing.T) {
	a := fairRow(1, "fcfs", &sim.Fairness{TenantsFrom: "vcs", MaxRho: 1})
	b := fairRow(1, "fcfs", &sim.Fairness{TenantsFrom: "teams.yaml", MaxRho: 5})
	rows := []SummaryRow{a, b}
	addSeedStats(rows)
	if rows[0].Stats["max_rho"].Mean != 1 || rows[1].Stats["max_rho"].Mean != 5 {
		t.Errorf("max_rho means %v, %v; want 1 and 5 (two cells)", rows[0].Stats["max_rho"].Mean, rows[1].Stats["max_rho"].Mean)
	}
}
