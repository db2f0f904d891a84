package table

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every record with read, noting each record's line, and
// the error that ended it.
func readAll(read func() ([]string, error), line func() int) (out []string) {
	for {
		rec, err := read()
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		out = append(out, fmt.Sprintf("%d %q", line(), slices.Clone(rec)))
	}
}

// sameAsCSV fails t unless records reads input as csv.Reader does: the
// same records on the same lines, the same error (csv.Reader is the
// oracle, not a golden).
func sameAsCSV(t *testing.T, input string, wrap func(io.Reader) io.Reader) {
	t.Helper()
	cr := csv.NewReader(wrap(strings.NewReader(input)))
	cr.ReuseRecord, cr.FieldsPerRecord = true, -1
	want := readAll(cr.Read, func() int { l, _ := cr.FieldPos(0); return l })
	r := newRecords(wrap(strings.NewReader(input)))
	got := readAll(r.Read, r.Line)
	if !slices.Equal(got, want) {
		t.Errorf("input %q:\n got %q\nwant %q", input, got, want)
	}
}

// TestRecordsAsCSV: the split of quote-free lines and the hand-over to
// csv.Reader read what csv.Reader reads: line ends (LF, CRLF, a lone CR
// before EOF or inside a line), empty lines, a last line without an end,
// quoted fields (over several lines, with doubled quotes) after split
// lines, bare and unterminated quotes (errors on the file's lines), a line
// longer than the buffer, and a read error part-way.
func TestRecordsAsCSV(t *testing.T) {
	long := strings.Repeat("x", 70<<10)
	for _, in := range []string{
		"", "\n", "\r\n", "\r", "a", "a,b\n", "a,b\r\n", "a,b\r", "a,,b,\n,\n",
		"h1,h2\n\n\n1,2\r\n\r\n3,4", "a\rb,c\n", "a,b\r\r\n", " a , b \n",
		"h\n1,2\n\"q\",3\n4,5\n", "h\n\n1,2\n\"multi\nline\",x\n9,9\n", "h\n1,\"a\"\"b\"\n2\n",
		"h\n1,2\nx\"y,3\n", "h\n1,2\n\"open,3\n4\n", "h\n1,2\n\"a\"b,3\n",
		"h\n" + long + ",1\n2,3\n", "\"h\"\n1\n",
	} {
		sameAsCSV(t, in, func(r io.Reader) io.Reader { return r })
		sameAsCSV(t, in, iotest.OneByteReader)
	}
	// A read error after some lines: both return it, after the same records.
	boom := errors.New("boom")
	for _, in := range []string{"h\n1,2\n3,", "h\n1,2\n", "h\n\"1\",2\n3"} {
		sameAsCSV(t, in, func(r io.Reader) io.Reader { return io.MultiReader(r, iotest.ErrReader(boom)) })
	}
}

// FuzzRecords: on any input, records reads what csv.Reader reads.
func FuzzRecords(f *testing.F) {
	for _, s := range []string{"h1,h2\n1,2\n", "a\r\n\r\n\"b\nc\",d\n", "x\"y\n", "a,b\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sameAsCSV(t, in, func(r io.Reader) io.Reader { return r })
	})
}
