// Lance 2.1 bit-packing compressions built on FastLanes (lance-file-format.md §4.4, §4.5):
//
//   InlineBitpacking (mini-block chunk, or a block of <= 1024 values): one T-bit little-endian
//     word holding the bit width W (0..T), then FastLanes(W) of 1024 values (= 128*W bytes).
//     Fewer than 1024 real values are zero-padded to 1024 before packing; the real count comes
//     from the caller (chunk metadata / level count). W is the bit width of the OR of the values.
//
//   OutOfLineBitpacking (block; rep/def levels): a fixed width W for the whole buffer, no
//     header. Full 1024-value blocks of 1024*W/T words each, then a tail of t = n mod 1024 values
//     that is either t raw T-bit words or one more zero-padded packed block; a decoder tells
//     them apart by length (raw iff total words == full_blocks*1024*W/T + t, which also wins
//     the tie when both readings have the same length). Our encoder chooses as Lance 12 does
//     (OutOfLinePacksTail), which never packs where the lengths would tie.
//
// T is the uncompressed word type (uint8_t/uint16_t/uint32_t/uint64_t). Decoders take
// untrusted bytes (any alignment) and return Status::Corruption for sizes that do not match;
// they never read outside `in` and write exactly `n` values to `out` (which must be aligned
// for T and hold n values).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "format/internal/codecs/fastlanes.h"

namespace quiver::format::codecs {

// Bytes of an InlineBitpacking chunk packed at `width` bits: sizeof(T) + 128 * width.
template <typename T>
constexpr size_t InlineChunkBytes(int width) {
  return sizeof(T) + FastLanesPackedWords<T>(width) * sizeof(T);
}

// Decodes one InlineBitpacking chunk holding n <= 1024 values. `chunk` must be exactly the
// chunk (header word + 128*W bytes), as Lance's decoder requires.
template <typename T>
Status DecodeInlineChunk(std::span<const uint8_t> chunk, size_t n, T* out);

// Decodes an InlineBitpacking *block* (rep/def levels of a page with <= 1024 levels): the
// buffer is exactly one chunk; n <= 1024.
template <typename T>
Status DecodeInlineBlock(std::span<const uint8_t> block, size_t n, T* out);

// Appends one chunk encoding `values` (size <= 1024; InvalidInput otherwise) to `out`, at the
// bit width of their OR. Returns the width used through `width_out` if non-null.
template <typename T>
Status EncodeInlineChunk(std::span<const T> values, std::vector<uint8_t>* out,
                         int* width_out = nullptr);

// Whether EncodeOutOfLine packs a tail of `tail` (< 1024) values as one zero-padded block
// rather than storing them raw: Lance's rule (lance-encoding bitpacking.rs
// bitpack_out_of_line, Lance 12), padding when the padding's bits cost less than packing saves.
template <typename T>
constexpr bool OutOfLinePacksTail(size_t tail, int width) {
  const size_t w = static_cast<size_t>(width);
  const size_t padding_cost = w * (kFastLanesBlockValues - tail);
  const size_t savings = (sizeof(T) * 8 - w) * tail;
  return padding_cost < savings;
}

// Bytes EncodeOutOfLine produces for n values at `width`.
template <typename T>
constexpr size_t OutOfLineEncodedBytes(size_t n, int width) {
  const size_t tail = n % kFastLanesBlockValues;
  const size_t tail_bytes = tail == 0 ? 0
                            : OutOfLinePacksTail<T>(tail, width)
                                ? FastLanesPackedWords<T>(width) * sizeof(T)
                                : tail * sizeof(T);
  return (n / kFastLanesBlockValues) * FastLanesPackedWords<T>(width) * sizeof(T) + tail_bytes;
}

// Decodes an OutOfLineBitpacking buffer of n values packed at `width` bits (width comes from
// the page description and is validated here: 0 <= width <= T bits).
template <typename T>
Status DecodeOutOfLine(std::span<const uint8_t> in, int width, size_t n, T* out);

// Appends the OutOfLineBitpacking encoding of `values` at `width` bits to `out`: full blocks
// packed, the tail (if any) packed as a padded block or as raw T words (OutOfLinePacksTail).
// InvalidInput if a value needs more than `width` bits or width is out of range.
template <typename T>
Status EncodeOutOfLine(std::span<const T> values, int width, std::vector<uint8_t>* out);

#define QV_BITPACKING_EXTERN(T)                                                                 \
  extern template Status DecodeInlineChunk<T>(std::span<const uint8_t>, size_t, T*);            \
  extern template Status DecodeInlineBlock<T>(std::span<const uint8_t>, size_t, T*);            \
  extern template Status EncodeInlineChunk<T>(std::span<const T>, std::vector<uint8_t>*, int*); \
  extern template Status DecodeOutOfLine<T>(std::span<const uint8_t>, int, size_t, T*);         \
  extern template Status EncodeOutOfLine<T>(std::span<const T>, int, std::vector<uint8_t>*);
QV_BITPACKING_EXTERN(uint8_t)
QV_BITPACKING_EXTERN(uint16_t)
QV_BITPACKING_EXTERN(uint32_t)
QV_BITPACKING_EXTERN(uint64_t)
#undef QV_BITPACKING_EXTERN

}  // namespace quiver::format::codecs
