#include "format/internal/read21/block.h"

#include <fmt/format.h>

#include "format/internal/codecs/bitpacking.h"
#include "format/internal/codecs/general.h"
#include "format/internal/codecs/rle.h"
#include "format/internal/read21/compressive.h"
#include "format/internal/read21/decode_util.h"

namespace quiver::format::internal {

using lance::encodings21::CompressiveEncoding;

namespace {

// No block (levels or dictionary items of one page) decodes to more than this: Lance pages are a
// few MiB. A larger claim is corrupt, never allocated.
constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 30;

Status WrongWidth(const CompressiveEncoding& e, uint64_t bits) {
  return Status::Corruption(
      fmt::format("a block of {}-bit values stored as {}", bits, DescribeEncoding(e)));
}

// Decodes into `dst` (exactly n * bits / 8 bytes, aligned for any word type).
Status DecodeInto(const CompressiveEncoding& e, std::string_view buffer, uint64_t n, uint64_t bits,
                  uint8_t* dst);

Status DecodeFlatBlock(const CompressiveEncoding& e, std::string_view buffer, uint64_t n,
                       uint64_t bits, uint8_t* dst) {
  if (e.flat().bits_per_value() != bits) return WrongWidth(e, bits);
  if (e.flat().has_data()) return Status::Unsupported("compressed Flat buffers");
  const uint64_t need = n * (bits / 8);
  if (buffer.size() < need) return Short("Flat block", need, buffer.size());
  if (need > 0) std::memcpy(dst, buffer.data(), need);
  return Status::OK();
}

Status DecodeInlineBitpackedBlock(const CompressiveEncoding& e, std::string_view buffer, uint64_t n,
                                  uint64_t bits, uint8_t* dst) {
  const auto& inline_bp = e.inline_bitpacking();
  if (inline_bp.uncompressed_bits_per_value() != bits) return WrongWidth(e, bits);
  if (inline_bp.has_values()) return Status::Unsupported("compressed InlineBitpacking buffers");
  // The block form is one chunk (Lance writes it for blocks of at most 1024 values).
  if (n > 1024) {
    return Status::Corruption(fmt::format("{} values stored as {}", n, DescribeEncoding(e)));
  }
  return WithWord(bits, [&](auto word) {
    using T = decltype(word);
    return codecs::DecodeInlineBlock<T>(Bytes(buffer), n, reinterpret_cast<T*>(dst));
  });
}

Status DecodeOutOfLineBlock(const CompressiveEncoding& e, std::string_view buffer, uint64_t n,
                            uint64_t bits, uint8_t* dst) {
  const auto& ool = e.out_of_line_bitpacking();
  if (ool.uncompressed_bits_per_value() != bits) return WrongWidth(e, bits);
  if (!ool.values().has_flat()) {
    return Status::Corruption("OutOfLineBitpacking over " + DescribeEncoding(ool.values()));
  }
  const uint64_t width = ool.values().flat().bits_per_value();
  if (width > bits) {
    return Status::Corruption(fmt::format("{}-bit values packed at {} bits", bits, width));
  }
  return WithWord(bits, [&](auto word) {
    using T = decltype(word);
    return codecs::DecodeOutOfLine<T>(Bytes(buffer), static_cast<int>(width), n,
                                      reinterpret_cast<T*>(dst));
  });
}

// RLE block (2.2): u64 LE byte length of the run values, the run values, u8 run lengths. Lance
// validates Flat values and Flat(8) run lengths.
Status DecodeRleBlock(const CompressiveEncoding& e, std::string_view buffer, uint64_t n,
                      uint64_t bits, uint8_t* dst) {
  const auto& rle = e.rle();
  if (!rle.values().has_flat() || !rle.run_lengths().has_flat() ||
      rle.run_lengths().flat().bits_per_value() != 8) {
    return Status::Corruption("a block stored as " + DescribeEncoding(e));
  }
  if (rle.values().flat().bits_per_value() != bits) return WrongWidth(e, bits);
  return WithWord(bits, [&](auto word) {
    using T = decltype(word);
    return codecs::DecodeRleBlock<T>(Bytes(buffer), n, reinterpret_cast<T*>(dst));
  });
}

// General (LZ4/ZSTD) around an inner block encoding: the whole buffer is one unit.
Status DecodeGeneralBlock(const CompressiveEncoding& e, std::string_view buffer, uint64_t n,
                          uint64_t bits, uint8_t* dst) {
  // The inner block is at most the raw values plus RLE's worst case (one length byte a value)
  // and a header.
  const uint64_t bound = n * (bits / 8) + n + 4096;
  QV_ASSIGN_OR_RETURN(UnwrappedBlock unwrapped, UnwrapGeneralBlock(e, buffer, bound));
  return DecodeInto(*unwrapped.inner, Chars(unwrapped.bytes), n, bits, dst);
}

// Constant: the value, n times (Lance's ConstantDecompressor).
Status DecodeConstantBlock(const CompressiveEncoding& e, uint64_t n, uint64_t bits, uint8_t* dst) {
  if (!e.constant().has_value()) return Status::Corruption("a Constant block without a value");
  const std::string& value = e.constant().value();
  if (value.size() * 8 != bits) return WrongWidth(e, bits);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * value.size(), value.data(), value.size());
  return Status::OK();
}

Status DecodeInto(const CompressiveEncoding& e, std::string_view buffer, uint64_t n, uint64_t bits,
                  uint8_t* dst) {
  switch (e.compression_case()) {
    case CompressiveEncoding::kFlat:
      return DecodeFlatBlock(e, buffer, n, bits, dst);
    case CompressiveEncoding::kInlineBitpacking:
      return DecodeInlineBitpackedBlock(e, buffer, n, bits, dst);
    case CompressiveEncoding::kOutOfLineBitpacking:
      return DecodeOutOfLineBlock(e, buffer, n, bits, dst);
    case CompressiveEncoding::kRle:
      return DecodeRleBlock(e, buffer, n, bits, dst);
    case CompressiveEncoding::kGeneral:
      return DecodeGeneralBlock(e, buffer, n, bits, dst);
    case CompressiveEncoding::kConstant:
      return DecodeConstantBlock(e, n, bits, dst);
    default:
      return Status::Unsupported(
          fmt::format("a block of {}-bit values encoded as {}", bits, DescribeEncoding(e)));
  }
}

}  // namespace

std::optional<uint64_t> BlockValueBits(const CompressiveEncoding& e) {
  switch (e.compression_case()) {
    case CompressiveEncoding::kFlat:
      return e.flat().bits_per_value();
    case CompressiveEncoding::kInlineBitpacking:
      return e.inline_bitpacking().uncompressed_bits_per_value();
    case CompressiveEncoding::kOutOfLineBitpacking:
      return e.out_of_line_bitpacking().uncompressed_bits_per_value();
    case CompressiveEncoding::kRle:
      if (!e.rle().values().has_flat()) return std::nullopt;
      return e.rle().values().flat().bits_per_value();
    case CompressiveEncoding::kGeneral:
      // Lance never nests General; one level is all that is looked through.
      if (e.general().values().has_general()) return std::nullopt;
      return BlockValueBits(e.general().values());
    case CompressiveEncoding::kConstant:
      if (!e.constant().has_value()) return std::nullopt;
      return uint64_t{e.constant().value().size()} * 8;
    default:
      return std::nullopt;
  }
}

Status DecodeFixedWidthBlock(const CompressiveEncoding& encoding, std::string_view buffer,
                             uint64_t n, uint64_t bits, std::vector<uint8_t>* out) {
  if (bits == 0 || bits % 8 != 0 || bits > 128) {
    return Status::Corruption(fmt::format("a block of {}-bit values", bits));
  }
  const uint64_t bytes_per_value = bits / 8;
  if (n > kMaxBlockBytes / bytes_per_value) {
    return Status::Corruption(fmt::format("a block of {} {}-bit values", n, bits));
  }
  // Decoded into aligned storage (the codecs write whole words), then appended.
  std::vector<uint64_t> words((n * bytes_per_value + 7) / 8 + 1);
  auto* dst = reinterpret_cast<uint8_t*>(words.data());
  QV_RETURN_IF_ERROR(DecodeInto(encoding, buffer, n, bits, dst));
  out->insert(out->end(), dst, dst + n * bytes_per_value);
  return Status::OK();
}

Result<UnwrappedBlock> UnwrapGeneralBlock(const CompressiveEncoding& encoding,
                                          std::string_view buffer, size_t max_decoded) {
  if (!encoding.has_general()) {
    return Status::Internal("UnwrapGeneralBlock of " + DescribeEncoding(encoding));
  }
  const auto& general = encoding.general();
  QV_ASSIGN_OR_RETURN(codecs::GeneralCodec codec, GeneralCodecOf(general.compression()));
  if (!general.has_values())
    return Status::Corruption("General compression without an inner encoding");
  if (general.values().has_general()) {
    return Status::Corruption("General compression nested in General");
  }
  UnwrappedBlock out;
  out.inner = &general.values();
  const size_t cap = std::min<size_t>(max_decoded, kMaxBlockBytes);
  QV_RETURN_IF_ERROR(codecs::DecompressGeneral(
      codec, Bytes(buffer),
      codec == codecs::GeneralCodec::kLz4 ? Lz4Bound(buffer.size(), cap) : cap, &out.bytes));
  return out;
}

}  // namespace quiver::format::internal
