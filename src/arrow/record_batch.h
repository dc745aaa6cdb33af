// Record batches (a schema plus equal-length columns) and streams of them.
//
// Thread-safety: a RecordBatch is an immutable value once built (its columns are shared,
// immutable arrays). A BatchStream is single-consumer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "arrow/array.h"
#include "arrow/type.h"
#include "common/result.h"

namespace quiver::arrow {

struct RecordBatch {
  std::shared_ptr<const Schema> schema;
  int64_t length = 0;
  std::vector<ArrayPtr> columns;  // one per schema field, each `length` rows

  // Checks the columns against the schema (count, types, lengths) and each column's layout
  // (Validate with `full`). Corruption naming the column when they do not fit.
  Status Validate(bool full = true) const;
};

// A pull-based sequence of batches sharing one schema.
class BatchStream {
 public:
  virtual ~BatchStream() = default;
  virtual const std::shared_ptr<const Schema>& schema() const = 0;
  // The next batch, or nullopt at the end; an error ends the stream.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

// A stream over batches already in memory (tests, tools).
std::unique_ptr<BatchStream> MakeVectorStream(std::shared_ptr<const Schema> schema,
                                              std::vector<RecordBatch> batches);

}  // namespace quiver::arrow
