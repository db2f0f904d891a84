package pq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim/input"
)

// FooterCap bounds a Parquet footer. arena's files have one row group and
// under 40 columns: footers of a few KB.
const FooterCap = 16 << 20

// MaxFooterStructs bounds the structs (row groups, column chunks, schema
// elements, key/values …) a footer may declare in lists: a struct element
// takes one byte in the file but hundreds in memory once decoded.
const MaxFooterStructs = 200_000

// ErrCorrupt is what every error about a file's structure unwraps to.
var ErrCorrupt = errors.New("pq: not a valid Parquet file")

func corrupt(file, format string, args ...any) error {
	return &input.Error{File: file, Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

// File is an open, checked Parquet file.
type File struct {
	*parquet.File
	f    *os.File
	name string
}

// Close closes the underlying file.
func (f *File) Close() error { return f.f.Close() }

// Name is the path it was opened with.
func (f *File) Name() string { return f.name }

// Open opens path and checks its footer (see the package comment) before
// trusting any count in it.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := OpenReaderAt(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{File: pf, f: f, name: path}, nil
}

// OpenReaderAt is Open of r, size bytes long; name names it in errors.
func OpenReaderAt(name string, r io.ReaderAt, size int64) (pf *parquet.File, err error) {
	defer func() {
		// A footer that passes the checks may still trip a decoder's
		// assumption; a file is input, so that is an error, not a crash.
		if p := recover(); p != nil {
			pf, err = nil, corrupt(name, "unreadable footer (%s)", input.ClipError(fmt.Errorf("%v", p)))
		}
	}()
	if size < 12 {
		return nil, corrupt(name, "%d bytes; a Parquet file has at least 12 (magic, footer length, magic)", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, &input.Error{File: name, Err: err}
	}
	if string(tail[4:]) != "PAR1" {
		return nil, corrupt(name, "no PAR1 magic at the end (an encrypted or truncated file?)")
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footerLen > size-12 {
		return nil, corrupt(name, "footer of %d bytes declared in a file of %d bytes (truncated?)", footerLen, size)
	}
	if footerLen > FooterCap {
		return nil, corrupt(name, "footer of %d bytes; at most %d (arena's files have footers of a few KB)", footerLen, FooterCap)
	}
	footer := make([]byte, footerLen)
	if _, err := r.ReadAt(footer, size-8-footerLen); err != nil {
		return nil, &input.Error{File: name, Err: err}
	}
	if err := checkThrift(footer); err != nil {
		return nil, corrupt(name, "footer: %v", err)
	}
	pf, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, corrupt(name, "%s", input.ClipError(err))
	}
	if err := checkMeta(pf, size-8-footerLen); err != nil {
		return nil, &input.Error{File: name, Err: err}
	}
	if err := checkPages(r, pf, size-8-footerLen); err != nil {
		return nil, &input.Error{File: name, Err: err}
	}
	return pf, nil
}

// checkMeta checks the decoded footer against the file: dataEnd is where
// the footer starts, so every column chunk lies in [4, dataEnd).
func checkMeta(pf *parquet.File, dataEnd int64) error {
	md := pf.Metadata()
	if max := input.ParquetRowGroupsCap.Value(); int64(len(md.RowGroups)) > max {
		return &input.LimitError{Cap: input.ParquetRowGroupsCap, Max: max, What: "row groups", Found: fmt.Sprint(len(md.RowGroups))}
	}
	if md.NumRows < 0 {
		return fmt.Errorf("%w: %d rows declared", ErrCorrupt, md.NumRows)
	}
	if max := input.RowsCap.Value(); md.NumRows > max {
		return &input.LimitError{Cap: input.RowsCap, Max: max, What: "rows", Found: fmt.Sprintf("%d declared in the footer", md.NumRows)}
	}
	var rows int64
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > md.NumRows-rows {
			return fmt.Errorf("%w: row group %d declares %d rows, more than the file's %d", ErrCorrupt, i, rg.NumRows, md.NumRows)
		}
		rows += rg.NumRows
		for j, c := range rg.Columns {
			m := c.MetaData
			if c.FilePath != "" {
				return fmt.Errorf("%w: row group %d column %d lives in another file", ErrCorrupt, i, j)
			}
			in := func(off int64) bool { return off >= 4 && off < dataEnd }
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			switch {
			case !in(m.DataPageOffset) || m.DictionaryPageOffset != 0 && !in(m.DictionaryPageOffset):
				return fmt.Errorf("%w: row group %d column %d: page offset outside the file's data (4 to %d)", ErrCorrupt, i, j, dataEnd)
			case m.TotalCompressedSize <= 0 || m.TotalCompressedSize > dataEnd-start:
				return fmt.Errorf("%w: row group %d column %d: %d compressed bytes from offset %d run past the data (ends at %d)", ErrCorrupt, i, j, m.TotalCompressedSize, start, dataEnd)
			case m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > maxInflate(m.TotalCompressedSize):
				return fmt.Errorf("%w: row group %d column %d: %d bytes uncompressed from %d compressed", ErrCorrupt, i, j, m.TotalUncompressedSize, m.TotalCompressedSize)
			case m.NumValues < rg.NumRows:
				return fmt.Errorf("%w: row group %d column %d: %d values for %d rows", ErrCorrupt, i, j, m.NumValues, rg.NumRows)
			}
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("%w: row groups hold %d rows, the footer declares %d", ErrCorrupt, rows, md.NumRows)
	}
	return nil
}

// maxInflate bounds a column chunk's uncompressed size by its compressed
// one: zstd and snappy reach about 1000:1 on constant columns; beyond
// that a size is a lie that would be allocated.
func maxInflate(compressed int64) int64 { return 2048*compressed + 1<<20 }

// ReadAll reads every row of the Parquet file at path as T, after Open's
// checks, failing unless it reads exactly the rows the footer declares.
func ReadAll[T any](path string) ([]T, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRows[T](path, f.File)
}

// ReadRows reads every row of an opened file as T (see ReadAll).
func ReadRows[T any](name string, pf *parquet.File) (rows []T, err error) {
	defer func() {
		// parquet-go panics on some corrupt pages (index out of range in
		// a decoder); a file is input, so that is an error, not a crash.
		if p := recover(); p != nil {
			rows, err = nil, corrupt(name, "unreadable page (%s)", input.ClipError(fmt.Errorf("%v", p)))
		}
	}()
	want := pf.NumRows()
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	rows = make([]T, 0, min(want, 1<<16))
	buf := make([]T, 1024)
	for {
		n, err := rd.Read(buf)
		if int64(len(rows)+n) > want {
			return nil, corrupt(name, "more rows than the %d the footer declares", want)
		}
		rows = append(rows, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, corrupt(name, "row %d: %s", len(rows)+1, input.ClipError(err))
		}
		if n == 0 {
			return nil, corrupt(name, "no progress reading row %d", len(rows)+1)
		}
	}
	if int64(len(rows)) != want {
		return nil, corrupt(name, "read %d rows, the footer declares %d (bad page offsets or a truncated file)", len(rows), want)
	}
	return rows, nil
}

// EachRow calls fn with every row of an opened file in order (untyped
// rows, for tables whose columns vary: timeline, summary, export), with
// ReadAll's guarantees: a corrupt page is an error, not a panic, and
// reading fewer or more rows than the footer declares is an error.
func (f *File) EachRow(fn func(parquet.Row) error) error { return EachRow(f.name, f.File, fn) }

// EachRow is File.EachRow of a file opened with OpenReaderAt; name names
// it in errors. An error fn returns is returned as it is.
func EachRow(name string, pf *parquet.File, fn func(parquet.Row) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = corrupt(name, "unreadable page (%s)", input.ClipError(fmt.Errorf("%v", p)))
		}
	}()
	want := pf.NumRows()
	rd := parquet.NewReader(pf)
	defer rd.Close()
	buf := make([]parquet.Row, 256)
	var got int64
	for {
		n, rerr := rd.ReadRows(buf)
		if got+int64(n) > want {
			return corrupt(name, "more rows than the %d the footer declares", want)
		}
		for _, row := range buf[:n] {
			got++
			if err := fn(row); err != nil {
				return err
			}
		}
		if rerr == io.EOF || rerr == nil && n == 0 {
			break
		}
		if rerr != nil {
			return corrupt(name, "row %d: %s", got+1, input.ClipError(rerr))
		}
	}
	if got != want {
		return corrupt(name, "read %d rows, the footer declares %d (bad page offsets or a truncated file)", got, want)
	}
	return nil
}
