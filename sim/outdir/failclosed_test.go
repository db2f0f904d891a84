package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 36 ("fail closed"), the files classes: arena removes or
// overwrites only what it created, reads only regular files as far as it
// recorded them, reads its manifest strictly, and names a --out link
// that leads nowhere. Each test below failed before the change; the
// comment says how.

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s: %q, %v; want %q unchanged", path, got, err, want)
	}
}

// Clean removes names of exactly the temporaries' shape that are what
// arena makes, never a user's dot-name that merely contains a marker (a
// whole directory of them included), a temporary-shaped directory
// without arena's manifest, or a temporary-shaped link. Before: every
// dot-name containing ".tmp-" or ".old-" was removed with os.RemoveAll,
// and .notes.tmp-keep, .thesis.old-draft/ and the rest were gone.
func TestCleanRemovesOnlyArenasTemporaries(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	mustWrite(t, outside, "outside")
	user := map[string]string{
		".notes.tmp-keep": "notes",
		".arena-tmp-summary.parquet-0123456789abcdef":  "a file of arena's shape is the user's",
		".thesis.old-draft/ch1.tex":                    "chapter",
		".x.tmp-1/y":                                   "y",
		".arena-tmp-run-0123456789abcdef/mine.txt":     "user's, no manifest", // arena's shape, not arena's
		".arena-old-run-0123456789abcdef/jobs.parquet": "user's, no manifest",
	}
	for n, c := range user {
		mustWrite(t, filepath.Join(dir, n), c)
	}
	link := filepath.Join(dir, ".arena-tmp-link-0123456789abcdef")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// Arena's own leftovers: a temporary file and a temporary directory
	// with its provisional manifest, as a killed writer leaves them.
	_, f, err := create(dir, "summary.parquet", false)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	tmpDir, _, err := create(dir, "run", true)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(tmpDir, "jobs.parquet"), "half")
	commitMu.Lock()
	clear(live) // forgotten, as by a process that was killed
	commitMu.Unlock()
	if err := Clean(dir); err != nil {
		t.Fatal(err)
	}
	for n, c := range user {
		mustRead(t, filepath.Join(dir, n), c)
	}
	if target, err := os.Readlink(link); err != nil || target != outside {
		t.Errorf("the link %s: %q, %v", link, target, err)
	}
	mustRead(t, outside, "outside")
	for _, p := range []string{f.Name(), tmpDir} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("arena's temporary %s survived Clean", filepath.Base(p))
		}
	}
}

// A directory without arena's manifest is never replaced, even when
// every name in it is one arena writes. Before: a directory holding only
// summary.json was replaced (and the user's summary.json deleted).
func TestReplaceDirNeedsManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fcfs")
	mustWrite(t, filepath.Join(dir, "summary.json"), "the user's")
	err := ReplaceDir(dir, []string{"summary.json"}, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "summary.json"), []byte("new"), 0o666)
	})
	if err == nil || !strings.Contains(err.Error(), "no manifest") || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want a refusal naming %s and the missing manifest", err, dir)
	}
	mustRead(t, filepath.Join(dir, "summary.json"), "the user's")
}

// Nothing is written through, or replaces, a symbolic link: not the lock
// file, not a file WriteFile writes, not a directory ReplaceDir replaces,
// not a name inside one. Before: the lock file was opened through the
// link and truncated (the outside file lost its content); WriteFile
// renamed over the link; ReplaceDir swapped the link away.
func TestNothingWrittenThroughALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges")
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "out")
	victim := filepath.Join(t.TempDir(), "victim.txt")
	mustWrite(t, victim, "precious")
	os.MkdirAll(out, 0o755)
	os.Symlink(victim, filepath.Join(out, LockFile))
	if l, err := LockDir(out); err == nil {
		l.Unlock()
		t.Error("LockDir through a linked lock file succeeded")
	} else if !strings.Contains(err.Error(), LockFile) || !strings.Contains(err.Error(), "link") {
		t.Errorf("LockDir: %v, want the link named", err)
	}
	mustRead(t, victim, "precious")
	os.Symlink(victim, filepath.Join(out, LockFile+".shard-0-of-2"))
	os.Remove(filepath.Join(out, LockFile))
	if l, err := LockShard(out, "0/2"); err == nil {
		l.Unlock()
		t.Error("LockShard through a linked lock file succeeded")
	}
	mustRead(t, victim, "precious")

	link := filepath.Join(out, "summary.parquet")
	os.Symlink(victim, link)
	if err := WriteFile(link, []byte("new")); err == nil {
		t.Error("WriteFile over a link succeeded")
	}
	if target, _ := os.Readlink(link); target != victim {
		t.Errorf("the link now leads to %q", target)
	}
	mustRead(t, victim, "precious")

	// A results directory that is a link to one arena wrote elsewhere.
	elsewhere := filepath.Join(t.TempDir(), "run")
	write := func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "r"), []byte("new"), 0o666) }
	if err := ReplaceDir(elsewhere, []string{"r"}, write); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(out, "fcfs")
	os.Symlink(elsewhere, dirLink)
	if err := ReplaceDir(dirLink, []string{"r"}, write); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReplaceDir of a link: %v", err)
	}
	if target, _ := os.Readlink(dirLink); target != elsewhere {
		t.Errorf("the directory link now leads to %q", target)
	}
	// A link inside a results directory is not arena's, even under a
	// name the manifest lists.
	os.Remove(filepath.Join(elsewhere, "r"))
	os.Symlink(victim, filepath.Join(elsewhere, "r"))
	if err := ReplaceDir(elsewhere, []string{"r"}, write); err == nil {
		t.Error("a results directory holding a link was replaced")
	}
	if target, _ := os.Readlink(filepath.Join(elsewhere, "r")); target != victim {
		t.Errorf("the link inside now leads to %q", target)
	}
}

// watch runs f and fails the test if it has not returned within a
// minute: the watchdog turns a hang (what the old code did) into a
// failure instead of the test binary's timeout. It decides nothing else.
func watch(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s hung", what)
		return nil
	}
}

// Verify opens only regular files and reads no further than the recorded
// size + 1: a FIFO or a link to a device in a listed file's place is an
// error naming the path. Before: Verify followed the link and read
// /dev/zero without end, and blocked for ever opening the FIFO.
func TestVerifyReadsOnlyRegularFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "named pipe"},
		{"link to a device", func(p string) error { return os.Symlink("/dev/zero", p) }, "symbolic link"},
		{"link to a file", func(p string) error { return os.Symlink(os.Args[0], p) }, "symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := ReplaceDir(dir, nil, func(tmp string) error {
				return os.WriteFile(filepath.Join(tmp, "jobs.parquet"), []byte("PAR1...PAR1"), 0o666)
			}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "jobs.parquet")
			os.Remove(p)
			if err := c.make(p); err != nil {
				t.Skip(err)
			}
			err := watch(t, "Verify", func() error { return Verify(dir) })
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrNotRegular) {
				t.Errorf("Verify: %v, want an error naming %s as %s", err, p, c.want)
			}
			if err := watch(t, "ReadVerified", func() error { _, err := ReadVerified(dir); return err }); err == nil {
				t.Error("ReadVerified accepted it")
			}
		})
	}
	// A file grown past its record is read only to size + 1.
	dir := filepath.Join(t.TempDir(), "run")
	ReplaceDir(dir, nil, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "a"), []byte("abc"), 0o666) })
	os.WriteFile(filepath.Join(dir, "a"), []byte(strings.Repeat("x", 1<<20)), 0o644)
	if err := Verify(dir); err == nil || !strings.Contains(err.Error(), "longer than the 3 bytes") {
		t.Errorf("Verify of a grown file: %v", err)
	}
}

// The manifest is read strictly: a converted line ending, a line of the
// wrong shape, a cut-short file are errors naming the manifest and the
// line, never a downgrade to the name-only check. Before: a CRLF manifest
// was read as names only ("jobs.parquet\t12\t…\r" split into too many
// fields to be sized), so a truncated jobs.parquet passed Verify.
func TestManifestIsStrict(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := ReplaceDir(dir, nil, func(tmp string) error {
		os.WriteFile(filepath.Join(tmp, "jobs.parquet"), []byte("PAR1 a whole table PAR1"), 0o666)
		return os.WriteFile(filepath.Join(tmp, "summary.json"), []byte("{}\n"), 0o666)
	}); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, ManifestFile)
	good, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(good), "arena-files 2\n") {
		t.Errorf("manifest written without its header:\n%s", good)
	}
	os.Truncate(filepath.Join(dir, "jobs.parquet"), 4)
	// The lines as written: the header, then jobs.parquet's and
	// summary.json's.
	h := "arena-files 2"
	e := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(good), h+"\n"), "\n"), "\n")
	whole := h + "\n" + e[0] + "\n" + e[1] + "\n"
	for _, c := range []struct {
		name, manifest string
		line           int
	}{
		{"CRLF endings", strings.ReplaceAll(whole, "\n", "\r\n"), 1},
		{"CRLF endings, headerless", e[0] + "\r\n" + e[1] + "\r\n", 1},
		{"one line CRLF", h + "\n" + e[0] + "\r\n" + e[1] + "\n", 2},
		{"no final newline", strings.TrimSuffix(whole, "\n"), 3},
		{"two fields", h + "\n" + "jobs.parquet\t23\n" + e[1] + "\n", 2},
		{"a short digest", h + "\n" + e[0][:len(e[0])-1] + "\n" + e[1] + "\n", 2},
		{"upper-case digest", h + "\n" + strings.ToUpper(e[0]) + "\n", 2},
		{"a signed size", h + "\n" + strings.Replace(e[0], "\t", "\t+", 1) + "\n", 2},
		{"names and sizes mixed", "jobs.parquet\n" + e[1] + "\n", 2},
		{"listed twice", whole + e[0] + "\n", 4},
		{"a path", h + "\n../x\t1\t" + strings.Repeat("0", 64) + "\n", 2},
		{"another version", "arena-files 3\n" + e[0] + "\n", 1},
		{"empty", "", 0},
	} {
		os.WriteFile(mpath, []byte(c.manifest), 0o644)
		err := Verify(dir)
		var me *ManifestError
		if !errors.As(err, &me) || me.Path != mpath || me.Line != c.line || !errors.Is(err, ErrBadManifest) {
			t.Errorf("%s: Verify = %v, want a ManifestError for %s line %d", c.name, err, mpath, c.line)
		}
		// Nor is such a directory replaced.
		if err := ReplaceDir(dir, nil, func(string) error { return nil }); err == nil {
			t.Errorf("%s: a directory with a malformed manifest was replaced", c.name)
			return
		}
	}
	// The exact shapes of earlier versions: sizes without the header are
	// checked as before (the truncation is found); names only say so.
	os.WriteFile(mpath, []byte(e[0]+"\n"+e[1]+"\n"), 0o644)
	if err := Verify(dir); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("headerless manifest with sizes: %v, want the truncation found", err)
	}
	os.WriteFile(mpath, []byte("jobs.parquet\nsummary.json\n"), 0o644)
	if err := Verify(dir); !errors.Is(err, ErrNoSizes) {
		t.Errorf("names-only manifest: %v, want ErrNoSizes", err)
	}
	os.WriteFile(mpath, good, 0o644)
	if err := Verify(dir, "run.json"); err == nil || !strings.Contains(err.Error(), "run.json is not listed") {
		t.Errorf("a required file not listed: %v", err)
	}
}

// A dangling or looping --out link is named with what it points to.
// Before: "mkdir …: file exists".
func TestDanglingOrLoopingOutLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges")
	}
	base := t.TempDir()
	dangling := filepath.Join(base, "dangling")
	os.Symlink(filepath.Join(base, "nowhere"), dangling)
	loop := filepath.Join(base, "loop")
	os.Symlink(loop, loop)
	for _, c := range []struct{ out, link, want string }{
		{dangling, dangling, "does not exist (a dangling link)"},
		{filepath.Join(dangling, "sub"), dangling, "does not exist (a dangling link)"},
		{loop, loop, "loops"},
	} {
		_, err := LockDir(c.out)
		if err == nil || !strings.Contains(err.Error(), c.link+" is a symbolic link to ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LockDir(%s): %v, want %s named as a link that %s", c.out, err, c.link, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "file exists") {
			t.Errorf("LockDir(%s): %v", c.out, err)
		}
	}
	target, _ := os.Readlink(dangling)
	if _, err := LockDir(dangling); err == nil || !strings.Contains(err.Error(), target) {
		t.Errorf("the error does not say where the link points (%s): %v", target, err)
	}
}

// A writer killed at any step of making a temporary directory leaves it
// in a state Clean recognises as arena's and removes: the directory alone;
// the provisional manifest created but not yet written (empty); the
// provisional manifest with results half-written beside it; the final
// manifest half-written beside it (it is written under another name and
// renamed over the provisional one); the final manifest in place. An empty
// manifest beside anything else is no state arena leaves, and stays.
// Before: a kill between the provisional manifest's creation and its
// write left a directory Clean refused for good (the sweep kill test
// found one in about one run in six), and the final manifest was
// truncated in place. Hand-worked states, one per step.
func TestCleanRemovesTemporariesCutShortAnywhere(t *testing.T) {
	dir := t.TempDir()
	const hex = "0123456789abcdef"
	states := map[string]map[string]string{
		"mkdir":            {},
		"provisional-made": {ManifestFile: ""},
		"results-half":     {ManifestFile: manifestHeader + "\n", "jobs.parquet": "half"},
		"final-half":       {ManifestFile: manifestHeader + "\n", "jobs.parquet": "whole", ManifestFile + ".new": manifestHeader + "\njobs"},
	}
	for name, files := range states {
		d := filepath.Join(dir, ".arena-tmp-"+name+"-"+hex)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, c := range files {
			mustWrite(t, filepath.Join(d, n), c)
		}
	}
	final := filepath.Join(dir, ".arena-tmp-final-"+hex)
	if err := os.Mkdir(final, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeProvisional(final); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(final, "jobs.parquet"), "whole")
	if err := writeManifest(final); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(final, ManifestFile+".new")); err == nil {
		t.Error("writeManifest left its .new file behind")
	}
	notOurs := filepath.Join(dir, ".arena-tmp-emptymanifest-"+hex)
	mustWrite(t, filepath.Join(notOurs, ManifestFile), "")
	mustWrite(t, filepath.Join(notOurs, "thesis.tex"), "chapter")
	if err := Clean(dir); err != nil {
		t.Fatal(err)
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Name() != filepath.Base(notOurs) {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("after Clean: %v, want only %s", names, filepath.Base(notOurs))
	}
	mustRead(t, filepath.Join(notOurs, "thesis.tex"), "chapter")
}
