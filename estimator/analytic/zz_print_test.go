package analytic

import (
	"os"
	"testing"
)

func TestZZPrint(t *testing.T) {
	p, _ := DefaultParams()
	pl := Planner{Params: p}
	l, _ := pl.PredictLlama3(Llama3Table())
	PrintLlama3(os.Stdout, l)
	rows, _ := pl.PredictMegatronCore(MegatronCoreTable())
	PrintMegatronCore(os.Stdout, rows)
	s, _ := pl.PredictMegatronCoreStrong(MegatronCoreStrongTable())
	PrintMegatronCoreStrong(os.Stdout, s)
	m, _ := pl.PredictMegatron(MegatronTable())
	for _, r := range m {
		t.Logf("%s %d %.0f %.1f %+.1f%%", r.Name, r.GPUs, r.TFLOPSMeasured, r.TFLOPSPredicted, 100*(r.TFLOPSPredicted/r.TFLOPSMeasured-1))
	}
}
