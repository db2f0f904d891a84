package input_test

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/overheadprofile"
)

// Every YAML reader goes through the one walker: each rejects a second
// document, a key given twice and an unknown key at file:line: key, and
// its error is an *input.Error naming the line and key. Hand-worked
// cases: the line numbers are counted in the texts below. (The overhead
// profile reader used to read the first document and ignore the rest.)
func TestEveryYAMLReaderIsStrict(t *testing.T) {
	readers := map[string]struct {
		ok    string
		parse func(file string, data []byte) error
	}{
		"spec": {"traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: exact\n", func(f string, d []byte) error {
			_, err := sweep.ParseSpec(f, "", d)
			return err
		}},
		"cluster": {"name: c\npools:\n  - {gpu: a100, nodes: 2}\nname: d\n", func(f string, d []byte) error {
			_, err := clusterspec.Parse(f, d)
			return err
		}},
		"overheads": {"name: o\nclasses:\n  fcfs: {fixed: 1}\n", func(f string, d []byte) error {
			_, err := overheadprofile.Parse(f, d)
			return err
		}},
	}
	for name, r := range readers {
		ok := r.ok
		if name == "cluster" {
			ok = strings.TrimSuffix(ok, "name: d\n")
		}
		if err := r.parse("f.yaml", []byte(ok)); err != nil {
			t.Fatalf("%s: the valid text failed: %v", name, err)
		}
		lines := strings.Count(ok, "\n")
		for _, c := range []struct {
			what, text string
			line       int
			key, msg   string
		}{
			{"second document", ok + "---\nname: x\n", lines + 1, "", "a second YAML document"}, // the line of its ---
			{"duplicate key", ok + "name: again\n", lines + 1, "name", "given twice"},
			{"unknown key", ok + "colour: red\n", lines + 1, "colour", "unknown key"},
		} {
			text := c.text
			if name == "spec" && c.key == "name" {
				text = "name: a\n" + ok + "name: again\n"
				c.line++
			}
			err := r.parse("f.yaml", []byte(text))
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Errorf("%s, %s: %v, want an *input.Error", name, c.what, err)
				continue
			}
			if ie.File != "f.yaml" || ie.Line != c.line || ie.Field != c.key || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s, %s: %q at %s:%d key %q, want f.yaml:%d key %q, %q", name, c.what, err, ie.File, ie.Line, ie.Field, c.line, c.key, c.msg)
			}
		}
	}
}

func TestErrorRendering(t *testing.T) {
	cause := errors.New("want 1")
	for _, c := range []struct {
		e    input.Error
		want string
	}{
		{input.Error{File: "s.yaml", Line: 5, Kind: "key", Field: "rounds", Err: cause}, "s.yaml:5: key rounds: want 1"},
		{input.Error{File: "t.csv", Line: 12, Field: "gpus", Err: cause}, "t.csv:12: gpus: want 1"},
		{input.Error{File: "policy tiresias", Kind: "option", Field: "queues", Err: cause}, "policy tiresias: option queues: want 1"},
		{input.Error{File: "c.yaml", Err: cause}, "c.yaml: want 1"},
		{input.Error{File: "c.yaml", Line: 2, Kind: "key", Field: "/etc/shadow", Err: cause}, "c.yaml:2: key (a value of 11 bytes, not shown: not a plain word): want 1"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
		if !errors.Is(&c.e, cause) {
			t.Errorf("%q does not wrap its cause", c.want)
		}
	}
}

func TestMappingNested(t *testing.T) {
	doc, err := input.OneDocument("f.yaml", "a file", []byte("a:\n  b: 1\n  b: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = input.Mapping("f.yaml", "", doc, []string{"a"}, nil, func(_ string, _, v *yaml.Node) error {
		return input.Mapping("f.yaml", "a.", v, []string{"b"}, nil, func(string, *yaml.Node, *yaml.Node) error { return nil })
	})
	if err == nil || err.Error() != "f.yaml:3: key a.b: given twice (first on line 2)" {
		t.Errorf("nested duplicate: %v", err)
	}
}
