package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MkdirAll creates dir and its parents (mode 0777 filtered by the umask)
// as os.MkdirAll does, and when that fails because a component of the
// path is a symbolic link that leads nowhere — dangling, or looping — or
// is a file, the error names that component and what it points to instead
// of os.MkdirAll's "mkdir DIR: file exists".
func MkdirAll(dir string) error {
	err := os.MkdirAll(dir, 0o777)
	if err == nil {
		return nil
	}
	if why := explainPath(dir); why != nil {
		return why
	}
	return err
}

// explainPath finds, from the root down, the first component of dir that
// stops a directory being made there: a symbolic link whose target cannot
// be reached, or something other than a directory. nil when none is.
func explainPath(dir string) error {
	var chain []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if up := filepath.Dir(p); up == p {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		fi, err := os.Lstat(p)
		if err != nil {
			return nil // missing: MkdirAll's own error says why it was not made
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil {
				return linkError(p, err)
			}
			fi = st
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is %s, not a directory", p, describe(p, fi))
		}
	}
	return nil
}

// linkError explains a symbolic link at p whose target Stat could not
// reach (err).
func linkError(p string, err error) error {
	target, _ := os.Readlink(p)
	why := err.Error()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "which does not exist (a dangling link)"
	case errors.Is(err, syscall.ELOOP):
		why = "which loops (too many levels of symbolic links)"
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = "which cannot be reached: " + pe.Err.Error()
		}
	}
	return fmt.Errorf("%s is a symbolic link to %s, %s; point it at a directory, or remove it", p, quoteClip(target), why)
}

// checkNotLink refuses a path that is a symbolic link: arena replaces,
// and writes into, only directories and files it can see are below
// --out, never a link (which could lead anywhere).
func checkNotLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	return fmt.Errorf("%s is %s; arena does not replace a link or write through one — remove it, or choose another --out", path, describe(path, fi))
}

// checkFileReplaceable refuses to replace anything at path but a regular
// file: a link, a FIFO, a device, a socket or a directory there is
// someone else's.
func checkFileReplaceable(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s; arena replaces only a regular file there, never a link (nor writes through one) — remove it, or choose another --out", path, describe(path, fi))
}

// Subdir makes sure path is a real directory arena may write into: made
// (with its parents, MkdirAll) when missing, refused when it is a
// symbolic link or not a directory. A sweep's runs/ below --out is one:
// a link there would send the runs outside --out.
func Subdir(path string) error {
	if err := checkNotLink(path); err != nil {
		return err
	}
	if err := MkdirAll(path); err != nil {
		return err
	}
	return checkNotLink(path) // made meanwhile by someone else
}
