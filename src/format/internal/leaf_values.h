// LeafValues: accumulates the decoded values of one leaf column page (the visible items, in
// order) in Arrow layout, whatever encoding they came from. Decoders append raw little-endian
// fixed-width values, bit-packed booleans, variable-width values with their offsets, or
// fixed-size-list items with their validity; Finish() hands out the ArrayData (without row
// validity: that comes from the definition levels).
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "common/result.h"

namespace quiver::format::internal {

class LeafValues {
 public:
  // REQUIRES: `type` is a leaf type (not struct/list).
  static Result<std::unique_ptr<LeafValues>> Make(const arrow::DataType& type,
                                                  arrow::MemoryPool* pool);

  const arrow::DataType& type() const { return type_; }
  int64_t length() const { return length_; }
  // Bits per value of fixed-width leaves and of fixed-size-list items (0 for variable width).
  int64_t value_bits() const { return value_bits_; }
  bool is_variable() const { return arrow::IsBinaryLike(storage_id()); }
  bool is_fsl() const { return type_.id() == arrow::TypeId::kFixedSizeList; }
  int64_t list_size() const { return is_fsl() ? type_.list_size() : 1; }

  // n fixed-width values (bool: n bits starting at bit `bit_offset` of src).
  // REQUIRES: src holds them (callers check sizes against their input first).
  Status AppendFixed(const uint8_t* src, int64_t n, int64_t bit_offset = 0);
  // n variable-width values; `offsets` has n + 1 entries of `offset_width` bytes (4 or 8),
  // relative to `data`. Corruption if the offsets decrease or leave [0, data_size].
  Status AppendVariable(const uint8_t* offsets, int offset_width, int64_t n, const uint8_t* data,
                        uint64_t data_size);
  // In-place variable-width appends, for decoders that write straight into the buffers:
  // BeginVariable makes room for n values of at most `max_bytes` bytes and says where to write;
  // `offsets` points at the current last offset (n + 1 entries of offset_width bytes from there,
  // the first equal to `base`). EndVariable then takes the n values and `bytes` data bytes,
  // checking the offsets the decoder wrote end where they must.
  struct VariableTarget {
    uint8_t* data;
    uint8_t* offsets;
    int offset_width;
    uint64_t base;
  };
  Result<VariableTarget> BeginVariable(int64_t n, uint64_t max_bytes);
  Status EndVariable(int64_t n, uint64_t bytes);
  // One variable-width value.
  Status AppendValue(std::string_view value);
  // Fixed-size lists: the item validity bits for the next `items` items (nullptr = all valid).
  Status AppendItemValidity(const uint8_t* bits, int64_t bit_offset, int64_t items);
  // Pre-sizes the buffers for `values` more values (and `data_bytes` more bytes of
  // variable-width data), so a page decodes without regrowing them.
  Status Reserve(int64_t values, uint64_t data_bytes);
  // Takes `data` as the fixed-width values buffer (`items` items; fsl: lists * list_size) instead
  // of copying it. REQUIRES: nothing appended yet; fixed width of whole bytes.
  Status AdoptFixed(std::shared_ptr<arrow::Buffer> data, int64_t items);
  // n zeroed values (visible null slots that store nothing, e.g. in full-zip variable pages).
  Status AppendEmpty(int64_t n);

  // Appends rows [index...] of `dictionary` (same type as this leaf's storage).
  Status AppendTaken(const arrow::ArrayData& dictionary, const int64_t* indices, int64_t n);

  Result<arrow::ArrayPtr> Finish();

 private:
  LeafValues(arrow::DataType type, arrow::MemoryPool* pool);
  arrow::TypeId storage_id() const;

  arrow::DataType type_;
  int64_t value_bits_ = 0;
  bool large_ = false;
  int64_t length_ = 0;                      // values (fsl: lists)
  int64_t items_ = 0;                       // fixed-width items written (fsl: length * list_size)
  std::shared_ptr<arrow::Buffer> adopted_;  // AdoptFixed's buffer, used instead of data_
  arrow::BufferBuilder data_;
  arrow::BufferBuilder offsets_;
  arrow::BufferBuilder item_validity_;
  int64_t item_validity_bits_ = 0;
  bool item_validity_seen_ = false;
};

}  // namespace quiver::format::internal
