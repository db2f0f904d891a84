package cli

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Issue 36, the files class as a property: whatever a user keeps under
// --out — dot-files, names containing arena's temporary markers, links to
// files and directories outside, dangling and looping links, directories
// that look like arena's but lack its manifest, FIFOs — every byte of it
// survives 'simulate --out', 'sweep', 'sweep --resume' and 'sweep
// --merge': the same content, the same link targets, nothing outside
// --out changed. The commands may refuse (that is the point); they may
// not destroy, and may not hang.
//
// Before the change this failed at once: Clean removed any dot-name
// containing ".tmp-" or ".old-" (whole directories too), the lock file
// was truncated through a link, a directory of arena-looking names
// without a manifest was replaced, runs/ as a link wrote the runs outside
// --out, and a FIFO named run.json hung --resume.
//
// Arena's own names at the top of --out (.arena.lock as a regular file,
// summary.parquet, sweep.json) are arena's to rewrite and are not drawn as
// regular files. More cases: -rapid.checks=N.
func TestUserBytesSurvive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links and FIFOs")
	}
	setChecks(t, 8)
	base := t.TempDir()
	spec := filepath.Join(base, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: s\ntraces: [testbed]\nclusters: [testbed-64]\ntiming: exact\npolicies: [fcfs]\nrounds: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "fcfs.testbed.testbed-64.exact.r3.d1.s0"
	parents := []string{"", "runs", "fcfs", "runs/" + key, ".x.tmp-1", ".arena-tmp-fcfs-0123456789abcdef", "runs/.arena-old-" + key + "-00000000000000bb"}
	names := []string{"notes.txt", ".notes.tmp-keep", ".draft.old-1", ".arena-tmp-fcfs-00000000000000aa",
		".arena-old-" + key + "-00000000000000bb", ".arena-tmp-summary.parquet-00000000000000cc", ".arena-tmp-" + key + "-00000000000000dd",
		"jobs.parquet", "summary.json", "run.json", "rounds.csv", "figures", ".arena.lock", "runs", "fcfs", key, "summary.parquet", "sweep.json"}
	kinds := []string{"file", "file", "dir", "link to a file outside", "link to a directory outside", "dangling link", "looping link", "fifo"}
	iteration := 0
	rapid.Check(t, func(rt *rapid.T) {
		iteration++
		root := filepath.Join(base, fmt.Sprint(iteration))
		out, outside := filepath.Join(root, "out"), filepath.Join(root, "outside")
		for p, c := range map[string]string{"a.txt": "outside a", "d/b.txt": "outside b"} {
			os.MkdirAll(filepath.Join(outside, filepath.Dir(p)), 0o755)
			os.WriteFile(filepath.Join(outside, p), []byte(c), 0o644)
		}
		os.MkdirAll(out, 0o755)
		for i := range rapid.IntRange(0, 8).Draw(rt, "entries") {
			parent := rapid.SampledFrom(parents).Draw(rt, fmt.Sprintf("parent%d", i))
			name := rapid.SampledFrom(names).Draw(rt, fmt.Sprintf("name%d", i))
			kind := rapid.SampledFrom(kinds).Draw(rt, fmt.Sprintf("kind%d", i))
			if parent == "" && kind == "file" && (name == ".arena.lock" || name == "summary.parquet" || name == "sweep.json") {
				continue // arena's own names at the top of --out
			}
			dir := filepath.Join(out, parent)
			if os.MkdirAll(dir, 0o755) != nil {
				continue // a component is a file or a link drawn earlier
			}
			if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
				continue
			}
			p := filepath.Join(dir, name)
			if _, err := os.Lstat(p); err == nil {
				continue
			}
			switch kind {
			case "file":
				os.WriteFile(p, []byte(fmt.Sprintf("user %d: %s", i, rapid.StringN(0, 20, -1).Draw(rt, fmt.Sprintf("content%d", i)))), 0o644)
			case "dir":
				os.Mkdir(p, 0o755)
				os.WriteFile(filepath.Join(p, "inside.txt"), []byte("user's"), 0o644)
			case "link to a file outside":
				os.Symlink(filepath.Join(outside, "a.txt"), p)
			case "link to a directory outside":
				os.Symlink(filepath.Join(outside, "d"), p)
			case "dangling link":
				os.Symlink(filepath.Join(outside, "nowhere"), p)
			case "looping link":
				os.Symlink(p, p)
			case "fifo":
				syscall.Mkfifo(p, 0o644)
			}
		}
		before := snapshot(rt, root)
		for _, args := range [][]string{
			{"simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "3", "--out", out},
			{"sweep", spec, "--out", out, "--quiet"},
			{"sweep", spec, "--out", out, "--resume", "--quiet"},
			{"sweep", spec, "--out", out, "--merge"},
		} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				runCLI(t, args...) // refusals are fine; destruction is not
			}()
			select {
			case <-done:
			case <-time.After(time.Minute): // a watchdog: it turns a hang into a failure
				rt.Fatalf("arena %s hung", strings.Join(args[:min(len(args), 2)], " "))
			}
		}
		after := snapshot(rt, root)
		for p, was := range before {
			if now := after[p]; now != was {
				rt.Errorf("%s: was %s, now %q", p, was, now)
			}
		}
		for p, now := range after {
			if _, ok := before[p]; !ok && !strings.HasPrefix(p, "out/") {
				rt.Errorf("%s (%s) appeared outside --out", p, now)
			}
		}
	})
}

// snapshot describes every entry under root without following links: a
// file by its mode and SHA-256, a link by its target, a FIFO as one, a
// directory as one.
func snapshot(rt *rapid.T, root string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		switch mode := fi.Mode(); {
		case mode&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link to " + target
		case mode&fs.ModeNamedPipe != 0:
			m[rel] = "fifo"
		case mode.IsDir():
			m[rel] = "dir"
		case mode.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				rt.Fatal(err)
			}
			m[rel] = fmt.Sprintf("file %v %x", mode.Perm(), sha256.Sum256(data))
		default:
			m[rel] = mode.String()
		}
		return nil
	})
	return m
}

// setChecks runs n rapid cases unless -rapid.checks was given.
func setChecks(t *testing.T, n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if given {
		return
	}
	old := flag.Lookup("rapid.checks").Value.String()
	flag.Set("rapid.checks", fmt.Sprint(n))
	t.Cleanup(func() { flag.Set("rapid.checks", old) })
}

// A dangling or looping --out link is named with what it points to.
// Before: "--out: mkdir OUT: file exists".
func TestOutLinkLeadingNowhere(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links")
	}
	base := t.TempDir()
	dangling, loop := filepath.Join(base, "results"), filepath.Join(base, "loop")
	target := filepath.Join(base, "moved-away")
	os.Symlink(target, dangling)
	os.Symlink(loop, loop)
	spec := filepath.Join(base, "s.yaml")
	os.WriteFile(spec, []byte("name: s\ntraces: [testbed]\nclusters: [testbed-64]\ntiming: exact\npolicies: [fcfs]\nrounds: 3\n"), 0o644)
	for _, c := range []struct {
		out, want string
	}{
		{dangling, dangling + ` is a symbolic link to "` + target + `", which does not exist (a dangling link)`},
		{loop, loop + ` is a symbolic link to "` + loop + `", which loops`},
	} {
		for _, args := range [][]string{
			{"simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "3", "--out", c.out},
			{"sweep", spec, "--out", c.out, "--quiet"},
		} {
			_, err := runCLI(t, args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "file exists") {
				t.Errorf("%s --out %s: %v, want %q", args[0], c.out, err, c.want)
			}
		}
	}
}
