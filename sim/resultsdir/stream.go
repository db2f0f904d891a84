package resultsdir

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
)

// AllocStream is a sim.Recorder that encodes allocations.parquet's rows as
// the run produces them (Hold), instead of the run keeping them for the
// results directory to encode after it: a run that reconfigures tens of
// millions of times keeps no row. Its encoded pages wait in files
// (PageBuffers) in a temporary directory of outdir until the results
// directory is written (RunDir.Allocations), which finishes the file into
// it; nothing is written where a reader could see it before then.
//
// The file is the one Write makes from Result.Allocations, byte for byte
// (TestStreamedAllocationsSameBytes): the same rows (sim.AppendAllocRecords),
// in the same order (as holdings end), handed to the same Parquet writer
// rowChunk rows at a time (where a Write call ends can end a page: batches
// of 4,095 rows give another file). Its identity columns are fixed when it is
// created, before the run: finishing it under another identity is an error.
//
// Use it Teed with sim.NewResultRecorderNoAllocations (whose Fill gives the
// Result its other records). Discard it if the run or the write fails:
// that removes its temporary directory; an interrupted process leaves
// that directory for outdir's Clean and RemoveTemporaries, as every
// temporary of outdir.
type AllocStream struct {
	sim.NopRecorder
	id      sim.Identity
	dir     string // the temporary directory (outdir.MkdirTemp)
	pool    *filePool
	out     laterWriter
	pw      *parquet.GenericWriter[allocRow]
	cluster *sim.Cluster
	recs    []sim.AllocRecord
	slots   []int
	batch   []allocRow
	rows    int
	err     error
	done    bool
}

// NewAllocStream returns a stream of allocation rows with identity id for
// the results directory resultsDir. Its temporary lives beside
// resultsDir, named as the temporaries of resultsDir's own write are
// (outdir.MkdirTemp), so it is on the same file system and whatever
// cleans up after an interrupted write of resultsDir (outdir.Clean of
// its parent, CleanFor its name) removes it too.
func NewAllocStream(resultsDir string, id sim.Identity) (*AllocStream, error) {
	resultsDir = filepath.Clean(resultsDir)
	parent, base := filepath.Split(resultsDir)
	if parent == "" {
		parent = "."
	}
	if err := outdir.MkdirAll(parent); err != nil {
		return nil, fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	dir, err := outdir.MkdirTemp(parent, base)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	s := &AllocStream{id: id, dir: dir, pool: newFilePool(dir), batch: make([]allocRow, 0, rowChunk)}
	s.pw = parquet.NewGenericWriter[allocRow](&s.out, parquet.ColumnPageBuffers(s.pool))
	return s, nil
}

// Begin notes the cluster (the rows' GPU types).
func (s *AllocStream) Begin(info *sim.RunInfo) { s.cluster = info.Cluster }

// Hold encodes the holding's rows, rowChunk rows at a time.
func (s *AllocStream) Hold(h *sim.Holding) {
	if s.err != nil || s.done {
		return
	}
	s.recs = sim.AppendAllocRecords(s.recs[:0], s.cluster, h, &s.slots)
	for _, rec := range s.recs {
		s.batch = append(s.batch, allocRow{s.id, rec})
		if len(s.batch) == rowChunk {
			s.flush()
		}
	}
}

// flush hands the batch to the Parquet writer. A failure (a full disk
// under the page files) is kept, and reported when the file is finished.
func (s *AllocStream) flush() {
	if len(s.batch) == 0 || s.err != nil {
		return
	}
	if _, err := s.pw.Write(s.batch); err != nil {
		s.err = err
	}
	s.rows += len(s.batch)
	s.batch = s.batch[:0]
}

// Rows is the number of rows streamed so far.
func (s *AllocStream) Rows() int { return s.rows + len(s.batch) }

// finish writes the file to w: the rows left in the batch, then the
// writer's Close (the row group's pages, copied from their files, and the
// footer). id is the run's identity as the summary has it, which must be
// the one the rows were written with. The stream is released afterwards.
func (s *AllocStream) finish(w io.Writer, id sim.Identity) error {
	defer s.Discard()
	if s.done {
		return fmt.Errorf("results: %s: the streamed rows were already written or discarded", AllocationsFile)
	}
	if id != s.id {
		return fmt.Errorf("results: %s: rows streamed as run %+v, the run is %+v", AllocationsFile, s.id, id)
	}
	s.flush()
	if s.err != nil {
		return fmt.Errorf("results: %s: %w", AllocationsFile, s.err)
	}
	s.out.w = w
	if err := s.pw.Close(); err != nil {
		return fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	return nil
}

// Discard releases the stream: its page files are closed and its
// temporary directory removed. It may be called more than once, and on a
// nil stream.
func (s *AllocStream) Discard() {
	if s == nil || s.done {
		return
	}
	s.done = true
	s.pool.closeAll()
	outdir.Discard(s.dir)
	s.batch, s.recs = nil, nil
}

// laterWriter is the Parquet writer's output, given only when the file is
// finished: it writes nothing before its Close (one row group), which
// this enforces.
type laterWriter struct{ w io.Writer }

func (l *laterWriter) Write(p []byte) (int, error) {
	if l.w == nil {
		return 0, errors.New("written before its destination was given")
	}
	return l.w.Write(p)
}
