package outdir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Temporary names: ".<base>.tmp-<random>" for what is being written and
// ".<base>.old-<random>" for what is being replaced. Clean removes both.
const (
	tmpInfix = ".tmp-"
	oldInfix = ".old-"
)

// IsTemporary reports whether a directory entry name is one of outdir's
// temporaries.
func IsTemporary(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.Contains(name, tmpInfix) || strings.Contains(name, oldInfix))
}

// create makes a new file or directory named .<base><infix><random> in
// dir, with mode perm filtered by the umask (os.CreateTemp and
// os.MkdirTemp would force 0600 / 0700).
func create(dir, base, infix string, isDir bool) (string, *os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+infix+strconv.FormatUint(rand.Uint64(), 36))
		var err error
		var f *os.File
		if isDir {
			err = os.Mkdir(name, 0o777)
		} else {
			f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			if f != nil {
				// Held while the file is open: a temporary nobody holds
				// is a dead writer's (cleanStale).
				_ = flock(f, true)
			}
			register(name)
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("%s: cannot find a free temporary name", dir)
}

// CreateTemp creates a temporary file next to path, to be renamed onto it
// when complete (its name is one Clean recognises). Unlike os.CreateTemp
// (mode 0600) its mode follows the umask.
func CreateTemp(path string) (*os.File, error) {
	cleanStale(path)
	_, f, err := create(filepath.Dir(path), filepath.Base(path), tmpInfix, false)
	return f, err
}

// WriteFile writes data to a temporary file next to path and renames it
// into place. On any error the temporary is removed and path is untouched.
func WriteFile(path string, data []byte) error {
	cleanStale(path)
	tmp, f, err := create(filepath.Dir(path), filepath.Base(path), tmpInfix, false)
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
// An existing non-empty dir is replaced only if everything in it is
// arena's: a name in known, or a name its manifest (ManifestFile, written
// by the ReplaceDir that made it) lists. A directory holding anything else
// (a user's notes beside the results, a directory of the user's that
// happens to sit at the path) is refused, not deleted.
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
		if err := os.MkdirAll(parent, 0o777); err != nil {
			discardAll()
			return err
		}
		if err := checkReplaceable(d.Path, d.Known); err != nil {
			discardAll()
			return err
		}
		tmp, _, err := create(parent, base, tmpInfix, true)
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
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	ours, err := readManifest(dir)
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range entries {
		name := e.Name()
		// Temporaries of interrupted writes (IsTemporary) are arena's too.
		if name == ManifestFile || slices.Contains(known, name) || ours[name] || IsTemporary(name) {
			continue
		}
		foreign = append(foreign, name)
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
		quoted[i] = strconv.Quote(n)
	}
	more := ""
	if len(foreign) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(foreign)-len(shown))
	}
	return fmt.Errorf("%s holds files arena did not write (%s%s); not replacing it — move them away, or choose another --out", dir, strings.Join(quoted, ", "), more)
}

// ManifestFile names what ReplaceDir wrote into a directory, one file a
// line — "name<TAB>size<TAB>sha256" (a bare name in directories written
// before sizes were recorded) — so a later ReplaceDir knows what it may
// replace (everything else in the directory is someone else's), and Verify
// can tell a complete directory from one truncated or altered since.
const ManifestFile = ".arena-files"

// maxManifest bounds the manifest read: a results directory holds a few
// files; a larger "manifest" is not one of arena's.
const maxManifest = 64 << 10

func writeManifest(tmp string) error {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		if e.Name() == ManifestFile {
			continue
		}
		b.WriteString(e.Name())
		if e.Type().IsRegular() {
			size, sum, err := digest(filepath.Join(tmp, e.Name()))
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "\t%d\t%s", size, sum)
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(tmp, ManifestFile), []byte(b.String()), 0o666)
}

// digest returns a file's size and SHA-256 (hex).
func digest(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// entry is one manifest line: a name and, when recorded, size and digest.
type entry struct {
	size int64
	sum  string // "" when not recorded
}

// readManifest returns the names dir's manifest lists (none when it has
// no manifest, as directories written before manifests existed).
func readManifest(dir string) (map[string]bool, error) {
	m, err := readEntries(dir)
	if m == nil || err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(m))
	for n := range m {
		names[n] = true
	}
	return names, nil
}

func readEntries(dir string) (map[string]entry, error) {
	f, err := os.Open(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("%s: over %d bytes, not a manifest arena wrote; not replacing %s", filepath.Join(dir, ManifestFile), maxManifest, dir)
	}
	out := map[string]entry{}
	for _, l := range strings.Split(string(data), "\n") {
		fields := strings.Split(l, "\t")
		n := fields[0]
		if n == "" || strings.ContainsAny(n, "/\x00") || n == "." || n == ".." {
			continue
		}
		var e entry
		if len(fields) == 3 {
			if size, err := strconv.ParseInt(fields[1], 10, 64); err == nil && len(fields[2]) == 64 {
				e = entry{size: size, sum: fields[2]}
			}
		}
		out[n] = e
	}
	return out, nil
}

// ErrNoManifest is Verify's error for a directory without a manifest.
var ErrNoManifest = errors.New("outdir: no manifest (" + ManifestFile + ")")

// Verify checks that every file dir's manifest records is there with the
// size and SHA-256 it had when written: a results directory truncated or
// altered since (a disk that filled, a copy cut short) is not complete.
// A directory without a manifest returns ErrNoManifest; files listed
// without a size (older manifests) are only checked to exist.
func Verify(dir string) error {
	m, err := readEntries(dir)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("%s: %w", dir, ErrNoManifest)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		e, path := m[n], filepath.Join(dir, n)
		if e.sum == "" {
			if _, err := os.Lstat(path); err != nil {
				return err
			}
			continue
		}
		size, sum, err := digest(path)
		if err != nil {
			return err
		}
		if size != e.size {
			return fmt.Errorf("%s: %d bytes, %d when written (truncated?)", path, size, e.size)
		}
		if sum != e.sum {
			return fmt.Errorf("%s: its content changed since it was written (SHA-256 differs)", path)
		}
	}
	return nil
}

// swapIn moves the directory tmp to dir, replacing dir's old content. The
// old content ends up under tmp's name (or a registered .old- name that
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
	old := filepath.Join(parent, "."+base+oldInfix+strconv.FormatUint(rand.Uint64(), 36))
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
// dir/base (WriteFile or ReplaceDir). Its caller must own base: hold dir's
// lock, or the lock of a shard that alone writes base.
func CleanFor(dir, base string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		for _, infix := range []string{tmpInfix, oldInfix} {
			if r, ok := strings.CutPrefix(e.Name(), "."+base+infix); ok && r != "" && strings.Trim(r, "0123456789abcdefghijklmnopqrstuvwxyz") == "" {
				errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
	}
	return errors.Join(errs...)
}

// Clean removes the temporaries of interrupted writes directly in dir (not
// below). Only a holder of dir's lock may call it: another writer's
// temporaries look the same.
func Clean(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if IsTemporary(e.Name()) {
			errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
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
	if err == nil {
		delete(live, tmp)
	}
	commitMu.Unlock()
	if err != nil {
		Discard(tmp)
	}
	return err
}

// Discard removes a temporary (file or directory) and forgets it.
func Discard(tmp string) {
	os.RemoveAll(tmp)
	release(tmp)
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

// cleanStale removes the temporary files of path that a writer killed
// outright (kill -9, a crash) left beside it — an import's half-written
// table, a figure — so they do not pile up: a live writer holds an flock
// on its temporary while it writes (create), so one that can be locked is
// an orphan. Where flock does not exist nothing is removed.
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
		r, ok := strings.CutPrefix(e.Name(), "."+base+tmpInfix)
		if !ok || r == "" || strings.Trim(r, "0123456789abcdefghijklmnopqrstuvwxyz") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if flock(f, true) == nil {
			os.Remove(p)
		}
		f.Close()
	}
}
