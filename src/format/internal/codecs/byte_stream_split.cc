#include "format/internal/codecs/byte_stream_split.h"

#include <fmt/format.h>

namespace quiver::format::codecs {
namespace {

template <int W>
void Join(const uint8_t* __restrict in, size_t n, uint8_t* __restrict out) {
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < W; ++k) out[i * W + k] = in[k * n + i];
  }
}

template <int W>
void Split(const uint8_t* __restrict in, size_t n, uint8_t* __restrict out) {
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < W; ++k) out[k * n + i] = in[i * W + k];
  }
}

bool ValidWidth(int width) { return width == 2 || width == 4 || width == 8; }

// n * width without overflow; false if it overflows.
bool TotalBytes(size_t n, int width, size_t* total) {
  return !__builtin_mul_overflow(n, static_cast<size_t>(width), total);
}

}  // namespace

Status DecodeByteStreamSplit(std::span<const uint8_t> in, int width, size_t n, uint8_t* out) {
  if (!ValidWidth(width)) {
    return Status::Corruption(
        fmt::format("byte stream split: unsupported value width {} bytes", width));
  }
  size_t total = 0;
  if (!TotalBytes(n, width, &total) || in.size() != total) {
    return Status::Corruption(
        fmt::format("byte stream split: {} values of {} bytes need {} bytes, buffer has {}", n,
                    width, n * static_cast<size_t>(width), in.size()));
  }
  if (n == 0) return Status::OK();
  switch (width) {
    case 2:
      Join<2>(in.data(), n, out);
      break;
    case 4:
      Join<4>(in.data(), n, out);
      break;
    default:
      Join<8>(in.data(), n, out);
      break;
  }
  return Status::OK();
}

Status EncodeByteStreamSplit(std::span<const uint8_t> in, int width, size_t n, uint8_t* out) {
  if (!ValidWidth(width)) {
    return Status::InvalidInput(
        fmt::format("byte stream split: unsupported value width {} bytes", width));
  }
  size_t total = 0;
  if (!TotalBytes(n, width, &total) || in.size() != total) {
    return Status::InvalidInput(
        fmt::format("byte stream split: {} values of {} bytes need {} bytes, input has {}", n,
                    width, n * static_cast<size_t>(width), in.size()));
  }
  if (n == 0) return Status::OK();
  switch (width) {
    case 2:
      Split<2>(in.data(), n, out);
      break;
    case 4:
      Split<4>(in.data(), n, out);
      break;
    default:
      Split<8>(in.data(), n, out);
      break;
  }
  return Status::OK();
}

}  // namespace quiver::format::codecs
