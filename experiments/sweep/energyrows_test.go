package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

func energyRow(seed int64, policy string, kwh float64) SummaryRow {
	var e *sim.Energy
	if kwh > 0 {
		e = &sim.Energy{Model: "default", KWh: kwh, KgCO2: kwh / 2, GPUCostUSD: 10 * kwh}
	}
	return row(policy+".s"+string(rune('0'+seed)), sim.Summary{Trace: "t", Cluster: "c", Policy: policy, Timing: "exact",
		Rounds: 10, Density: 1, Seed: seed, Estimator: "profiledb", Energy: e})
}

// TestEnergySeedTable: the energy table's means, intervals and paired
// reductions over seeds. Outside anchor: fcfs uses 100, 110, 120 kWh and
// arena 80, 88, 96 (0.8 × each), so arena's energy reduction is 20 % in
// every seed, an interval of width 0; fcfs's mean is 110 with the
// Student-t half-width t(0.975, 2)·10/√3 = 4.3027·5.7735 = 24.84 (a t
// table): [85, 135]. Without energy, nothing is printed.
func TestEnergySeedTable(t *testing.T) {
	var rows, plain []SummaryRow
	for s := int64(1); s <= 3; s++ {
		k := 90 + 10*float64(s)
		rows = append(rows, energyRow(s, "fcfs", k), energyRow(s, "arena", 0.8*k))
		plain = append(plain, energyRow(s, "fcfs", 0), energyRow(s, "arena", 0))
	}
	for _, rs := range [][]SummaryRow{rows, plain} {
		addSeedStats(rs)
		setComparisons(rs, cells(rs), "")
	}
	var b bytes.Buffer
	if err := WriteEnergySeedTable(&b, plain); err != nil || b.Len() != 0 {
		t.Fatalf("runs without energy printed %q (%v)", b.String(), err)
	}
	if err := WriteEnergySeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"model default", "arena energy reduction", "110 [85, 135]", "20.0% [20.0, 20.0]"} {
		if !strings.Contains(out, want) {
			t.Errorf("energy table lacks %q:\n%s", want, out)
		}
	}
}
