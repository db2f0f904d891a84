package tiresias

import (
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy/registry"
)

// The default options give exactly DefaultConfig (so the
// registered policy did not change), and queues/threshold/growth build the
// geometric limits documented in the option help.
func TestTiresiasOptions(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(Entry())
	e, _ := reg.Lookup("tiresias")
	cfg, err := configOf(e.DefaultValues())
	if err != nil || !reflect.DeepEqual(cfg, DefaultConfig()) {
		t.Errorf("defaults give %+v, %v; want %+v", cfg, err, DefaultConfig())
	}
	s, _ := reg.Parse("tiresias(queues=4,threshold=1h,growth=10)")
	cfg, _ = configOf(s.Values)
	if want := []float64{3600, 36000, 360000}; !reflect.DeepEqual(cfg.Thresholds, want) {
		t.Errorf("thresholds %v, want %v", cfg.Thresholds, want)
	}
	// queues=0 is refused when the policy string is parsed (its Min).
	if _, err := reg.Parse("tiresias(queues=0)"); err == nil || !strings.Contains(err.Error(), "policy tiresias: option queues") {
		t.Errorf("queues=0: %v", err)
	}
}
