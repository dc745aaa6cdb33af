// Lance 2.1 ByteStreamSplit compression (mini-block; lance-file-format.md §4.7).
//
// n values of `width` bytes (2, 4 or 8) are stored as `width` byte streams: stream k holds byte
// k of every value, and stream k starts at offset k * n. The buffer is exactly n * width bytes.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/status.h"

namespace quiver::format::codecs {

// Decodes `in` (exactly n * width bytes, untrusted) into n values at `out` (n * width bytes).
// Corruption for a size mismatch or a width other than 2, 4 or 8.
Status DecodeByteStreamSplit(std::span<const uint8_t> in, int width, size_t n, uint8_t* out);

// Encodes n values of `width` bytes from `in` (n * width bytes) into `out` (n * width bytes).
// InvalidInput for a width other than 2, 4 or 8 or a size mismatch.
Status EncodeByteStreamSplit(std::span<const uint8_t> in, int width, size_t n, uint8_t* out);

}  // namespace quiver::format::codecs
