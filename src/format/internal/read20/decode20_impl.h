// The recursive decoder behind decode20.h, shared by decode20.cc (the encodings lance writes
// today) and decode20_legacy.cc (the ones only the pre-stable 2.1 era wrote). Not for other
// callers.
//
// Thread-safety: a PageDecoder20 is single-threaded and lives for one page.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "arrow/array.h"
#include "common/result.h"
#include "format/internal/read20/decode20.h"

namespace quiver::format::internal {

namespace pb20 = lance::encodings;

// a * b and a + b, stuck at UINT64_MAX instead of wrapping (sizes computed from untrusted
// counts are compared against budgets, so saturation is enough).
uint64_t SatMul(uint64_t a, uint64_t b);
uint64_t SatAdd(uint64_t a, uint64_t b);

class PageDecoder20 {
 public:
  PageDecoder20(std::span<const std::string_view> buffers, const LeafDecodeOptions20& options,
                arrow::MemoryPool* pool)
      : buffers_(buffers), options_(options), pool_(pool), budget_(DecodeBudget20(buffers)) {}

  // `n` values of `type` (with validity) from the encoding.
  Result<arrow::ArrayPtr> Decode(const pb20::ArrayEncoding& encoding, const arrow::DataType& type,
                                 uint64_t n);

  // Counts `bytes` against the page's budget; Corruption once it is exceeded.
  Status Charge(uint64_t bytes, std::string_view what);
  // The page buffer a Buffer message points to.
  Result<std::string_view> BufferOf(const pb20::Buffer& buffer);
  // A fresh zeroed allocation, charged to the budget.
  Result<std::shared_ptr<arrow::Buffer>> Allocate(uint64_t bytes, std::string_view what);

  // Legacy decoders (decode20_legacy.cc).
  Result<arrow::ArrayPtr> Bitpacked(const pb20::Bitpacked& e, const arrow::DataType& type,
                                    uint64_t n);
  Result<arrow::ArrayPtr> BitpackedForNonNeg(const pb20::BitpackedForNonNeg& e,
                                             const arrow::DataType& type, uint64_t n);
  Result<arrow::ArrayPtr> FixedSizeBinary(const pb20::FixedSizeBinary& e,
                                          const arrow::DataType& type, uint64_t n);
  Result<arrow::ArrayPtr> Fsst(const pb20::Fsst& e, const arrow::DataType& type, uint64_t n);

 private:
  Result<std::shared_ptr<arrow::Buffer>> FlatBytes(const pb20::Flat& flat, uint64_t bytes);
  Result<arrow::ArrayPtr> Flat(const pb20::Flat& e, const arrow::DataType& type, uint64_t n);
  Result<arrow::ArrayPtr> Nullable(const pb20::Nullable& e, const arrow::DataType& type,
                                   uint64_t n);
  Result<arrow::ArrayPtr> FixedSizeList(const pb20::FixedSizeList& e, const arrow::DataType& type,
                                        uint64_t n);
  Result<arrow::ArrayPtr> Binary(const pb20::Binary& e, const arrow::DataType& type, uint64_t n);
  Result<arrow::ArrayPtr> Dictionary(const pb20::Dictionary& e, const arrow::DataType& type,
                                     uint64_t n);
  Result<arrow::ArrayPtr> PackedStruct(const pb20::PackedStruct& e, const arrow::DataType& type,
                                       uint64_t n);
  Result<arrow::ArrayPtr> AllNulls(const arrow::DataType& type, uint64_t n);

  std::span<const std::string_view> buffers_;
  const LeafDecodeOptions20& options_;
  arrow::MemoryPool* pool_;
  uint64_t budget_;
  uint64_t charged_ = 0;
};

// Helpers shared by both files.

// A fixed-width (or bool) array of n values over `values`, without validity.
arrow::ArrayPtr MakeFixed(const arrow::DataType& type, uint64_t n,
                          std::shared_ptr<arrow::Buffer> values);
// A binary-like array from its parts (offsets of the type's width, n + 1 of them).
arrow::ArrayPtr MakeBinary(const arrow::DataType& type, uint64_t n,
                           std::shared_ptr<arrow::Buffer> validity, int64_t null_count,
                           std::shared_ptr<arrow::Buffer> offsets,
                           std::shared_ptr<arrow::Buffer> data);
// `values` with its validity ANDed with bits [0, length) of `valid` (nullptr = all valid).
Result<arrow::ArrayPtr> AndValidity(const arrow::ArrayPtr& values, const uint8_t* valid,
                                    arrow::MemoryPool* pool);

}  // namespace quiver::format::internal
