package exec

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The child process's management: how it is started, how every read and
// write with it is bounded, and how it is torn down. The rules (doc.go,
// "Process"):
//
//   - The child runs in its own process group, so that teardown reaches
//     its children too, and so that a terminal's Ctrl-C reaches arena only:
//     arena decides when the policy stops.
//   - arena owns the pipes (no os/exec copying goroutines), so nothing a
//     grandchild holds open can keep arena waiting: once the child has
//     exited its group is killed, and the pipes are read to their end for at
//     most exitGrace more.
//   - Every write has a deadline (Config.Timeout), like every read: a policy
//     that stops reading cannot block arena in a full pipe.
//   - A reply line is at most Config.MaxLine bytes; a longer one ends the run
//     with an error naming the cap, before it is held in memory.
//   - The run's context (Config.Context) aborts a wait at once: the group is
//     killed and the wait returns the context's error (an interrupt, a
//     sweep's --run-timeout).

// DefaultMaxLine caps one reply line (64 MiB: a start on every slot of a
// 2.5-million-GPU cluster fits).
const DefaultMaxLine = 64 << 20

// exitGrace bounds how long the pipes are read after the child has exited
// and its group was killed: only a process that left the group (setsid)
// can still hold them open then.
const exitGrace = 2 * time.Second

// stderrTail is how much of the end of the child's stderr an exit error
// quotes.
const stderrTail = 1 << 10

// errLineTooLong is what the reader reports for a reply over the cap.
var errLineTooLong = errors.New("reply line too long")

// process is the running child.
type process struct {
	cmd     *osexec.Cmd
	stdin   *os.File // our end: pollable, so writes take a deadline
	stdout  *os.File
	stderr  *os.File
	lines   chan line     // stdout, line by line; closed after its end
	exited  chan struct{} // closed once the child has exited (and its group was killed)
	waitErr error         // set before exited is closed
	errDone chan struct{} // closed once stderr is read to its end
	tail    tailBuffer
	maxLine int

	ctx     context.Context
	aborted atomic.Bool // the context ended the session
	stop    func() bool // unregisters the context's abort
}

// startProcess starts cfg.Command in its own process group with arena's
// pipes on its stdin, stdout and stderr.
func startProcess(cfg Config) (*process, error) {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pr := &process{lines: make(chan line, 1), exited: make(chan struct{}), errDone: make(chan struct{}), maxLine: cfg.MaxLine, ctx: ctx}
	if pr.maxLine <= 0 {
		pr.maxLine = DefaultMaxLine
	}
	// A missing working directory fails the child's chdir, which os/exec
	// reports as the command not found: say what is missing instead.
	if cfg.Dir != "" {
		if fi, err := os.Stat(cfg.Dir); err != nil {
			return nil, fmt.Errorf("dir=%s: %w", quoteData(cfg.Dir), err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("dir=%s: not a directory", quoteData(cfg.Dir))
		}
	}
	cmd := osexec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	cmd.SysProcAttr = groupAttr()
	var child []*os.File // the child's ends, closed here once it has them
	closeAll := func(fs ...*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	child = []*os.File{inR, outW, errW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeAll(child...)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	pr.cmd, pr.stdin, pr.stdout, pr.stderr = cmd, inW, outR, errR
	go pr.readLines()
	go pr.copyStderr(cfg.Stderr)
	go func() {
		pr.waitErr = cmd.Wait()
		// The child is gone: so is its group (a grandchild holding a pipe
		// would keep arena waiting), and whatever is still in the pipes
		// is read for at most exitGrace.
		pr.killGroup()
		deadline := time.Now().Add(exitGrace)
		pr.stdout.SetReadDeadline(deadline)
		pr.stderr.SetReadDeadline(deadline)
		close(pr.exited)
	}()
	pr.stop = context.AfterFunc(ctx, pr.abort)
	return pr, nil
}

// abort ends the session on the context's cue: the group is killed and
// every pending read and write returns at once.
func (pr *process) abort() {
	pr.aborted.Store(true)
	pr.killGroup()
	past := time.Unix(1, 0)
	pr.stdin.SetWriteDeadline(past)
	pr.stdout.SetReadDeadline(past)
	pr.stderr.SetReadDeadline(past)
}

// killGroup kills the child's whole process group (the child itself where
// groups do not exist).
func (pr *process) killGroup() {
	if pr.cmd != nil && pr.cmd.Process != nil {
		killGroup(pr.cmd.Process)
	}
}

// readLines forwards stdout line by line, each at most maxLine bytes; it
// ends at EOF, a read error or an over-long line, with a last line whose
// err says which, and closes lines.
func (pr *process) readLines() {
	defer close(pr.lines)
	br := bufio.NewReaderSize(pr.stdout, 1<<16)
	for {
		b, err := readLine(br, pr.maxLine)
		if len(bytes.TrimSpace(b)) > 0 { // a last line without '\n' counts
			pr.lines <- line{data: b}
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				pr.killGroup() // it wrote what nobody will read
			}
			pr.lines <- line{err: err}
			pr.stdout.Close()
			return
		}
	}
}

// readLine reads up to and including '\n', refusing a line longer than max
// before it holds more than max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(out)+len(frag) > max {
			return nil, errLineTooLong
		}
		if err == nil && out == nil {
			return bytes.Clone(frag), nil
		}
		out = append(out, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

// copyStderr passes the child's stderr through to w, escaped
// (escapeStream), keeping its raw tail for an exit error. Reading never
// waits on w: the bytes go through a bounded relay that a second goroutine
// writes out, and what does not fit while w is slow is dropped and
// counted, so a terminal nobody reads cannot stall the child's stderr,
// then its replies, and get a healthy policy killed as "no reply".
func (pr *process) copyStderr(w io.Writer) {
	relay := newStderrRelay(w, stderrRelayBytes)
	defer func() {
		// errDone means "all of stderr has been passed on": wait for the
		// relay to write what it holds, unless w is the slow writer it
		// exists for (then at most exitGrace).
		pr.stderr.Close()
		relay.close()
		select {
		case <-relay.done:
		case <-time.After(exitGrace):
		}
		close(pr.errDone)
	}()
	buf := make([]byte, 32<<10)
	var esc, rest []byte
	for {
		n, err := pr.stderr.Read(buf)
		if n > 0 {
			pr.tail.write(buf[:n])
			esc, rest = escapeStream(esc[:0], append(rest, buf[:n]...))
			relay.push(esc)
		}
		if err != nil {
			if len(rest) > 0 {
				esc, _ = escapeStream(esc[:0], append(rest, '\n'))
				relay.push(esc[:len(esc)-1])
			}
			return
		}
	}
}

// stderrRelayBytes bounds the child's stderr held for a slow writer.
const stderrRelayBytes = 1 << 20

// stderrRelay is a bounded buffer between the child's stderr reader and
// arena's own stderr: push never blocks; the writer goroutine drains it.
type stderrRelay struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

func newStderrRelay(w io.Writer, max int) *stderrRelay {
	r := &stderrRelay{max: max, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go r.drain(w)
	return r
}

// push queues b, or as much of it as fits, counting the rest as dropped.
func (r *stderrRelay) push(b []byte) {
	r.mu.Lock()
	room := r.max - len(r.buf)
	if room < len(b) {
		r.dropped += len(b) - max(room, 0)
		b = b[:max(room, 0)]
	}
	r.buf = append(r.buf, b...)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *stderrRelay) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// drain writes what was pushed, and a note of what was dropped, until
// the relay is closed and empty.
func (r *stderrRelay) drain(w io.Writer) {
	defer close(r.done)
	var out []byte
	for range r.wake {
		for {
			r.mu.Lock()
			out = append(out[:0], r.buf...)
			r.buf = r.buf[:0]
			dropped, closed := r.dropped, r.closed
			r.dropped = 0
			r.mu.Unlock()
			if dropped > 0 {
				out = fmt.Appendf(out, "\n[arena: %d bytes of the policy's stderr dropped while this output was not being read]\n", dropped)
			}
			if len(out) == 0 {
				if closed {
					return
				}
				break
			}
			w.Write(out)
		}
	}
}

// deadlineWriter gives every write to the child a deadline (Timeout), and
// turns an expired or aborted write into an error saying so.
type deadlineWriter struct {
	pr      *process
	timeout time.Duration
	// expiry, if set, replaces the wall-clock deadline (tests).
	expiry func(time.Duration) <-chan time.Time
}

// errWriteTimeout marks a write that did not complete within the timeout.
var errWriteTimeout = errors.New("write timed out")

func (w deadlineWriter) Write(b []byte) (int, error) {
	f := w.pr.stdin
	if w.expiry == nil {
		f.SetWriteDeadline(time.Now().Add(w.timeout))
	} else if c := w.expiry(w.timeout); c != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-c:
				f.SetWriteDeadline(time.Unix(1, 0))
			case <-done:
			}
		}()
	}
	n, err := f.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if w.pr.aborted.Load() {
			return n, w.pr.ctx.Err()
		}
		return n, errWriteTimeout
	}
	return n, err
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) write(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
}

// String is the tail, at most stderrTail bytes from a line start where
// possible, quoted (control characters escaped).
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if len(s) > stderrTail {
		s = s[len(s)-stderrTail:]
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
		s = "…" + s
	}
	return fmt.Sprintf("%q", s)
}

// receive reads one line within the timeout; the run's context ends the
// wait at once.
func (p *Policy) receive(round int) ([]byte, error) {
	var expired <-chan time.Time
	if p.cfg.expiry != nil {
		expired = p.cfg.expiry(p.cfg.Timeout)
	} else {
		timer := time.NewTimer(p.cfg.Timeout)
		defer timer.Stop()
		expired = timer.C
	}
	pr := p.proc
	select {
	case l, ok := <-pr.lines:
		switch {
		case ok && l.err == nil:
			return l.data, nil
		case ok && errors.Is(l.err, errLineTooLong):
			return nil, p.fail(round, -1, "a reply line is over %d bytes, the cap on one line (raise it with exec(cmd=…,max_line=…)); the process was killed", pr.maxLine)
		case pr.aborted.Load():
			return nil, p.aborted(round)
		}
		return nil, p.exitError(round, nil)
	case <-expired:
		pr.killGroup()
		return nil, p.fail(round, -1, "no reply within %s (wall clock; raise it with exec(cmd=…,timeout=30m)); the process was killed", p.cfg.Timeout)
	case <-pr.ctx.Done():
		pr.abort()
		return nil, p.aborted(round)
	}
}

// aborted is the error of a session the run's context ended.
func (p *Policy) aborted(round int) error {
	err := p.fail(round, -1, "stopped: %v; the process was killed", p.proc.ctx.Err()).(*Error)
	err.cause = p.proc.ctx.Err()
	return err
}

// exitError explains a broken pipe, an EOF or a failed write by the
// process's exit status and the tail of its stderr.
func (p *Policy) exitError(round int, cause error) error {
	pr := p.proc
	if pr.aborted.Load() || errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return p.aborted(round)
	}
	if errors.Is(cause, errWriteTimeout) {
		pr.killGroup()
		return p.fail(round, -1, "the process read no input for %s (wall clock; raise it with exec(cmd=…,timeout=30m)); the process was killed", p.cfg.Timeout)
	}
	select {
	case <-pr.exited:
	case <-time.After(graceAtClose):
		// It closed its stdout but lives on: it will not reply.
		pr.killGroup()
		<-pr.exited
	}
	select { // the stderr tail is complete once stderr is read to its end
	case <-pr.errDone:
	case <-time.After(exitGrace):
	}
	status := "exited"
	if pr.waitErr != nil {
		status = pr.waitErr.Error()
	}
	tail := "its stderr was empty"
	if t := pr.tail.String(); t != `""` {
		tail = "its stderr ended with " + t
	}
	msg := "the process exited mid-run (" + status + "; " + tail + ")"
	if cause != nil {
		msg = fmt.Sprintf("writing to the process: %v (%s; %s)", cause, status, tail)
	}
	return p.fail(round, -1, "%s", msg)
}

// shutdown ends a session that failed before it began (at its hello):
// the group is killed and the reader drained.
func (p *Policy) shutdown() {
	pr := p.proc
	pr.killGroup()
	pr.stop()
	go func() {
		for range pr.lines {
		}
	}()
}

// Close ends the session: bye, stdin closed, the process given a grace
// period to exit and then its group killed. A non-zero exit after bye is
// an error; a session the run's context ended is closed at once.
func (p *Policy) Close() error {
	if p.closed || p.proc == nil {
		return nil
	}
	p.closed = true
	pr := p.proc
	defer pr.stop()
	go func() { // let the reader finish
		for range pr.lines {
		}
	}()
	if pr.aborted.Load() || pr.ctx.Err() != nil {
		pr.abort()
		<-pr.exited
		return nil
	}
	p.dw.timeout = graceAtClose // a process that reads no more gets no longer
	_ = p.send(RoundAfterBye, map[string]string{"type": "bye"})
	_ = pr.stdin.Close()
	select {
	case <-pr.exited:
	case <-time.After(graceAtClose):
		pr.killGroup()
		<-pr.exited
		return p.fail(RoundAfterBye, -1, "did not exit within %s; killed", graceAtClose)
	case <-pr.ctx.Done():
		pr.abort()
		<-pr.exited
		return nil
	}
	select { // what it wrote to stderr reaches ours before Close returns
	case <-pr.errDone:
	case <-time.After(exitGrace):
	}
	if pr.waitErr != nil {
		return p.fail(RoundAfterBye, -1, "%v", pr.waitErr)
	}
	return nil
}
