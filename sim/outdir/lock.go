package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LockFile is the lock of an output directory, directly in it.
const LockFile = ".arena.lock"

// Lock is a held lock on an output directory; Unlock releases it (so does
// the process's exit, however it ends: flock locks die with their holder,
// so a killed sweep never leaves a stale lock).
type Lock struct{ files []*os.File }

// ErrInUse is what a lock held by another process unwraps to.
var ErrInUse = errors.New("in use")

// LockDir takes dir's lock exclusively (dir is created if needed): for a
// whole sweep, a merge or 'simulate --out'. It fails at once, naming the
// holder's pid, if anyone holds it.
func LockDir(dir string) (*Lock, error) {
	f, err := lockFile(dir, LockFile, true)
	if err != nil {
		return nil, err
	}
	return &Lock{files: []*os.File{f}}, nil
}

// LockShard takes dir's lock shared and the shard's own lock exclusively:
// the shards of one sweep may write into one shared OUT at once (a Slurm
// job array does), the same shard twice may not, and neither may a whole
// sweep or a merge while any shard runs.
func LockShard(dir, shard string) (*Lock, error) {
	f, err := lockFile(dir, LockFile, false)
	if err != nil {
		return nil, err
	}
	name := LockFile + ".shard-" + strings.NewReplacer("/", "-of-").Replace(shard)
	g, err := lockFile(dir, name, true)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("shard %s: %w", shard, err)
	}
	return &Lock{files: []*os.File{f, g}}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l == nil {
		return
	}
	for _, f := range l.files {
		f.Close()
	}
	l.files = nil
}

func lockFile(dir, name string, exclusive bool) (*os.File, error) {
	if err := MkdirAll(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	// The lock file is opened only as a regular file of its own, never
	// through a link (O_NOFOLLOW): a results directory from someone else
	// with .arena.lock linking to one of your files cannot make arena
	// truncate or write that file.
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s; arena opens its lock file only as a regular file, never through a link — remove it", path, describe(path, fi))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow|oNonblock, 0o666)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; arena opens its lock file only as a regular file, never through a link — remove it", path)
		}
		return nil, fmt.Errorf("%s: cannot write there: %w", dir, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file; arena opens its lock file only as a regular file — remove it", path)
	}
	if err := flock(f, exclusive); err != nil {
		holder := make([]byte, 300)
		n, _ := f.ReadAt(holder, 0)
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%s is %w by %s (another arena run writing there); wait for it to finish or choose another --out", dir, ErrInUse, describeHolder(holder[:n]))
		}
		return nil, fmt.Errorf("%s: locking %s: %w", dir, name, err)
	}
	// Record who holds it, for the message above (the lock itself is the
	// flock, not this content).
	host, _ := os.Hostname()
	rec := fmt.Sprintf("pid %d on %s\n", os.Getpid(), host)
	if exclusive {
		f.Truncate(0)
	}
	f.WriteAt([]byte(rec), 0)
	return f, nil
}

// describeHolder renders the lock file's record, which only arena writes
// ("pid N on HOST"); anything else is not echoed.
func describeHolder(rec []byte) string {
	s := strings.TrimSpace(strings.SplitN(string(rec), "\n", 2)[0])
	var pid int
	var host string
	if n, _ := fmt.Sscanf(s, "pid %d on %s", &pid, &host); n >= 1 && pid > 0 && len(s) < 300 {
		return s
	}
	return "another process"
}
