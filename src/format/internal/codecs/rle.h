// Lance 2.1 RLE compression (lance-file-format.md §4.6).
//
// Mini-block form: two buffers per chunk — run values (runs × sizeof(T) bytes, little-endian)
// and run lengths (one u8 per run, 1..255; longer runs are split into 255-runs plus a rest).
// Decoding stops once the chunk's value count is reached; runs beyond it are ignored (as in
// Lance). Block form (2.2): u64 LE byte length of the values part, the values, the lengths.
//
// T is the value's bit pattern as an unsigned word (uint8_t/uint16_t/uint32_t/uint64_t; floats
// are compared and stored by bits). Decoders take untrusted bytes (any alignment) and return
// Status::Corruption when the buffers disagree or cover fewer than n values; they write exactly
// n values to `out`.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"

namespace quiver::format::codecs {

template <typename T>
Status DecodeRle(std::span<const uint8_t> run_values, std::span<const uint8_t> run_lengths,
                 size_t n, T* out);

// Appends the runs of `values` to `run_values` / `run_lengths`.
template <typename T>
void EncodeRle(std::span<const T> values, std::vector<uint8_t>* run_values,
               std::vector<uint8_t>* run_lengths);

// Number of (value, length) entries EncodeRle produces (runs split at 255); the encoded size is
// RleEntries * (sizeof(T) + 1).
template <typename T>
size_t RleEntries(std::span<const T> values);

template <typename T>
Status DecodeRleBlock(std::span<const uint8_t> block, size_t n, T* out);

template <typename T>
void EncodeRleBlock(std::span<const T> values, std::vector<uint8_t>* out);

#define QV_RLE_EXTERN(T)                                                                          \
  extern template Status DecodeRle<T>(std::span<const uint8_t>, std::span<const uint8_t>, size_t, \
                                      T*);                                                        \
  extern template void EncodeRle<T>(std::span<const T>, std::vector<uint8_t>*,                    \
                                    std::vector<uint8_t>*);                                       \
  extern template size_t RleEntries<T>(std::span<const T>);                                       \
  extern template Status DecodeRleBlock<T>(std::span<const uint8_t>, size_t, T*);                 \
  extern template void EncodeRleBlock<T>(std::span<const T>, std::vector<uint8_t>*);
QV_RLE_EXTERN(uint8_t)
QV_RLE_EXTERN(uint16_t)
QV_RLE_EXTERN(uint32_t)
QV_RLE_EXTERN(uint64_t)
#undef QV_RLE_EXTERN

}  // namespace quiver::format::codecs
