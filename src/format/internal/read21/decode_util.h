// Small helpers shared by the 2.1/2.2 decoders (compressive.cc, block.cc): byte views, loads of
// unaligned little-endian words, the size error, the word type of a bit width, General's codec.
//
// Thread-safety: pure functions.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "common/result.h"
#include "format/internal/codecs/general.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

inline std::span<const uint8_t> Bytes(std::string_view v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size()};
}

inline std::string_view Chars(const std::vector<uint8_t>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};
}

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

inline Status Short(const char* what, uint64_t need, uint64_t have) {
  return Status::Corruption(fmt::format("{}: needs {} bytes, the buffer has {}", what, need, have));
}

// Calls f(T{}) with the unsigned word type of `bits` bits, for codecs templated on the word.
template <typename F>
Status WithWord(uint64_t bits, F&& f) {
  switch (bits) {
    case 8:
      return f(uint8_t{});
    case 16:
      return f(uint16_t{});
    case 32:
      return f(uint32_t{});
    case 64:
      return f(uint64_t{});
    default:
      return Status::Corruption(fmt::format("a {}-bit word", bits));
  }
}

// LZ4 cannot expand input more than 255x; a unit claiming more is corrupt.
inline size_t Lz4Bound(size_t compressed, size_t cap) {
  return std::min(cap, compressed * 255 + 64);
}

// The codec of a General encoding's BufferCompression (LZ4 or ZSTD; anything else is corrupt).
inline Result<codecs::GeneralCodec> GeneralCodecOf(
    const lance::encodings21::BufferCompression& compression) {
  switch (compression.scheme()) {
    case lance::encodings21::COMPRESSION_ALGORITHM_LZ4:
      return codecs::GeneralCodec::kLz4;
    case lance::encodings21::COMPRESSION_ALGORITHM_ZSTD:
      return codecs::GeneralCodec::kZstd;
    default:
      return Status::Corruption("General compression without a scheme");
  }
}

}  // namespace quiver::format::internal
