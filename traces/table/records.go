package table

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"strings"
)

// records reads CSV records as encoding/csv does (Comma ',', no comment
// character, FieldsPerRecord −1, strict quotes, ReuseRecord), splitting a
// line with no quote character itself: such a line's fields are what lie
// between its commas, and the split costs a fraction of csv.Reader's
// field-by-field parse. The first line holding a quote (a quoted field
// may run over several lines), longer than the buffer or cut by a read
// error hands the rest of the input, from that line on, to a csv.Reader,
// which then reads every later line: behind as many empty lines as were
// read before (csv skips them and counts them), so that its line numbers
// are the file's.
type records struct {
	br   *bufio.Reader
	cr   *csv.Reader // set once handed over
	line int         // lines read (the last record's line in the split)
	rec  []string
}

func newRecords(r io.Reader) *records {
	return &records{br: bufio.NewReaderSize(r, 64<<10)}
}

// Read returns the next record (valid until the next Read), io.EOF at the
// end.
func (c *records) Read() ([]string, error) {
	if c.cr != nil {
		return c.cr.Read()
	}
	for {
		raw, err := c.br.ReadSlice('\n')
		if err == io.EOF && len(raw) == 0 {
			return nil, io.EOF
		}
		if (err != nil && err != io.EOF) || bytes.IndexByte(raw, '"') >= 0 {
			return c.handOver(raw)
		}
		c.line++
		line := raw
		if err == io.EOF && line[len(line)-1] == '\r' {
			line = line[:len(line)-1] // csv drops a trailing \r before EOF
		}
		// The record is the line less its end (\n or \r\n).
		n := len(line)
		if n > 0 && line[n-1] == '\n' {
			n--
			if n > 0 && line[n-1] == '\r' {
				n--
			}
		}
		if n == 0 {
			continue // csv skips empty lines
		}
		s := string(line[:n])
		c.rec = c.rec[:0]
		for {
			i := strings.IndexByte(s, ',')
			if i < 0 {
				c.rec = append(c.rec, s)
				break
			}
			c.rec = append(c.rec, s[:i])
			s = s[i+1:]
		}
		return c.rec, nil
	}
}

// handOver makes a csv.Reader read from raw, the line just read (not
// counted), on.
func (c *records) handOver(raw []byte) ([]string, error) {
	lead := strings.NewReader(strings.Repeat("\n", c.line))
	c.cr = csv.NewReader(io.MultiReader(lead, bytes.NewReader(bytes.Clone(raw)), c.br))
	c.cr.ReuseRecord = true
	c.cr.FieldsPerRecord = -1
	return c.cr.Read()
}

// Line is the line of the last record read (its first field's).
func (c *records) Line() int {
	if c.cr != nil {
		line, _ := c.cr.FieldPos(0)
		return line
	}
	return c.line
}
