// Row comparison for ORDER BY: DataFusion's sort order over the value arrays expr::Evaluate
// produces (bool, int64, uint64, float64, utf8, date32, timestamp): nulls first or last by the
// key's option whatever the direction, floats by IEEE totalOrder (NaN above +inf, -0 below +0,
// as Rust's total_cmp), strings bytewise.
//
// Thread-safety: pure functions over immutable arrays.
#pragma once

#include <cstdint>
#include <vector>

#include "arrow/array.h"
#include "query/query.h"

namespace quiver::query::internal {

// < 0, 0, > 0 as row i of `a` sorts before, with, after row j, under `key`.
int CompareRows(const arrow::ArrayData& a, int64_t i, int64_t j, const SortKey& key);

// The stable order of rows 0..n-1 under `keys` (one array per key, each n rows).
std::vector<uint64_t> SortOrder(const std::vector<arrow::ArrayPtr>& keys,
                                const std::vector<SortKey>& options);

}  // namespace quiver::query::internal
