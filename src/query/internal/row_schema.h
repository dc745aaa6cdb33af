// What SQL over a table's rows sees in the writes that evaluate it (update_where.h,
// add_columns_sql.h, merge_insert.h): every column of the table, then `_rowaddr` (uint64), as
// RunQuery answers them with `with_row_addr` (query.h); and a batch of no such rows, to type-check
// an expression by evaluating it before anything is read.
// Thread-safety: pure functions.
#pragma once

#include <memory>

#include "arrow/record_batch.h"
#include "common/result.h"

namespace quiver::query::internal {

std::shared_ptr<arrow::Schema> WithRowAddress(const arrow::Schema& table);

// REQUIRES: schema != nullptr.
Result<arrow::RecordBatch> EmptyBatch(std::shared_ptr<const arrow::Schema> schema);

}  // namespace quiver::query::internal
