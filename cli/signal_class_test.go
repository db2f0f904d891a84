package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arena-sim/arena/sim/outdir"
)

// testHooks sets, in the re-executed program (TestMain), the stopping
// points the environment asks for:
//
//   - ARENA_CLI_HOOK=stuck: the first temporary the command creates is
//     announced on stderr ("arena-test: temporary") and the command then
//     blocks for ever there, like one stuck where it cannot see the
//     context; Main must remove the temporary and exit on its own.
//   - ARENA_CLI_HOOK=continue: announced likewise, the command then goes
//     on once the signal has arrived, like one that does not check the
//     context; it must put nothing in place.
//   - ARENA_CLI_FSIZE=N: files are limited to N bytes (RLIMIT_FSIZE), so
//     a write beyond fails with EFBIG as on a full disk.
//   - ARENA_CLI_AS=N: the address space may grow by N bytes from its size
//     at start (RLIMIT_AS), so an allocation beyond ends the process in
//     "fatal error: out of memory".
func testHooks() {
	var once sync.Once
	switch os.Getenv("ARENA_CLI_HOOK") {
	case "stuck":
		outdir.TestHookCreated = func(string) {
			once.Do(func() { fmt.Fprintln(os.Stderr, "arena-test: temporary") })
			select {}
		}
	case "continue":
		outdir.TestHookCreated = func(string) {
			once.Do(func() { fmt.Fprintln(os.Stderr, "arena-test: temporary") })
			<-outdir.Interrupted()
		}
	}
	if n, err := strconv.ParseUint(os.Getenv("ARENA_CLI_FSIZE"), 10, 64); err == nil {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Fprintln(os.Stderr, "arena-test: setrlimit:", err)
			os.Exit(2)
		}
	}
	if n, err := strconv.ParseUint(os.Getenv("ARENA_CLI_AS"), 10, 64); err == nil {
		b, err := os.ReadFile("/proc/self/statm")
		var pages uint64
		if err == nil {
			pages, err = strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
		}
		if err == nil {
			n += pages * uint64(os.Getpagesize())
			err = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "arena-test: address-space limit:", err)
			os.Exit(2)
		}
	}
	if g, err := time.ParseDuration(os.Getenv("ARENA_CLI_STOP_GRACE")); err == nil {
		stopGrace = g
	}
}

// The signal class (issue 28): every command, stopped by SIGINT, SIGTERM
// or SIGHUP (each of stopSignals, in turn) at a deterministic point, exits 130 saying "interrupted", leaves no
// temporary anywhere under its working directory, and puts no output in
// place. The points: a temporary just created, with the command then
// stuck there or going on regardless (hooks above); a FIFO input that
// never delivers (the test's open for writing returns once arena has
// opened it). No assertion depends on the clock; a run that does not end
// within a minute fails (before this change most of these never ended,
// or ended with status 0 and their output written).
func TestEveryCommandStopsOnASignal(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: re-runs the program once per command")
	}
	base := t.TempDir()
	// Inputs shared by the cases: a results directory, a spec, a trace.
	res := filepath.Join(base, "res")
	if out, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs", "--rounds", "20", "--out", res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	spec := filepath.Join(base, "s.yaml")
	os.WriteFile(spec, []byte("name: s\ntraces: [testbed]\nclusters: [testbed-64]\ntiming: exact\npolicies: [fcfs]\nrounds: 3\n"), 0o666)
	philly, _ := filepath.Abs("../traces/importers/testdata/philly.csv")

	type tcase struct {
		name, hook string
		args       string // OUT is the case's output directory, FIFO a FIFO
	}
	var cases []tcase
	for _, hook := range []string{"stuck", "continue"} {
		cases = append(cases,
			tcase{"simulate", hook, "simulate --trace pai --policy fcfs,srtf --rounds 20 --out OUT/r"},
			tcase{"sweep", hook, "sweep " + spec + " --out OUT/r --quiet"},
			tcase{"reproduce", hook, "reproduce testbed --out OUT/r --quiet"},
			tcase{"trace import", hook, "trace import --format pollux " + philly + " -o OUT/t.parquet"},
			tcase{"trace synth", hook, "trace synth --from philly-pollux --recipe arena --seed 1 -o OUT/s.csv"},
			tcase{"plot", hook, "plot " + res + " --format svg --out OUT/fig"},
			tcase{"export", hook, "export --csv " + res},
		)
	}
	cases = append(cases,
		tcase{"trace inspect", "fifo", "trace inspect FIFO"},
		tcase{"simulate", "fifo", "simulate --trace FIFO --policy fcfs --out OUT/r"},
		tcase{"trace import", "fifo", "trace import --format pollux FIFO -o OUT/t.parquet"},
	)
	for i, c := range cases {
		// SIGHUP (a closed terminal or ssh session) killed arena with
		// status 129 before it joined the class.
		sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
		sig := sigs[i%len(sigs)]
		t.Run(c.name+"/"+c.hook+"/"+sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			os.Mkdir(out, 0o777)
			fifo := filepath.Join(dir, "trace.csv")
			if c.hook == "fifo" {
				if err := syscall.Mkfifo(fifo, 0o666); err != nil {
					t.Skipf("SKIPPED: no FIFOs here: %v", err)
				}
			}
			before := files(t, dir, res)
			args := strings.NewReplacer("OUT", out, "FIFO", fifo).Replace(c.args)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "ARENA_CLI_MAIN=1", "CI=1", "ARENA_CLI_ARGS="+args, "ARENA_CLI_HOOK="+c.hook, "ARENA_CLI_STOP_GRACE=500ms")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			lines := make(chan string, 1000)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				exited <- cmd.Wait()
			}()
			var seen []string
			// The stopping point.
			if c.hook == "fifo" {
				opened := make(chan *os.File, 1)
				go func() {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err == nil {
						opened <- w
					}
				}()
				select {
				case w := <-opened:
					defer w.Close() // open, silent: arena's read blocks
				case <-exited:
					for l := range lines {
						seen = append(seen, l)
					}
					t.Fatalf("exited before opening the FIFO:\n%s", strings.Join(seen, "\n"))
				}
			} else {
				for l := range lines {
					seen = append(seen, l)
					if l == "arena-test: temporary" {
						break
					}
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-exited:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %s; stderr:\n%s", sig, strings.Join(seen, "\n"))
			}
			for l := range lines {
				seen = append(seen, l)
			}
			var exit *exec.ExitError
			if !errors.As(werr, &exit) || exit.ExitCode() != 130 {
				t.Fatalf("exit: %v, want status 130; stderr:\n%s", werr, strings.Join(seen, "\n"))
			}
			if last := seen[len(seen)-1]; last != "arena: interrupted" {
				t.Errorf("last stderr line %q, want \"arena: interrupted\"", last)
			}
			for _, root := range []string{dir, res} {
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err == nil && outdir.IsTemporary(d.Name()) {
						t.Errorf("temporary left behind: %s", p)
					}
					return nil
				})
			}
			// Nothing put in place: no file that was not there before
			// but the output directory's lock (directories may be made).
			for p := range files(t, dir, res) {
				if !before[p] && filepath.Base(p) != outdir.LockFile && !outdir.IsTemporary(filepath.Base(p)) {
					t.Errorf("%s was written after the signal", p)
				}
			}
		})
	}
}

// files lists the regular files under the roots.
func files(t *testing.T, roots ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				out[p] = true
			}
			return nil
		})
	}
	return out
}
