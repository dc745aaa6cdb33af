// Full-zip pages of a packed struct with variable-width members (file format 2.2,
// `VariablePackedStruct`): each visible struct value is one row of bytes holding its members
// back to back, fixed-width members as `bits_per_value / 8` bytes and variable-width ones as a
// u32 or u64 length (`bits_per_length`) and the bytes, each member in its own per-value encoding
// (Flat, or Variable / FSST / General for variable-width ones). Lance 12 writes structs marked
// `lance-encoding:packed: true` this way, and blob v2 descriptors.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "arrow/array.h"
#include "common/result.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

class PageDecodeCache;

// Unpacks rows (each the bytes of one struct value, in order; an empty view for a visible null
// that stores nothing) into a struct array of `type` without validity (it comes from the
// levels). Corruption when a row's members do not use exactly its bytes or the encoding does not
// describe `type`'s members.
class PackedStructRows {
 public:
  static Result<PackedStructRows> Make(const lance::encodings21::VariablePackedStruct& encoding,
                                       const arrow::DataType& type, arrow::MemoryPool* pool);
  PackedStructRows(PackedStructRows&&) noexcept;
  PackedStructRows& operator=(PackedStructRows&&) noexcept;
  ~PackedStructRows();

  Status Append(std::string_view row, PageDecodeCache* cache);
  Status AppendNull();  // a visible null struct: zero / empty members
  Result<arrow::ArrayPtr> Finish();

 private:
  struct Impl;
  explicit PackedStructRows(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::format::internal
