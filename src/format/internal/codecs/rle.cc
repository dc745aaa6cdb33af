#include "format/internal/codecs/rle.h"

#include <algorithm>

#include <fmt/format.h>

#include "format/internal/codecs/bytes.h"

namespace quiver::format::codecs {
namespace {

constexpr size_t kMaxRun = 255;

template <typename T>
void AppendRun(T value, size_t length, std::vector<uint8_t>* run_values,
               std::vector<uint8_t>* run_lengths) {
  while (length > 0) {
    const size_t piece = std::min(length, kMaxRun);
    const size_t at = run_values->size();
    run_values->resize(at + sizeof(T));
    internal::StoreLE<T>(run_values->data() + at, value);
    run_lengths->push_back(static_cast<uint8_t>(piece));
    length -= piece;
  }
}

}  // namespace

template <typename T>
Status DecodeRle(std::span<const uint8_t> run_values, std::span<const uint8_t> run_lengths,
                 size_t n, T* out) {
  if (n == 0) return Status::OK();
  if (run_values.size() % sizeof(T) != 0) {
    return Status::Corruption(
        fmt::format("rle: run-values buffer of {} bytes is not a whole number of {}-byte values",
                    run_values.size(), sizeof(T)));
  }
  const size_t runs = run_values.size() / sizeof(T);
  if (runs != run_lengths.size()) {
    return Status::Corruption(
        fmt::format("rle: {} run values but {} run lengths", runs, run_lengths.size()));
  }
  size_t pos = 0;
  for (size_t r = 0; r < runs && pos < n; ++r) {
    const T value = internal::LoadLE<T>(run_values.data() + r * sizeof(T));
    const size_t length = std::min<size_t>(run_lengths[r], n - pos);
    std::fill_n(out + pos, length, value);
    pos += length;
  }
  if (pos < n) {
    return Status::Corruption(fmt::format("rle: {} runs cover only {} of {} values", runs, pos, n));
  }
  return Status::OK();
}

template <typename T>
void EncodeRle(std::span<const T> values, std::vector<uint8_t>* run_values,
               std::vector<uint8_t>* run_lengths) {
  size_t i = 0;
  while (i < values.size()) {
    const T v = values[i];
    size_t j = i + 1;
    while (j < values.size() && values[j] == v) ++j;
    AppendRun<T>(v, j - i, run_values, run_lengths);
    i = j;
  }
}

template <typename T>
size_t RleEntries(std::span<const T> values) {
  size_t entries = 0;
  size_t i = 0;
  while (i < values.size()) {
    size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    entries += (j - i + kMaxRun - 1) / kMaxRun;
    i = j;
  }
  return entries;
}

template <typename T>
Status DecodeRleBlock(std::span<const uint8_t> block, size_t n, T* out) {
  if (block.size() < 8) {
    return Status::Corruption(
        fmt::format("rle block: {} bytes cannot hold the 8-byte header", block.size()));
  }
  const uint64_t values_bytes = internal::LoadLE<uint64_t>(block.data());
  if (values_bytes > block.size() - 8) {
    return Status::Corruption(
        fmt::format("rle block: header at offset 0 declares {} bytes of run values, only {} follow",
                    values_bytes, block.size() - 8));
  }
  const auto values = block.subspan(8, static_cast<size_t>(values_bytes));
  const auto lengths = block.subspan(8 + static_cast<size_t>(values_bytes));
  Status st = DecodeRle<T>(values, lengths, n, out);
  if (!st.ok()) return st.WithContext("rle block");
  return st;
}

template <typename T>
void EncodeRleBlock(std::span<const T> values, std::vector<uint8_t>* out) {
  std::vector<uint8_t> run_values;
  std::vector<uint8_t> run_lengths;
  EncodeRle<T>(values, &run_values, &run_lengths);
  const size_t at = out->size();
  out->resize(at + 8);
  internal::StoreLE<uint64_t>(out->data() + at, run_values.size());
  out->insert(out->end(), run_values.begin(), run_values.end());
  out->insert(out->end(), run_lengths.begin(), run_lengths.end());
}

#define QV_RLE_INSTANTIATE(T)                                                                   \
  template Status DecodeRle<T>(std::span<const uint8_t>, std::span<const uint8_t>, size_t, T*); \
  template void EncodeRle<T>(std::span<const T>, std::vector<uint8_t>*, std::vector<uint8_t>*); \
  template size_t RleEntries<T>(std::span<const T>);                                            \
  template Status DecodeRleBlock<T>(std::span<const uint8_t>, size_t, T*);                      \
  template void EncodeRleBlock<T>(std::span<const T>, std::vector<uint8_t>*);
QV_RLE_INSTANTIATE(uint8_t)
QV_RLE_INSTANTIATE(uint16_t)
QV_RLE_INSTANTIATE(uint32_t)
QV_RLE_INSTANTIATE(uint64_t)
#undef QV_RLE_INSTANTIATE

}  // namespace quiver::format::codecs
