#include "format/internal/codecs/bitpacking.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "format/internal/codecs/bytes.h"

namespace quiver::format::codecs {
namespace {

using internal::IsAlignedFor;
using internal::LoadLE;

constexpr size_t kBlock = kFastLanesBlockValues;

// Unpacks one block whose packed words start at `src` (any alignment) into `out1024` (aligned
// for T). Unaligned input is first copied into an aligned scratch block.
template <typename T>
void UnpackFromBytes(const uint8_t* src, int width, T* out1024) {
  if (IsAlignedFor<T>(src)) {
    Unpack<T>(reinterpret_cast<const T*>(src), width, out1024);
    return;
  }
  alignas(64) T scratch[kBlock];
  std::memcpy(scratch, src, FastLanesPackedWords<T>(width) * sizeof(T));
  Unpack<T>(scratch, width, out1024);
}

// Unpacks one block and keeps its first n values.
template <typename T>
void UnpackPrefix(const uint8_t* src, int width, size_t n, T* out) {
  if (n == kBlock) {
    UnpackFromBytes<T>(src, width, out);
    return;
  }
  alignas(64) T values[kBlock];
  UnpackFromBytes<T>(src, width, values);
  std::memcpy(out, values, n * sizeof(T));
}

// Packs n <= 1024 values (zero-padded to 1024) and appends the packed words to `out`.
template <typename T>
void AppendPackedBlock(const T* values, size_t n, int width, std::vector<uint8_t>* out) {
  alignas(64) T block[kBlock];
  const T* in = values;
  if (n != kBlock || !IsAlignedFor<T>(values)) {
    if (n > 0) std::memcpy(block, values, n * sizeof(T));
    std::memset(block + n, 0, (kBlock - n) * sizeof(T));
    in = block;
  }
  alignas(64) T packed[kBlock];
  Pack<T>(in, width, packed);
  const size_t bytes = FastLanesPackedWords<T>(width) * sizeof(T);
  const size_t at = out->size();
  out->resize(at + bytes);
  if (bytes > 0) std::memcpy(out->data() + at, packed, bytes);
}

template <typename T>
Status DecodeInline(std::span<const uint8_t> chunk, size_t n, T* out, const char* what) {
  constexpr int kT = kWordBits<T>;
  if (n > kBlock) {
    return Status::Corruption(
        fmt::format("{}: {} values exceed the 1024 a chunk can hold", what, n));
  }
  if (chunk.size() < sizeof(T)) {
    return Status::Corruption(fmt::format("{}: {} bytes cannot hold the {}-byte bit-width word",
                                          what, chunk.size(), sizeof(T)));
  }
  const uint64_t width = LoadLE<T>(chunk.data());
  if (width > static_cast<uint64_t>(kT)) {
    return Status::Corruption(
        fmt::format("{}: bit width {} at offset 0 exceeds the {}-bit word", what, width, kT));
  }
  const size_t expected = InlineChunkBytes<T>(static_cast<int>(width));
  if (chunk.size() != expected) {
    return Status::Corruption(fmt::format(
        "{}: {} bytes, but bit width {} needs exactly {} ({}-byte header + {} packed bytes)", what,
        chunk.size(), width, expected, sizeof(T), expected - sizeof(T)));
  }
  if (n == 0) return Status::OK();
  UnpackPrefix<T>(chunk.data() + sizeof(T), static_cast<int>(width), n, out);
  return Status::OK();
}

}  // namespace

template <typename T>
Status DecodeInlineChunk(std::span<const uint8_t> chunk, size_t n, T* out) {
  return DecodeInline<T>(chunk, n, out, "inline bitpacking chunk");
}

template <typename T>
Status DecodeInlineBlock(std::span<const uint8_t> block, size_t n, T* out) {
  return DecodeInline<T>(block, n, out, "inline bitpacking block");
}

template <typename T>
Status EncodeInlineChunk(std::span<const T> values, std::vector<uint8_t>* out, int* width_out) {
  if (values.size() > kBlock) {
    return Status::InvalidInput(
        fmt::format("inline bitpacking: a chunk holds at most 1024 values, got {}", values.size()));
  }
  const int width = BitWidthOf<T>(values.data(), values.size());
  const size_t at = out->size();
  out->resize(at + sizeof(T));
  internal::StoreLE<T>(out->data() + at, static_cast<T>(width));
  AppendPackedBlock<T>(values.data(), values.size(), width, out);
  if (width_out != nullptr) *width_out = width;
  return Status::OK();
}

template <typename T>
Status DecodeOutOfLine(std::span<const uint8_t> in, int width, size_t n, T* out) {
  constexpr int kT = kWordBits<T>;
  if (width < 0 || width > kT) {
    return Status::Corruption(
        fmt::format("out-of-line bitpacking: bit width {} is outside 0..{}", width, kT));
  }
  if (in.size() % sizeof(T) != 0) {
    return Status::Corruption(
        fmt::format("out-of-line bitpacking: {} bytes is not a whole number of {}-byte words",
                    in.size(), sizeof(T)));
  }
  const size_t total_words = in.size() / sizeof(T);
  const size_t words_per_block = FastLanesPackedWords<T>(width);
  const size_t full_blocks = n / kBlock;
  const size_t tail = n % kBlock;
  // full_blocks * words_per_block, without overflow: it must not exceed total_words anyway.
  if (words_per_block != 0 && full_blocks > total_words / words_per_block) {
    return Status::Corruption(fmt::format(
        "out-of-line bitpacking: {} values at {} bits need more than the {} bytes present", n,
        width, in.size()));
  }
  const size_t full_words = full_blocks * words_per_block;
  bool raw_tail = false;
  if (tail == 0) {
    if (total_words != full_words) {
      return Status::Corruption(
          fmt::format("out-of-line bitpacking: {} values at {} bits take {} bytes, buffer has {}",
                      n, width, full_words * sizeof(T), in.size()));
    }
  } else if (total_words == full_words + tail) {
    raw_tail = true;
  } else if (total_words != full_words + words_per_block) {
    return Status::Corruption(fmt::format(
        "out-of-line bitpacking: {} values at {} bits take {} bytes (raw tail) or {} bytes "
        "(packed tail), buffer has {}",
        n, width, (full_words + tail) * sizeof(T), (full_words + words_per_block) * sizeof(T),
        in.size()));
  }

  const uint8_t* src = in.data();
  const size_t block_bytes = words_per_block * sizeof(T);
  for (size_t b = 0; b < full_blocks; ++b) {
    UnpackFromBytes<T>(src + b * block_bytes, width, out + b * kBlock);
  }
  if (tail != 0) {
    const uint8_t* tail_src = src + full_blocks * block_bytes;
    T* tail_out = out + full_blocks * kBlock;
    if (raw_tail) {
      std::memcpy(tail_out, tail_src, tail * sizeof(T));
    } else {
      UnpackPrefix<T>(tail_src, width, tail, tail_out);
    }
  }
  return Status::OK();
}

template <typename T>
Status EncodeOutOfLine(std::span<const T> values, int width, std::vector<uint8_t>* out) {
  constexpr int kT = kWordBits<T>;
  if (width < 0 || width > kT) {
    return Status::InvalidInput(
        fmt::format("out-of-line bitpacking: bit width {} is outside 0..{}", width, kT));
  }
  const int needed = BitWidthOf<T>(values.data(), values.size());
  if (needed > width) {
    return Status::InvalidInput(fmt::format(
        "out-of-line bitpacking: values need {} bits but the width is {}", needed, width));
  }
  const size_t n = values.size();
  const size_t full_blocks = n / kBlock;
  out->reserve(out->size() + OutOfLineEncodedBytes<T>(n, width));
  for (size_t b = 0; b < full_blocks; ++b) {
    AppendPackedBlock<T>(values.data() + b * kBlock, kBlock, width, out);
  }
  const size_t tail = n % kBlock;
  if (tail == 0) return Status::OK();
  if (OutOfLinePacksTail<T>(tail, width)) {
    AppendPackedBlock<T>(values.data() + full_blocks * kBlock, tail, width, out);
  } else {
    const size_t at = out->size();
    out->resize(at + tail * sizeof(T));
    std::memcpy(out->data() + at, values.data() + full_blocks * kBlock, tail * sizeof(T));
  }
  return Status::OK();
}

#define QV_BITPACKING_INSTANTIATE(T)                                                     \
  template Status DecodeInlineChunk<T>(std::span<const uint8_t>, size_t, T*);            \
  template Status DecodeInlineBlock<T>(std::span<const uint8_t>, size_t, T*);            \
  template Status EncodeInlineChunk<T>(std::span<const T>, std::vector<uint8_t>*, int*); \
  template Status DecodeOutOfLine<T>(std::span<const uint8_t>, int, size_t, T*);         \
  template Status EncodeOutOfLine<T>(std::span<const T>, int, std::vector<uint8_t>*);
QV_BITPACKING_INSTANTIATE(uint8_t)
QV_BITPACKING_INSTANTIATE(uint16_t)
QV_BITPACKING_INSTANTIATE(uint32_t)
QV_BITPACKING_INSTANTIATE(uint64_t)
#undef QV_BITPACKING_INSTANTIATE

}  // namespace quiver::format::codecs
