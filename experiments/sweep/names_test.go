package sweep

import (
	"errors"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/overheadprofile"
	"github.com/arena-sim/arena/sim/tenants"
)

// TestNamesPrintedAreChecked is the class "a name a user or a file gives
// that tables, logs and results print": each is held to input.Name when
// parsed — no bidi override, zero-width or other format character (Cf),
// which reorder or hide what a terminal shows — and refused naming the
// file, the line and the key. Before, a cluster spec's name (checked for
// Cc only), a sweep spec's name and labels, a synthesised trace's name,
// a tenant's VC name and an overhead profile's name were printed raw.
func TestNamesPrintedAreChecked(t *testing.T) {
	const body = "clusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\n"
	for _, bad := range []string{"\u202e", "\u200b", "\u2066", "\u061c"} {
		name := "ab" + bad + "cd"
		cases := []struct {
			what  string
			parse func() error
			file  string
			line  int
			key   string
		}{
			{"cluster spec name", func() error {
				_, err := clusterspec.Parse("c.yaml", []byte("name: "+name+"\npools:\n  - {gpu: a100, nodes: 1, gpus_per_node: 8}\n"))
				return err
			}, "c.yaml", 1, "name"},
			{"sweep spec name", func() error {
				_, err := ParseSpec("s.yaml", "", []byte("traces: [testbed]\n"+body+"name: "+name+"\n"))
				return err
			}, "s.yaml", 5, "name"},
			{"sweep spec label", func() error {
				_, err := ParseSpec("s.yaml", "", []byte("traces: [testbed]\n"+body+"labels:\n  fcfs: "+name+"\n"))
				return err
			}, "s.yaml", 6, "labels"},
			{"synthesised trace name", func() error {
				_, err := ParseSpec("s.yaml", "", []byte("synth:\n  from: philly-pollux\n  name: "+name+"\n"+body))
				return err
			}, "s.yaml", 3, "synth.name"},
			{"tenant VC name", func() error {
				_, err := tenants.Parse("t.yaml", []byte("tenants:\n  "+name+": {weight: 2}\n"))
				return err
			}, "t.yaml", 2, "tenants"},
			{"overhead profile name", func() error {
				_, err := overheadprofile.Parse("o.yaml", []byte("name: "+name+"\nclasses:\n  fcfs: {first_start: {fixed: 1}}\n"))
				return err
			}, "o.yaml", 1, "name"},
		}
		for _, c := range cases {
			err := c.parse()
			var ie *input.Error
			if !errors.As(err, &ie) || ie.File != c.file || ie.Line != c.line || ie.Field != c.key || !errors.Is(err, input.ErrName) {
				t.Errorf("%s holding %U: %v; want an input.ErrName at %s:%d key %s", c.what, []rune(bad)[0], err, c.file, c.line, c.key)
				continue
			}
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: the message carries %U raw: %q", c.what, []rune(bad)[0], err)
			}
		}
	}
}
