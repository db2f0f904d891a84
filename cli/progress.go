package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// defaultProgressEvery is how often plain progress lines are printed when
// stderr is not a terminal (a batch job's log, CI).
const defaultProgressEvery = 10 * time.Second

// progress reports how much of a command's work is done, for simulate,
// sweep and reproduce alike. On a terminal it draws a bar; otherwise (a
// Slurm log, a pipe, CI) it prints a plain line every `every`:
//
//	sweep pai: 12/48 runs done (5 already complete), 7 since start in 1m10s, ETA 6m0s
//
// Work already done when the first update arrives (runs a --resume
// found complete) counts toward done but not toward the rate, so the
// ETA is that of the work this session still has to do.
type progress struct {
	w     io.Writer
	desc  string // what is progressing, e.g. "sweep pai"
	unit  string // "runs", "rounds"
	every time.Duration
	bar   bool
	now   func() time.Time // the clock (wall clock; tests inject one)

	mu          sync.Mutex
	started     bool
	start, last time.Time
	base        int // done at the first update: not this session's work
	done, total int
	lastDone    int // done when the last line was printed
	pb          *progressbar.ProgressBar
	stop        chan struct{}
	stopped     sync.WaitGroup
}

// progressMode says how a command reports progress on stderr.
type progressMode int

const (
	progressOff   progressMode = iota
	progressBar                // a terminal: an animated bar
	progressLines              // anything else: a plain line every interval
)

// chooseProgress picks the mode: nothing with --quiet (or a zero
// interval off a terminal), a bar on a terminal, lines otherwise.
func chooseProgress(stderr io.Writer, quiet bool, every time.Duration) progressMode {
	switch {
	case quiet:
		return progressOff
	case isTerminal(stderr):
		return progressBar
	case every > 0:
		return progressLines
	}
	return progressOff
}

// newProgress starts a reporter; call update as work finishes and finish
// at the end. In lines mode a goroutine prints a line every `every` even
// while no run finishes (a long run must not look like a hang).
func newProgress(w io.Writer, mode progressMode, desc, unit string, every time.Duration) *progress {
	p := &progress{w: w, desc: desc, unit: unit, every: every, bar: mode == progressBar, now: time.Now}
	if mode == progressOff {
		return nil
	}
	if mode == progressLines {
		p.stop = make(chan struct{})
		p.stopped.Add(1)
		go func() {
			defer p.stopped.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.tick()
				}
			}
		}()
	}
	return p
}

// update records that done of total units are finished. A nil reporter
// ignores it, so callers need not check for --quiet.
func (p *progress) update(done, total int) { p.record(done, total, false) }

// runUpdate adapts update to the sweep's Progress callback, whose first
// call (key "") gives the runs found complete before any ran: those are
// the reporter's base, not this session's work.
func (p *progress) runUpdate(done, total int, key string) { p.record(done, total, key == "") }

func (p *progress) record(done, total int, isBase bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.started {
		p.started, p.start, p.last = true, now, now
		if isBase {
			p.base = done
		}
		p.done, p.total = done, total
		if !p.bar {
			p.line(now) // the log shows the total at once
			return
		}
	}
	p.done, p.total = done, total
	if p.bar {
		p.drawBar()
		return
	}
	if now.Sub(p.last) >= p.every {
		p.line(now)
	}
}

// tick prints a line if one is due (lines mode).
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := p.now(); p.started && now.Sub(p.last) >= p.every {
		p.line(now)
	}
}

// line prints the plain progress line; p.mu is held.
func (p *progress) line(now time.Time) {
	p.last, p.lastDone = now, p.done
	fmt.Fprintf(p.w, "%s: %s\n", p.desc, p.status(now))
}

// status is the line's text: done/total, what was already done before
// this session, and the ETA from this session's rate.
func (p *progress) status(now time.Time) string {
	s := fmt.Sprintf("%d/%d %s done", p.done, p.total, p.unit)
	if p.base > 0 {
		s += fmt.Sprintf(" (%d already complete)", p.base)
	}
	elapsed := now.Sub(p.start)
	ran := p.done - p.base
	s += fmt.Sprintf(", %d since start in %s", ran, roundDuration(elapsed))
	switch left := p.total - p.done; {
	case left <= 0:
	case ran <= 0 || elapsed <= 0:
		s += ", ETA unknown"
	default:
		eta := time.Duration(float64(elapsed) / float64(ran) * float64(left))
		s += ", ETA " + roundDuration(eta).String()
	}
	return s
}

// roundDuration rounds to whole seconds (tenths below ten seconds).
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// drawBar updates the terminal bar. The bar counts this session's work
// only (total − base), so a resumed sweep's rate and ETA are true.
func (p *progress) drawBar() {
	todo := p.total - p.base
	if p.pb == nil || p.pb.GetMax() != todo {
		desc := p.desc
		if p.base > 0 {
			desc = fmt.Sprintf("%s (%d already complete)", p.desc, p.base)
		}
		p.pb = progressbar.NewOptions(todo, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
			progressbar.OptionSetItsString(p.unit), progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
	}
	p.pb.Set(p.done - p.base)
}

// finish stops the reporter: the bar is cleared; in lines mode a last
// line says how far the work got.
func (p *progress) finish() {
	if p == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.stopped.Wait()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pb != nil {
		p.pb.Finish()
	}
	if now := p.now(); !p.bar && p.started && (p.done != p.lastDone || !now.Equal(p.last)) {
		p.line(now)
	}
}
