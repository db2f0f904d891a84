package resultsdir

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
)

// writeRows hands the parquet writer rowChunk rows at a time; the file is
// the one a single Write of every row gives, byte for byte (what the
// results files were before they streamed). Rows vary per column so pages
// are not trivially equal; n spans several chunks and a partial one.
func TestChunkedRowsSameBytes(t *testing.T) {
	id := sim.Identity{Policy: "fcfs", Trace: "t", Cluster: "c", Timing: "exact", Seed: 3, Density: 1, Version: "v", InputHash: "h"}
	n := 10*rowChunk + 17
	rows := make([]allocRow, n)
	for i := range rows {
		rows[i] = allocRow{id, sim.AllocRecord{Job: int32(i), GPU: []string{"a100", "v100"}[i%2], FirstSlot: int32(i % 97), Slots: int32(i%7 + 1), Start: float64(i), End: float64(i) * 1.5}}
	}
	var whole bytes.Buffer
	w := parquet.NewGenericWriter[allocRow](&whole)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var chunked bytes.Buffer
	if err := writeRows(&chunked, AllocationsFile, n, func(i int) allocRow { return rows[i] }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole.Bytes(), chunked.Bytes()) {
		t.Errorf("chunked file differs: %d bytes, whole %d", chunked.Len(), whole.Len())
	}
}

// A file's bytes do not depend on where its pages wait: in memory (the
// parquet writer's default) or in PageBuffers' files. Several pages per
// column (n rows of about 150 bytes each, pages of 256 KiB), so the
// buffers are written, read back and copied more than once. The buffer
// files are gone afterwards (removed on creation).
func TestFilePageBuffersSameBytes(t *testing.T) {
	id := sim.Identity{Policy: "elasticflow-ls", Trace: "/some/trace.csv", Cluster: "c100k", Timing: "exact", Seed: 3, Density: 1, Version: "0.9.0+abc", InputHash: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	n := 5*rowChunk + 17
	row := func(i int) allocRow {
		return allocRow{id, sim.AllocRecord{Job: int32(i / 3), GPU: []string{"a100", "v100"}[i%2], FirstSlot: int32(i % 97), Slots: int32(i%7 + 1), Start: float64(i), End: float64(i) * 1.5}}
	}
	var mem, files bytes.Buffer
	if err := writeRows(&mem, AllocationsFile, n, row); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pool := newFilePool(dir)
	if err := writeRows(&files, AllocationsFile, n, row, parquet.ColumnPageBuffers(pool)); err != nil {
		t.Fatal(err)
	}
	// One buffer file per column (8 identity columns, 6 of the record):
	// the pages did wait in files.
	if pool.made != 14 {
		t.Errorf("%d page buffer files, want 14 (one per column)", pool.made)
	}
	if !bytes.Equal(mem.Bytes(), files.Bytes()) {
		t.Errorf("file-buffered file differs: %d bytes, in memory %d", files.Len(), mem.Len())
	}
	if mem.Len() < 4*256<<10 {
		t.Errorf("only %d bytes: too few pages to test the buffers", mem.Len())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("page buffers left behind: %v", left)
	}
}

// An AllocStream's temporary sits beside its results directory under the
// name the directory's own temporaries have, so that the clean-up after
// an interrupted write of that directory (a sweep's CleanFor of its run,
// simulate's Clean of OUT) removes it, and another run's does not.
func TestAllocStreamTemporaryIsItsDirectorys(t *testing.T) {
	out := t.TempDir()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "c", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewAllocStream(filepath.Join(out, "run-1"), sim.Identity{Policy: "p"})
	if err != nil {
		t.Fatal(err)
	}
	s.Begin(&sim.RunInfo{Cluster: c})
	for i := range 3 * rowChunk {
		s.Hold(&sim.Holding{Job: sim.JobID(i), GPUs: []int{i % 8, (i + 3) % 8}, Since: sim.Time(i), Until: sim.Time(i + 1), Ready: sim.Time(i)})
	}
	if s.Rows() < 3*rowChunk {
		t.Fatalf("%d rows", s.Rows())
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Fatalf("OUT holds %v, want the stream's temporary", entries)
	}
	if err := outdir.CleanFor(out, "run-2"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("another run's clean-up removed it: %v", entries)
	}
	if err := outdir.CleanFor(out, "run-1"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("left after its run's clean-up: %v", entries)
	}
	s.Discard()
}
