// Scan: reads the rows of one dataset version as Arrow record batches.
//
// Fragments are read in manifest order; a fragment's data files are column groups holding
// disjoint fields, zipped back together row by row. A field no data file of a fragment holds
// (added after the fragment was written) reads as nulls. Rows a fragment's deletion file lists
// are left out (offset and limit count the rows that remain). Projection is by top-level field
// name; `_rowid` (row_ids.h: the row address, or the stable row id on tables that have them) and
// `_rowaddr` (fragment id << 32 | physical row offset, so deleted rows leave gaps) can be appended,
// in that order, as Lance's scanner does. Rows are streamed in batches of at most `batch_rows`;
// memory stays bounded by one decoded page per projected column plus the fragment's deletion
// vector (and, for `_rowid` on tables with stable row ids, its row id sequence).
//
// Thread-safety: the stream returned is single-consumer; any number of scans may run at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/dataset.h"

namespace quiver::table {

struct ScanOptions {
  std::vector<std::string> columns;  // top-level field names; empty = all, in schema order
  bool with_row_addr = false;        // append `_rowaddr` (uint64)
  uint64_t offset = 0;               // rows to skip first
  std::optional<uint64_t> limit;     // rows to return at most
  uint32_t batch_rows = 8192;
  arrow::MemoryPool* pool = nullptr;
  bool with_row_id = false;  // append `_rowid` (uint64), before `_rowaddr`
  // Every physical row, the deleted ones too (what a column group added to a fragment must
  // cover: add_columns.h). Offset and limit then count physical rows.
  bool with_deleted_rows = false;
  // Only the manifest's fragments [fragments_begin, fragments_end) (indices into its list, ends
  // past the list are clamped): the slice one worker of a parallel scan reads. Offset and limit
  // count within the slice.
  size_t fragments_begin = 0;
  size_t fragments_end = SIZE_MAX;
};

// InvalidInput for an unknown column; Unsupported for tables this reader cannot read yet (files
// from outside the dataset's roots); Corruption for a malformed data, deletion or row id file, or a
// fragment whose rows cannot have row addresses (CheckAddressable in fragment_rows.h).
Result<std::unique_ptr<arrow::BatchStream>> Scan(std::shared_ptr<const Dataset> dataset,
                                                 const ScanOptions& options = {});

}  // namespace quiver::table
