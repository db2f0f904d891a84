package outdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// create makes a new temporary for base in dir: always a directory
// (temporaryName) holding arena's provisional manifest, written before
// anything else, so a killed writer's leftover is recognisably arena's by
// its name's whole shape and its manifest (isOursToRemove) — a user's
// file or directory of the same name is not. For a file (isDir false) it
// also creates the file base inside it, exclusively (O_EXCL, never
// through a link), and returns that file's path and the open file. Modes
// are 0666 and 0777 filtered by the umask (os.CreateTemp and os.MkdirTemp
// would force 0600 / 0700).
func create(dir, base string, isDir bool) (string, *os.File, error) {
	if !isDir && base == ManifestFile {
		return "", nil, fmt.Errorf("%s: arena does not write a file of that name", filepath.Join(dir, base))
	}
	for range 100 {
		tmp := filepath.Join(dir, temporaryName(base, tmpKind))
		err := os.Mkdir(tmp, 0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		register(tmp)
		if err := writeProvisional(tmp); err != nil {
			Discard(tmp)
			return "", nil, err
		}
		if isDir {
			return tmp, nil, nil
		}
		name := filepath.Join(tmp, base)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o666)
		if err != nil {
			Discard(tmp)
			return "", nil, err
		}
		// Held while the file is open: a temporary nobody holds is a
		// dead writer's (cleanStale).
		_ = flock(f, true)
		return name, f, nil
	}
	return "", nil, fmt.Errorf("%s: cannot find a free temporary name", dir)
}

// CreateTemp creates a temporary file next to path, to be renamed onto it
// when complete (its name is one Clean recognises). Unlike os.CreateTemp
// (mode 0600) its mode follows the umask.
func CreateTemp(path string) (*os.File, error) {
	if err := checkFileReplaceable(path); err != nil {
		return nil, err
	}
	cleanStale(path)
	_, f, err := create(filepath.Dir(path), filepath.Base(path), false)
	return f, err
}

// MkdirTemp creates a temporary directory in dir for scratch files of
// base while they are produced (resultsdir.AllocStream: a results file's
// pages while its run goes on). It is a temporary as ReplaceDir's are —
// named so that Clean recognises it, holding the provisional manifest,
// registered so that RemoveTemporaries removes it after an interrupt —
// and Discard removes it.
func MkdirTemp(dir, base string) (string, error) {
	tmp, _, err := create(dir, base, true)
	return tmp, err
}

// WriteFile writes data to a temporary file next to path and renames it
// into place. On any error the temporary is removed and path is untouched.
// Only a regular file at path is replaced: a symbolic link, a FIFO, a
// device or a directory there is refused, not replaced (nor written
// through).
func WriteFile(path string, data []byte) error {
	if err := checkFileReplaceable(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	cleanStale(path)
	tmp, f, err := create(filepath.Dir(path), filepath.Base(path), false)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		Discard(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := Commit(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReplaceDir fills a new temporary sibling of dir with write and then puts
// it in dir's place: afterwards dir holds exactly what write wrote. If
// write or the swap fails, the temporary is removed and dir is as it was.
//
// An existing non-empty dir is replaced only if it holds arena's manifest
// (ManifestFile, written by the ReplaceDir that made it) and everything
// in it is arena's: a regular file the manifest lists, a name in known
// (what other commands add to a results directory), or a temporary. A
// directory without a manifest, or holding anything else (a user's notes
// beside the results, a symbolic link), and a symbolic link at dir itself,
// are refused, not deleted.
func ReplaceDir(dir string, known []string, write func(tmp string) error) error {
	return ReplaceDirs([]Dir{{Path: dir, Known: known, Write: write}})
}

// Dir is one directory of ReplaceDirs: its path, the names arena may
// replace in it (ReplaceDir's known) and what fills it.
type Dir struct {
	Path  string
	Known []string
	Write func(tmp string) error
}

// ReplaceDirs is ReplaceDir for several directories, all or nothing: every
// new directory is written in full before any is swapped in, so a failure
// part-way (a full disk while writing the third) leaves every directory
// as it was; and if a swap fails, the ones already swapped are swapped
// back. The runs of one command (simulate's policies) are thus never a
// mix of new and old.
func ReplaceDirs(dirs []Dir) error {
	tmps := make([]string, 0, len(dirs))
	discardAll := func() {
		for _, t := range tmps {
			Discard(t)
		}
	}
	for _, d := range dirs {
		d.Path = filepath.Clean(d.Path)
		parent, base := filepath.Split(d.Path)
		if parent == "" {
			parent = "."
		}
		if err := MkdirAll(parent); err != nil {
			discardAll()
			return err
		}
		if err := checkReplaceable(d.Path, d.Known); err != nil {
			discardAll()
			return err
		}
		tmp, _, err := create(parent, base, true)
		if err != nil {
			discardAll()
			return err
		}
		tmps = append(tmps, tmp)
		if err := d.Write(tmp); err != nil {
			discardAll()
			return err
		}
		if err := writeManifest(tmp); err != nil {
			discardAll()
			return err
		}
	}
	// The commit: every swap under the commit lock, none after an
	// interrupt; a failed swap undoes the earlier ones.
	commitMu.Lock()
	if interrupted {
		commitMu.Unlock()
		discardAll()
		return ErrInterrupted
	}
	var undos, cleanups []func()
	var serr error
	for i, d := range dirs {
		cleanup, undo, err := swapIn(tmps[i], filepath.Clean(d.Path))
		if err != nil {
			serr = fmt.Errorf("replacing %s: %w", d.Path, err)
			break
		}
		undos, cleanups = append(undos, undo), append(cleanups, cleanup)
	}
	if serr != nil {
		for i := len(undos) - 1; i >= 0; i-- {
			undos[i]()
		}
	}
	commitMu.Unlock()
	if serr != nil {
		discardAll()
		return serr
	}
	for _, c := range cleanups {
		c()
	}
	discardAll() // the temporaries now hold old content, or nothing
	return nil
}

func checkReplaceable(dir string, known []string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkNotLink(dir); err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is %s, not a results directory; not replacing it — move it away, or choose another --out", dir, describe(dir, fi))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	ours, err := readManifest(dir)
	if err != nil {
		return fmt.Errorf("%w; not replacing %s", err, dir)
	}
	if ours == nil {
		return fmt.Errorf("%s holds files but no manifest (%s), so arena did not write it (or wrote it before manifests); not replacing it — move it away, or choose another --out", dir, ManifestFile)
	}
	var foreign []string
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		_, listed := ours.entries[name]
		switch {
		case name == ManifestFile && typ.IsRegular():
		case listed && typ.IsRegular():
		case slices.Contains(known, name) && (typ.IsRegular() || typ.IsDir()):
		case IsTemporary(name) && isOursToRemove(filepath.Join(dir, name)):
		default:
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	shown := foreign
	if len(shown) > 5 {
		shown = shown[:5]
	}
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = quoteClip(n)
	}
	more := ""
	if len(foreign) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(foreign)-len(shown))
	}
	return fmt.Errorf("%s holds files arena did not write (%s%s); not replacing it — move them away, or choose another --out", dir, strings.Join(quoted, ", "), more)
}

// swapIn moves the directory tmp to dir, replacing dir's old content. The
// old content ends up under tmp's name (or a registered .arena-old- name that
// cleanup removes); undo puts the old content back in dir and the new
// under tmp's name. The caller holds commitMu.
func swapIn(tmp, dir string) (cleanup, undo func(), err error) {
	nop := func() {}
	err = renameFn(tmp, dir)
	if err == nil {
		return nop, func() { renameFn(dir, tmp) }, nil
	}
	if _, serr := os.Lstat(dir); serr != nil {
		return nil, nil, err // dir does not exist: the rename failed for another reason
	}
	// dir exists (rename(2) will not replace a non-empty directory).
	// Exchange atomically where the system can; the old content ends up
	// under tmp's name and is removed.
	if exchangeFn(tmp, dir) == nil {
		return nop, func() { exchangeFn(tmp, dir) }, nil
	}
	// Two renames: dir is missing for an instant, never half-written.
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	old := filepath.Join(parent, temporaryName(base, oldKind))
	live[old] = true // commitMu is held
	if err := renameFn(dir, old); err != nil {
		delete(live, old)
		return nil, nil, err
	}
	if err := renameFn(tmp, dir); err != nil {
		renameFn(old, dir)
		delete(live, old)
		return nil, nil, err
	}
	return func() { Discard(old) }, func() { renameFn(dir, tmp); renameFn(old, dir); delete(live, old) }, nil
}

// CleanFor removes the temporaries left in dir by interrupted writes of
// dir/base (WriteFile or ReplaceDir): names of exactly their shape for
// base that are what arena makes (isOursToRemove). Its caller must own
// base: hold dir's lock, or the lock of a shard that alone writes base.
func CleanFor(dir, base string) error {
	return cleanIf(dir, func(name string) bool { return temporaryOf(name, base) })
}

// Clean removes the temporaries of interrupted writes directly in dir (not
// below): names of exactly their shape that are what arena makes
// (isOursToRemove); a user's file or directory is never among them,
// whatever its name contains. Only a holder of dir's lock may call it:
// another writer's temporaries look the same.
func Clean(dir string) error {
	return cleanIf(dir, IsTemporary)
}

func cleanIf(dir string, match func(string) bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if match(e.Name()) {
			errs = append(errs, removeTemporary(filepath.Join(dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// exchangeFn is exchange and renameFn os.Rename, replaceable in tests to
// exercise the fallback and a failed swap.
var (
	exchangeFn = exchange
	renameFn   = os.Rename
)

// The process's live temporaries and its commit lock. Every temporary
// outdir creates is registered until it is renamed into place or removed,
// so that an interrupted command's temporaries can be removed at once
// (RemoveTemporaries), not only by the next run's Clean; and every commit
// (the rename or swap that makes a write visible) holds commitMu and is
// refused after Interrupt, so nothing is written after a signal and no
// commit is cut in half by the process's exit.
var (
	commitMu    sync.Mutex
	live        = map[string]bool{}
	interrupted bool
	stopped     = make(chan struct{}) // closed by the first Interrupt

	// TestHookCreated, when set (tests only), is called with each
	// temporary's path once it exists: a test can stop a command there.
	TestHookCreated func(path string)
)

// ErrInterrupted is a commit refused after Interrupt; it is a
// context.Canceled, so a command reports it as the interrupt it is.
var ErrInterrupted = fmt.Errorf("interrupted before the results were put in place: %w", context.Canceled)

func register(name string) {
	commitMu.Lock()
	live[name] = true
	commitMu.Unlock()
	if TestHookCreated != nil {
		TestHookCreated(name)
	}
}

func release(name string) {
	commitMu.Lock()
	delete(live, name)
	commitMu.Unlock()
}

// Commit renames the temporary tmp (CreateTemp) onto path, the step that
// makes a write visible. After Interrupt it removes tmp instead and
// returns ErrInterrupted.
func Commit(tmp, path string) error {
	commitMu.Lock()
	if interrupted {
		commitMu.Unlock()
		Discard(tmp)
		return ErrInterrupted
	}
	err := os.Rename(tmp, path)
	root := tempRoot(tmp)
	commitMu.Unlock()
	// Committed or not, the temporary directory goes (it holds at most
	// its manifest now).
	Discard(root)
	return err
}

// tempRoot is the registered temporary holding tmp: tmp itself (a
// directory of ReplaceDir) or its parent (a file of CreateTemp). The
// caller holds commitMu.
func tempRoot(tmp string) string {
	if d := filepath.Dir(tmp); !live[tmp] && live[d] {
		return d
	}
	return tmp
}

// Discard removes a temporary (a file of CreateTemp with its directory, or
// a directory of ReplaceDir) and forgets it.
func Discard(tmp string) {
	commitMu.Lock()
	root := tempRoot(tmp)
	commitMu.Unlock()
	os.RemoveAll(root)
	release(root)
	forgetStreamed(tmp)
}

// Interrupt refuses every later commit (ErrInterrupted). A commit in
// progress finishes first: a result is then whole or absent.
func Interrupt() {
	commitMu.Lock()
	if !interrupted {
		interrupted = true
		close(stopped)
	}
	commitMu.Unlock()
}

// Interrupted is closed once Interrupt has been called.
func Interrupted() <-chan struct{} { return stopped }

// RemoveTemporaries interrupts (Interrupt) and removes every temporary
// still registered: what a command stopped by a signal leaves behind
// when it does not return in time to remove them itself.
func RemoveTemporaries() {
	Interrupt()
	commitMu.Lock()
	names := make([]string, 0, len(live))
	for n := range live {
		names = append(names, n)
	}
	commitMu.Unlock()
	for _, n := range names {
		// A writer may still be adding files to a temporary directory:
		// a second pass catches what the first raced with.
		if os.RemoveAll(n) != nil {
			os.RemoveAll(n)
		}
		release(n)
	}
}

// cleanStale removes the temporaries of path that a writer killed
// outright (kill -9, a crash) left beside it — an import's half-written
// table, a figure — so they do not pile up: a live writer holds an flock
// on its temporary file while it writes (create), so one that can be
// locked is an orphan. Only arena's temporaries are considered (the
// name's shape and the manifest, isOursToRemove). Where flock does not
// exist nothing is removed.
func cleanStale(path string) {
	if !haveFlock {
		return
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !temporaryOf(e.Name(), base) || !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !isOursToRemove(p) {
			continue
		}
		f, err := OpenRegular(filepath.Join(p, base))
		if err != nil {
			continue // no file yet: perhaps a live writer about to make it
		}
		if flock(f, true) == nil {
			removeTemporary(p)
		}
		f.Close()
	}
}
