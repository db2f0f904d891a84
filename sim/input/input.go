package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error locates a problem in an input.
type Error struct {
	// File names the input: a path, or what the text was when it is no
	// file ("policy tiresias").
	File string
	// Line is 1-based; 0 when not known or not a file.
	Line int
	// Kind says what Field names ("key", "option"; "" for a table's
	// column, whose name says it); Field is "" when the problem is the
	// whole input.
	Kind  string
	Field string
	Err   error
}

// Error renders "file:line: kind field: message", leaving out the parts
// not known.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Field != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		if e.Kind != "" {
			b.WriteString(e.Kind + " ")
		}
		b.WriteString(KeyName(e.Field))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Err == nil {
		b.WriteString("invalid")
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Key is Field without a list index ("policies[2]" → "policies"): the
// key a run's field error names.
func (e *Error) Key() string {
	k, _, _ := strings.Cut(e.Field, "[")
	return k
}

// At is an Error at a YAML node's line, for key.
func At(file string, n *yaml.Node, key string, format string, args ...any) *Error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: file, Line: line, Kind: "key", Field: key, Err: fmt.Errorf(format, args...)}
}

// ShowValue renders a value read from an input file for an error message
// without echoing the file: a plain token (letters, digits and . _ + - :
// at most 40 bytes) is quoted; anything else is only described by its
// length, so a misplaced /etc/shadow or a key file never ends up in a
// terminal, a CI log or a bug report.
func ShowValue(s string) string {
	if isPlain(s, 40) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("(a value of %d bytes, not shown: not a plain word)", len(s))
}

// KeyName shows a key from the file: as is when it is a plain word (dots
// joining nested keys and [i] list indices included), otherwise
// described, not quoted (ShowValue).
func KeyName(s string) string {
	if isPlain(strings.NewReplacer("[", "", "]", "").Replace(s), 64) {
		return s
	}
	return ShowValue(s)
}

func isPlain(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r)) {
			return false
		}
	}
	return true
}

// YAMLErrorText keeps a YAML error's location and kind but drops the
// offending text, which the library quotes.
func YAMLErrorText(err error) string {
	msg := err.Error()
	if i := strings.IndexAny(msg, "`'\""); i >= 0 {
		msg = strings.TrimSpace(msg[:i]) + " …"
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrorLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// OneDocument parses data as one YAML document and returns its root
// value (nil for an empty document). what names the input in messages
// ("a spec", "a cluster spec").
func OneDocument(file, what string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Line: yamlErrorLine(err), Err: fmt.Errorf("not valid YAML: %s", YAMLErrorText(err))}
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		line := second.Line
		if err != nil {
			line = yamlErrorLine(err)
		}
		return nil, &Error{File: file, Line: line, Err: fmt.Errorf("a second YAML document (after ---); %s is one document", what)}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// Mapping walks the key/value pairs of mapping node n in file order,
// calling visit with each key as written. It rejects a node that is no
// mapping, a key not in known (nil accepts every key; canon maps a key to
// the name it stands for, nil for none) and a key given twice, each at its
// file:line with the key (prefix + key, for nested mappings). visit's
// error is returned as is.
func Mapping(file, prefix string, n *yaml.Node, known []string, canon func(string) string, visit func(key string, k, v *yaml.Node) error) error {
	if n == nil || n.Kind != yaml.MappingNode {
		line := 0
		if n != nil {
			line = n.Line
		}
		err := &Error{File: file, Line: line, Err: fmt.Errorf("want a mapping with keys %s", strings.Join(known, ", "))}
		if prefix != "" {
			err.Kind, err.Field = "key", strings.TrimSuffix(prefix, ".")
		}
		return err
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if canon != nil {
			key = canon(key)
		}
		if known != nil && !contains(known, key) {
			return At(file, k, prefix+k.Value, "unknown key (known: %s)", strings.Join(known, ", "))
		}
		if line, dup := first[key]; dup {
			return At(file, k, prefix+k.Value, "given twice (first on line %d)", line)
		}
		first[key] = k.Line
		if err := visit(key, k, v); err != nil {
			return err
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
