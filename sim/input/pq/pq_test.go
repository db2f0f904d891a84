package pq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/input/pq/pqtest"
)

type row struct {
	ID string  `parquet:"id"`
	X  float64 `parquet:"x"`
	N  int64   `parquet:"n"`
}

func validFile(t testing.TB, n int) []byte { return validFileWith(t, n) }

func validFileWith(t testing.TB, n int, opts ...parquet.WriterOption) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, opts...)
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{ID: "job-" + string(rune('a'+i%26)), X: float64(i), N: int64(i)}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// split returns a file's data part and its footer.
func split(b []byte) (data, footer []byte) {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	return b[:len(b)-8-n], b[len(b)-8-n : len(b)-8]
}

func withFooter(data, footer []byte) []byte {
	out := append(bytes.Clone(data), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// withMeta re-encodes a valid file's footer after edit.
func withMeta(t testing.TB, b []byte, edit func(*format.FileMetaData)) []byte {
	data, footer := split(b)
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	nf, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	return withFooter(data, nf)
}

func read(b []byte) ([]row, error) {
	pf, err := OpenReaderAt("t.parquet", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return ReadRows[row]("t.parquet", pf)
}

// TestValidRoundTrip: the checks accept what parquet-go writes.
func TestValidRoundTrip(t *testing.T) {
	b := validFile(t, 3000)
	rows, err := read(b)
	if err != nil || len(rows) != 3000 || rows[2999].N != 2999 {
		t.Fatalf("got %d rows, %v", len(rows), err)
	}
	p := filepath.Join(t.TempDir(), "v.parquet")
	os.WriteFile(p, b, 0o644)
	if rows, err := ReadAll[row](p); err != nil || len(rows) != 3000 {
		t.Fatalf("ReadAll: %d rows, %v", len(rows), err)
	}
}

// TestCraftedFooters is the class "Parquet footers trusted": each crafted
// file, a few KB at most, gives an error (not an OOM or a panic) and
// allocates little while doing so.
func TestCraftedFooters(t *testing.T) {
	valid := validFile(t, 100)
	data, footer := split(valid)
	// A list header declaring 2^31-1 structs (compact protocol: field 2,
	// type list; list header 0xFC = long size, struct elements).
	hugeList := []byte{0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00}
	hugeBinary := []byte{0x15, 0x02, 0x68, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00} // field 6 (created_by) of 2^31-1 bytes
	cases := map[string][]byte{
		"footer length past the file": append(append(bytes.Clone(valid[:len(valid)-8]), 0xFF, 0xFF, 0xFF, 0x7F), "PAR1"...),
		"truncated":                   valid[:len(valid)/2],
		"no magic":                    append(bytes.Clone(valid[:len(valid)-4]), "XXXX"...),
		"tiny":                        []byte("PAR1PAR1"),
		"list of 2^31 structs":        withFooter(data, hugeList),
		"string of 2^31 bytes":        withFooter(data, hugeBinary),
		"footer is noise":             withFooter(data, bytes.Repeat([]byte{0xF9}, 64)),
		"rows overstated": withMeta(t, valid, func(md *format.FileMetaData) {
			md.NumRows = 1 << 40
			md.RowGroups[0].NumRows = 1 << 40
		}),
		"row groups disagree with file": withMeta(t, valid, func(md *format.FileMetaData) { md.NumRows = 50 }),
		"200,000 row groups": withMeta(t, valid, func(md *format.FileMetaData) {
			for len(md.RowGroups) < 200_000 {
				md.RowGroups = append(md.RowGroups, format.RowGroup{})
			}
		}),
		"page offset past the data": withMeta(t, valid, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[1].MetaData.DataPageOffset = int64(len(valid)) * 4
		}),
		"page offset zero": withMeta(t, valid, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.DataPageOffset = 0
			md.RowGroups[0].Columns[0].MetaData.DictionaryPageOffset = 0
		}),
		"compressed size past the data": withMeta(t, valid, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[2].MetaData.TotalCompressedSize = 1 << 40
		}),
		"uncompressed size a lie": withMeta(t, valid, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[2].MetaData.TotalUncompressedSize = 1 << 50
		}),
		"fewer values than rows": withMeta(t, valid, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.NumValues = 3
		}),
		"page offset into another column": withMeta(t, valid, func(md *format.FileMetaData) {
			c := md.RowGroups[0].Columns
			c[0].MetaData.DataPageOffset = c[2].MetaData.DataPageOffset
			c[0].MetaData.DictionaryPageOffset = 0
		}),
	}
	_ = footer
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rows, err := read(b)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("read %d rows from a crafted file, want an error", len(rows))
			}
			var lim *input.LimitError
			if !errors.Is(err, ErrCorrupt) && !errors.As(err, &lim) {
				t.Errorf("error %v: want ErrCorrupt or a LimitError", err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Errorf("allocated %d MB reading a %d-byte file", got>>20, len(b))
			}
			t.Logf("%v", err)
		})
	}
}

// FuzzOpen: no file, however crafted, panics, reads rows the footer does
// not declare, or allocates more than a bound.
func FuzzOpen(f *testing.F) {
	valid := validFile(f, 50)
	f.Add(valid)
	data, _ := split(valid)
	f.Add(withFooter(data, []byte{0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00}))
	f.Add(withMeta(f, valid, func(md *format.FileMetaData) { md.RowGroups[0].Columns[1].MetaData.DataPageOffset = 7 }))
	for col := 0; col < 3; col++ {
		cases, err := pqtest.Hostile(valid, col)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			f.Add(c.File)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rows, err := read(b)
		runtime.ReadMemStats(&after)
		if err == nil && len(rows) > len(b) {
			t.Fatalf("%d rows from %d bytes", len(rows), len(b))
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
			t.Fatalf("allocated %d MB reading %d bytes", got>>20, len(b))
		}
	})
}
