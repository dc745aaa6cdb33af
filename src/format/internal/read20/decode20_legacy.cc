// The 2.0 encodings that only the pre-stable 2.1 era wrote (lance-file-format.md §5, "never
// produced for stable 2.0 files"), which lance 8.0 still decodes: Bitpacked (plain LSB-first
// packing with optional sign extension), BitpackedForNonNeg (FastLanes blocks of 1024 values),
// FixedSizeBinary (strings of one width) and Fsst.
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "format/internal/codecs/fastlanes.h"
#include "format/internal/codecs/fsst.h"
#include "format/internal/read20/decode20_impl.h"

namespace quiver::format::internal {

namespace {

using arrow::ArrayPtr;
using arrow::DataType;
using arrow::TypeId;

// `width` (<= 64) bits of `p` starting at bit `pos`, LSB-first. REQUIRES: the bits lie in p.
uint64_t ReadBits(const uint8_t* p, uint64_t pos, uint64_t width) {
  uint64_t v = 0;
  uint64_t got = 0;
  while (got < width) {
    const uint64_t byte = (pos + got) / 8, shift = (pos + got) % 8;
    const uint64_t take = std::min<uint64_t>(8 - shift, width - got);
    const uint64_t bits = (static_cast<uint64_t>(p[byte]) >> shift) & ((1ull << take) - 1);
    v |= bits << got;
    got += take;
  }
  return v;
}

bool IsIntegerLike(const DataType& type) {
  return arrow::IsFixedWidth(type) && type.id() != TypeId::kBool &&
         type.id() != TypeId::kFixedSizeList;
}

template <typename T>
Status UnpackBlocks(const uint8_t* in, int width, uint64_t n, uint8_t* out) {
  const size_t words = codecs::FastLanesPackedWords<T>(width);
  std::vector<T> packed(words);
  std::vector<T> block(codecs::kFastLanesBlockValues);
  for (uint64_t done = 0; done < n; done += codecs::kFastLanesBlockValues) {
    if (words > 0) std::memcpy(packed.data(), in, words * sizeof(T));
    codecs::Unpack<T>(packed.data(), width, block.data());
    const uint64_t take = std::min<uint64_t>(codecs::kFastLanesBlockValues, n - done);
    std::memcpy(out + done * sizeof(T), block.data(), take * sizeof(T));
    in += words * sizeof(T);
  }
  return Status::OK();
}

}  // namespace

Result<ArrayPtr> PageDecoder20::Bitpacked(const pb20::Bitpacked& e, const DataType& type,
                                          uint64_t n) {
  const uint64_t bits = e.uncompressed_bits_per_value();
  const uint64_t packed = e.compressed_bits_per_value();
  if (!IsIntegerLike(type) || static_cast<uint64_t>(arrow::BitWidth(type)) != bits ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
    return Status::Corruption(
        fmt::format("Bitpacked values of {} bits for a {} column", bits, type.ToString()));
  }
  if (packed == 0 || packed > bits) {
    return Status::Corruption(fmt::format("Bitpacked at {} bits of {}", packed, bits));
  }
  if (!e.has_buffer()) return Status::Corruption("a Bitpacked encoding without a buffer");
  QV_ASSIGN_OR_RETURN(std::string_view in, BufferOf(e.buffer()));
  const uint64_t need = (SatMul(n, packed) == UINT64_MAX) ? UINT64_MAX : (n * packed + 7) / 8;
  if (need > in.size()) {
    return Status::Corruption(
        fmt::format("{} values of {} bits in a buffer of {} bytes", n, packed, in.size()));
  }
  const uint64_t width = bits / 8;
  QV_ASSIGN_OR_RETURN(auto out, Allocate(n * width, "bit-unpacked values"));
  const auto* src = reinterpret_cast<const uint8_t*>(in.data());
  const bool sign_extend = e.signed_() && packed < 64;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = ReadBits(src, i * packed, packed);
    if (sign_extend && ((v >> (packed - 1)) & 1)) v |= ~0ull << packed;
    std::memcpy(out->mutable_data() + i * width, &v, width);  // little-endian: the low bytes
  }
  return MakeFixed(type, n, std::move(out));
}

Result<ArrayPtr> PageDecoder20::BitpackedForNonNeg(const pb20::BitpackedForNonNeg& e,
                                                   const DataType& type, uint64_t n) {
  const uint64_t bits = e.uncompressed_bits_per_value();
  const uint64_t packed = e.compressed_bits_per_value();
  if (!IsIntegerLike(type) || static_cast<uint64_t>(arrow::BitWidth(type)) != bits ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
    return Status::Corruption(
        fmt::format("BitpackedForNonNeg values of {} bits for a {} column", bits, type.ToString()));
  }
  if (packed > bits) {
    return Status::Corruption(fmt::format("BitpackedForNonNeg at {} bits of {}", packed, bits));
  }
  if (!e.has_buffer()) return Status::Corruption("a BitpackedForNonNeg without a buffer");
  QV_ASSIGN_OR_RETURN(std::string_view in, BufferOf(e.buffer()));
  // Whole 1024-value blocks of 128 * packed bytes, the last one zero-padded.
  const uint64_t blocks = n / codecs::kFastLanesBlockValues + (n % 1024 != 0 ? 1 : 0);
  if (SatMul(blocks, 128 * packed) > in.size()) {
    return Status::Corruption(
        fmt::format("{} blocks of {} bits in a buffer of {} bytes", blocks, packed, in.size()));
  }
  QV_ASSIGN_OR_RETURN(auto out, Allocate(n * (bits / 8), "unpacked values"));
  const auto* src = reinterpret_cast<const uint8_t*>(in.data());
  const int w = static_cast<int>(packed);
  switch (bits) {
    case 8:
      QV_RETURN_IF_ERROR(UnpackBlocks<uint8_t>(src, w, n, out->mutable_data()));
      break;
    case 16:
      QV_RETURN_IF_ERROR(UnpackBlocks<uint16_t>(src, w, n, out->mutable_data()));
      break;
    case 32:
      QV_RETURN_IF_ERROR(UnpackBlocks<uint32_t>(src, w, n, out->mutable_data()));
      break;
    default:
      QV_RETURN_IF_ERROR(UnpackBlocks<uint64_t>(src, w, n, out->mutable_data()));
      break;
  }
  return MakeFixed(type, n, std::move(out));
}

Result<ArrayPtr> PageDecoder20::FixedSizeBinary(const pb20::FixedSizeBinary& e,
                                                const DataType& type, uint64_t n) {
  if (!arrow::IsBinaryLike(type.id())) {
    return Status::Corruption("a FixedSizeBinary encoding for a " + type.ToString() + " column");
  }
  const uint64_t width = e.byte_width();
  if (width > static_cast<uint64_t>(INT32_MAX)) {
    return Status::Corruption(fmt::format("fixed-size strings of {} bytes", width));
  }
  const bool large = arrow::IsLargeOffsets(type.id());
  const uint64_t total = SatMul(n, width);
  if (!large && total > static_cast<uint64_t>(INT32_MAX)) {
    return Status::Corruption(
        fmt::format("{} bytes of strings in one page of a 32-bit type", total));
  }
  // The bytes are n values of `width` bytes each.
  QV_ASSIGN_OR_RETURN(ArrayPtr bytes,
                      Decode(e.bytes(), DataType::FixedSizeBinary(static_cast<int32_t>(width)), n));
  QV_ASSIGN_OR_RETURN(auto offsets, Allocate(SatMul(n + 1, large ? 8 : 4), "string offsets"));
  for (uint64_t i = 0; i <= n; ++i) {
    if (large) {
      reinterpret_cast<int64_t*>(offsets->mutable_data())[i] = static_cast<int64_t>(i * width);
    } else {
      reinterpret_cast<int32_t*>(offsets->mutable_data())[i] = static_cast<int32_t>(i * width);
    }
  }
  return MakeBinary(type, n, bytes->buffers[0], bytes->null_count, std::move(offsets),
                    bytes->buffers[1]);
}

Result<ArrayPtr> PageDecoder20::Fsst(const pb20::Fsst& e, const DataType& type, uint64_t n) {
  if (!arrow::IsBinaryLike(type.id())) {
    return Status::Corruption("an Fsst encoding for a " + type.ToString() + " column");
  }
  QV_ASSIGN_OR_RETURN(ArrayPtr inner, Decode(e.binary(), type, n));
  const std::string& table = e.symbol_table();
  QV_ASSIGN_OR_RETURN(
      codecs::FsstDecoder fsst,
      codecs::FsstDecoder::Parse({reinterpret_cast<const uint8_t*>(table.data()), table.size()}));
  const bool large = arrow::IsLargeOffsets(type.id());
  const auto& data = inner->buffers[2];
  const std::span<const uint8_t> bytes(data->data(), data->size());
  const uint64_t capacity = SatAdd(fsst.MaxDecodedSize(data->size()), codecs::kFsstDecodeSlack);
  QV_ASSIGN_OR_RETURN(auto out, Allocate(capacity, "FSST-decoded strings"));
  QV_ASSIGN_OR_RETURN(auto offsets, Allocate(SatMul(n + 1, large ? 8 : 4), "string offsets"));
  size_t decoded = 0;
  if (large) {
    const auto* in = reinterpret_cast<const uint64_t*>(inner->buffers[1]->data());
    QV_ASSIGN_OR_RETURN(decoded, fsst.DecodeStrings<uint64_t>(
                                     bytes, {in, n + 1}, out->mutable_data(), capacity,
                                     reinterpret_cast<uint64_t*>(offsets->mutable_data()), 0));
  } else {
    const auto* in = reinterpret_cast<const uint32_t*>(inner->buffers[1]->data());
    QV_ASSIGN_OR_RETURN(decoded, fsst.DecodeStrings<uint32_t>(
                                     bytes, {in, n + 1}, out->mutable_data(), capacity,
                                     reinterpret_cast<uint32_t*>(offsets->mutable_data()), 0));
    if (decoded > static_cast<size_t>(INT32_MAX)) {
      return Status::Corruption(
          fmt::format("{} bytes of decoded strings in one page of a 32-bit "
                      "type",
                      decoded));
    }
  }
  out->Truncate(decoded);
  return MakeBinary(type, n, inner->buffers[0], inner->null_count, std::move(offsets),
                    std::move(out));
}

}  // namespace quiver::format::internal
