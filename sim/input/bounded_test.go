package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// endless is an input that never ends (/dev/zero, a FIFO left open).
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestReaderCaps is the class "reads that trust their input's size": each
// hostile stream stops at its cap with a *LimitError naming the cap, the
// file, the line and the variable that raises it, having handed out at
// most the cap (plus one byte) — so no parser above buffers more.
func TestReaderCaps(t *testing.T) {
	LineCap.Set(1000)
	RecordCap.Set(5000)
	InputCap.Set(20000)
	defer func() { LineCap.Set(0); RecordCap.Set(0); InputCap.Set(0) }()
	rows := strings.Repeat("a,b,c\n", 100)
	cases := []struct {
		name     string
		r        io.Reader
		opt      Options
		cap      *Cap
		line     int
		maxBytes int
	}{
		{"/dev/zero: a first line that never ends", endless(0), Options{}, LineCap, 1, 1001},
		{"a long line after good ones", io.MultiReader(strings.NewReader(rows), endless('x')), Options{}, LineCap, 101, len(rows) + 1001},
		{"a quoted field spread over many lines", io.MultiReader(strings.NewReader("id\n\""), endless('\n')), Options{Quoted: true}, LineCap, 2, 1004},
		{"a JSON record that never ends", io.MultiReader(strings.NewReader("[{\"a\":\""), endless('x')), Options{Records: true}, RecordCap, 1, 5001},
		{"an input past the input cap (short lines)", endless('\n'), Options{}, InputCap, 20001, 20001},
		{"a decompressed stream past the input cap", endless('z'), Options{BytesOnly: true}, InputCap, 1, 20001},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := io.ReadAll(NewReader("in.csv", c.r, c.opt))
			var le *LimitError
			if !errors.As(err, &le) || le.Cap != c.cap || !errors.Is(err, ErrLimit) {
				t.Fatalf("err %v, want the %s cap", err, c.cap.Name)
			}
			if le.Line != c.line {
				t.Errorf("line %d, want %d", le.Line, c.line)
			}
			if len(got) > c.maxBytes {
				t.Errorf("handed out %d bytes, want at most %d", len(got), c.maxBytes)
			}
			for _, want := range []string{"in.csv:", c.cap.Env, "docs/limits.md"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
		})
	}
	// Within every cap the reader is transparent.
	in := rows + "\"q\nq\"," + strings.Repeat("y", 900) + "\n"
	got, err := io.ReadAll(NewReader("ok.csv", strings.NewReader(in), Options{Quoted: true}))
	if err != nil || string(got) != in {
		t.Fatalf("within the caps: %d bytes, %v", len(got), err)
	}
}

// TestEnvRaisesCaps: each cap's variable raises it; a malformed one is
// reported by CheckEnv and leaves the default.
func TestEnvRaisesCaps(t *testing.T) {
	for _, c := range Caps {
		c.Set(0)
		capCache.Delete(c.Env)
		t.Setenv(c.Env, "3M")
		if got := c.Value(); got != 3<<20 {
			t.Errorf("%s=3M: %d", c.Env, got)
		}
		capCache.Delete(c.Env)
		t.Setenv(c.Env, "-1")
		if got := c.Value(); got != c.Default {
			t.Errorf("%s=-1: %d, want the default", c.Env, got)
		}
		if err := CheckEnv(); err == nil || !strings.Contains(err.Error(), c.Env) {
			t.Errorf("CheckEnv with %s=-1: %v", c.Env, err)
		}
		os.Unsetenv(c.Env)
		capCache.Delete(c.Env)
	}
}

// TestReadAllSpecCap: a file read whole stops one byte past the cap.
func TestReadAllSpecCap(t *testing.T) {
	_, err := ReadAll("spec.yaml", endless('a'))
	var le *LimitError
	if !errors.As(err, &le) || le.Cap != SpecCap || !strings.Contains(err.Error(), "ARENA_MAX_SPEC_BYTES") {
		t.Fatalf("%v", err)
	}
	p := filepath.Join(t.TempDir(), "small.yaml")
	os.WriteFile(p, []byte("a: 1\n"), 0o644)
	if b, err := ReadFile(p); err != nil || string(b) != "a: 1\n" {
		t.Fatalf("%q %v", b, err)
	}
}

var escapedOrPlain = regexp.MustCompile(`^[\x20-\x7e]*$`)

// TestClipAndName is the class "messages echo raw or unbounded values":
// Clip bounds and escapes whatever it is given; Name refuses control,
// bidi and zero-width characters and overlong names (one rule for every
// reader of ids and names).
func TestClipAndName(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("x", 10<<20), "\x1b[2J\x1b[31mred", "evil\u202egnp.exe", "a\u200bb", "\xff\xfe", "é" + strings.Repeat("é", 100), "",
	} {
		c := Clip(s)
		if len(c) > 4*ClipBytes+40 {
			t.Errorf("Clip of %d bytes gave %d bytes", len(s), len(c))
		}
		if !escapedOrPlain.MatchString(strings.Map(func(r rune) rune {
			if r > 0x7e && r != 0xfffd && r != '…' && r < 0x2000 {
				return 'x' // printable non-ASCII letters (é) may stay
			}
			return r
		}, strings.ReplaceAll(c, "…", ""))) {
			t.Errorf("Clip(%.20q) = %q holds raw control or format characters", s, c)
		}
	}
	if got := ClipError(errors.New(strings.Repeat("e", 1<<20) + "\x1b")); len(got) > 4*ClipBytes+40 {
		t.Errorf("ClipError gave %d bytes", len(got))
	}
	bad := []string{"j\x1b[31m", "j\u202e1", "j\u200b", "j\ufeff", "j\x00", "\xff", strings.Repeat("m", 2000)}
	for _, s := range bad {
		err := Name(s)
		if err == nil || !errors.Is(err, ErrName) {
			t.Errorf("Name(%.20q): %v, want ErrName", s, err)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("Name(%.20q): a %d-byte message", s, len(err.Error()))
		}
	}
	for _, s := range []string{"job-1", "bert__1.3B", "用户", "a b", ""} {
		if err := Name(s); err != nil {
			t.Errorf("Name(%q): %v", s, err)
		}
	}
}

// TestCounts is the class "sizes a user names, allocated as given": one
// rule, a floor and a documented cap.
func TestCounts(t *testing.T) {
	CountCap.Set(1000)
	defer CountCap.Set(0)
	for _, c := range []struct {
		n, min int64
		ok     bool
	}{{1, 1, true}, {1000, 0, true}, {0, 1, false}, {-5, 0, false}, {1001, 0, false}, {1 << 62, 0, false}} {
		err := Count("copies", c.n, c.min, nil)
		if (err == nil) != c.ok {
			t.Errorf("Count(%d, min %d): %v", c.n, c.min, err)
		}
	}
	var le *LimitError
	if err := Count("copies", 5000, 1, nil); !errors.As(err, &le) || !strings.Contains(err.Error(), "ARENA_MAX_COUNT") {
		t.Errorf("over the cap: %v", err)
	}
	if Product(1<<40, 1<<40) != 1<<63-1 || Product(3, 4) != 12 || Product(-1, 5) != 0 {
		t.Error("Product")
	}
	if Sum(1<<62, 1<<62) != 1<<63-1 || Sum(1<<63-1, 1) != 1<<63-1 || Sum(3, 4) != 7 {
		t.Error("Sum")
	}
	nan := 0.0
	nan = nan / nan
	for _, v := range []float64{nan, 1 / (nan - nan + 0)} {
		if Range("x", v, 0, 1) == nil {
			t.Errorf("Range(%v) accepted", v)
		}
	}
}

// FuzzReader: the output is always a prefix of the input; with only the
// line cap in force the reader fails exactly when some line is longer.
func FuzzReader(f *testing.F) {
	f.Add([]byte("ab\ncd\n"), uint8(2), false)
	f.Add([]byte("abc"), uint8(2), false)
	f.Add([]byte("\"a\nb\"\nxx"), uint8(3), true)
	f.Add([]byte("\n\n\nxxxxxxxx"), uint8(1), false)
	f.Fuzz(func(t *testing.T, in []byte, max uint8, quoted bool) {
		r := &Reader{r: bytes.NewReader(in), file: "f", opt: Options{Quoted: quoted}, maxLine: int64(max), maxRecord: 1 << 30, maxBytes: 1 << 30, line: 1, start: 1}
		got, err := io.ReadAll(r)
		if !bytes.HasPrefix(in, got) {
			t.Fatalf("output %q is not a prefix of the input", got)
		}
		if quoted {
			return
		}
		tooLong := false
		for _, line := range strings.Split(string(in), "\n") {
			if len(line) > int(max) {
				tooLong = true
			}
		}
		if tooLong != (err != nil) || err != nil && !errors.Is(err, ErrLimit) {
			t.Fatalf("max %d, line too long %v, err %v", max, tooLong, err)
		}
	})
}

// TestErrorf: string arguments are clipped and escaped whatever the verb.
func TestErrorf(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	err := Errorf("a %q b %s c %v d %d", long, "\x1b[2J"+long, "ok", 7)
	if len(err.Error()) > 40*ClipBytes || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("%d bytes, escape char kept: %.200q", len(err.Error()), err.Error())
	}
	if got := Errorf("known: %s; got %q", "philly, pollux", "x").Error(); got != `known: philly, pollux; got "x"` {
		t.Fatalf("%s", got)
	}
}

// TestLimitsDocumented keeps docs/limits.md in step with the caps: each
// variable has a row that states its default.
func TestLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		for _, c := range Caps {
			if strings.HasPrefix(line, "|") && strings.Contains(line, "`"+c.Env+"`") {
				rows[c.Env] = line
			}
		}
	}
	for _, c := range Caps {
		row, ok := rows[c.Env]
		if !ok {
			t.Errorf("docs/limits.md has no row for %s", c.Env)
			continue
		}
		d := c.Default
		forms := []string{strconv.FormatInt(d, 10), grouped(d)}
		for _, u := range []struct {
			n    int64
			unit string
		}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
			if d%u.n == 0 {
				forms = append(forms, fmt.Sprintf("%d %s", d/u.n, u.unit))
			}
		}
		found := false
		for _, f := range forms {
			found = found || strings.Contains(row, " "+f+" ") || strings.Contains(row, "| "+f+" |")
		}
		if !found {
			t.Errorf("docs/limits.md row of %s does not state its default %d (as any of %q): %s", c.Env, d, forms, row)
		}
	}
}

func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Every cap at its extremes, through every bounded read: the smallest
// values the parser accepts (1) and the largest (2^63 − 1) work as caps —
// a valid input under the largest is read whole, not read as empty or
// cut — and 0 and one past the largest are refused by CheckEnv naming the
// variable. Before PlusOne, a cap of 2^63 − 1 wrapped "cap + 1" negative:
// ReadAll returned nothing ("empty spec" for a valid spec) and Reader.Read
// panicked with "slice bounds out of range".
func TestCapsAtTheirExtremes(t *testing.T) {
	const text = "a,b\n1,2\n"
	for _, c := range Caps {
		for _, tc := range []struct {
			env string
			ok  bool
		}{{"0", false}, {"1", true}, {"9223372036854775807", true}, {"9223372036854775808", false}, {"8589934592G", false}, {"-1", false}} {
			t.Setenv(c.Env, tc.env)
			c.Set(0) // drop the cached value
			if err := CheckEnv(); (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), c.Env)) {
				t.Errorf("%s=%s: CheckEnv %v, want ok %v naming the variable", c.Env, tc.env, err, tc.ok)
			}
		}
		t.Setenv(c.Env, "9223372036854775807")
		c.Set(0)
		if c.Value() != math.MaxInt64 {
			t.Fatalf("%s: Value %d", c.Env, c.Value())
		}
		for _, opt := range []Options{{}, {Quoted: true}, {Records: true}, {BytesOnly: true}} {
			data, err := io.ReadAll(NewReader("t.csv", strings.NewReader(text), opt))
			if err != nil || string(data) != text {
				t.Errorf("%s at 2^63−1, %+v: read %q, %v", c.Env, opt, data, err)
			}
		}
		if data, err := ReadAll("s.yaml", strings.NewReader(text)); err != nil || string(data) != text {
			t.Errorf("%s at 2^63−1: ReadAll %q, %v", c.Env, data, err)
		}
		os.Unsetenv(c.Env)
		c.Set(0)
	}
	if PlusOne(math.MaxInt64) != math.MaxInt64 || PlusOne(0) != 1 {
		t.Error("PlusOne does not saturate")
	}
}

// chunky hands out its input in the chunk sizes of its list, in turn.
type chunky struct {
	in    []byte
	sizes []int
	k     int
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.in), c.sizes[c.k%len(c.sizes)])
	c.k++
	copy(p, c.in[:n])
	c.in = c.in[n:]
	return n, nil
}

// FuzzFastPath checks the mechanism of Reader.fast (a line at a time for
// quote-free chunks) against the byte loop it shortcuts, on the same
// input in the same chunks: the same bytes handed out, the same error
// (cap, line, message) and the same counts after every read. Not a
// golden: the byte loop is the reference.
func FuzzFastPath(f *testing.F) {
	f.Add([]byte("ab\ncd\n"), uint8(2), uint16(100), uint8(0), uint8(3))
	f.Add([]byte("a,b\n\"q\nq\",c\nxyz\n"), uint8(4), uint16(100), uint8(1), uint8(2))
	f.Add([]byte("\n\n\nxxxxxxxx"), uint8(1), uint16(9), uint8(0), uint8(5))
	f.Add([]byte("[{\"a\":1},\n{\"b\":2}]"), uint8(3), uint16(30), uint8(2), uint8(7))
	f.Add([]byte("zzzzzzzzzzzz"), uint8(3), uint16(5), uint8(3), uint8(4))
	f.Fuzz(func(t *testing.T, in []byte, maxLine uint8, maxBytes uint16, mode uint8, chunk uint8) {
		opts := []Options{{}, {Quoted: true}, {Records: true}, {BytesOnly: true}}
		opt := opts[int(mode)%len(opts)]
		sizes := []int{int(chunk%17) + 1, int(chunk/17) + 1, 64}
		read := func(noFast bool) ([]byte, error, Reader) {
			r := &Reader{r: &chunky{in: in, sizes: sizes}, file: "f", opt: opt, maxLine: int64(maxLine),
				maxRecord: int64(maxLine) * 2, maxBytes: int64(maxBytes), line: 1, start: 1, noFast: noFast}
			got, err := io.ReadAll(r)
			st := *r
			st.r, st.err, st.noFast = nil, nil, false
			return got, err, st
		}
		got, err, st := read(false)
		want, wantErr, wantSt := read(true)
		if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) || st != wantSt {
			t.Fatalf("fast path: %q, %v, %+v\nbyte loop: %q, %v, %+v", got, err, st, want, wantErr, wantSt)
		}
	})
}
