package plots

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The share figure stacks the tenants' GPUs: the top band's upper edge is
// every tenant's GPUs summed (hand-worked: 3 + 2 + 1 at the one row); past
// MaxTenantBands tenants the smallest fold into one "other" band; with the
// cluster's capacity the axis is a share of it (6 of 12 GPUs = 50 %).
func TestTenantSharesStackAndFold(t *testing.T) {
	one := TenantShare{Label: "fcfs", Times: []float64{0}, Tenants: []string{"a", "b", "c"}, GPUs: [][]float64{{3}, {2}, {1}}, Capacity: 12}
	f, err := TenantShares([]TenantShare{one}, -1)
	if err != nil {
		t.Fatal(err)
	}
	// The axis ends 5 % above the stack's top.
	top := f.Panels[0].Y.Max / 1.05
	if math.Abs(top-50) > 1e-9 {
		t.Errorf("stack top %v %%, want 50 (6 of 12 GPUs)", top)
	}
	if got := []string{f.Legend[0].Label, f.Legend[1].Label, f.Legend[2].Label}; strings.Join(got, ",") != "a,b,c" {
		t.Errorf("legend %v, want a,b,c (most GPU-hours first)", got)
	}
	var many TenantShare
	many.Times = []float64{0}
	for i := range 10 {
		many.Tenants = append(many.Tenants, fmt.Sprintf("t%d", i))
		many.GPUs = append(many.GPUs, []float64{float64(10 - i)})
	}
	f, err = TenantShares([]TenantShare{many}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Legend); n != MaxTenantBands+1 || f.Legend[n-1].Label != "other (5 tenants)" {
		t.Errorf("%d legend entries, last %q; want %d, the last \"other (5 tenants)\"", n, f.Legend[n-1].Label, MaxTenantBands+1)
	}
	if _, err := f.Encode(Render{Format: "png"}); err != nil {
		t.Errorf("the figure does not render: %v", err)
	}
}

// The ρ CDF names each run's share of jobs with ρ > 1 (hand count: 2 of 4)
// and gives its lines distinct dashes and markers (greyscale).
func TestRhoCDF(t *testing.T) {
	f, err := RhoCDF([]RhoRun{{Label: "fcfs", Rhos: []float64{0.5, 0.9, 1.5, 3}}, {Label: "arena", Rhos: []float64{0.2, 0.4}}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Legend[0].Label != "fcfs (ρ>1: 50 %)" || f.Legend[1].Label != "arena (ρ>1: 0 %)" {
		t.Errorf("legend %q, %q", f.Legend[0].Label, f.Legend[1].Label)
	}
	if greySignature(f.Legend[0]) == greySignature(f.Legend[1]) {
		t.Error("the two lines differ only in colour")
	}
	if _, err := RhoCDF([]RhoRun{{Label: "x"}}); err == nil {
		t.Error("a ρ CDF without a rated job drew")
	}
}
