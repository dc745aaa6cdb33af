// FastLanes bit-packing of 1024-value blocks (Lance InlineBitpacking / OutOfLineBitpacking;
// lance-file-format.md §4.4).
//
// A block of 1024 unsigned T-bit values (T in {8,16,32,64}) is packed to W bits each (0 <= W <=
// T) into W * LANES words of T bits, LANES = 1024 / T, in FastLanes' transposed layout:
//   - value index of (lane l, row r), l < LANES, r < T:
//       i = 128 * (r mod 8) + 16 * ORDER[r div 8] + l,  ORDER = [0,4,2,6,1,5,3,7];
//   - within lane l, row r's W bits occupy bits [r*W, r*W + W) of a little-endian bit string
//     whose word k is packed[LANES * k + l]; a value that crosses a word boundary is split
//     between word k (low bits) and word k+1 (high bits).
// W = 0 means no packed words (all values zero); W = T stores values verbatim (transposed).
//
// The kernels are generated at compile time for every (T, W) (rows fully unrolled, lanes as a
// plain loop the compiler vectorizes) and dispatched through a table indexed by W.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quiver::format::codecs {

// Values per FastLanes block.
inline constexpr size_t kFastLanesBlockValues = 1024;

// Bits of T.
template <typename T>
inline constexpr int kWordBits = static_cast<int>(8 * sizeof(T));

// Number of T words a block packed at `width` bits occupies: 1024 * width / T.
template <typename T>
constexpr size_t FastLanesPackedWords(int width) {
  return static_cast<size_t>(width) * (kFastLanesBlockValues / kWordBits<T>);
}

// Unpacks one block: reads FastLanesPackedWords<T>(width) words from `packed`, writes exactly
// 1024 values to `out1024`.
// REQUIRES: 0 <= width <= kWordBits<T> (callers validate untrusted widths first); the buffers do
// not overlap. An out-of-range width zero-fills the output (and asserts in debug builds).
template <typename T>
void Unpack(const T* packed, int width, T* out1024);

// Packs one block: reads exactly 1024 values from `in1024` (each masked to its low `width`
// bits), writes FastLanesPackedWords<T>(width) words to `packed`.
// REQUIRES: 0 <= width <= kWordBits<T>; the buffers do not overlap. An out-of-range width writes
// nothing (and asserts in debug builds).
template <typename T>
void Pack(const T* in1024, int width, T* packed);

// The number of bits needed for the largest value in [values, values + n) (bit width of the OR
// of all values; 0 for n == 0 or all zeros).
template <typename T>
int BitWidthOf(const T* values, size_t n);

extern template void Unpack<uint8_t>(const uint8_t*, int, uint8_t*);
extern template void Unpack<uint16_t>(const uint16_t*, int, uint16_t*);
extern template void Unpack<uint32_t>(const uint32_t*, int, uint32_t*);
extern template void Unpack<uint64_t>(const uint64_t*, int, uint64_t*);
extern template void Pack<uint8_t>(const uint8_t*, int, uint8_t*);
extern template void Pack<uint16_t>(const uint16_t*, int, uint16_t*);
extern template void Pack<uint32_t>(const uint32_t*, int, uint32_t*);
extern template void Pack<uint64_t>(const uint64_t*, int, uint64_t*);
extern template int BitWidthOf<uint8_t>(const uint8_t*, size_t);
extern template int BitWidthOf<uint16_t>(const uint16_t*, size_t);
extern template int BitWidthOf<uint32_t>(const uint32_t*, size_t);
extern template int BitWidthOf<uint64_t>(const uint64_t*, size_t);

}  // namespace quiver::format::codecs
