package outdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ManifestFile names what ReplaceDir wrote into a directory, so a later
// ReplaceDir knows what it may replace (everything else in the directory
// is someone else's), and Verify can tell a complete directory from one
// truncated or altered since. Its format (docs/formats.md):
//
//	arena-files 2
//	name<TAB>size<TAB>sha256
//	…
//
// one line per regular file, each ended by a single LF. Parsing is
// strict: any other line — a carriage return from converted line endings
// included — is an error naming the manifest and the line, never read as
// a weaker form. Manifests of earlier arena versions, without the header,
// are read only when every line has one exact shape: all
// "name<TAB>size<TAB>sha256" (version 1, checked as version 2), or all a
// bare name (version 0: Verify can only say ErrNoSizes).
const ManifestFile = ".arena-files"

// manifestHeader is the first line of the manifests arena writes.
const manifestHeader = "arena-files 2"

// maxManifest bounds the manifest read: a results directory holds a few
// files; a larger "manifest" is not one of arena's.
const maxManifest = 64 << 10

// ErrBadManifest is what a manifest arena cannot have written unwraps to
// (ManifestError).
var ErrBadManifest = errors.New("not a manifest arena wrote")

// ManifestError is a malformed manifest: its path, the 1-based line (0
// for the file as a whole) and what is wrong there.
type ManifestError struct {
	Path string
	Line int
	Why  string
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s; %v", e.Path, e.Line, e.Why, ErrBadManifest)
	}
	return fmt.Sprintf("%s: %s; %v", e.Path, e.Why, ErrBadManifest)
}

func (e *ManifestError) Unwrap() error { return ErrBadManifest }

// entry is one manifest line: a name's recorded size and SHA-256 (sum ""
// in a version-0 manifest, which records names only).
type entry struct {
	size int64
	sum  string
}

// manifest is a parsed manifest.
type manifest struct {
	version int
	entries map[string]entry
}

// readManifest reads dir's manifest: nil without error when there is
// none; an error when it is not a regular file or not well-formed.
func readManifest(dir string) (*manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := ReadRegular(path, maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseManifest(path, data)
}

// parseManifest parses a manifest's bytes (path names it in errors).
func parseManifest(path string, data []byte) (*manifest, error) {
	bad := func(line int, format string, a ...any) error {
		return &ManifestError{Path: path, Line: line, Why: fmt.Sprintf(format, a...)}
	}
	if len(data) == 0 {
		return nil, bad(0, "empty")
	}
	text := string(data)
	lines := strings.Split(text, "\n")
	if last := lines[len(lines)-1]; last != "" {
		return nil, bad(len(lines), "no newline at its end (cut short?)")
	}
	lines = lines[:len(lines)-1]
	for i, l := range lines {
		if strings.Contains(l, "\r") {
			return nil, bad(i+1, "a carriage return (CRLF): its line endings were converted (git autocrlf, a Windows copy); restore the directory as arena wrote it")
		}
	}
	m := &manifest{entries: map[string]entry{}}
	first := 0
	switch {
	case lines[0] == manifestHeader:
		m.version, first = 2, 1
	case strings.HasPrefix(lines[0], "arena-files"):
		return nil, bad(1, "header %s: not %q", quoteClip(lines[0]), manifestHeader)
	case strings.Contains(lines[0], "\t"):
		m.version = 1
	default:
		m.version = 0
	}
	for i := first; i < len(lines); i++ {
		l := lines[i]
		var name string
		var e entry
		if m.version == 0 {
			if strings.Contains(l, "\t") {
				return nil, bad(i+1, "%s: a name and fields in a manifest of names only", quoteClip(l))
			}
			name = l
		} else {
			f := strings.Split(l, "\t")
			if len(f) != 3 {
				return nil, bad(i+1, "%s: %d fields, want name<TAB>size<TAB>sha256", quoteClip(l), len(f))
			}
			size, ok := parseSize(f[1])
			if !ok {
				return nil, bad(i+1, "size %s: not a whole number of bytes", quoteClip(f[1]))
			}
			if !isSHA256(f[2]) {
				return nil, bad(i+1, "digest %s: not 64 lower-case hex digits", quoteClip(f[2]))
			}
			name, e = f[0], entry{size: size, sum: f[2]}
		}
		if why := badName(name); why != "" {
			return nil, bad(i+1, "name %s: %s", quoteClip(name), why)
		}
		if _, dup := m.entries[name]; dup {
			return nil, bad(i+1, "%s listed twice", quoteClip(name))
		}
		m.entries[name] = e
	}
	return m, nil
}

// badName says why name cannot be a manifest entry ("" when it can): one
// path element, no control characters, not the manifest itself.
func badName(name string) string {
	switch {
	case name == "":
		return "empty"
	case name == "." || name == "..", strings.ContainsAny(name, "/\\"):
		return "not a name in the directory"
	case name == ManifestFile:
		return "the manifest itself"
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "a control character"
	}
	return ""
}

func parseSize(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func isSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// quoteClip quotes a value from a file for an error, at most 64 bytes.
func quoteClip(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// writeManifest records every file of tmp (all regular files: a results
// directory holds nothing else) with its size and SHA-256: for a file
// WriteHashed wrote (and still of that size), the ones taken while it was
// written; for another, read from the file.
func writeManifest(tmp string) error {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(manifestHeader + "\n")
	for _, e := range entries {
		n := e.Name()
		if n == ManifestFile {
			continue
		}
		path := filepath.Join(tmp, n)
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file; a results directory holds only regular files", path)
		}
		if why := badName(n); why != "" || strings.Contains(n, "\t") {
			return fmt.Errorf("%s: a name the manifest cannot record (%s)", path, cmpOr(why, "a tab"))
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		size, sum := info.Size(), ""
		if s, ok := streamedSum(tmp, n, size); ok {
			sum = s // hashed while written (WriteHashed)
		} else if size, sum, err = digest(path, -1, nil); err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s\t%d\t%s\n", n, size, sum)
	}
	forgetStreamed(tmp)
	// Written beside the provisional manifest and renamed over it: a
	// writer killed here leaves the provisional manifest whole (and a
	// regular file beside it), so the temporary stays recognisable as
	// arena's (isOursToRemove), never a truncated manifest beside results.
	next := filepath.Join(tmp, ManifestFile+".new")
	if err := writeNew(next, []byte(b.String())); err != nil {
		return err
	}
	return os.Rename(next, filepath.Join(tmp, ManifestFile))
}

// writeProvisional puts a manifest listing nothing into a new temporary
// directory, before anything else: a directory a killed writer leaves is
// then recognisable as arena's (isOursToRemove). A writer killed between
// the file's creation and its one write leaves it empty, which
// isOursToRemove also knows as arena's when nothing else is there.
func writeProvisional(tmp string) error {
	return writeNew(filepath.Join(tmp, ManifestFile), []byte(manifestHeader+"\n"))
}

// writeNew writes data to path, replacing a regular file there, never
// through a link (O_NOFOLLOW).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, 0o666)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// digest returns a regular file's size and SHA-256 (hex), reading at most
// limit bytes (all of it when limit < 0); with keep non-nil it also
// returns the bytes read there.
func digest(path string, limit int64, keep *[]byte) (int64, string, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	h := sha256.New()
	var w io.Writer = h
	var buf bytes.Buffer
	if keep != nil {
		w = io.MultiWriter(h, &buf)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", path, err)
	}
	if keep != nil {
		*keep = buf.Bytes()
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// ErrNoManifest is Verify's error for a directory without a manifest.
var ErrNoManifest = errors.New("outdir: no manifest (" + ManifestFile + ")")

// ErrNoSizes is Verify's error for a directory whose manifest (version 0,
// from before sizes were recorded) lists names only: the files exist as
// regular files, but nothing says they are whole.
var ErrNoSizes = errors.New("outdir: the manifest records no sizes (written before arena recorded them)")

// Verify checks that every file dir's manifest records is there, a
// regular file, with the size and SHA-256 it had when written: a results
// directory truncated or altered since (a disk that filled, a copy cut
// short) is not complete. required names files the manifest must list.
//
// Nothing but regular files is opened (a link, a FIFO or a device in
// their place is an error naming the path), and no file is read past its
// recorded size + 1 byte. A directory without a manifest returns
// ErrNoManifest, one whose manifest records no sizes ErrNoSizes (once its
// files are found to be regular), and a malformed manifest a
// ManifestError.
func Verify(dir string, required ...string) error {
	_, err := verify(dir, required, false)
	return err
}

// File is one file of a verified directory, read.
type File struct {
	Name string
	Data []byte
}

// ReadVerified is Verify that also returns the content of every file the
// manifest lists, in name order: the bytes checked are the bytes
// returned, so a copy made from them is the verified directory, not what
// its files hold a moment later.
func ReadVerified(dir string, required ...string) ([]File, error) {
	return verify(dir, required, true)
}

func verify(dir string, required []string, keep bool) ([]File, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoManifest)
	}
	for _, n := range required {
		if _, ok := m.entries[n]; !ok {
			return nil, fmt.Errorf("%s: %s is not listed in its manifest (%s); not a complete results directory", dir, n, ManifestFile)
		}
	}
	names := make([]string, 0, len(m.entries))
	for n := range m.entries {
		names = append(names, n)
	}
	slices.Sort(names)
	var files []File
	for _, n := range names {
		e, path := m.entries[n], filepath.Join(dir, n)
		if m.version == 0 {
			f, err := OpenRegular(path)
			if err != nil {
				return nil, err
			}
			f.Close()
			continue
		}
		var data []byte
		var into *[]byte
		if keep {
			into = &data
		}
		size, sum, err := digest(path, e.size+1, into)
		if err != nil {
			return nil, err
		}
		if size > e.size {
			return nil, fmt.Errorf("%s: longer than the %d bytes it had when written (altered since)", path, e.size)
		}
		if size != e.size {
			return nil, fmt.Errorf("%s: %d bytes, %d when written (truncated?)", path, size, e.size)
		}
		if sum != e.sum {
			return nil, fmt.Errorf("%s: its content changed since it was written (SHA-256 differs)", path)
		}
		files = append(files, File{Name: n, Data: data})
	}
	if m.version == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoSizes)
	}
	return files, nil
}

// ErrNotRegular is what OpenRegular's refusal of a link, a FIFO, a
// device, a socket or a directory unwraps to.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading only if it is a regular file: it is
// examined with Lstat first (a symbolic link, a FIFO, a device, a socket
// or a directory is refused, naming the path and what it is), opened
// without following a link and without blocking (a FIFO swapped in
// meanwhile cannot hang the open), and checked to be the same file.
func OpenRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, %w; arena reads only the regular files it wrote", path, describe(path, fi), ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(fi, st) {
		f.Close()
		return nil, fmt.Errorf("%s changed while being opened; %w", path, ErrNotRegular)
	}
	return f, nil
}

// ReadRegular reads the regular file path (OpenRegular), at most max
// bytes: a larger file is an error naming it.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: over %d bytes, not a file arena wrote", path, max)
	}
	return data, nil
}

// describe names what a non-regular directory entry is.
func describe(path string, fi fs.FileInfo) string {
	mode := fi.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return "a symbolic link to " + quoteClip(target)
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode.IsDir():
		return "a directory"
	case mode.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
