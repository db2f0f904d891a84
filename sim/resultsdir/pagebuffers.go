package resultsdir

import (
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// PageBuffers returns a Parquet page-buffer pool that keeps a file's
// encoded pages in temporary files in dir instead of memory. A Parquet
// writer holds every page of a row group until the group is written (each
// column's chunk is contiguous in the file), and a results file is one
// row group: in memory that is the whole file (a million-job run's
// allocations.parquet is gigabytes). The file's bytes do not depend on
// where its pages wait (TestFilePageBuffersSameBytes).
//
// Each buffer is a file created in dir and removed at once (on systems
// that allow removing an open file; elsewhere when released), so nothing
// is left behind whatever stops the writer. dir is a temporary of
// sim/outdir (the results directory being built, or MkdirTemp's).
func PageBuffers(dir string) parquet.BufferPool { return filePool{dir} }

type filePool struct{ dir string }

func (p filePool) GetBuffer() io.ReadWriteSeeker {
	f, err := os.CreateTemp(p.dir, ".pages-*")
	if err != nil {
		return errBuffer{err}
	}
	if os.Remove(f.Name()) == nil {
		return unlinked{f}
	}
	return f
}

func (p filePool) PutBuffer(b io.ReadWriteSeeker) {
	switch f := b.(type) {
	case unlinked:
		_ = f.Close()
	case *os.File:
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}

// unlinked is a buffer file already removed from its directory.
type unlinked struct{ *os.File }

// errBuffer is a buffer that could not be created: every use fails with
// why, and the writer reports it.
type errBuffer struct{ err error }

func (b errBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b errBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b errBuffer) Seek(int64, int) (int64, error) { return 0, b.err }
