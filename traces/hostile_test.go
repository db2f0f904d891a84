package traces

import (
	"errors"
	"io"
	"strings"
	"testing"
)

const csvHead = "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\n"

// endless is a line that never ends: a 1 GiB (or infinite) line must fail
// after MaxLineBytes, not be buffered whole (before: 15 GB peak memory).
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestTraceHostile: hand-written hostile inputs, each refused with file,
// line, column and what was expected (before: accepted silently, or
// minutes and gigabytes).
func TestTraceHostile(t *testing.T) {
	row := "j1,0,100,bert__1.3B,0,128,2,a100\n"
	cases := []struct {
		name string
		r    io.Reader
		want string
		is   error
	}{
		{"endless line", io.MultiReader(strings.NewReader(csvHead+row), endless{}), "t.csv:3: input: over a limit: line 3 over the line cap of 65536 bytes; raise it with ARENA_MAX_LINE_BYTES", ErrLimit},
		{"long field", strings.NewReader(csvHead + strings.Repeat("x", 2000) + ",0,100,bert__1.3B,0,128,2,a100\n"), ":2: column job_id: input: over a limit: field job_id over the field cap of 1024 bytes (2000 bytes); raise it with ARENA_MAX_FIELD_BYTES", ErrLimit},
		{"duplicate column", strings.NewReader(strings.TrimSuffix(csvHead, "\n") + ",num_gpu\n" + strings.TrimSuffix(row, "\n") + ",8\n"), `:1: column num_gpu: traces: bad header: column named twice (fields 7 and 9)`, ErrHeader},
		{"duplicate id", strings.NewReader(csvHead + row + "j2,5,100,bert__1.3B,0,128,2,a100\n" + row), `:4: column job_id: traces: duplicate job id: "j1" is also the id on line 2`, ErrDuplicate},
		{"non-UTF-8 id", strings.NewReader(csvHead + "j\xff\xfe,0,100,bert__1.3B,0,128,2,a100\n"), `:2: column job_id: traces: bad job id: "j\xff\xfe" is not UTF-8 text`, ErrID},
		{"control char id", strings.NewReader(csvHead + "j\x1b[31m,0,100,bert__1.3B,0,128,2,a100\n"), `"j\x1b[31m" holds U+001B (a control, bidi or zero-width character)`, ErrID},
		{"bidi id", strings.NewReader(csvHead + "j\u202egnp.exe,0,100,bert__1.3B,0,128,2,a100\n"), `holds U+202E`, ErrID},
		{"zero-width id", strings.NewReader(csvHead + "j\u200b1,0,100,bert__1.3B,0,128,2,a100\n"), `holds U+200B`, ErrID},
		{"unbalanced quote", strings.NewReader(csvHead + "\"j1,0,100,bert__1.3B,0,128,2,a100\n" + strings.Repeat(row, 3000)), "over the line cap", ErrLimit},
		{"timestamp 1e12", strings.NewReader(csvHead + row + "j2,1e12,100,bert__1.3B,0,128,2,a100\n"), ":3: column submission_time: traces: bad time: \"1e12\": over 1e+10 s", ErrTime},
		{"timestamp 1e300", strings.NewReader(csvHead + "j2,1e300,100,bert__1.3B,0,128,2,a100\n"), "over 1e+10 s (317 years; milliseconds instead of seconds?)", ErrTime},
	}
	for _, c := range cases {
		_, err := ReadArenaCSV("t.csv", c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
