package sweep

import "github.com/arena-sim/arena/sim"

// row is a hand-built summary row: key and the run's summary.
func row(key string, s sim.Summary) SummaryRow { return SummaryRow{Key: key, Summary: s} }

// cmpPtr is r's comparison name as a pointer (nil: none); part is "mean",
// "lo" or "hi".
func cmpPtr(r SummaryRow, name, part string) *float64 {
	iv, ok := r.Cmp(name)
	if !ok {
		return nil
	}
	return ptrPart(iv.Mean, iv.Lo, iv.Hi, part)
}

// statPtr is r's across-seed interval of key as a pointer per part (nil:
// none).
func statPtr(r SummaryRow, key, part string) *float64 {
	iv, ok := r.Stats[key]
	if !ok {
		return nil
	}
	return ptrPart(iv.Mean, iv.Lo, iv.Hi, part)
}

func ptrPart(mean, lo, hi float64, part string) *float64 {
	v := map[string]float64{"mean": mean, "lo": lo, "hi": hi}[part]
	if v != v { // NaN: no bound (one seed)
		return nil
	}
	return &v
}
