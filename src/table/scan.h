// Scan: reads the rows of one dataset version as Arrow record batches.
//
// Fragments are read in manifest order; a fragment's data files are column groups holding
// disjoint fields, zipped back together row by row. A field no data file of a fragment holds
// (added after the fragment was written) reads as nulls. Rows a fragment's deletion file lists
// are left out (offset and limit count the rows that remain). Projection is by top-level field
// name; `_rowaddr` (fragment id << 32 | physical row offset, so deleted rows leave gaps) can be
// appended. Rows are streamed in batches of at most `batch_rows`; memory stays bounded by one
// decoded page per projected column plus the fragment's deletion vector.
//
// Thread-safety: the stream returned is single-consumer; any number of scans may run at once.
#pragma once

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
};

// InvalidInput for an unknown column; Unsupported for tables this reader cannot read yet
// (stable row ids, files from outside the dataset's roots); Corruption for a malformed data or
// deletion file.
Result<std::unique_ptr<arrow::BatchStream>> Scan(std::shared_ptr<const Dataset> dataset,
                                                 const ScanOptions& options = {});

}  // namespace quiver::table
