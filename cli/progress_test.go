package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock is the injected clock: tests move it by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func linesOf(b *bytes.Buffer) []string   { return strings.Split(strings.TrimSpace(b.String()), "\n") }
func newTestProgress(w *bytes.Buffer, c *fakeClock) *progress {
	return &progress{w: w, desc: "sweep s", unit: "runs", every: 10 * time.Second, now: c.now}
}

// TestProgressLinesOnResume: a resumed sweep of 48 runs finds 40 complete
// and runs 8 at 5 s each (hand-worked): lines at start and every 10 s, the
// rate and ETA from this session's runs only (the old bar showed
// "1714874 runs/s" from the 40 it skipped).
func TestProgressLinesOnResume(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1e9, 0)}
	p := newTestProgress(&b, c)
	p.runUpdate(40, 48, "") // the sweep's first call: runs found complete
	for i := 1; i <= 8; i++ {
		c.add(5 * time.Second)
		p.runUpdate(40+i, 48, "run")
		p.tick() // the ticker may fire too; it must not print twice
	}
	p.finish()
	want := []string{
		"sweep s: 40/48 runs done (40 already complete), 0 since start in 0s, ETA unknown",
		// 10 s, 2 runs: 5 s a run, 6 runs left → 30 s.
		"sweep s: 42/48 runs done (40 already complete), 2 since start in 10s, ETA 30s",
		"sweep s: 44/48 runs done (40 already complete), 4 since start in 20s, ETA 20s",
		"sweep s: 46/48 runs done (40 already complete), 6 since start in 30s, ETA 10s",
		"sweep s: 48/48 runs done (40 already complete), 8 since start in 40s",
		// finish prints no second line: nothing changed since.
	}
	if got := linesOf(&b); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgressTicksDuringALongRun: with no run finishing, the ticker
// still prints a line every interval (a long run must not look hung),
// and not more often.
func TestProgressTicksDuringALongRun(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1e9, 0)}
	p := newTestProgress(&b, c)
	p.runUpdate(0, 3, "")
	c.add(4 * time.Second)
	p.tick() // too early
	c.add(6 * time.Second)
	p.tick()
	c.add(3 * time.Second)
	p.runUpdate(1, 3, "a") // 13 s: only 3 s since the last line
	c.add(7 * time.Second)
	p.tick()
	got := linesOf(&b)
	want := []string{
		"sweep s: 0/3 runs done, 0 since start in 0s, ETA unknown",
		"sweep s: 0/3 runs done, 0 since start in 10s, ETA unknown",
		// 20 s for one run, two left.
		"sweep s: 1/3 runs done, 1 since start in 20s, ETA 40s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgressRoundsHaveNoBase: simulate's first report is after a round
// ran; it is this session's work, not a resumed base.
func TestProgressRoundsHaveNoBase(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1e9, 0)}
	p := &progress{w: &b, desc: "simulate fcfs", unit: "rounds", every: time.Second, now: c.now}
	p.update(1, 400)
	c.add(2 * time.Second)
	p.update(101, 400)
	if got := linesOf(&b); len(got) != 2 || got[1] != "simulate fcfs: 101/400 rounds done, 101 since start in 2s, ETA 5.9s" {
		t.Errorf("lines: %q", got)
	}
}

// TestProgressOffAndNil: --quiet gives no reporter, and a nil reporter
// accepts every call (callers do not check).
func TestProgressOffAndNil(t *testing.T) {
	var b bytes.Buffer
	if m := chooseProgress(&b, true, time.Second); m != progressOff {
		t.Errorf("--quiet: mode %v", m)
	}
	if m := chooseProgress(&b, false, time.Second); m != progressLines {
		t.Errorf("a buffer is not a terminal: mode %v, want lines", m)
	}
	if m := chooseProgress(&b, false, 0); m != progressOff {
		t.Errorf("--progress 0: mode %v", m)
	}
	var p *progress = newProgress(&b, progressOff, "x", "runs", time.Second)
	p.update(1, 2)
	p.runUpdate(1, 2, "k")
	p.finish()
	if b.Len() != 0 {
		t.Errorf("printed %q", b.String())
	}
}

// Two runs of different lengths, one draining past its rounds: the
// progress never reads more rounds done than in total, and the total is
// the sum of each run's latest length.
func TestRoundsProgressSumsEachRun(t *testing.T) {
	rp := &roundsProgress{done: []int{0, 0}, total: []int{100, 100}}
	if d, tot := rp.set(0, 50, 100); d != 50 || tot != 200 {
		t.Errorf("%d/%d, want 50/200", d, tot)
	}
	if d, tot := rp.set(1, 150, 150); d != 200 || tot != 250 { // run 1 drains past its 100 rounds
		t.Errorf("%d/%d, want 200/250", d, tot)
	}
	if d, tot := rp.set(0, 100, 100); d != 250 || tot != 250 {
		t.Errorf("%d/%d, want 250/250", d, tot)
	}
}
