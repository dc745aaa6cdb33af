// An evaluated expression's value (expr::Evaluate's types: bool, int64, uint64, float64, utf8,
// date32, timestamp, or the null type) as a column of a table's type, for the values an update
// writes: integers range-checked into narrower integers, floats truncated toward zero into
// integers (range-checked), numbers into floats, timestamps into the column's unit (and zone),
// utf8 into large_utf8, NULL into any type — DataFusion's CAST, which Lance applies to update
// values. A value that does not fit is InvalidInput naming the column, the row's value and the
// type (the update writes nothing); a pairing CAST refuses (a string into an integer column) is
// InvalidInput; column types expressions do not produce yet (lists, vectors, structs, binary,
// decimals, dictionaries) are Unsupported unless the value is NULL.
//
// Thread-safety: a pure function.
#pragma once

#include <string_view>

#include "arrow/array.h"
#include "common/result.h"

namespace quiver::query::internal {

Result<arrow::ArrayPtr> ToColumnType(const arrow::ArrayPtr& value, const arrow::DataType& target,
                                     std::string_view column);

}  // namespace quiver::query::internal
