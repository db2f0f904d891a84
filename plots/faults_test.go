package plots

import (
	"strings"
	"testing"
)

// The availability figure has a panel per GPU type whose y axis holds the
// lowest point and the type's total (hand-worked: 320 GPUs, one node of 8
// down → 312 fits between the axis' ends), a legend naming only the mark
// kinds present (a failure, no drain), and it renders.
func TestAvailabilityPanelsAndLegend(t *testing.T) {
	types := []AvailType{
		{GPU: "h100", Total: 320, Times: []float64{3600, 7200}, Avail: []float64{312, 320}, Marks: []FaultMark{{Time: 3600, Kind: "down", Avail: 312}}},
		{GPU: "a10", Total: 16},
	}
	f, err := Availability(types, 86400)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 2 || f.Panels[0].Title.Text != "h100 (320 GPUs)" {
		t.Fatalf("%d panels, first %q", len(f.Panels), f.Panels[0].Title.Text)
	}
	if p := f.Panels[0]; !(p.Y.Min <= 312 && p.Y.Max > 320) {
		t.Errorf("y axis [%g, %g] does not hold 312 and 320", p.Y.Min, p.Y.Max)
	}
	var labels []string
	for _, l := range f.Legend {
		labels = append(labels, l.Label)
	}
	got := strings.Join(labels, "|")
	if !strings.Contains(got, "node failure") || strings.Contains(got, "maintenance") {
		t.Errorf("legend %q: want the failure mark and no maintenance mark", got)
	}
	if _, err := f.Encode(Render{Format: "png"}); err != nil {
		t.Fatal(err)
	}
}

// The lost-work panels share one y scale (the largest cumulative value,
// 5 % above) and the legend is the first panel's policies.
func TestCumulativeLostSharedScale(t *testing.T) {
	panels := []LostPanel{
		{Title: "a", Lines: []LostLine{{Label: "arena", Times: []float64{0, 100}, GPUHours: []float64{0, 2}}, {Label: "fcfs", Times: []float64{0, 100}, GPUHours: []float64{0, 1}}}},
		{Title: "b", Lines: []LostLine{{Label: "arena", Times: []float64{0, 100}, GPUHours: []float64{0, 40}}, {Label: "fcfs", Times: []float64{0, 100}, GPUHours: []float64{0, 20}}}},
	}
	f, err := CumulativeLost(panels, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Panels {
		if p.Y.Max != 42 {
			t.Errorf("panel %q: y max %g, want 42 (40 × 1.05)", p.Title.Text, p.Y.Max)
		}
	}
	if len(f.Legend) != 2 || f.Legend[0].Label != "arena" {
		t.Errorf("legend %+v", f.Legend)
	}
	if _, err := f.Encode(Render{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
}
