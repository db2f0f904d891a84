package clusterspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/energy"
)

// TestEnergySection: a spec's energy section overrides the built-in model
// field by field, inline or as an energy file next to the spec; an energy
// file given to the run (--energy) applies its keys over the section.
// Self-checking against the built-in constants, not an anchor.
func TestEnergySection(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "site.yaml")
	if err := os.WriteFile(site, []byte("pue: 1.4\ncarbon: 57\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inline := "name: x\npools:\n  - {gpu: h100, nodes: 2}\nenergy:\n  pue: 1.3\n  gpus:\n    h100: {idle: 70}\n  prices:\n    h100: {spot: 2.00}\n"
	spec, em, err := ParseWithEnergy(filepath.Join(dir, "c.yaml"), []byte(inline))
	if err != nil {
		t.Fatal(err)
	}
	def := energy.Default()
	h, dh := em.GPUs["h100"], def.GPUs["h100"]
	if spec.Name != "x" || em.PUE != 1.3 || h.Idle != 70 || h.TDP != dh.TDP || h.Compute != dh.Compute ||
		em.Prices["h100"].Spot != 2 || em.Prices["h100"].OnDemand != def.Prices["h100"].OnDemand || em.USDPerKWh != def.USDPerKWh {
		t.Errorf("inline section: pue %g, h100 %+v, price %+v", em.PUE, h, em.Prices["h100"])
	}
	// The run's --energy over the section: default keeps it, a file's keys win.
	if m, _ := energy.LoadOnto(em, energy.DefaultName); m.PUE != 1.3 {
		t.Errorf("--energy default over the section: pue %g, want 1.3", m.PUE)
	}
	m, err := energy.LoadOnto(em, site)
	if err != nil {
		t.Fatal(err)
	}
	if m.PUE != 1.4 || m.Intensity.Constant != 57 || m.GPUs["h100"].Idle != 70 {
		t.Errorf("--energy site.yaml over the section: pue %g, carbon %g, h100 idle %g", m.PUE, m.Intensity.Constant, m.GPUs["h100"].Idle)
	}
	if em.PUE != 1.3 {
		t.Errorf("LoadOnto changed its base: pue %g", em.PUE)
	}
	// A file reference, relative to the spec.
	_, em, err = ParseWithEnergy(filepath.Join(dir, "c.yaml"), []byte("pools:\n  - {gpu: a100, nodes: 1}\nenergy: site.yaml\n"))
	if err != nil || em.PUE != 1.4 || em.Intensity.Constant != 57 {
		t.Fatalf("file section: %v %+v", err, em)
	}
	// No section: none, and the built-in clusters have none.
	if _, em, err := ParseWithEnergy("c.yaml", []byte("pools:\n  - {gpu: a100, nodes: 1}\n")); err != nil || em != nil {
		t.Errorf("no section: %v %v", em, err)
	}
	if _, em, err := LoadWithEnergy("paper-1280"); err != nil || em != nil {
		t.Errorf("paper-1280: %v %v", em, err)
	}
}

func TestEnergySectionErrors(t *testing.T) {
	head := "name: x\npools:\n  - {gpu: a100, nodes: 2}\n"
	cases := []struct{ body, want string }{
		{head + "energy:\n  pue: 0.8\n", "c.yaml:5: key energy.pue: want a number in [1, 10]"},
		{head + "energy:\n  watts: 3\n", "c.yaml:5: key energy.watts: unknown key"},
		{head + "energy:\n  gpus:\n    a100: {tdp: 400, idel: 50}\n", "c.yaml:6: key energy.gpus.a100.idel: unknown key"},
		{head + "energy:\n  gpus:\n    a100: {idle: 500}\n", "c.yaml:5: key energy: energy: GPU type a100: want 0 ≤ idle ≤ tdp"},
		{head + "energy:\n  prices:\n    a100: {spot: -1}\n", "c.yaml:6: key energy.prices.a100.spot"},
		{head + "energy:\n  carbon: 50\n  carbon_series: de-2020-06\n", "c.yaml:6: key energy.carbon_series: give carbon (a constant) or carbon_series, not both"},
		{head + "energy: nowhere.yaml\n", "c.yaml:4: key energy: "},
		{head + "energy: [1]\n", "c.yaml:4: key energy: want a mapping"},
		{head + "energy:\n  pue: 1.2\nenergy:\n  pue: 1.3\n", "c.yaml:6: key energy: given twice"},
	}
	for _, c := range cases {
		_, _, err := ParseWithEnergy("c.yaml", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.body, err, c.want)
		}
	}
}

// TestEnergyExample: the shipped example (docs/energy.md) loads with the
// overrides it states.
func TestEnergyExample(t *testing.T) {
	spec, em, err := LoadWithEnergy("../../examples/energy/cluster-with-energy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "paper-1280-site" || len(spec.Pools) != 4 || em.PUE != 1.3 || em.USDPerKWh != 0.06 || em.GPUs["a100"].Idle != 50 {
		t.Errorf("example: %s, %d pools, pue %g, $%g/kWh, a100 idle %g", spec.Name, len(spec.Pools), em.PUE, em.USDPerKWh, em.GPUs["a100"].Idle)
	}
}
