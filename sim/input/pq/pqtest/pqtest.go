// Package pqtest builds hostile Parquet files from valid ones, for the
// tests of sim/input/pq and of every command that reads Parquet: page
// headers that lie about sizes, pages that run past their column chunk,
// compression bombs and garbage headers.
package pqtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Meta decodes a file's footer.
func Meta(b []byte) (format.FileMetaData, error) {
	var md format.FileMetaData
	if len(b) < 12 {
		return md, fmt.Errorf("%d bytes", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > len(b)-12 {
		return md, fmt.Errorf("footer of %d bytes", n)
	}
	err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md)
	return md, err
}

func withMeta(data []byte, md *format.FileMetaData) ([]byte, error) {
	f, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		return nil, err
	}
	out := append(slices.Clone(data), f...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(f)))
	return append(out, "PAR1"...), nil
}

// A Page is one page as a valid file lays it out.
type Page struct {
	Header              format.PageHeader
	Offset, HeaderLen   int64
	BodyOffset, BodyLen int64
}

// Pages lists the pages of column col of row group 0 of a valid file.
func Pages(b []byte, col int) ([]Page, error) {
	md, err := Meta(b)
	if err != nil {
		return nil, err
	}
	m := md.RowGroups[0].Columns[col].MetaData
	off := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		off = m.DictionaryPageOffset
	}
	end := off + m.TotalCompressedSize
	var pages []Page
	for off < end {
		pr := new(thrift.CompactProtocol).NewReaderFromBytes(b[off:end])
		var h format.PageHeader
		if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
			return nil, fmt.Errorf("page at %d: %w", off, err)
		}
		hl := int64(pr.BytesRead())
		pages = append(pages, Page{Header: h, Offset: off, HeaderLen: hl, BodyOffset: off + hl, BodyLen: int64(h.CompressedPageSize)})
		off += hl + int64(h.CompressedPageSize)
	}
	return pages, nil
}

// Patch rewrites page p of column col of row group 0: its header after
// edit (nil: unchanged), its body replaced by body (nil: unchanged), the
// column chunk's metadata after meta (nil: unchanged). Every offset after
// the page moves by the change in length, and the chunk's compressed size
// with it, so the footer stays consistent with the file and only the page
// lies.
func Patch(b []byte, col, p int, edit func(*format.PageHeader), body []byte, meta func(*format.ColumnMetaData)) ([]byte, error) {
	md, err := Meta(b)
	if err != nil {
		return nil, err
	}
	pages, err := Pages(b, col)
	if err != nil {
		return nil, err
	}
	if p >= len(pages) {
		return nil, fmt.Errorf("column %d has %d pages", col, len(pages))
	}
	pg := pages[p]
	h := pg.Header
	if edit != nil {
		edit(&h)
	}
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		return nil, err
	}
	return Replace(b, &md, col, pg.Offset, pg.BodyOffset+pg.BodyLen, hb, body, pg.Header.CompressedPageSize, meta)
}

// Replace puts header (and body, or the old body of oldBodyLen bytes when
// nil) in place of the bytes [from, to) of column col's chunk, shifting
// every later offset.
func Replace(b []byte, md *format.FileMetaData, col int, from, to int64, header, body []byte, oldBodyLen int32, meta func(*format.ColumnMetaData)) ([]byte, error) {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	data := b[:len(b)-8-n]
	if body == nil {
		body = data[to-int64(oldBodyLen) : to]
	}
	var out bytes.Buffer
	out.Write(data[:from])
	out.Write(header)
	out.Write(body)
	out.Write(data[to:])
	delta := int64(len(header)+len(body)) - (to - from)
	shift := func(off *int64) {
		if *off > from {
			*off += delta
		}
	}
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		for j := range rg.Columns {
			c := &rg.Columns[j]
			m := &c.MetaData
			shift(&m.DataPageOffset)
			shift(&m.DictionaryPageOffset)
			shift(&m.IndexPageOffset)
			shift(&m.BloomFilterOffset)
			shift(&c.FileOffset)
			shift(&c.ColumnIndexOffset)
			shift(&c.OffsetIndexOffset)
			if i == 0 && j == col {
				m.TotalCompressedSize += delta
				if meta != nil {
					meta(m)
				}
			}
		}
		shift(&rg.FileOffset)
		if i == 0 {
			rg.TotalCompressedSize += delta
		}
	}
	return withMeta(out.Bytes(), md)
}

// ZstdBomb is a zstd frame of RLE blocks that inflates to n bytes (a
// multiple of 128 KiB) from 4 bytes a block: 1 GiB from 32 KiB. The frame
// declares no content size, so only decoding it tells its size.
func ZstdBomb(n int64) []byte {
	const block = 128 << 10
	b := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3} // magic; no FCS; window 2^17
	for i := int64(0); i < n/block; i++ {
		h := uint32(block)<<3 | 1<<1 // RLE block of 128 KiB
		if i == n/block-1 {
			h |= 1 // last block
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// SnappyBomb is a snappy block whose length prefix declares n bytes (the
// decoder allocates them before decoding anything) followed by a literal.
func SnappyBomb(n uint64) []byte {
	b := binary.AppendUvarint(nil, n)
	return append(b, 0x0C, 'b', 'o', 'm', 'b') // a 4-byte literal
}

// Case is one hostile file.
type Case struct {
	Name string
	File []byte
}

// Hostile builds the hostile variants of a valid file (one row group;
// column col's first page is attacked, a data or a dictionary page): page headers that lie, a page past its chunk, zstd, snappy and
// lz4 bombs, garbage headers. Each is at most a few tens of KB; each would
// make parquet-go allocate gigabytes.
func Hostile(b []byte, col int) ([]Case, error) {
	var cases []Case
	var failed error
	add := func(name string, f []byte, err error) {
		if err != nil && failed == nil {
			failed = fmt.Errorf("%s: %w", name, err)
		}
		cases = append(cases, Case{name, f})
	}
	codec := func(c format.CompressionCodec) func(*format.ColumnMetaData) {
		return func(m *format.ColumnMetaData) { m.Codec = c }
	}
	setSizes := func(body []byte, uncompressed int32) func(*format.PageHeader) {
		return func(h *format.PageHeader) {
			h.CompressedPageSize = int32(len(body))
			h.UncompressedPageSize = uncompressed
			h.CRC = 0
			compressed(h)
		}
	}
	// (a) a page header claiming 2 GiB uncompressed: a compressed column
	// decompresses into a buffer of that size.
	f, err := Patch(b, col, 0, func(h *format.PageHeader) {
		h.UncompressedPageSize = 1<<31 - 1
		compressed(h)
	}, nil, codec(format.Snappy))
	add("page claims 2 GiB uncompressed", f, err)
	// (b) a page whose compressed size runs past its chunk (and the file):
	// read into a buffer of that size.
	f, err = Patch(b, col, 0, func(h *format.PageHeader) { h.CompressedPageSize = 1<<31 - 1 }, nil, nil)
	add("page compressed size past its chunk", f, err)
	// (c) bombs: the header declares 1 KiB uncompressed, the body
	// inflates to 1 GiB (zstd), declares 2 GiB (snappy) or makes the
	// decoder double its buffer forever (lz4 on garbage).
	zb := ZstdBomb(1 << 30)
	f, err = Patch(b, col, 0, setSizes(zb, 1<<10), zb, codec(format.Zstd))
	add("zstd page bomb (32 KB to 1 GiB)", f, err)
	sb := SnappyBomb(1<<31 - 1)
	f, err = Patch(b, col, 0, setSizes(sb, 1<<10), sb, codec(format.Snappy))
	add("snappy page bomb (declares 2 GiB)", f, err)
	lb := bytes.Repeat([]byte{0xFF}, 64)
	f, err = Patch(b, col, 0, setSizes(lb, 1<<10), lb, codec(format.Lz4Raw))
	add("lz4 page that never fits", f, err)
	// (d) garbage headers: noise, and a header whose statistics declare a
	// 2 GiB string.
	f, err = replaceHeader(b, col, bytes.Repeat([]byte{0xF9}, 24))
	add("garbage page header", f, err)
	hugeStat := []byte{
		0x15, 0x00, // type: DATA_PAGE
		0x15, 0x02, 0x15, 0x02, // sizes 1, 1
		0x2C,                                           // field 5, struct: data_page_header
		0x15, 0x02, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, // num_values, encodings
		0x1C,                               // field 5, struct: statistics
		0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, // field 1, binary of 2^31-1 bytes
	}
	f, err = replaceHeader(b, col, hugeStat)
	add("page header with a 2 GiB string", f, err)
	// Counts: values and dictionary entries beyond what the chunk holds.
	f, err = Patch(b, col, 0, func(h *format.PageHeader) {
		if h.DictionaryPageHeader.Valid {
			h.DictionaryPageHeader.V.NumValues = 1<<31 - 1
		}
		if h.DataPageHeader.Valid {
			h.DataPageHeader.V.NumValues = 1<<31 - 1
		}
		if h.DataPageHeaderV2.Valid {
			h.DataPageHeaderV2.V.NumValues = 1<<31 - 1
			h.DataPageHeaderV2.V.NumRows = 1<<31 - 1
		}
	}, nil, nil)
	add("page claims 2^31 values", f, err)
	f, err = Patch(b, col, 0, func(h *format.PageHeader) { h.CompressedPageSize = -1 }, nil, nil)
	add("negative page size", f, err)
	if failed != nil {
		return nil, failed
	}
	return cases, nil
}

// compressed marks a v2 data page as compressed (parquet-go writes
// uncompressed ones as not).
func compressed(h *format.PageHeader) {
	if h.DataPageHeaderV2.Valid {
		h.DataPageHeaderV2.V.IsCompressed = thrift.Null[bool]{V: true, Valid: true}
	}
}

// replaceHeader puts raw bytes in place of the first page's header of
// column col, keeping its body.
func replaceHeader(b []byte, col int, header []byte) ([]byte, error) {
	md, err := Meta(b)
	if err != nil {
		return nil, err
	}
	pages, err := Pages(b, col)
	if err != nil {
		return nil, err
	}
	pg := pages[0]
	return Replace(b, &md, col, pg.Offset, pg.BodyOffset+pg.BodyLen, header, nil, pg.Header.CompressedPageSize, nil)
}
