package pq

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/arena-sim/arena/sim/input"
)

// PageHeaderCap bounds one page header. A header is a few dozen bytes
// plus its statistics (a column's min and max value; writers clip them
// to a few KB).
const PageHeaderCap = 1 << 20

// readAhead is how much of a column chunk one read brings in: headers of
// small pages are read together.
const readAhead = 64 << 10

// checkPages walks every page of every column chunk the way parquet-go
// will read it — from the dictionary page offset if there is one, else
// the data page offset, header after header for the chunk's compressed
// size — and refuses, before parquet-go allocates from them:
//
//   - a header that is not a bounded Thrift struct (checkThrift), longer
//     than PageHeaderCap, or that does not decode as a page header;
//   - negative sizes or counts; a page type other than data (v1, v2) or
//     dictionary;
//   - a page whose compressed size runs past its chunk's end;
//   - an uncompressed size over the chunk's total_uncompressed_size, over
//     maxInflate of its compressed size, or pages whose uncompressed sizes
//     sum past input.InputCap;
//   - a compressed page that inflates past its uncompressed size (zstd,
//     gzip, brotli and lz4 pages are decompressed into a bounded buffer
//     or a counter; a snappy block declares its length, which is checked);
//   - data pages holding more values than the chunk (its row group's rows
//     for a column that is not repeated), a dictionary with more entries
//     than that or than its bytes can hold, v2 level lengths or null
//     counts that do not fit the page;
//   - a codec parquet-go cannot decode.
//
// Memory is bounded by the largest page's compressed size (or, for a
// decompressed check, its declared uncompressed size), both bounded by
// the file.
func checkPages(r io.ReaderAt, pf *parquet.File, dataEnd int64) error {
	w := &pageWalk{r: r}
	defer w.close()
	schema := pf.Schema()
	cols := schema.Columns()
	for i, rg := range pf.Metadata().RowGroups {
		if len(rg.Columns) != len(cols) {
			return fmt.Errorf("%w: row group %d has %d column chunks, the schema %d columns", ErrCorrupt, i, len(rg.Columns), len(cols))
		}
		for j := range rg.Columns {
			leaf, ok := schema.Lookup(cols[j]...)
			if !ok {
				return fmt.Errorf("%w: row group %d column %d: not in the schema", ErrCorrupt, i, j)
			}
			c := chunkInfo{rg: i, col: j, name: input.KeyName(strings.Join(cols[j], ".")), m: &rg.Columns[j].MetaData,
				rows: rg.NumRows, repeated: leaf.MaxRepetitionLevel > 0, kind: leaf.Node.Type().Kind(), length: leaf.Node.Type().Length()}
			if err := w.chunk(c, dataEnd); err != nil {
				return err
			}
		}
	}
	return nil
}

type chunkInfo struct {
	rg, col  int
	name     string
	m        *format.ColumnMetaData
	rows     int64
	repeated bool
	kind     parquet.Kind
	length   int
}

type pageWalk struct {
	r      io.ReaderAt
	buf    []byte // the file's bytes [off, off+len(buf))
	off    int64
	out    []byte // decompression buffer
	zstd   *zstd.Decoder
	total  int64 // uncompressed bytes declared by the pages so far
	header format.PageHeader
}

func (w *pageWalk) close() {
	if w.zstd != nil {
		w.zstd.Close()
	}
}

// read returns the file's bytes [off, off+n), n ≤ end-off, reading ahead
// up to end.
func (w *pageWalk) read(off, n, end int64) ([]byte, error) {
	if off >= w.off && off+n <= w.off+int64(len(w.buf)) {
		return w.buf[off-w.off : off-w.off+n], nil
	}
	m := min(max(n, readAhead), end-off)
	if int64(cap(w.buf)) < m {
		w.buf = make([]byte, m)
	}
	w.buf, w.off = w.buf[:m], off
	if k, err := w.r.ReadAt(w.buf, off); k < len(w.buf) {
		w.buf = w.buf[:0]
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return w.buf[:n], nil
}

func (w *pageWalk) chunk(c chunkInfo, dataEnd int64) error {
	m := c.m
	// parquet-go reads a chunk from its dictionary page offset when it
	// has one, else its data page offset, for total_compressed_size bytes.
	base := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		base = m.DictionaryPageOffset
	}
	fail := func(page int, at int64, format string, args ...any) error {
		return fmt.Errorf("%w: row group %d column %d (%s) page %d at byte %d: %s", ErrCorrupt, c.rg, c.col, c.name, page, at, fmt.Sprintf(format, args...))
	}
	if base < 4 || m.TotalCompressedSize <= 0 || m.TotalCompressedSize > dataEnd-base {
		return fmt.Errorf("%w: row group %d column %d (%s): %d compressed bytes from offset %d run past the data (4 to %d)", ErrCorrupt, c.rg, c.col, c.name, m.TotalCompressedSize, base, dataEnd)
	}
	end := base + m.TotalCompressedSize
	// The values the chunk's data pages may hold: its rows unless the
	// column is repeated, when the footer's count (under the count cap).
	maxValues := c.rows
	if c.repeated {
		if max := input.CountCap.Value(); m.NumValues > max {
			return &input.LimitError{Cap: input.CountCap, Max: max, What: "values of a repeated column", Found: fmt.Sprintf("%d in row group %d column %d (%s)", m.NumValues, c.rg, c.col, c.name)}
		}
		maxValues = m.NumValues
	}
	var values int64
	for page, pos := 0, base; pos < end; page++ {
		h, hlen, err := w.pageHeader(pos, end)
		if err != nil {
			return fail(page, pos, "%v", err)
		}
		body := pos + hlen
		comp, uncomp := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		switch {
		case comp < 0 || uncomp < 0:
			return fail(page, pos, "negative page size (compressed %d, uncompressed %d)", comp, uncomp)
		case comp > end-body:
			return fail(page, pos, "%d compressed bytes run past the column chunk, which ends at byte %d", comp, end)
		case uncomp > m.TotalUncompressedSize:
			return fail(page, pos, "%d bytes uncompressed, more than the %d of the whole column chunk", uncomp, m.TotalUncompressedSize)
		case uncomp > maxInflate(comp):
			return fail(page, pos, "%d bytes uncompressed from %d compressed (at most 2048 × compressed + 1 MiB)", uncomp, comp)
		}
		w.total += uncomp
		if max := input.InputCap.Value(); w.total > max {
			return &input.LimitError{Cap: input.InputCap, Max: max, What: "input", Found: fmt.Sprintf("pages of %d bytes uncompressed by row group %d column %d page %d", w.total, c.rg, c.col, page)}
		}
		// What the page's values are decoded from, and its levels (v2).
		compressed := m.Codec != format.Uncompressed
		var levels int64
		switch h.Type {
		case format.DictionaryPage:
			d := &h.DictionaryPageHeader
			if !d.Valid {
				return fail(page, pos, "a dictionary page without its header")
			}
			n := int64(d.V.NumValues)
			data := comp
			if compressed {
				data = uncomp
			}
			if fit := maxEntries(c.kind, c.length, data); n < 0 || n > fit || n > maxValues {
				return fail(page, pos, "a dictionary of %d entries (%d bytes hold at most %d; the chunk has %d values)", n, data, fit, maxValues)
			}
		case format.DataPage:
			d := &h.DataPageHeader
			if !d.Valid {
				return fail(page, pos, "a data page without its header")
			}
			n := int64(d.V.NumValues)
			if n < 0 || n > maxValues-values {
				return fail(page, pos, "%d values, past the %d of the column chunk", n, maxValues)
			}
			values += n
		case format.DataPageV2:
			d := &h.DataPageHeaderV2
			if !d.Valid {
				return fail(page, pos, "a data page without its header")
			}
			v := &d.V
			n := int64(v.NumValues)
			if n < 0 || n > maxValues-values {
				return fail(page, pos, "%d values, past the %d of the column chunk", n, maxValues)
			}
			if v.NumNulls < 0 || v.NumNulls > v.NumValues || v.NumRows < 0 || v.NumRows > v.NumValues {
				return fail(page, pos, "%d nulls and %d rows in %d values", v.NumNulls, v.NumRows, v.NumValues)
			}
			rl, dl := int64(v.RepetitionLevelsByteLength), int64(v.DefinitionLevelsByteLength)
			if rl < 0 || dl < 0 || rl+dl > comp || rl+dl > uncomp {
				return fail(page, pos, "level lengths %d and %d in a page of %d bytes (%d uncompressed)", rl, dl, comp, uncomp)
			}
			values += n
			levels = rl + dl
			compressed = compressed && (!v.IsCompressed.Valid || v.IsCompressed.V)
		default:
			return fail(page, pos, "a page of type %v (want a data or dictionary page)", h.Type)
		}
		if compressed {
			if err := w.inflates(m.Codec, body+levels, comp-levels, uncomp-levels, end); err != nil {
				return fail(page, pos, "%v", err)
			}
		}
		pos = body + comp
	}
	return nil
}

// maxEntries is how many dictionary entries n bytes can hold in the
// PLAIN encoding of a column of kind k.
func maxEntries(k parquet.Kind, length int, n int64) int64 {
	switch k {
	case parquet.Boolean:
		return 8 * n
	case parquet.Int32, parquet.Float:
		return n / 4
	case parquet.Int64, parquet.Double:
		return n / 8
	case parquet.Int96:
		return n / 12
	case parquet.ByteArray:
		return n / 4 // a 4-byte length each
	case parquet.FixedLenByteArray:
		return n / int64(max(length, 1))
	}
	return n
}

// pageHeader reads and decodes the page header at pos: the bytes it
// spans are found by checkThrift, which bounds every length in it by the
// bytes read, in a window that grows to PageHeaderCap at most.
func (w *pageWalk) pageHeader(pos, end int64) (*format.PageHeader, int64, error) {
	limit := min(end-pos, PageHeaderCap)
	for n := min(limit, 4<<10); ; n = min(n*16, limit) {
		b, err := w.read(pos, n, end)
		if err != nil {
			return nil, 0, err
		}
		c := &thriftCheck{b: b}
		err = c.structure(0)
		if err == nil {
			w.header = format.PageHeader{}
			if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[:c.pos], &w.header); err != nil {
				return nil, 0, fmt.Errorf("page header does not decode: %s", input.ClipError(err))
			}
			return &w.header, int64(c.pos), nil
		}
		if n == limit {
			if limit == PageHeaderCap {
				return nil, 0, fmt.Errorf("page header: %v (headers are at most %d bytes)", err, PageHeaderCap)
			}
			return nil, 0, fmt.Errorf("page header: %v", err)
		}
	}
}

// inflates checks that the page body [off, off+n) decompresses with codec
// to at most limit bytes, holding at most limit bytes (lz4, zstd) or a
// codec's window (gzip, brotli) while doing so.
func (w *pageWalk) inflates(codec format.CompressionCodec, off, n, limit, end int64) error {
	switch codec {
	case format.Snappy:
		// The block starts with its decoded length (a varint), which
		// the decoder allocates and then must fill exactly.
		b, err := w.read(off, min(n, 10), end)
		if err != nil {
			return err
		}
		d, err := snappy.DecodedLen(b)
		if err != nil {
			return fmt.Errorf("snappy data does not decode: %v", err)
		}
		if int64(d) > limit {
			return fmt.Errorf("snappy data declares %d bytes, past the %d the page header declares", d, limit)
		}
		return nil
	case format.Zstd, format.Lz4Raw:
		b, err := w.read(off, n, end)
		if err != nil {
			return err
		}
		if int64(cap(w.out)) < limit {
			w.out = make([]byte, limit)
		}
		dst := w.out[:limit:limit]
		if codec == format.Lz4Raw {
			if _, err := lz4.UncompressBlock(b, dst); err != nil {
				return fmt.Errorf("lz4 data does not decompress into the %d bytes the page header declares: %v", limit, err)
			}
			return nil
		}
		if w.zstd == nil {
			if w.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true)); err != nil {
				return err
			}
		}
		if _, err := w.zstd.DecodeAll(b, dst[:0]); err != nil {
			if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
				return fmt.Errorf("zstd data inflates past the %d bytes the page header declares", limit)
			}
			return fmt.Errorf("zstd data does not decompress: %v", err)
		}
		return nil
	case format.Gzip, format.Brotli:
		b, err := w.read(off, n, end)
		if err != nil {
			return err
		}
		var zr io.Reader
		if codec == format.Gzip {
			g, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return fmt.Errorf("gzip data does not decompress: %v", err)
			}
			zr = g
		} else {
			zr = brotli.NewReader(bytes.NewReader(b))
		}
		got, err := io.Copy(io.Discard, io.LimitReader(zr, limit+1))
		if err != nil {
			return fmt.Errorf("%v data does not decompress: %v", codec, err)
		}
		if got > limit {
			return fmt.Errorf("%v data inflates past the %d bytes the page header declares", codec, limit)
		}
		return nil
	}
	return fmt.Errorf("compression codec %v (arena reads uncompressed, snappy, gzip, brotli, zstd and lz4_raw pages)", codec)
}
