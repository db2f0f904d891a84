package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestReferencePageCurrent: docs/metrics.md is what the catalogue
// generates (run make docs after changing a row).
func TestReferencePageCurrent(t *testing.T) {
	cur, err := os.ReadFile(filepath.Join("..", "..", ReferencePage))
	if err != nil {
		t.Fatalf("%s: %v (run make docs)", ReferencePage, err)
	}
	if string(cur) != Reference() {
		t.Errorf("%s differs from the metric catalogue: run make docs", ReferencePage)
	}
}

// filled is a summary with every numeric field set to a distinct value,
// its sections present, so a getter reading the wrong field is caught.
func filled(t *testing.T) sim.Summary {
	t.Helper()
	var s sim.Summary
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Int, reflect.Int64:
			n++
			v.SetInt(int64(n))
		case reflect.Float64:
			n++
			v.SetFloat(float64(n) + 0.5)
		}
	}
	fill(reflect.ValueOf(&s).Elem())
	return s
}

// leaves flattens summary.json's numeric fields to their dotted paths
// (maps and lists — utilisation by type, faults by cause, tenants — are
// families, not rows).
func leaves(prefix string, m map[string]any, out map[string]float64) {
	for k, v := range m {
		switch x := v.(type) {
		case float64:
			out[prefix+k] = x
		case map[string]any:
			if k == "utilization" || k == "by_cause" {
				continue
			}
			leaves(prefix+k+".", x, out)
		}
	}
}

// TestCatalogueCoversSummary: every numeric field of summary.json (of a
// run with every section) has exactly one catalogue row, at its path, and
// the row's getter returns the value summary.json holds. Fails when a
// field is added to sim.Summary without its row, or a getter reads the
// wrong field.
func TestCatalogueCoversSummary(t *testing.T) {
	s := filled(t)
	s.Finished = 7 // finished-only statistics have values
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	leaves("", m, want)
	// The run's parameters are columns of their own, not metrics.
	delete(want, "density")
	delete(want, "seed")
	rows := map[string]int{}
	for i := range Catalogue {
		rows[Catalogue[i].JSONPath()]++
	}
	for path, v := range want {
		mt, ok := Lookup(path)
		if !ok || mt.JSONPath() != path {
			t.Errorf("summary.json's %s has no catalogue row", path)
			continue
		}
		if rows[path] != 1 {
			t.Errorf("%s has %d catalogue rows", path, rows[path])
		}
		if got, ok := mt.Value(&s); !ok || got != v {
			t.Errorf("%s: the getter reads %v (%v), summary.json holds %v", mt.Key, got, ok, v)
		}
	}
	for i := range Catalogue {
		if _, ok := want[Catalogue[i].JSONPath()]; !ok {
			t.Errorf("row %s names %s, which summary.json does not have", Catalogue[i].Key, Catalogue[i].JSONPath())
		}
	}
}

// TestRowsWellFormed: keys and columns are unique, every row has a unit,
// a doc line and a getter, compared metrics have a direction, and a
// section's metrics have no value in a run without the section.
func TestRowsWellFormed(t *testing.T) {
	keys, cols, cmps := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var bare sim.Summary
	for _, m := range Catalogue {
		if keys[m.Key] || (m.ColumnName() != "-" && cols[m.ColumnName()]) {
			t.Errorf("%s: key or column used twice", m.Key)
		}
		keys[m.Key], cols[m.ColumnName()] = true, true
		if m.Unit == "" || m.Doc == "" || m.Get == nil || strings.Contains(m.Doc, "\n") {
			t.Errorf("%s: needs a unit, a one-line doc and a getter", m.Key)
		}
		if m.Compared != "" && (m.Better == Neither || cmps[m.Compared]) {
			t.Errorf("%s: a compared metric needs a direction and its own comparison name", m.Key)
		}
		cmps[m.Compared] = true
		if m.Section.Optional() {
			if _, ok := m.Value(&bare); ok {
				t.Errorf("%s: a value in a run without its section", m.Key)
			}
		}
	}
}

// TestPair: hand-worked comparisons. Arena's 50 s against fcfs's 100 s is
// a reduction of 1 − 50/100 = 0.5; a throughput of 12 against 6 a ratio
// of 2; a zero denominator is no value.
func TestPair(t *testing.T) {
	jct, _ := Lookup("submitted_mean_jct_s")
	thr, _ := Lookup("mean_throughput")
	a := &sim.Summary{SubmittedMeanJCT: 50, MeanThroughput: 12}
	b := &sim.Summary{SubmittedMeanJCT: 100, MeanThroughput: 6}
	if got := jct.Pair(a, b); got != 0.5 {
		t.Errorf("reduction %v, want 0.5", got)
	}
	if got := thr.Pair(a, b); got != 2 {
		t.Errorf("ratio %v, want 2", got)
	}
	if got := jct.Pair(a, &sim.Summary{}); got == got {
		t.Errorf("against 0: %v, want NaN", got)
	}
}
