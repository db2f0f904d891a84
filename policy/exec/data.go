package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/arena-sim/arena/sim/input"
)

// Everything the child says is data. Its strings reach arena's errors,
// tables and terminal only through quoteData (one-line values: a reply's
// message; its hello name must also pass input.Name) or escapeStream (its stderr, passed through
// line by line), and its replies are parsed strictly (decodeStrict):
// exactly one JSON object, no duplicate key at any depth, nothing after it.

// quoteData renders a string the child sent, for an error or a table:
// quoted, escaped and clipped as every value arena echoes (input.ClipTo),
// enough of it to act on (input.ShowBytes).
func quoteData(s string) string { return input.ClipTo(s, input.ShowBytes) }

// escapeStream appends b to dst with every byte a terminal would act on
// escaped — C0 and C1 controls but newline and tab, DEL, Unicode format
// characters (bidi overrides, zero-width), invalid UTF-8 — as \xNN or
// \u{…}, so a child's stderr prints as text and cannot move the cursor,
// recolour or reorder what arena prints. A rune cut at the end of b is
// returned in rest for the next call.
func escapeStream(dst, b []byte) (out, rest []byte) {
	const hex = "0123456789abcdef"
	for len(b) > 0 {
		if c := b[0]; c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' { // plain ASCII: most of any stream
			dst = append(dst, c)
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			if !utf8.FullRune(b) {
				return dst, b // a rune split across reads
			}
			dst = append(dst, '\\', 'x', hex[b[0]>>4], hex[b[0]&15])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&15])
		case unicode.Is(unicode.Cf, r):
			dst = fmt.Appendf(dst, `\u{%x}`, r)
		default:
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst, nil
}

// errDuplicateKey and errTrailing are the strict parser's refusals.
var (
	errDuplicateKey = errors.New("duplicate key")
	errTrailing     = errors.New("content after the message")
)

// decodeStrict decodes data, one reply line, into v: exactly one JSON
// value, nothing but whitespace after it, unknown fields refused, and no
// object with the same key twice (encoding/json would keep the last
// silently, so {"actions":[…],"actions":[]} would act on the second).
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("%w: %s", errTrailing, quoteData(string(rest)))
	}
	return checkUniqueKeys(data)
}

// checkUniqueKeys walks data's tokens (a valid JSON value: decodeStrict
// has decoded it) and refuses an object that repeats a key.
func checkUniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // object: the next string token is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object && stack[top].expect {
			if k, ok := tok.(string); ok {
				if stack[top].keys[k] {
					return fmt.Errorf("%w %s", errDuplicateKey, quoteData(k))
				}
				stack[top].keys[k] = true
				stack[top].expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
		}
		// A value ended: in an object, a key comes next.
		if n := len(stack) - 1; n >= 0 && stack[n].object {
			stack[n].expect = true
		}
	}
}
