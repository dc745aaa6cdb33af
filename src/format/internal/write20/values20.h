// Accumulators of one Lance 2.0 leaf column's values for the file writer, turned into a page's
// buffers and `lance.encodings.ArrayEncoding` tree the way lance 8.0 writes 2.0 files by default
// (lance-file-format.md §5, "Observed 2.0 defaults"): no compression, only
//   fixed-width, bool, null:  Nullable{no_nulls | some_nulls{Flat{1} bitmap} |
//   all_nulls}(Flat{bits}) fixed-size list:          Nullable(FixedSizeList{dimension, items:
//   Nullable(...)}) utf8 / binary (large):    Binary{indices: Nullable.no_nulls(Flat{64})
//   (cumulative ends, nulls
//                             + null_adjustment), bytes: Flat{8}, null_adjustment}
// Buffers are numbered in the order lance assigns them (validity before values, indices before
// bytes). Every row's bytes stay in memory until the page is taken.
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/proto/encodings20.pb.h"

namespace quiver::format::internal {

// The buffers of a page being encoded; Add returns the new buffer's index.
struct PageBuffers20 {
  std::vector<std::string> buffers;
  uint32_t Add(std::string bytes) {
    buffers.push_back(std::move(bytes));
    return static_cast<uint32_t>(buffers.size() - 1);
  }
};

// `mask` arguments below: one byte per row of the appended array, 0 where a struct above the
// column is null (2.0 stores no struct validity, so such rows are written as nulls); nullptr when
// every struct above is valid.

// Row i of `a` is valid and no struct above it is null.
inline bool RowValid(const arrow::ArrayData& a, int64_t i, const uint8_t* mask) {
  return arrow::IsValid(a, i) && (mask == nullptr || mask[i] != 0);
}

// Fixed-width values (integers, floats, dates, timestamps, decimals, fixed-size binary), bools,
// the null type, and fixed-size lists of any of these (nested).
class FixedValues20 {
 public:
  static bool Supports(const arrow::DataType& type);
  // REQUIRES: Supports(type).
  explicit FixedValues20(const arrow::DataType& type);

  void Append(const arrow::ArrayData& a, const uint8_t* mask);
  // One value of a fixed-width, non-bool type (dictionary items).
  void AppendValue(std::string_view bytes);
  void AppendNull();

  uint64_t rows() const { return rows_; }
  uint64_t buffered_bytes() const;
  // The page encoding of everything appended, buffers added to `out`; starts over.
  lance::encodings::ArrayEncoding Take(PageBuffers20* out);

 private:
  void PushValidity(bool valid);

  arrow::DataType type_;
  int64_t bits_ = 0;  // per value; 0 for the null type and fixed-size lists
  uint64_t rows_ = 0, nulls_ = 0;
  std::vector<uint8_t> valid_;            // one byte per row
  std::string values_;                    // fixed-width bytes, or a bitmap for bools
  std::unique_ptr<FixedValues20> items_;  // fixed-size lists
};

// utf8, binary, large_utf8, large_binary.
class BinaryValues20 {
 public:
  void Append(const arrow::ArrayData& a, const uint8_t* mask);
  void AppendValue(std::string_view bytes);
  void AppendNull();

  uint64_t rows() const { return ends_.size(); }
  uint64_t buffered_bytes() const { return data_.size() + ends_.size() * 9; }
  lance::encodings::ArrayEncoding Take(PageBuffers20* out);

 private:
  std::vector<uint64_t> ends_;  // cumulative end of each row's bytes (nulls: none)
  std::vector<uint8_t> valid_;
  std::string data_;
};

// Encoding helpers shared with the column writers.
lance::encodings::ArrayEncoding Flat20(uint64_t bits, uint32_t buffer);
// Nullable.no_nulls(Flat{64}) over `values`, added as one buffer (list offsets, string ends).
lance::encodings::ArrayEncoding PlainU64s20(const std::vector<uint64_t>& values,
                                            PageBuffers20* out);

}  // namespace quiver::format::internal
