package traces

import (
	"errors"
	"fmt"
	"io"
)

// Bounds on trace files. A real trace's lines are under 200 bytes; the
// bounds stop a hostile or corrupt file (one 1 GiB line took 15 GB of
// memory) with a clear error instead of exhausting the machine.
const (
	// MaxLineBytes bounds one physical line of a text trace.
	MaxLineBytes = 64 << 10
	// MaxFieldBytes bounds one field (a job id, a model name…).
	MaxFieldBytes = 1024
	// MaxTime bounds times in seconds (submission, deadline): about 317
	// years, above Unix timestamps in seconds (≈1.7e9, Helios uses them)
	// and below timestamps in milliseconds, the usual mistake.
	MaxTime = 1e10
)

// ErrLineTooLong is what a LineLimitReader's error unwraps to.
var ErrLineTooLong = errors.New("line too long")

// LineLimitReader passes r through but fails, naming the line, as soon as
// a line exceeds max bytes, so a reader above it (encoding/csv, a
// bufio.Scanner) never buffers more than max bytes of one line. Importers
// of other text formats use it too.
func LineLimitReader(r io.Reader, max int) io.Reader {
	return &lineLimiter{r: r, max: max, line: 1}
}

type lineLimiter struct {
	r        io.Reader
	max, cur int
	line     int
	err      error
}

// LineError reports a line over the limit.
type LineError struct {
	Line, Max int
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.Line, e.Max)
}

func (e *LineError) Unwrap() error { return ErrLineTooLong }

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	// Never hand out more than the rest of the allowance plus one line
	// break, so the check below sees every byte before the caller does.
	if len(p) > l.max+1 {
		p = p[:l.max+1]
	}
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.line++
			l.cur = 0
			continue
		}
		l.cur++
		if l.cur > l.max {
			l.err = &LineError{Line: l.line, Max: l.max}
			return i, l.err
		}
	}
	return n, err
}
