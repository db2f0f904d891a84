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
// ReadAll then reads rows in batches and fails unless it read exactly the
// rows the footer declares.
package pq
