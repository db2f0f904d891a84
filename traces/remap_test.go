package traces

import (
	"strings"
	"testing"
)

func TestGPUMap(t *testing.T) {
	m, err := ParseGPUMap("a100=h100, v100=H100,a40=l20,a10=l20")
	if err != nil {
		t.Fatal(err)
	}
	if FormatGPUMap(m) != "a10=l20,a100=h100,a40=l20,v100=h100" {
		t.Errorf("parsed %v", m)
	}
	tr, _ := Load("pai")
	RemapGPUs(tr, m)
	for _, j := range tr.Jobs {
		if j.GPU != "h100" && j.GPU != "l20" {
			t.Fatalf("job %s kept %s", j.Name, j.GPU)
		}
	}
	for in, want := range map[string]string{"a100": "want FROM=TO", "a100=b200": "unknown GPU type", "a100=h100,a100=l20": "mapped twice"} {
		if _, err := ParseGPUMap(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseGPUMap(%q) = %v, want %q", in, err, want)
		}
	}
}
