package outdir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// streamed holds, per temporary directory of ReplaceDirs, the size and
// SHA-256 of the files WriteHashed wrote there: the manifest takes them
// instead of reading the files back.
var streamed = struct {
	sync.Mutex
	sums map[string]map[string]fileSum
}{sums: map[string]map[string]fileSum{}}

type fileSum struct {
	size int64
	sum  string
}

// WriteHashed creates file name in tmp, a directory ReplaceDir(s) handed
// to a Write, and streams write's output to it (buffered), hashing the
// bytes as they go: the manifest then records the size and SHA-256 taken
// while writing instead of reading the file back. The file is created as
// writeNew creates one (never through a link).
func WriteHashed(tmp, name string, write func(io.Writer) error) error {
	path := filepath.Join(tmp, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, 0o666)
	if err != nil {
		return err
	}
	hw := &hashWriter{f: f, h: sha256.New()}
	b := bufio.NewWriterSize(hw, 1<<20)
	err = write(b)
	if err == nil {
		err = b.Flush()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	streamed.Lock()
	defer streamed.Unlock()
	m := streamed.sums[tmp]
	if m == nil {
		m = map[string]fileSum{}
		streamed.sums[tmp] = m
	}
	m[name] = fileSum{hw.n, hex.EncodeToString(hw.h.Sum(nil))}
	return nil
}

// hashWriter writes to f and hashes what f took.
type hashWriter struct {
	f *os.File
	h hash.Hash
	n int64
}

func (w *hashWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.h.Write(p[:n])
	w.n += int64(n)
	return n, err
}

// streamedSum returns what WriteHashed recorded for file name of tmp, if
// the file still has that size.
func streamedSum(tmp, name string, size int64) (string, bool) {
	streamed.Lock()
	s, ok := streamed.sums[tmp][name]
	streamed.Unlock()
	return s.sum, ok && s.size == size
}

// forgetStreamed drops what WriteHashed recorded for tmp.
func forgetStreamed(tmp string) {
	streamed.Lock()
	delete(streamed.sums, tmp)
	streamed.Unlock()
}
