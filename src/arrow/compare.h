// Logical equality of arrays and record batches, with a description of the first difference.
//
// "Logical": values are compared, not bytes. Bytes under null slots, offset bases, slice offsets,
// buffer padding and whether an all-valid array carries a bitmap are all ignored. Dictionary
// arrays compare by the values their indices select (a valid index that selects a null value
// equals a null index); a dictionary array never equals a plain array, as the types differ.
// Floats compare by value, with NaN equal to NaN when nan_equal (the default) and -0.0 equal to
// 0.0 unless signed_zero_equal is false.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "arrow/array.h"
#include "arrow/record_batch.h"

namespace quiver::arrow {

struct EqualOptions {
  bool nan_equal = true;
  bool signed_zero_equal = true;
  // Compare field names and nullability inside nested types (struct members, list items).
  bool check_field_names = true;
};

// The first difference between `a` and `b`, or nullopt when they are equal. The message starts
// with the row and the path inside it: "row 17: 3 != 4", "row 2.b: null != \"x\"" (struct member
// b), "row 4[1].c: 1.5 != 2" (item 1 of a list, member c), "row 0: list of 2 items != list of 3";
// or describes the arrays: "type int32 != int64", "length 3 != 4".
// REQUIRES: both arrays are valid (Validate).
std::optional<std::string> Diff(const ArrayData& a, const ArrayData& b,
                                const EqualOptions& options = {});
inline bool ArrayEquals(const ArrayData& a, const ArrayData& b, const EqualOptions& options = {}) {
  return !Diff(a, b, options).has_value();
}

// Batches: schemas (field names, types, nullability) and then every column; column differences
// read "column <name> row 3.b: 1 != 2".
std::optional<std::string> Diff(const RecordBatch& a, const RecordBatch& b,
                                const EqualOptions& options = {});

}  // namespace quiver::arrow
