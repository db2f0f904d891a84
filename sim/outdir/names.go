package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
)

// Temporaries have one shape, ".arena-tmp-<base>-<16 hex digits>" for what
// is being written and ".arena-old-<base>-<16 hex digits>" for what is
// being replaced (base: the name of the file or directory they will
// become or were). They are recognised by that whole shape, never by a
// substring, and a temporary directory also by the manifest arena writes
// into it first (isOursToRemove).
const (
	tmpKind = "tmp"
	oldKind = "old"
)

// temporaryRE is the whole shape of a temporary's name.
var temporaryRE = regexp.MustCompile(`^\.arena-(tmp|old)-(.+)-[0-9a-f]{16}$`)

// temporaryName is a new random temporary name for base.
func temporaryName(base, kind string) string {
	return fmt.Sprintf(".arena-%s-%s-%016x", kind, base, rand.Uint64())
}

// IsTemporary reports whether a directory entry name has the shape of one
// of outdir's temporaries (the name only: what removes one also checks
// what it is, isOursToRemove).
func IsTemporary(name string) bool { return temporaryRE.MatchString(name) }

// temporaryOf reports whether name is a temporary of base (of kind tmp or
// old).
func temporaryOf(name, base string) bool {
	m := temporaryRE.FindStringSubmatch(name)
	return m != nil && m[2] == base
}

// isOursToRemove reports whether the temporary-shaped path is one arena
// made and may remove: a directory (every temporary is one, create) that
// is empty, holds only an empty manifest (the provisional one cut short
// by a kill), or holds arena's manifest (the provisional one create
// writes first, or a final one) and regular files only. Anything else — a user's
// file, link or FIFO that happens to have the shape, a directory of
// theirs without the manifest or with a subdirectory or a link in it — is
// left alone.
func isOursToRemove(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return false
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	if len(entries) == 0 || provisionalCutShort(path, entries) {
		return true
	}
	m, err := readManifest(path)
	if err != nil || m == nil {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return false
		}
	}
	return true
}

// removeTemporary removes a temporary that isOursToRemove vouches for:
// its files one by one and then the directory (never a recursive
// removal, so nothing it did not check goes).
func removeTemporary(path string) error {
	if !isOursToRemove(path) {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		var errs []error
		for _, e := range entries {
			if err := os.Remove(filepath.Join(path, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// provisionalCutShort reports whether a temporary directory holds nothing
// but an empty regular manifest: the state a writer killed between the
// provisional manifest's creation and its write leaves (writeProvisional),
// before anything else could be put there.
func provisionalCutShort(path string, entries []os.DirEntry) bool {
	if len(entries) != 1 || entries[0].Name() != ManifestFile || !entries[0].Type().IsRegular() {
		return false
	}
	fi, err := os.Lstat(filepath.Join(path, ManifestFile))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}
