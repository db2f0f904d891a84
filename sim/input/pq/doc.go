// Package pq is the one way arena opens a Parquet file it reads (a trace
// table, a run's jobs.parquet and allocations.parquet, a sweep's
// summary.parquet, an export's source).
//
// A Parquet file ends in a footer whose counts and offsets the parquet-go
// library believes: a list length or a byte length in the footer is
// allocated as given (a 2 KB file declaring a 2^31-element list is a
// runtime "out of memory"), row-group and column indices are trusted
// (200,000 row groups panic), and pages whose offsets point nowhere read
// as an empty table. Open therefore checks, before parquet-go decodes
// anything:
//
//   - the footer length against the file's size and FooterCap;
//   - every list, set, map and byte-string length of the footer's Thrift
//     encoding against the bytes left in the footer (each element takes at
//     least one byte), and the number of structs in lists against
//     MaxFooterStructs, so decoding allocates at most a bounded multiple of
//     the footer's size;
//
// and after decoding, before any row is read:
//
//   - row groups against input.ParquetRowGroupsCap, rows against
//     input.RowsCap, the row groups' rows summing to the file's;
//   - every column chunk's offsets and sizes lying inside the file, before
//     the footer, each chunk holding as many values as its row group rows
//     (the tables arena reads have no repeated columns).
//
// parquet-go also allocates from every page header (a buffer of the
// compressed size, one of the uncompressed size, level and offset buffers
// of the value count) and from what a codec inflates to, whatever the
// header says: a 20 KB file whose page claims 2 GiB, or a 32 KB zstd page
// of 1 GiB of zeros, is a "fatal error: out of memory". So Open then walks
// every page of every column chunk as parquet-go will read it, reading
// only headers (and compressed bodies, to check what they inflate to), and
// refuses, before parquet-go reads a page (checkPages):
//
//   - a header that is not a bounded Thrift struct within PageHeaderCap
//     or does not decode; negative sizes or counts; unknown page types and
//     codecs;
//   - a page whose compressed size runs past its column chunk;
//   - an uncompressed size over the chunk's total, over 2048 times the
//     compressed size plus 1 MiB, or pages summing past input.InputCap;
//   - a page that inflates past its uncompressed size: snappy's declared
//     length is checked, zstd and lz4 pages are decompressed into a buffer
//     of the header's size, gzip and brotli ones into a counter (so those
//     pages are decompressed twice);
//   - more values in a chunk's data pages than its rows (the footer's
//     count, under input.CountCap, for a repeated column), dictionaries
//     with more entries than their bytes or the chunk's values can hold,
//     v2 level lengths and null counts that do not fit the page.
//
// ReadAll then reads rows in batches and fails unless it read exactly the
// rows the footer declares.
package pq
