package exec_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	pexec "github.com/arena-sim/arena/policy/exec"
)

// The fast actions parser must agree with encoding/json (DisallowUnknown-
// Fields) on every line it accepts, and decline the rest; it must accept
// what the Python client writes, or it would never be used. Guard against
// change of the protocol's decoding: encoding/json is the reference.
func TestFastActionsMatchEncodingJSON(t *testing.T) {
	accepted := []string{
		`{"type":"actions","round":12,"actions":[]}`,
		`{"type":"actions","round":12,"actions":[{"kind":"start","job":3,"gpus":[0,1,2,3],"reason":""},{"kind":"drop","job":4,"reason":"no fit"}]}` + "\n",
		` { "type" : "actions" , "round" : 0 , "actions" : [ { "kind" : "suspend" , "job" : 0 } ] } ` + "\r\n",
		`{"actions":[{"gpus":[],"job":-1,"kind":"start"}],"round":-5,"type":"resync","message":"out of step"}`,
		`{"type":"error","message":"boom"}`,
		`{}`,
		`{"type":"actions","round":1,"actions":[{}]}`,
	}
	declined := []string{
		`{"type":"actions","round":1.0,"actions":[]}`,
		`{"type":"actions","round":1e3,"actions":[]}`,
		`{"type":"actions","round":01,"actions":[]}`,
		`{"type":"act\u0069ons","round":1,"actions":[]}`,
		`{"type":"actions","round":1,"actions":null}`,
		`{"type":"actions","round":1,"actions":[],"extra":1}`,
		`{"type":"actions","round":1,"actions":[{"kind":"start","job":1,"gpus":[1],"why":""}]}`,
		`{"type":"actions","type":"actions","round":1}`,
		`{"type":"actions","round":1,"actions":[{"kind":"start","kind":"drop","job":1}]}`,
		`{"type":"actions","round":1234567890123456789,"actions":[]}`,
		`{"type":"actions","round":1,"actions":[]} trailing`,
		`{"type":"actions","round":1,"actions":[],}`,
		`{"type":"actions","round":1,"actions":[1]}`,
		`{"type":"actions","round":1,"actions":[{"kind":"start","job":1,"gpus":[1,]}]}`,
		`{"type":"ações","round":1,"actions":[]}`,
		`["type","actions"]`,
		`{"type":"actions","round":1`,
		``,
	}
	for _, s := range accepted {
		if !agree(t, s) {
			t.Errorf("fast parser declined %q", s)
		}
	}
	for _, s := range declined {
		if agree(t, s) {
			t.Errorf("fast parser accepted %q", s)
		}
	}
	// Random replies, and random one-byte changes of them: wherever the
	// fast parser accepts, it agrees.
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for i := 0; i < 3000; i++ {
		s := randomReply(rng)
		if agree(t, s) {
			n++
		}
		b := []byte(s)
		b[rng.IntN(len(b))] = "{}[],:\" -0123456789.eE\\ax"[rng.IntN(25)]
		agree(t, string(b))
	}
	if n != 3000 {
		t.Errorf("fast parser accepted %d of 3000 well-formed replies", n)
	}
}

// agree reports whether the fast parser accepted s, failing the test when
// it accepted s and encoding/json did not give the same reply.
func agree(t *testing.T, s string) bool {
	t.Helper()
	fast, ok := pexec.ParseActionsFast([]byte(s))
	if !ok {
		return false
	}
	slow, err := pexec.ParseActionsJSON([]byte(s))
	if err != nil {
		t.Errorf("%q: fast parser accepted, encoding/json: %v", s, err)
	} else if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: fast %+v, encoding/json %+v", s, fast, slow)
	}
	return true
}

func randomReply(rng *rand.Rand) string {
	var acts []string
	for range rng.IntN(4) {
		kind := []string{"start", "reallocate", "suspend", "drop"}[rng.IntN(4)]
		a := fmt.Sprintf(`{"kind":%q,"job":%d`, kind, rng.IntN(100000)-1)
		if rng.IntN(2) == 0 {
			gpus := make([]string, rng.IntN(9))
			for i := range gpus {
				gpus[i] = fmt.Sprint(rng.IntN(10240))
			}
			a += `,"gpus":[` + strings.Join(gpus, ",") + `]`
		}
		if rng.IntN(2) == 0 {
			r, _ := json.Marshal(fmt.Sprintf("r%d", rng.IntN(10)))
			a += `,"reason":` + string(r)
		}
		acts = append(acts, a+"}")
	}
	return fmt.Sprintf(`{"type":"actions","round":%d,"actions":[%s]}`, rng.IntN(40000), strings.Join(acts, ","))
}
