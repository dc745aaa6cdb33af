#include "format/internal/read21/compressive.h"

#include <cstring>

#include <map>

#include <fmt/format.h>

#include "format/internal/codecs/bitpacking.h"
#include "format/internal/codecs/byte_stream_split.h"
#include "format/internal/codecs/fsst.h"
#include "format/internal/codecs/general.h"
#include "format/internal/codecs/rle.h"
#include "format/internal/read21/block.h"
#include "format/internal/read21/decode_util.h"

namespace quiver::format::internal {

struct PageDecodeCache::Impl {
  // Parsed symbol tables by the address of their bytes in the page's layout message (which
  // outlives the cache).
  std::map<const void*, codecs::FsstDecoder> fsst;
  std::vector<uint8_t> scratch;       // unpacked fixed-width values of one chunk
  std::vector<uint8_t> decompressed;  // General: the first buffer, decompressed
  std::vector<uint8_t> fsst_bytes;
  std::vector<uint64_t> fsst_offsets64;
  std::vector<uint32_t> fsst_offsets32;

  Result<const codecs::FsstDecoder*> Fsst(const std::string& table) {
    auto it = fsst.find(table.data());
    if (it == fsst.end()) {
      QV_ASSIGN_OR_RETURN(codecs::FsstDecoder decoder,
                          codecs::FsstDecoder::Parse(std::span<const uint8_t>(
                              reinterpret_cast<const uint8_t*>(table.data()), table.size())));
      it = fsst.emplace(table.data(), std::move(decoder)).first;
    }
    return &it->second;
  }
};

PageDecodeCache::PageDecodeCache() : impl_(std::make_unique<Impl>()) {}
PageDecodeCache::~PageDecodeCache() = default;

namespace {

// Upper bounds on what one General-compressed unit may decode to: a mini-block chunk is at most a
// few hundred KiB decoded; a full-zip value is one value (Lance compresses values above 32 KiB
// one by one). Larger claims are corrupt, not allocated.
constexpr size_t kMaxChunkDecompressed = size_t{16} << 20;
constexpr size_t kMaxValueDecompressed = size_t{256} << 20;

// The offsets width of a Variable encoding (its offsets are Flat(32) or Flat(64)).
Result<int> OffsetWidth(const lance::encodings21::Variable& variable) {
  if (!variable.offsets().has_flat()) {
    return Status::Unsupported("Variable offsets encoded as " +
                               DescribeEncoding(variable.offsets()));
  }
  const uint64_t bits = variable.offsets().flat().bits_per_value();
  if (bits != 32 && bits != 64) {
    return Status::Corruption(fmt::format("Variable offsets of {} bits", bits));
  }
  if (variable.has_values()) return Status::Unsupported("compressed Variable values");
  return static_cast<int>(bits / 8);
}

Status DecodeFlat(const lance::encodings21::Flat& flat, std::string_view buffer, int64_t n,
                  LeafValues* out) {
  if (flat.has_data()) return Status::Unsupported("compressed Flat buffers");
  const uint64_t bits = flat.bits_per_value();
  if (static_cast<int64_t>(bits) != out->value_bits()) {
    return Status::Corruption(
        fmt::format("Flat({}) values for a {} column", bits, out->type().ToString()));
  }
  const uint64_t need = bits == 1 ? (n + 7) / 8 : n * (bits / 8);
  if (buffer.size() < need) return Short("Flat values", need, buffer.size());
  return out->AppendFixed(reinterpret_cast<const uint8_t*>(buffer.data()), n);
}

// Decodes FSST strings into a LeafValues::BeginVariable target: directly when the target's
// offsets have the input's width, through a temporary otherwise (large types with 32-bit FSST
// offsets and the reverse).
template <typename Offset>
Result<size_t> DecodeFsstInto(const codecs::FsstDecoder& decoder, std::span<const uint8_t> data,
                              std::span<const Offset> offsets, size_t capacity,
                              const LeafValues::VariableTarget& target) {
  if (target.offset_width == static_cast<int>(sizeof(Offset))) {
    return decoder.DecodeStrings<Offset>(data, offsets, target.data, capacity,
                                         reinterpret_cast<Offset*>(target.offsets),
                                         static_cast<Offset>(target.base));
  }
  std::vector<uint8_t> bytes;
  std::vector<Offset> ends;
  QV_RETURN_IF_ERROR(decoder.DecodeStrings<Offset>(data, offsets, &bytes, &ends));
  if (bytes.size() > capacity) return Status::Internal("fsst: decoded past its bound");
  if (!bytes.empty()) std::memcpy(target.data, bytes.data(), bytes.size());
  for (size_t i = 0; i < ends.size(); ++i) {
    const uint64_t v = target.base + static_cast<uint64_t>(ends[i]);
    std::memcpy(target.offsets + i * target.offset_width, &v, target.offset_width);
  }
  return bytes.size();
}

}  // namespace

std::string DescribeEncoding(const CompressiveEncoding& e) {
  switch (e.compression_case()) {
    case CompressiveEncoding::kFlat:
      return fmt::format("Flat({})", e.flat().bits_per_value());
    case CompressiveEncoding::kVariable:
      return "Variable(" + DescribeEncoding(e.variable().offsets()) + ")";
    case CompressiveEncoding::kConstant:
      return "Constant";
    case CompressiveEncoding::kOutOfLineBitpacking:
      return fmt::format("OutOfLineBitpacking({}, {})",
                         e.out_of_line_bitpacking().uncompressed_bits_per_value(),
                         DescribeEncoding(e.out_of_line_bitpacking().values()));
    case CompressiveEncoding::kInlineBitpacking:
      return fmt::format("InlineBitpacking({})",
                         e.inline_bitpacking().uncompressed_bits_per_value());
    case CompressiveEncoding::kFsst:
      return "Fsst(" + DescribeEncoding(e.fsst().values()) + ")";
    case CompressiveEncoding::kDictionary:
      return "Dictionary";
    case CompressiveEncoding::kRle:
      return "Rle(" + DescribeEncoding(e.rle().values()) + ")";
    case CompressiveEncoding::kByteStreamSplit:
      return "ByteStreamSplit(" + DescribeEncoding(e.byte_stream_split().values()) + ")";
    case CompressiveEncoding::kGeneral:
      return fmt::format("General({}, {})", static_cast<int>(e.general().compression().scheme()),
                         DescribeEncoding(e.general().values()));
    case CompressiveEncoding::kFixedSizeList:
      return fmt::format("FixedSizeList({}, {}{})", e.fixed_size_list().items_per_value(),
                         DescribeEncoding(e.fixed_size_list().values()),
                         e.fixed_size_list().has_validity() ? ", validity" : "");
    case CompressiveEncoding::kPackedStruct:
      return "PackedStruct";
    case CompressiveEncoding::kVariablePackedStruct:
      return "VariablePackedStruct";
    case CompressiveEncoding::COMPRESSION_NOT_SET:
      return "<none>";
  }
  return "<unknown>";
}

namespace {

// Inline bit-packed integers (one chunk of at most 1024 values).
Status MiniBlockBitpacked(const CompressiveEncoding& encoding,
                          std::span<const std::string_view> buffers, int64_t n,
                          PageDecodeCache* cache, LeafValues* out) {
  PageDecodeCache::Impl& c = cache->impl();
  const uint64_t bits = encoding.inline_bitpacking().uncompressed_bits_per_value();
  if (encoding.inline_bitpacking().has_values()) {
    return Status::Unsupported("compressed InlineBitpacking buffers");
  }
  if (static_cast<int64_t>(bits) != out->value_bits() || out->is_fsl() || n > 1024) {
    return Status::Corruption(fmt::format("InlineBitpacking({}) chunk of {} values for {}", bits, n,
                                          out->type().ToString()));
  }
  c.scratch.resize(static_cast<size_t>(n) * bits / 8);
  QV_RETURN_IF_ERROR(WithWord(bits, [&](auto word) {
    using T = decltype(word);
    return codecs::DecodeInlineChunk<T>(Bytes(buffers[0]), static_cast<size_t>(n),
                                        reinterpret_cast<T*>(c.scratch.data()));
  }));
  return out->AppendFixed(c.scratch.data(), n);
}

// Run-length encoded fixed-width values: run values and run lengths.
Status MiniBlockRle(const CompressiveEncoding& encoding, std::span<const std::string_view> buffers,
                    int64_t n, PageDecodeCache* cache, LeafValues* out) {
  PageDecodeCache::Impl& c = cache->impl();
  const auto& rle = encoding.rle();
  if (buffers.size() < 2 || !rle.values().has_flat()) {
    return Status::Corruption("Rle chunk without run values and run lengths");
  }
  const uint64_t bits = rle.values().flat().bits_per_value();
  if (static_cast<int64_t>(bits) != out->value_bits() || out->is_fsl()) {
    return Status::Corruption(fmt::format("Rle({}) values for {}", bits, out->type().ToString()));
  }
  c.scratch.resize(static_cast<size_t>(n) * bits / 8);
  QV_RETURN_IF_ERROR(WithWord(bits, [&](auto word) {
    using T = decltype(word);
    return codecs::DecodeRle<T>(Bytes(buffers[0]), Bytes(buffers[1]), static_cast<size_t>(n),
                                reinterpret_cast<T*>(c.scratch.data()));
  }));
  return out->AppendFixed(c.scratch.data(), n);
}

// Byte-stream-split floats.
Status MiniBlockByteStreamSplit(const CompressiveEncoding& encoding,
                                std::span<const std::string_view> buffers, int64_t n,
                                PageDecodeCache* cache, LeafValues* out) {
  PageDecodeCache::Impl& c = cache->impl();
  const auto& inner = encoding.byte_stream_split().values();
  if (!inner.has_flat()) {
    return Status::Unsupported("ByteStreamSplit over " + DescribeEncoding(inner));
  }
  const uint64_t bits = inner.flat().bits_per_value();
  if (static_cast<int64_t>(bits) != out->value_bits() || out->is_fsl()) {
    return Status::Corruption(
        fmt::format("ByteStreamSplit({}) for {}", bits, out->type().ToString()));
  }
  c.scratch.resize(static_cast<size_t>(n) * bits / 8);
  QV_RETURN_IF_ERROR(codecs::DecodeByteStreamSplit(Bytes(buffers[0]), static_cast<int>(bits / 8),
                                                   static_cast<size_t>(n), c.scratch.data()));
  return out->AppendFixed(c.scratch.data(), n);
}

// General (LZ4/ZSTD) around an inner encoding: only the chunk's first buffer is compressed (§4.9).
Status MiniBlockGeneral(const CompressiveEncoding& encoding,
                        std::span<const std::string_view> buffers, int64_t n,
                        PageDecodeCache* cache, LeafValues* out) {
  // Only the chunk's first buffer is compressed (§4.9).
  const auto& general = encoding.general();
  QV_ASSIGN_OR_RETURN(codecs::GeneralCodec codec, GeneralCodecOf(general.compression()));
  if (general.values().has_general()) {
    return Status::Corruption("General compression nested in General");
  }
  std::vector<uint8_t> decompressed;
  const size_t cap = codec == codecs::GeneralCodec::kLz4
                         ? Lz4Bound(buffers[0].size(), kMaxChunkDecompressed)
                         : kMaxChunkDecompressed;
  QV_RETURN_IF_ERROR(codecs::DecompressGeneral(codec, Bytes(buffers[0]), cap, &decompressed));
  std::vector<std::string_view> inner(buffers.begin(), buffers.end());
  inner[0] =
      std::string_view(reinterpret_cast<const char*>(decompressed.data()), decompressed.size());
  return DecodeMiniBlockValues(general.values(), inner, n, cache, out);
}

// FSST-compressed strings over Variable offsets.
Status MiniBlockFsst(const CompressiveEncoding& encoding, std::span<const std::string_view> buffers,
                     int64_t n, PageDecodeCache* cache, LeafValues* out) {
  PageDecodeCache::Impl& c = cache->impl();
  const auto& fsst = encoding.fsst();
  if (!out->is_variable() || !fsst.values().has_variable()) {
    return Status::Corruption("Fsst values for " + out->type().ToString());
  }
  QV_ASSIGN_OR_RETURN(const codecs::FsstDecoder* decoder, c.Fsst(fsst.symbol_table()));
  QV_ASSIGN_OR_RETURN(int width, OffsetWidth(fsst.values().variable()));
  std::string_view b = buffers[0];
  const uint64_t need = static_cast<uint64_t>(n + 1) * width;
  if (b.size() < need) return Short("Fsst offsets", need, b.size());
  const auto* base = reinterpret_cast<const uint8_t*>(b.data());
  // Decoded straight into the page's value buffers (no intermediate copy). The capacity
  // bound covers the whole buffer, which holds at least the strings' bytes.
  const size_t capacity = decoder->MaxDecodedSize(b.size()) + codecs::kFsstDecodeSlack;
  QV_ASSIGN_OR_RETURN(LeafValues::VariableTarget target, out->BeginVariable(n, capacity));
  Result<size_t> decoded = size_t{0};
  if (width == 4) {
    std::span<const uint32_t> offsets(reinterpret_cast<const uint32_t*>(base), n + 1);
    if (reinterpret_cast<uintptr_t>(base) % 4 != 0) {
      c.fsst_offsets32.assign(n + 1, 0);
      std::memcpy(c.fsst_offsets32.data(), base, (n + 1) * 4);
      offsets = c.fsst_offsets32;
    }
    decoded = DecodeFsstInto<uint32_t>(*decoder, Bytes(b), offsets, capacity, target);
  } else {
    c.fsst_offsets64.assign(n + 1, 0);
    std::memcpy(c.fsst_offsets64.data(), base, (n + 1) * 8);
    decoded = DecodeFsstInto<uint64_t>(*decoder, Bytes(b), c.fsst_offsets64, capacity, target);
  }
  if (!decoded.ok()) return decoded.status();
  return out->EndVariable(n, *decoded);
}

// Variable-width values: offsets then bytes.
Status MiniBlockVariable(const CompressiveEncoding& encoding,
                         std::span<const std::string_view> buffers, int64_t n,
                         PageDecodeCache* /*cache*/, LeafValues* out) {
  if (!out->is_variable()) {
    return Status::Corruption("Variable values for a " + out->type().ToString() + " column");
  }
  QV_ASSIGN_OR_RETURN(int width, OffsetWidth(encoding.variable()));
  std::string_view b = buffers[0];
  const uint64_t need = static_cast<uint64_t>(n + 1) * width;
  if (b.size() < need) return Short("Variable offsets", need, b.size());
  const auto* base = reinterpret_cast<const uint8_t*>(b.data());
  return out->AppendVariable(base, width, n, base, b.size());
}

// Fixed-size lists of flat items, with or without item validity.
Status MiniBlockFixedSizeList(const CompressiveEncoding& encoding,
                              std::span<const std::string_view> buffers, int64_t n,
                              PageDecodeCache* /*cache*/, LeafValues* out) {
  const auto& fsl = encoding.fixed_size_list();
  if (!out->is_fsl() || static_cast<int64_t>(fsl.items_per_value()) != out->list_size()) {
    return Status::Corruption(fmt::format("FixedSizeList({}) values for a {} column",
                                          fsl.items_per_value(), out->type().ToString()));
  }
  const int64_t items = n * out->list_size();
  if (fsl.has_validity()) {
    const uint64_t need = (items + 7) / 8;
    if (buffers[0].size() < need) return Short("FixedSizeList validity", need, buffers[0].size());
    QV_RETURN_IF_ERROR(
        out->AppendItemValidity(reinterpret_cast<const uint8_t*>(buffers[0].data()), 0, items));
    buffers = buffers.subspan(1);
    if (buffers.empty()) return Status::Corruption("FixedSizeList without a values buffer");
  } else {
    QV_RETURN_IF_ERROR(out->AppendItemValidity(nullptr, 0, items));
  }
  if (!fsl.values().has_flat()) {
    return Status::Unsupported("FixedSizeList items encoded as " + DescribeEncoding(fsl.values()));
  }
  const uint64_t bits = fsl.values().flat().bits_per_value();
  if (static_cast<int64_t>(bits) != out->value_bits()) {
    return Status::Corruption(
        fmt::format("FixedSizeList items of {} bits for {}", bits, out->type().ToString()));
  }
  const uint64_t need = bits == 1 ? (items + 7) / 8 : items * (bits / 8);
  if (buffers[0].size() < need) return Short("FixedSizeList items", need, buffers[0].size());
  return out->AppendFixed(reinterpret_cast<const uint8_t*>(buffers[0].data()), items);
}

}  // namespace

Status DecodeMiniBlockValues(const CompressiveEncoding& encoding,
                             std::span<const std::string_view> buffers, int64_t n,
                             PageDecodeCache* cache, LeafValues* out) {
  if (buffers.empty()) return Status::Corruption("a mini-block chunk without value buffers");
  switch (encoding.compression_case()) {
    case CompressiveEncoding::kInlineBitpacking:
      return MiniBlockBitpacked(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kRle:
      return MiniBlockRle(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kByteStreamSplit:
      return MiniBlockByteStreamSplit(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kGeneral:
      return MiniBlockGeneral(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kFsst:
      return MiniBlockFsst(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kFlat:
      return DecodeFlat(encoding.flat(), buffers[0], n, out);
    case CompressiveEncoding::kVariable:
      return MiniBlockVariable(encoding, buffers, n, cache, out);
    case CompressiveEncoding::kFixedSizeList:
      return MiniBlockFixedSizeList(encoding, buffers, n, cache, out);
    default:
      return Status::Unsupported("mini-block values encoded as " + DescribeEncoding(encoding));
  }
}

Status DecodeFullZipValue(const CompressiveEncoding& encoding, std::string_view value,
                          PageDecodeCache* cache, LeafValues* out) {
  PageDecodeCache::Impl& c = cache->impl();
  switch (encoding.compression_case()) {
    case CompressiveEncoding::kVariable:
      return out->AppendValue(value);
    case CompressiveEncoding::kFsst: {
      QV_ASSIGN_OR_RETURN(const codecs::FsstDecoder* decoder,
                          c.Fsst(encoding.fsst().symbol_table()));
      c.fsst_bytes.resize(decoder->MaxDecodedSize(value.size()) + codecs::kFsstDecodeSlack);
      QV_ASSIGN_OR_RETURN(size_t len, decoder->DecodeString(Bytes(value), c.fsst_bytes.data(),
                                                            c.fsst_bytes.size()));
      return out->AppendValue(
          std::string_view(reinterpret_cast<const char*>(c.fsst_bytes.data()), len));
    }
    case CompressiveEncoding::kGeneral: {
      QV_ASSIGN_OR_RETURN(UnwrappedBlock unwrapped,
                          UnwrapGeneralBlock(encoding, value, kMaxValueDecompressed));
      return DecodeFullZipValue(*unwrapped.inner, Chars(unwrapped.bytes), cache, out);
    }
    default:
      return Status::Unsupported("full-zip values encoded as " + DescribeEncoding(encoding));
  }
}

Status DecodeLevels(const CompressiveEncoding& encoding, std::string_view buffer, uint64_t n,
                    std::vector<uint16_t>* out) {
  // Levels are u16 under any block encoding: Flat, bit-packing (2.1), RLE or General (2.2).
  std::vector<uint8_t> bytes;
  Status decoded = DecodeFixedWidthBlock(encoding, buffer, n, 16, &bytes);
  if (!decoded.ok()) return decoded.WithContext("levels");
  const size_t start = out->size();
  out->resize(start + n);
  if (n > 0) std::memcpy(out->data() + start, bytes.data(), 2 * n);
  return Status::OK();
}

namespace {

// Variable block form: u32|u64 bit width, u32|u64 data start, (n + 1) offsets from the data
// start, then the data (§4.2).
Status DecodeVariableBlock(std::string_view buffer, uint64_t n, LeafValues* values) {
  if (!values->is_variable()) {
    return Status::Corruption("Variable dictionary items for " + values->type().ToString());
  }
  if (buffer.size() < 4) return Short("Variable block header", 4, buffer.size());
  const uint32_t bits = Load<uint32_t>(buffer.data());
  const int width = bits == 64 ? 8 : 4;
  if (bits != 32 && bits != 64) {
    return Status::Unsupported(fmt::format("Variable block with a {}-bit header", bits));
  }
  const uint64_t header = 2ull * width;
  if (buffer.size() < header) return Short("Variable block header", header, buffer.size());
  const uint64_t data_start =
      width == 8 ? Load<uint64_t>(buffer.data() + 8) : Load<uint32_t>(buffer.data() + 4);
  if (n >= buffer.size()) return Short("Variable block offsets", n, buffer.size());
  const uint64_t need = header + (n + 1) * width;
  if (buffer.size() < need || data_start > buffer.size() || data_start < need) {
    return Short("Variable block offsets", std::max(need, data_start), buffer.size());
  }
  const auto* base = reinterpret_cast<const uint8_t*>(buffer.data());
  return values->AppendVariable(base + header, width, static_cast<int64_t>(n), base + data_start,
                                buffer.size() - data_start);
}

}  // namespace

Result<arrow::ArrayPtr> DecodeDictionaryItems(const CompressiveEncoding& encoding,
                                              std::string_view buffer, uint64_t n,
                                              const arrow::DataType& type,
                                              arrow::MemoryPool* pool) {
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(type, pool));
  // 2.2 compresses items with LZ4 by default: General around a Variable block (strings) or any
  // fixed-width block encoding.
  const CompressiveEncoding* inner = &encoding;
  std::string_view bytes = buffer;
  UnwrappedBlock unwrapped;
  if (encoding.has_general() && encoding.general().values().has_variable()) {
    QV_ASSIGN_OR_RETURN(unwrapped, UnwrapGeneralBlock(encoding, buffer, kMaxValueDecompressed));
    inner = unwrapped.inner;
    bytes = Chars(unwrapped.bytes);
  }
  if (inner->has_variable()) {
    QV_RETURN_IF_ERROR(DecodeVariableBlock(bytes, n, values.get()));
    return values->Finish();
  }
  std::optional<uint64_t> bits = BlockValueBits(*inner);
  if (!bits || values->is_variable() || values->is_fsl()) {
    return Status::Unsupported(fmt::format("dictionary items of {} encoded as {}", type.ToString(),
                                           DescribeEncoding(encoding)));
  }
  if (static_cast<int64_t>(*bits) != values->value_bits()) {
    return Status::Corruption(fmt::format("{} dictionary items for a {} column",
                                          DescribeEncoding(encoding), type.ToString()));
  }
  if (*bits == 1) {  // booleans: Flat(1) only
    if (!inner->has_flat()) {
      return Status::Unsupported("boolean dictionary items encoded as " +
                                 DescribeEncoding(encoding));
    }
    QV_RETURN_IF_ERROR(DecodeFlat(inner->flat(), bytes, static_cast<int64_t>(n), values.get()));
    return values->Finish();
  }
  std::vector<uint8_t> fixed;
  QV_RETURN_IF_ERROR(DecodeFixedWidthBlock(*inner, bytes, n, *bits, &fixed));
  QV_RETURN_IF_ERROR(values->AppendFixed(fixed.data(), static_cast<int64_t>(n)));
  return values->Finish();
}

Status DecodeMiniBlockIndices(const CompressiveEncoding& encoding,
                              std::span<const std::string_view> buffers, int64_t n,
                              PageDecodeCache* cache, std::vector<int64_t>* out) {
  // Indices are unsigned integers of the encoding's width (2.2 may wrap them in General).
  const uint64_t bits = BlockValueBits(encoding).value_or(0);
  arrow::DataType type;
  switch (bits) {
    case 8:
      type = arrow::DataType::UInt8();
      break;
    case 16:
      type = arrow::DataType::UInt16();
      break;
    case 32:
      type = arrow::DataType::UInt32();
      break;
    case 64:
      type = arrow::DataType::UInt64();
      break;
    default:
      return Status::Unsupported("dictionary indices encoded as " + DescribeEncoding(encoding));
  }
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(type, arrow::MemoryPool::Default()));
  QV_RETURN_IF_ERROR(DecodeMiniBlockValues(encoding, buffers, n, cache, values.get()));
  QV_ASSIGN_OR_RETURN(arrow::ArrayPtr array, values->Finish());
  const size_t start = out->size();
  out->resize(start + n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    switch (bits) {
      case 8:
        v = arrow::Values<uint8_t>(*array)[i];
        break;
      case 16:
        v = arrow::Values<uint16_t>(*array)[i];
        break;
      case 32:
        v = arrow::Values<uint32_t>(*array)[i];
        break;
      default: {
        uint64_t u = arrow::Values<uint64_t>(*array)[i];
        v = u > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(u);
      }
    }
    (*out)[start + i] = v;
  }
  return Status::OK();
}

}  // namespace quiver::format::internal
