package exec_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	pexec "github.com/arena-sim/arena/policy/exec"
)

// Lines encoding/json's Decoder takes, keeping a guess (the last of two
// keys, the first of two values), which both reply parsers refuse: a
// reply is exactly one object, no key twice at any depth, nothing after
// it. Each would have let a policy's reply act differently from what it
// appears to say.
func TestRepliesParsedStrictly(t *testing.T) {
	for _, s := range []string{
		`{"type":"actions","round":1,"actions":[{"kind":"start","job":1,"gpus":[0]}],"actions":[]}`,
		`{"type":"actions","round":1,"round":2,"actions":[]}`,
		`{"type":"actions","round":1,"actions":[{"kind":"start","job":1,"job":2,"gpus":[0]}]}`,
		`{"type":"actions","round":1,"actions":[{"kind":"start","job":1,"gpus":[0],"gpus":[1]}]}`,
		`{"type":"actions","round":1,"actions":[]} {"type":"actions","round":1,"actions":[{"kind":"drop","job":1}]}`,
		`{"type":"actions","round":1,"actions":[]}x`,
		`{"type":"actions","round":1,"actions":[]}` + "\n" + `{"type":"error"}`,
		`{"type":"act\u0069ons","round":1,"actions":[],"r\u006fund":2}`,
	} {
		// encoding/json as commonly used accepts it …
		var loose map[string]any
		if err := json.NewDecoder(strings.NewReader(s)).Decode(&loose); err != nil {
			t.Fatalf("%q: not a case encoding/json accepts: %v", s, err)
		}
		// … and arena does not.
		if _, ok := pexec.ParseActionsFast([]byte(s)); ok {
			t.Errorf("fast parser accepted %q", s)
		}
		if _, err := pexec.ParseActionsJSON([]byte(s)); err == nil {
			t.Errorf("strict parser accepted %q", s)
		}
	}
}

// FuzzReplyParsers is the differential test of the two reply parsers:
// wherever the fast one accepts, the strict one accepts the same reply;
// whatever the strict one accepts is one valid JSON value, and stops being
// accepted when a key of its top object is repeated or content follows it.
func FuzzReplyParsers(f *testing.F) {
	for _, s := range []string{
		`{"type":"actions","round":12,"actions":[]}`,
		`{"type":"actions","round":3,"actions":[{"kind":"start","job":3,"gpus":[0,1],"reason":"x"}]}`,
		`{"type":"error","message":"boom \u001b[2J"}`,
		`{"type":"actions","round":1,"actions":[],"actions":[]}`,
		` { "type" : "resync" , "message" : "a\"b" } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, okF := pexec.ParseActionsFast(data)
		strict, err := pexec.ParseActionsJSON(data)
		if okF && (err != nil || !reflect.DeepEqual(fast, strict)) {
			t.Fatalf("%q: fast %+v, strict %+v (%v)", data, fast, strict, err)
		}
		if err != nil {
			return
		}
		trimmed := bytes.TrimSpace(data)
		if !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
			t.Fatalf("%q: accepted, but not one JSON object", data)
		}
		if _, err := pexec.ParseActionsJSON(append(append([]byte{}, trimmed...), " {}"...)); err == nil {
			t.Fatalf("%q: accepted with an object after it", data)
		}
		// Repeat the first key: {"k":v,…} → {"k":v,"k":v,…}.
		var first map[string]json.RawMessage
		if json.Unmarshal(trimmed, &first) == nil {
			for k, v := range first {
				dup := append([]byte(`{"`+k+`":`+string(v)+`,`), trimmed[1:]...)
				if len(first) == 1 || json.Valid(dup) {
					if _, err := pexec.ParseActionsJSON(dup); err == nil && strings.Count(string(dup), `"`+k+`"`) > 1 {
						t.Fatalf("%q: accepted with key %q twice", dup, k)
					}
				}
				break
			}
		}
	})
}
