package sweep

import (
	"fmt"
	"io"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// WriteEnergySeedTable prints, for every cell of rows whose runs have
// energy accounting (Run.Energy), one line per policy with the energy
// figures' across-seed means and 95 % Student-t intervals (facility and
// idle kWh, kg CO₂eq, GPU cost, joules per sample) and the paired
// reductions (energy, carbon, GPU cost; the catalogue's Compared columns)
// in the seed table's direction: arena's against each policy, or with a
// baseline (SetBaseline) each policy's against it. Nothing when no row has energy figures, or, as the seed
// table, when no cell has two seeds.
func WriteEnergySeedTable(w io.Writer, rows []SummaryRow) error {
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1 && r.Energy != nil
	}
	if !multi {
		return nil
	}
	var b strings.Builder
	const format = "  %-18s %-22s %-22s %-22s %-22s %-22s %-27s %-27s %s\n"
	vary := varyingAxes(rows)
	for _, c := range cellsInOrder(rows) {
		if c[0].Energy == nil {
			continue
		}
		r0 := c[0]
		// As the seed table: the reference's reductions against each
		// policy, or with a baseline each policy's against it.
		red := func(what string) string { return RefPolicy + " " + what + " reduction" }
		if baselineMode(rows) {
			red = func(what string) string { return what + " reduction vs " + vary.label(r0.RefPolicy) }
		}
		fmt.Fprintf(&b, "\nenergy, %s, model %s — mean [%s]\n", CellHeading(r0, vary), r0.Energy.Model, ci.Describe(ci.T, r0.Seeds, "seed"))
		fmt.Fprintf(&b, format, "policy", "energy (kWh)", "idle energy (kWh)", "carbon (kg CO2eq)", "GPU cost ($)", "energy/sample (J)",
			red("energy"), red("carbon"), red("GPU-cost"))
		for _, r := range c {
			iv := func(n string, digits int) string { return ci.Format(r.Stat(n), digits, "") }
			pct := func(n string) string {
				if r.Inconclusive != "" {
					return "inconclusive"
				}
				x, ok := r.Cmp(n)
				if !ok {
					return "–"
				}
				return ci.Format(x, 1, "%")
			}
			fmt.Fprintf(&b, format, vary.label(r.Policy), iv("energy_kwh", 0), iv("energy_idle_kwh", 0), iv("kg_co2", 0), iv("gpu_cost_usd", 0),
				iv("joules_per_sample", 1), pct("energy_reduction"), pct("carbon_reduction"), pct("cost_reduction"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
