// Streams record batches out of a Lance 2.0 file (footer (0,3) or (2,0); lance-file-format.md
// §1.4, §5): the same contract as LanceFileReader::Read for 2.1 files. Fields are mapped to
// columns (columns20.h), each selected top-level field gets a cursor (nodes20.h), and every
// batch holds at most `batch_rows` rows of the requested row ranges and is checked with
// RecordBatch::Validate(full) before it is returned. Memory stays bounded by one decoded page
// per column of the projection plus the batch.
//
// Thread-safety: the returned stream is single-consumer; it shares the (immutable) container.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "format/internal/file_container.h"
#include "format/schema.h"
#include "store/object_store.h"

namespace quiver::format::internal {

// `out_schema` holds the Arrow fields of `selected` (indices of top-level fields of
// `lance_schema`, in output order); `ranges` are sorted, disjoint [begin, end) row ranges within
// the file (callers check them). Corruption when the schema does not fit the file's columns.
Result<std::unique_ptr<arrow::BatchStream>> OpenV20Stream(
    std::shared_ptr<ObjectStore> store, std::string key,
    std::shared_ptr<const FileContainer> container, const Schema& lance_schema,
    std::shared_ptr<const arrow::Schema> out_schema, const std::vector<size_t>& selected,
    std::vector<std::pair<uint64_t, uint64_t>> ranges, uint32_t batch_rows,
    arrow::MemoryPool* pool);

}  // namespace quiver::format::internal
