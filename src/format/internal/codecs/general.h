// Lance "General" compression units (lance-file-format.md §4.9): one buffer compressed with
// LZ4 or ZSTD and framed so the decoder knows the decompressed size:
//
//   LZ4  = u32 LE uncompressed length + one raw LZ4 *block* (not an LZ4 frame)
//   ZSTD = u64 LE uncompressed length + one standard zstd frame
//
// Decoding ZSTD also accepts a bare zstd stream (no length prefix). Like Lance, a unit is taken
// as bare when it is shorter than 8 bytes, or when it starts with the zstd magic 0xFD2FB528 and
// byte 4 (the frame header descriptor) has bit 0x10 clear; otherwise it is length-prefixed.
//
// Decoders take untrusted bytes: the declared length is checked against the caller's
// `max_decoded` before anything is allocated, a bare stream stops growing at `max_decoded`, and
// the decompressed size must equal the declared one (Status::Corruption otherwise).
// Decoders append to `out` (existing contents are kept).
//
// Thread-safety: pure functions (ZSTD contexts are cached per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"

namespace quiver::format::codecs {

enum class GeneralCodec { kLz4, kZstd };

// The ZSTD level used when a caller passes 0 (Lance's "level 0" = zstd's default).
inline constexpr int kZstdDefaultLevel = 3;

Status DecompressLz4Unit(std::span<const uint8_t> in, size_t max_decoded,
                         std::vector<uint8_t>* out);
// InvalidInput if the input is 4 GiB or more (the length prefix is 32 bits).
Status CompressLz4Unit(std::span<const uint8_t> in, std::vector<uint8_t>* out);

Status DecompressZstdUnit(std::span<const uint8_t> in, size_t max_decoded,
                          std::vector<uint8_t>* out);
// level 0 = kZstdDefaultLevel.
Status CompressZstdUnit(std::span<const uint8_t> in, int level, std::vector<uint8_t>* out);

// Dispatch on the codec.
Status DecompressGeneral(GeneralCodec codec, std::span<const uint8_t> in, size_t max_decoded,
                         std::vector<uint8_t>* out);
Status CompressGeneral(GeneralCodec codec, std::span<const uint8_t> in, int level,
                       std::vector<uint8_t>* out);

}  // namespace quiver::format::codecs
