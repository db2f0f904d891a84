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
	pages   *streamPages
	rows    *rowWriter[allocRow]
	cluster *sim.Cluster
	recs    []sim.AllocRecord
	slots   []int
}

// NewAllocStream returns a stream of allocation rows with identity id for
// the results directory resultsDir. Its temporary lives beside
// resultsDir, named as the temporaries of resultsDir's own write are
// (outdir.MkdirTemp), so it is on the same file system and whatever
// cleans up after an interrupted write of resultsDir (outdir.Clean of
// its parent, CleanFor its name) removes it too.
func NewAllocStream(resultsDir string, id sim.Identity) (*AllocStream, error) {
	p := &streamPages{file: AllocationsFile, resultsDir: resultsDir, id: id}
	if err := p.open(); err != nil {
		return nil, err
	}
	return &AllocStream{pages: p, rows: newRowWriter[allocRow](p.pool)}, nil
}

// Begin notes the cluster (the rows' GPU types).
func (s *AllocStream) Begin(info *sim.RunInfo) { s.cluster = info.Cluster }

// Hold encodes the holding's rows, rowChunk rows at a time.
func (s *AllocStream) Hold(h *sim.Holding) {
	if s.rows.err != nil || s.pages.done {
		return
	}
	s.recs = sim.AppendAllocRecords(s.recs[:0], s.cluster, h, &s.slots)
	for _, rec := range s.recs {
		s.rows.add(allocRow{s.pages.id, rec})
	}
}

// Rows is the number of rows streamed so far.
func (s *AllocStream) Rows() int { return s.rows.n() }

// finish writes the file to w: the rows left in the batch, then the
// writer's Close (the row group's pages, copied from their files, and the
// footer). id is the run's identity as the summary has it, which must be
// the one the rows were written with. The stream is released afterwards.
func (s *AllocStream) finish(w io.Writer, id sim.Identity) error {
	defer s.Discard()
	if err := s.pages.check(id); err != nil {
		return err
	}
	if err := s.rows.close(w); err != nil {
		return fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	return nil
}

// Discard releases the stream: its page files are closed and its
// temporary directory removed. It may be called more than once, and on a
// nil stream.
func (s *AllocStream) Discard() {
	if s == nil {
		return
	}
	s.pages.discard()
	s.recs = nil
	s.rows.batch = nil
}

// JobStream is a sim.Recorder that encodes jobs.parquet's rows as the
// engine hands it the job table after the run (sim.Recorder.Jobs, a part
// at a time), instead of the run keeping the table for the results
// directory to encode after it: a million-job run's table (200-odd bytes
// a job) is then never in memory beside the engine's jobs. As
// AllocStream, its pages wait in files of a temporary directory beside
// the results directory (made when the first rows come) until the
// directory is written (RunDir.Jobs), and the file is the one Write makes
// from Result.Jobs, byte for byte (TestStreamedJobsSameBytes): the same
// rows in trace order, with the fault columns in a run with the fault
// model, handed to the Parquet writer rowChunk rows at a time whatever
// the parts the engine hands over.
//
// Use it Teed with sim.NewResultRecorderNoTables (and an AllocStream), for
// a run whose job table nothing but the results files reads. Discard it
// if the run or the write fails.
type JobStream struct {
	sim.NopRecorder
	pages  *streamPages
	faults bool                    // the run has the fault model (Begin)
	plain  *rowWriter[jobRow]      // without it
	faulty *rowWriter[jobFaultRow] // with it
	began  bool
}

// NewJobStream returns a stream of job rows with identity id for the
// results directory resultsDir; nothing is written before the job table
// comes (its temporary is then made as AllocStream's is).
func NewJobStream(resultsDir string, id sim.Identity) *JobStream {
	return &JobStream{pages: &streamPages{file: JobsFile, resultsDir: resultsDir, id: id}}
}

// Begin notes whether the run has the fault model (the file's columns).
func (s *JobStream) Begin(info *sim.RunInfo) { s.faults, s.began = info.Faults, true }

// Jobs encodes a part of the job table, rowChunk rows at a time.
func (s *JobStream) Jobs(jobs []sim.JobRecord, faults []sim.JobFaultRecord) {
	if s.pages.done || s.pages.err != nil {
		return
	}
	if s.plain == nil && s.faulty == nil {
		if err := s.pages.open(); err != nil {
			return // kept in pages.err, reported by finish
		}
		if s.faults {
			s.faulty = newRowWriter[jobFaultRow](s.pages.pool)
		} else {
			s.plain = newRowWriter[jobRow](s.pages.pool)
		}
	}
	id := s.pages.id
	for i := range jobs {
		if s.faulty != nil {
			s.faulty.add(jobFaultRow{id, jobs[i], faults[i]})
		} else {
			s.plain.add(jobRow{id, jobs[i]})
		}
	}
}

// Rows is the number of rows streamed so far.
func (s *JobStream) Rows() int {
	switch {
	case s.faulty != nil:
		return s.faulty.n()
	case s.plain != nil:
		return s.plain.n()
	}
	return 0
}

// finish writes jobs.parquet to w, as AllocStream.finish its file.
func (s *JobStream) finish(w io.Writer, id sim.Identity) error {
	defer s.Discard()
	if err := s.pages.check(id); err != nil {
		return err
	}
	var err error
	switch {
	case !s.began || (s.plain == nil && s.faulty == nil):
		err = errors.New("the run handed over no job table")
	case s.faulty != nil:
		err = s.faulty.close(w)
	default:
		err = s.plain.close(w)
	}
	if err != nil {
		return fmt.Errorf("results: %s: %w", JobsFile, err)
	}
	return nil
}

// Discard releases the stream, as AllocStream.Discard.
func (s *JobStream) Discard() {
	if s == nil {
		return
	}
	s.pages.discard()
	s.plain, s.faulty = nil, nil
}

// streamPages is where a streamed file's pages wait: a temporary
// directory beside its results directory and the page files in it
// (PageBuffers), with the identity its rows carry.
type streamPages struct {
	file       string // the results file, for messages
	resultsDir string
	id         sim.Identity
	dir        string // the temporary directory (outdir.MkdirTemp), once open
	pool       *filePool
	err        error // opening failed
	done       bool  // finished or discarded
}

// open makes the temporary directory and the pool of page files.
func (p *streamPages) open() error {
	resultsDir := filepath.Clean(p.resultsDir)
	parent, base := filepath.Split(resultsDir)
	if parent == "" {
		parent = "."
	}
	if err := outdir.MkdirAll(parent); err != nil {
		p.err = fmt.Errorf("results: %s: %w", p.file, err)
		return p.err
	}
	dir, err := outdir.MkdirTemp(parent, base)
	if err != nil {
		p.err = fmt.Errorf("results: %s: %w", p.file, err)
		return p.err
	}
	p.dir, p.pool = dir, newFilePool(dir)
	return nil
}

// check refuses to finish a stream discarded or finished already, one
// whose temporary could not be made, or one under another identity.
func (p *streamPages) check(id sim.Identity) error {
	if p.done {
		return fmt.Errorf("results: %s: the streamed rows were already written or discarded", p.file)
	}
	if p.err != nil {
		return p.err
	}
	if id != p.id {
		return fmt.Errorf("results: %s: rows streamed as run %+v, the run is %+v", p.file, p.id, id)
	}
	return nil
}

func (p *streamPages) discard() {
	if p.done {
		return
	}
	p.done = true
	if p.pool != nil {
		p.pool.closeAll()
		outdir.Discard(p.dir)
	}
}

// rowWriter hands rows to a Parquet writer rowChunk rows at a time (as
// writeRows does, so the file is the same), its pages in pool's files and
// its output given only when it is closed.
type rowWriter[T any] struct {
	out   laterWriter
	pw    *parquet.GenericWriter[T]
	batch []T
	rows  int   // handed to the writer
	err   error // the first failure (a full disk under the page files)
}

func newRowWriter[T any](pool *filePool) *rowWriter[T] {
	w := &rowWriter[T]{batch: make([]T, 0, rowChunk)}
	w.pw = parquet.NewGenericWriter[T](&w.out, parquet.ColumnPageBuffers(pool))
	return w
}

func (w *rowWriter[T]) add(row T) {
	w.batch = append(w.batch, row)
	if len(w.batch) == rowChunk {
		w.flush()
	}
}

// flush hands the batch to the Parquet writer. A failure is kept, and
// reported when the file is finished.
func (w *rowWriter[T]) flush() {
	if len(w.batch) == 0 || w.err != nil {
		return
	}
	if _, err := w.pw.Write(w.batch); err != nil {
		w.err = err
	}
	w.rows += len(w.batch)
	w.batch = w.batch[:0]
}

func (w *rowWriter[T]) n() int { return w.rows + len(w.batch) }

// close writes the file to out: the rows left in the batch, then the
// writer's Close (the row group's pages, copied from their files, and
// the footer).
func (w *rowWriter[T]) close(out io.Writer) error {
	w.flush()
	if w.err != nil {
		return w.err
	}
	w.out.w = out
	return w.pw.Close()
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
