package resultsdir

import (
	"io"
	"os"
	"sync"

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
func PageBuffers(dir string) parquet.BufferPool { return newFilePool(dir) }

// filePool is PageBuffers' pool. It keeps the buffers it handed out
// until released, so that closeAll can close those of a writer that was
// never closed (a run that failed, a write that stopped part-way).
type filePool struct {
	dir  string
	mu   sync.Mutex
	open map[*os.File]bool
	made int // buffers handed out, for tests
}

func newFilePool(dir string) *filePool { return &filePool{dir: dir, open: map[*os.File]bool{}} }

func (p *filePool) GetBuffer() io.ReadWriteSeeker {
	f, err := os.CreateTemp(p.dir, ".pages-*")
	if err != nil {
		return errBuffer{err}
	}
	if os.Remove(f.Name()) != nil {
		// Not removable while open here: removed when released.
		p.add(f, false)
		return f
	}
	p.add(f, true)
	return f
}

func (p *filePool) add(f *os.File, removed bool) {
	p.mu.Lock()
	p.open[f] = removed
	p.made++
	p.mu.Unlock()
}

func (p *filePool) PutBuffer(b io.ReadWriteSeeker) {
	if f, ok := b.(*os.File); ok {
		p.mu.Lock()
		removed, ours := p.open[f]
		delete(p.open, f)
		p.mu.Unlock()
		if ours {
			release(f, removed)
		}
	}
}

// closeAll releases every buffer still out.
func (p *filePool) closeAll() {
	p.mu.Lock()
	open := p.open
	p.open = map[*os.File]bool{}
	p.mu.Unlock()
	for f, removed := range open {
		release(f, removed)
	}
}

func release(f *os.File, removed bool) {
	_ = f.Close()
	if !removed {
		_ = os.Remove(f.Name())
	}
}

// errBuffer is a buffer that could not be created: every use fails with
// why, and the writer reports it.
type errBuffer struct{ err error }

func (b errBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b errBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b errBuffer) Seek(int64, int) (int64, error) { return 0, b.err }
