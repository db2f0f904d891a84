package outdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
)

func listDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ManifestFile {
			continue // checked by TestReplaceDirKeepsUsersFilesBesideResults
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

func names(m map[string]string) string {
	var ns []string
	for k := range m {
		ns = append(ns, k)
	}
	sort.Strings(ns)
	return strings.Join(ns, ",")
}

// TestModesFollowUmask: files 0666 and directories 0777 minus the umask
// (the issue: results were 0600 whatever the umask).
func TestModesFollowUmask(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no umask")
	}
	for _, mask := range []int{0o022, 0o027, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		if err := WriteFile(filepath.Join(dir, "f"), []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := ReplaceDir(filepath.Join(dir, "d"), nil, func(tmp string) error {
			return os.WriteFile(filepath.Join(tmp, "g"), []byte("y"), 0o666)
		}); err != nil {
			t.Fatal(err)
		}
		syscall.Umask(old)
		for path, want := range map[string]os.FileMode{"f": os.FileMode(0o666 &^ mask), "d": os.FileMode(0o777&^mask) | os.ModeDir, "d/g": os.FileMode(0o666 &^ mask)} {
			fi, err := os.Stat(filepath.Join(dir, path))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("umask %03o: %s has mode %v, want %v", mask, path, fi.Mode(), want)
			}
		}
	}
}

// TestReplaceDirAllOrNothing: a failing writer leaves the old directory
// exactly as it was and no temporary; a succeeding one leaves only its files.
func TestReplaceDirAllOrNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "run")
	write := func(files map[string]string, failAfter int) error {
		return ReplaceDir(dir, []string{"summary.json"}, func(tmp string) error {
			i := 0
			for _, n := range []string{"a.parquet", "rounds.csv", "summary.json"} {
				if c, ok := files[n]; ok {
					if i == failAfter {
						return errors.New("no space left on device (simulated)")
					}
					if err := os.WriteFile(filepath.Join(tmp, n), []byte(c), 0o666); err != nil {
						return err
					}
					i++
				}
			}
			return nil
		})
	}
	old := map[string]string{"a.parquet": "old-a", "rounds.csv": "old-r", "summary.json": "old-s"}
	if err := write(old, -1); err != nil {
		t.Fatal(err)
	}
	for fail := 0; fail < 2; fail++ {
		if err := write(map[string]string{"a.parquet": "new-a", "rounds.csv": "new-r", "summary.json": "new-s"}, fail); err == nil {
			t.Fatal("failure not reported")
		}
		if got := listDir(t, dir); fmt.Sprint(got) != fmt.Sprint(old) {
			t.Errorf("after a failure at file %d: %v, want the old %v", fail, got, old)
		}
		if got := listDir(t, parent); names(got) != "run" {
			t.Errorf("temporaries left: %s", names(got))
		}
	}
	// Success: the new set only (no stale rounds.csv from the old run).
	if err := write(map[string]string{"a.parquet": "new-a", "summary.json": "new-s"}, -1); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); names(got) != "a.parquet,summary.json" || got["summary.json"] != "new-s" {
		t.Errorf("after success: %v", got)
	}
	if got := listDir(t, parent); names(got) != "run" {
		t.Errorf("temporaries left: %s", names(got))
	}
}

// TestReplaceDirRefusesForeignDirectory: a user's directory at the path is
// not deleted.
func TestReplaceDirRefusesForeignDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fcfs")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644)
	err := ReplaceDir(dir, []string{"summary.json"}, func(string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `holds files but no manifest`) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "thesis.tex")); string(b) != "precious" {
		t.Error("foreign file lost")
	}
}

// TestReplaceDirKeepsUsersFilesBesideResults: a results directory the user
// also put a file in is refused as a whole (replacing it would delete the
// file), naming the file; what an earlier ReplaceDir wrote — listed in its
// manifest — is arena's, even when the new call does not know the name.
func TestReplaceDirKeepsUsersFilesBesideResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "arena")
	write := func(names ...string) func(string) error {
		return func(tmp string) error {
			for _, n := range names {
				if err := os.WriteFile(filepath.Join(tmp, n), []byte("run"), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := ReplaceDir(dir, []string{"summary.json"}, write("summary.json", "run.json")); err != nil {
		t.Fatal(err)
	}
	// run.json is in the manifest: a run that writes only summary.json may
	// replace the directory.
	if err := ReplaceDir(dir, []string{"summary.json"}, write("summary.json")); err != nil {
		t.Fatalf("a directory arena wrote refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.json")); err == nil {
		t.Error("the old run's run.json survived the swap")
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("precious"), 0o644)
	err := ReplaceDir(dir, []string{"summary.json"}, write("summary.json"))
	if err == nil || !strings.Contains(err.Error(), `"notes.txt"`) {
		t.Fatalf("a directory holding the user's notes.txt: err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "precious" {
		t.Error("the user's file was deleted")
	}
	// A manifest cannot vouch for a name with a path in it, and a huge one
	// is not arena's.
	os.Remove(filepath.Join(dir, "notes.txt"))
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(strings.Repeat("x\n", maxManifest)), 0o644)
	if err := ReplaceDir(dir, []string{"summary.json"}, write("summary.json")); err == nil {
		t.Error("an oversized manifest accepted")
	}
}

// TestSwapFallback exercises the two-rename path used where
// RENAME_EXCHANGE is missing.
func TestSwapFallback(t *testing.T) {
	parent := t.TempDir()
	dir, tmp := filepath.Join(parent, "d"), filepath.Join(parent, ".arena-tmp-d-0000000000000001")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "old"), nil, 0o644)
	os.Mkdir(tmp, 0o755)
	os.WriteFile(filepath.Join(tmp, "new"), nil, 0o644)
	saved := exchangeFn
	exchangeFn = func(a, b string) error { return errors.ErrUnsupported }
	defer func() { exchangeFn = saved }()
	cleanup, _, err := swapIn(tmp, dir)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if got := names(listDir(t, dir)); got != "new" {
		t.Errorf("dir holds %s", got)
	}
	if got := names(listDir(t, parent)); got != "d" {
		t.Errorf("parent holds %s", got)
	}
}

// orphan makes a temporary for base in dir as a killed writer leaves it:
// made by create, forgotten by the process, its file closed.
func orphan(t *testing.T, dir, base string, isDir bool) string {
	t.Helper()
	tmp, f, err := create(dir, base, isDir)
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		f.Write([]byte("half"))
		f.Close()
		tmp = filepath.Dir(tmp)
	}
	release(tmp)
	return filepath.Base(tmp)
}

func TestClean(t *testing.T) {
	dir := t.TempDir()
	const hex = "0123456789abcdef"
	// Regular files of every shape are the user's: arena's temporaries
	// are directories with a manifest.
	for _, n := range []string{".arena-tmp-summary.parquet-" + hex, ".arena-tmp-run1-" + hex, "run1", ".arena.lock", "keep.tmp-1", ".run1.tmp-x9"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	a := orphan(t, dir, "run1", true)
	b := orphan(t, dir, "run1", false)
	c := orphan(t, dir, "run1.x", true)
	d := orphan(t, dir, "summary.parquet", false)
	users := ".arena-tmp-run1-" + hex + ",.arena-tmp-summary.parquet-" + hex + ",.arena.lock,.run1.tmp-x9,keep.tmp-1,run1"
	if err := CleanFor(dir, "run1"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{c: "", d: ""}
	for _, n := range strings.Split(users, ",") {
		want[n] = ""
	}
	if got, want := names(listDir(t, dir)), names(want); got != want {
		t.Errorf("after CleanFor(run1): %s, want %s (%s and %s removed)", got, want, a, b)
	}
	if err := Clean(dir); err != nil {
		t.Fatal(err)
	}
	if got := names(listDir(t, dir)); got != users {
		t.Errorf("after Clean: %s, want %s", got, users)
	}
}

// TestLock: flock semantics between two holders (flock locks are per open
// file, so one process can play both): exclusive excludes all, shards of
// one OUT coexist, the same shard twice does not, and the error names the
// holder's pid.
func TestLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	out := filepath.Join(t.TempDir(), "out")
	l, err := LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(out)
	want := fmt.Sprintf("%s is in use by pid %d", out, os.Getpid())
	if err == nil || !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second exclusive lock: %v, want %q", err, want)
	}
	if _, err := LockShard(out, "0/2"); !errors.Is(err, ErrInUse) {
		t.Errorf("shard lock while OUT is held whole: %v", err)
	}
	l.Unlock()
	s0, err := LockShard(out, "0/2")
	if err != nil {
		t.Fatal(err)
	}
	s1, err := LockShard(out, "1/2")
	if err != nil {
		t.Fatalf("two shards of one sweep: %v", err)
	}
	if _, err := LockShard(out, "1/2"); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "shard 1/2") {
		t.Errorf("the same shard twice: %v", err)
	}
	if _, err := LockDir(out); !errors.Is(err, ErrInUse) {
		t.Errorf("merge while shards run: %v", err)
	}
	s0.Unlock()
	s1.Unlock()
	l, err = LockDir(out)
	if err != nil {
		t.Fatalf("after every holder let go: %v", err)
	}
	l.Unlock()
	// An unwritable OUT is reported at once.
	if os.Geteuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		os.Mkdir(ro, 0o555)
		if _, err := LockDir(ro); err == nil || !strings.Contains(err.Error(), "cannot write there") {
			t.Errorf("read-only OUT: %v", err)
		}
	}
}

// TestHolderNotEchoed: the lock file's content is shown only when it is
// arena's own record.
func TestHolderNotEchoed(t *testing.T) {
	if got := describeHolder([]byte("root:x:0:0:secret\n")); got != "another process" {
		t.Errorf("describeHolder echoed %q", got)
	}
	if got := describeHolder([]byte("pid 42 on node7\n")); got != "pid 42 on node7" {
		t.Errorf("describeHolder = %q", got)
	}
}

// ReplaceDirs is all or nothing (issue 28: ENOSPC part-way through a
// multi-policy 'simulate --out' left one policy's new run beside
// another's old one). A failure writing the second directory leaves the
// first as it was; a failure swapping the second swaps the first back.
// Both with and without RENAME_EXCHANGE.
func TestReplaceDirsAllOrNothing(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		saved := exchangeFn
		if !exchange {
			exchangeFn = func(a, b string) error { return errors.ErrUnsupported }
		}
		parent := t.TempDir()
		a, b := filepath.Join(parent, "a"), filepath.Join(parent, "b")
		write := func(content string) func(string) error {
			return func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "r"), []byte(content), 0o666) }
		}
		for _, d := range []string{a, b} {
			if err := ReplaceDir(d, []string{"r"}, write("old")); err != nil {
				t.Fatal(err)
			}
		}
		check := func(when string) {
			t.Helper()
			for _, d := range []string{a, b} {
				if got, _ := os.ReadFile(filepath.Join(d, "r")); string(got) != "old" {
					t.Errorf("exchange=%v, %s: %s holds %q, want the old run", exchange, when, d, got)
				}
			}
			if got := names(listDir(t, parent)); got != "a,b" {
				t.Errorf("exchange=%v, %s: parent holds %s", exchange, when, got)
			}
		}
		enospc := func(string) error { return syscall.ENOSPC }
		err := ReplaceDirs([]Dir{{a, []string{"r"}, write("new")}, {b, []string{"r"}, enospc}})
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("err %v", err)
		}
		check("a write failing")
		// The second swap fails (its renames and exchange refused).
		savedRename, savedExchange := renameFn, exchangeFn
		renameFn = func(from, to string) error {
			if to == b || from == b {
				return syscall.EIO
			}
			return savedRename(from, to)
		}
		exchangeFn = func(x, y string) error {
			if y == b {
				return syscall.EIO
			}
			return savedExchange(x, y)
		}
		err = ReplaceDirs([]Dir{{a, []string{"r"}, write("new")}, {b, []string{"r"}, write("new")}})
		renameFn, exchangeFn = savedRename, savedExchange
		if err == nil {
			t.Fatal("a failed swap reported no error")
		}
		if got, _ := os.ReadFile(filepath.Join(a, "r")); string(got) != "old" {
			t.Errorf("exchange=%v: after b's swap failed, a holds %q, want the old run back", exchange, got)
		}
		if got := names(listDir(t, parent)); got != "a,b" {
			t.Errorf("exchange=%v: parent holds %s after a failed swap", exchange, got)
		}
		exchangeFn = saved
	}
}

// After Interrupt no commit happens: the temporary is removed and the
// destination untouched; RemoveTemporaries removes what is registered.
func TestInterruptRefusesCommits(t *testing.T) {
	defer func() { commitMu.Lock(); interrupted, stopped = false, make(chan struct{}); commitMu.Unlock() }()
	dir := t.TempDir()
	f, err := CreateTemp(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := CreateTemp(filepath.Join(dir, "y"))
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	Interrupt()
	if err := Commit(f.Name(), filepath.Join(dir, "x")); !errors.Is(err, context.Canceled) {
		t.Errorf("commit after Interrupt: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "z"), []byte("z")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFile after Interrupt: %v", err)
	}
	RemoveTemporaries()
	if got := names(listDir(t, dir)); got != "" {
		t.Errorf("left behind: %s", got)
	}
}

// A temporary file a killed writer left beside its output (nobody holds
// its lock) is removed by the next write of that output; a live writer's
// (locked while open) is not. Fails before this change: the orphan
// stayed for ever (474 MB from one killed import, issue 28).
func TestNextWriteRemovesOrphanedTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	stale := filepath.Join(dir, orphan(t, dir, "t.parquet", false))
	live, err := CreateTemp(path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	other := filepath.Join(dir, orphan(t, dir, "u.parquet", false)) // another output's
	if err := WriteFile(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the orphaned temporary is still there")
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("a live writer's temporary was removed: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another output's temporary was removed: %v", err)
	}
}
