package outdir

import (
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
		return name, f, err
	}
	return "", nil, fmt.Errorf("%s: cannot find a free temporary name", dir)
}

// CreateTemp creates a temporary file next to path, to be renamed onto it
// when complete (its name is one Clean recognises). Unlike os.CreateTemp
// (mode 0600) its mode follows the umask.
func CreateTemp(path string) (*os.File, error) {
	_, f, err := create(filepath.Dir(path), filepath.Base(path), tmpInfix, false)
	return f, err
}

// WriteFile writes data to a temporary file next to path and renames it
// into place. On any error the temporary is removed and path is untouched.
func WriteFile(path string, data []byte) error {
	tmp, f, err := create(filepath.Dir(path), filepath.Base(path), tmpInfix, false)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
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
	dir = filepath.Clean(dir)
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return err
	}
	if err := checkReplaceable(dir, known); err != nil {
		return err
	}
	tmp, _, err := create(parent, base, tmpInfix, true)
	if err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := writeManifest(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := swapIn(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
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

// ManifestFile names what ReplaceDir wrote into a directory, one name per
// line, so a later ReplaceDir knows what it may replace: everything else
// in the directory is someone else's.
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
		if e.Name() != ManifestFile {
			b.WriteString(e.Name())
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(filepath.Join(tmp, ManifestFile), []byte(b.String()), 0o666)
}

// readManifest returns the names dir's manifest lists (none when it has
// no manifest, as directories written before manifests existed).
func readManifest(dir string) (map[string]bool, error) {
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
	names := map[string]bool{}
	for _, n := range strings.Split(string(data), "\n") {
		if n != "" && !strings.ContainsAny(n, "/\x00") && n != "." && n != ".." {
			names[n] = true
		}
	}
	return names, nil
}

// swapIn moves the directory tmp to dir, replacing dir's old content.
func swapIn(tmp, dir string) error {
	err := os.Rename(tmp, dir)
	if err == nil {
		return nil
	}
	if _, serr := os.Lstat(dir); serr != nil {
		return err // dir does not exist: the rename failed for another reason
	}
	// dir exists (rename(2) will not replace a non-empty directory).
	// Exchange atomically where the system can; the old content ends up
	// under tmp's name and is removed.
	if exchangeFn(tmp, dir) == nil {
		os.RemoveAll(tmp)
		return nil
	}
	// Two renames: dir is missing for an instant, never half-written.
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	old, _, err := create(parent, base, oldInfix, true)
	if err != nil {
		return err
	}
	os.Remove(old)
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	os.RemoveAll(old)
	return nil
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

// exchangeFn is exchange, replaceable in tests to exercise the fallback.
var exchangeFn = exchange
