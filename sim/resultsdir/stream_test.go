package resultsdir

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
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
