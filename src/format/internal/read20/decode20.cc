#include "format/internal/read20/decode20.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "format/internal/codecs/general.h"
#include "format/internal/leaf_values.h"
#include "format/internal/read20/decode20_impl.h"

namespace quiver::format::internal {

namespace {

using arrow::ArrayPtr;
using arrow::DataType;
using arrow::TypeId;

// Decoding may allocate this much whatever the page size (all-null pages have no bytes at all;
// lance's 2.0 writer cuts pages at 32 MiB of buffered data),
constexpr uint64_t kBudgetAllowance = 256ull << 20;
// plus this many times the page's bytes (zstd reaches ~30000x only on degenerate data that no
// 2.0 writer produces at page sizes where it would matter).
constexpr uint64_t kBudgetExpansion = 1024;

// Bits one decoded row of `type` occupies (values, offsets, validity), saturating.
uint64_t RowBits(const DataType& type) {
  const TypeId id = type.id();
  if (id == TypeId::kNull) return 0;
  if (arrow::IsBinaryLike(id)) return arrow::IsLargeOffsets(id) ? 65 : 33;
  if (id == TypeId::kList || id == TypeId::kLargeList) return 65;
  if (id == TypeId::kDictionary) return RowBits(type.dictionary_value());
  if (id == TypeId::kFixedSizeList) {
    return SatAdd(SatMul(static_cast<uint64_t>(type.list_size()), RowBits(type.item().type)), 1);
  }
  if (id == TypeId::kStruct) {
    uint64_t bits = 1;
    for (const auto& member : type.children()) bits = SatAdd(bits, RowBits(member.type));
    return bits;
  }
  return SatAdd(static_cast<uint64_t>(arrow::BitWidth(type)), 1);
}

uint64_t BytesFor(uint64_t n, uint64_t bits) {
  const uint64_t total = SatMul(n, bits);
  return total == UINT64_MAX ? UINT64_MAX : (total + 7) / 8;
}

// Reads an integer index of `id` (an integer type) at position i, widened.
int64_t ReadIndex(const arrow::ArrayData& a, TypeId id, uint64_t i) {
  const uint8_t* p = a.buffers[1]->data();
  const int64_t k = a.offset + static_cast<int64_t>(i);
  switch (id) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(p)[k];
    case TypeId::kUInt8:
      return p[k];
    case TypeId::kInt16:
      return reinterpret_cast<const int16_t*>(p)[k];
    case TypeId::kUInt16:
      return reinterpret_cast<const uint16_t*>(p)[k];
    case TypeId::kInt32:
      return reinterpret_cast<const int32_t*>(p)[k];
    case TypeId::kUInt32:
      return reinterpret_cast<const uint32_t*>(p)[k];
    case TypeId::kInt64:
      return reinterpret_cast<const int64_t*>(p)[k];
    default: {
      const uint64_t v = reinterpret_cast<const uint64_t*>(p)[k];
      return v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v);
    }
  }
}

std::string DescribeNullable(const pb20::Nullable& n) {
  switch (n.nullability_case()) {
    case pb20::Nullable::kNoNulls:
      return "nullable.no_nulls(" + DescribeEncoding20(n.no_nulls().values()) + ")";
    case pb20::Nullable::kSomeNulls:
      return "nullable.some_nulls(" + DescribeEncoding20(n.some_nulls().values()) + ")";
    case pb20::Nullable::kAllNulls:
      return "nullable.all_nulls";
    default:
      return "nullable(?)";
  }
}

}  // namespace

uint64_t SatMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

uint64_t SatAdd(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

uint64_t DecodeBudget20(std::span<const std::string_view> buffers) {
  uint64_t bytes = 0;
  for (std::string_view b : buffers) bytes = SatAdd(bytes, b.size());
  return SatAdd(kBudgetAllowance, SatMul(bytes, kBudgetExpansion));
}

uint64_t AllNullPageBytes20(const DataType& type, uint64_t rows) {
  return BytesFor(rows, RowBits(type));
}

std::string DescribeEncoding20(const pb20::ArrayEncoding& e) {
  using E = pb20::ArrayEncoding;
  switch (e.array_encoding_case()) {
    case E::kFlat:
      return fmt::format("flat{}{}", e.flat().bits_per_value(),
                         e.flat().has_compression() ? "+" + e.flat().compression().scheme() : "");
    case E::kNullable:
      return DescribeNullable(e.nullable());
    case E::kFixedSizeList:
      return fmt::format("fsl{}({})", e.fixed_size_list().dimension(),
                         DescribeEncoding20(e.fixed_size_list().items()));
    case E::kList:
      return "list(" + DescribeEncoding20(e.list().offsets()) + ")";
    case E::kSimpleStruct:
      return "struct";
    case E::kBinary:
      return "binary";
    case E::kDictionary:
      return "dictionary(" + DescribeEncoding20(e.dictionary().indices()) + "," +
             DescribeEncoding20(e.dictionary().items()) + ")";
    case E::kFsst:
      return "fsst(" + DescribeEncoding20(e.fsst().binary()) + ")";
    case E::kPackedStruct:
      return "packed_struct";
    case E::kBitpacked:
      return fmt::format("bitpacked{}", e.bitpacked().compressed_bits_per_value());
    case E::kFixedSizeBinary:
      return fmt::format("fixed_size_binary{}", e.fixed_size_binary().byte_width());
    case E::kBitpackedForNonNeg:
      return fmt::format("bitpacked_for_non_neg{}",
                         e.bitpacked_for_non_neg().compressed_bits_per_value());
    case E::kConstant:
      return "constant";
    case E::kInlineBitpacking:
      return "inline_bitpacking";
    case E::kOutOfLineBitpacking:
      return "out_of_line_bitpacking";
    case E::kVariable:
      return "variable";
    case E::kPackedStructFixedWidthMiniBlock:
      return "packed_struct_fixed_width_mini_block";
    case E::kBlock:
      return "block";
    case E::kRle:
      return "rle";
    case E::kGeneralMiniBlock:
      return "general_mini_block";
    case E::kByteStreamSplit:
      return "byte_stream_split";
    case E::ARRAY_ENCODING_NOT_SET:
      break;
  }
  return "unknown";
}

ArrayPtr MakeFixed(const DataType& type, uint64_t n, std::shared_ptr<arrow::Buffer> values) {
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = type;
  out->length = static_cast<int64_t>(n);
  out->buffers = {nullptr, std::move(values)};
  return out;
}

ArrayPtr MakeBinary(const DataType& type, uint64_t n, std::shared_ptr<arrow::Buffer> validity,
                    int64_t null_count, std::shared_ptr<arrow::Buffer> offsets,
                    std::shared_ptr<arrow::Buffer> data) {
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = type;
  out->length = static_cast<int64_t>(n);
  out->null_count = null_count;
  out->buffers = {null_count > 0 ? std::move(validity) : nullptr, std::move(offsets),
                  std::move(data)};
  return out;
}

Result<ArrayPtr> AndValidity(const ArrayPtr& values, const uint8_t* valid,
                             arrow::MemoryPool* pool) {
  if (valid == nullptr) return values;
  const int64_t n = values->length;
  if (values->type.id() == TypeId::kNull) return values;
  if (values->buffers.empty()) return Status::Internal("AndValidity: array without buffers");
  QV_ASSIGN_OR_RETURN(auto bits, arrow::Buffer::Allocate(arrow::BytesForBits(n), pool));
  arrow::CopyBits(valid, 0, n, bits->mutable_data(), 0);
  const auto& own = values->buffers[0];
  if (own != nullptr) {
    uint8_t* out = bits->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (!arrow::GetBit(own->data(), values->offset + i)) arrow::ClearBit(out, i);
    }
  }
  auto out = std::make_shared<arrow::ArrayData>(*values);
  out->null_count = n - arrow::CountSetBits(bits->data(), 0, n);
  out->buffers[0] = out->null_count > 0 ? std::move(bits) : nullptr;
  return ArrayPtr(std::move(out));
}

Status PageDecoder20::Charge(uint64_t bytes, std::string_view what) {
  charged_ = SatAdd(charged_, bytes);
  if (charged_ > budget_) {
    return Status::Corruption(
        fmt::format("{} would need {} bytes, more than a page of this size "
                    "may decode to ({})",
                    what, bytes, budget_));
  }
  return Status::OK();
}

Result<std::string_view> PageDecoder20::BufferOf(const pb20::Buffer& buffer) {
  if (buffer.type() != pb20::Buffer::PAGE) {
    return Status::Unsupported(
        fmt::format("2.0 encodings with {} buffers",
                    buffer.type() == pb20::Buffer::COLUMN ? "column" : "global"));
  }
  if (buffer.index() >= buffers_.size()) {
    return Status::Corruption(fmt::format("buffer index {} but the page has {} buffers",
                                          buffer.index(), buffers_.size()));
  }
  return buffers_[buffer.index()];
}

Result<std::shared_ptr<arrow::Buffer>> PageDecoder20::Allocate(uint64_t bytes,
                                                               std::string_view what) {
  QV_RETURN_IF_ERROR(Charge(bytes, what));
  return arrow::Buffer::Allocate(bytes, pool_);
}

Result<ArrayPtr> PageDecoder20::Decode(const pb20::ArrayEncoding& e, const DataType& type,
                                       uint64_t n) {
  using E = pb20::ArrayEncoding;
  if (n > static_cast<uint64_t>(INT64_MAX)) return Status::Corruption("a page of 2^63 values");
  switch (e.array_encoding_case()) {
    case E::kNullable:
      return Nullable(e.nullable(), type, n);
    case E::kFlat:
      return Flat(e.flat(), type, n);
    case E::kFixedSizeList:
      return FixedSizeList(e.fixed_size_list(), type, n);
    case E::kBinary:
      return Binary(e.binary(), type, n);
    case E::kDictionary:
      return Dictionary(e.dictionary(), type, n);
    case E::kPackedStruct:
      return PackedStruct(e.packed_struct(), type, n);
    case E::kFsst:
      return Fsst(e.fsst(), type, n);
    case E::kBitpacked:
      return Bitpacked(e.bitpacked(), type, n);
    case E::kBitpackedForNonNeg:
      return BitpackedForNonNeg(e.bitpacked_for_non_neg(), type, n);
    case E::kFixedSizeBinary:
      return FixedSizeBinary(e.fixed_size_binary(), type, n);
    case E::kList:
    case E::kSimpleStruct:
      return Status::Corruption(fmt::format("a {} encoding where a {} column's values belong",
                                            DescribeEncoding20(e), type.ToString()));
    case E::ARRAY_ENCODING_NOT_SET:
      return Status::Corruption(
          "an ArrayEncoding without an encoding (or one newer than lance "
          "8.0)");
    default:
      return Status::Unsupported(
          fmt::format("2.0 page encoding '{}' (never written to stable "
                      "2.0 files)",
                      DescribeEncoding20(e)));
  }
}

Result<ArrayPtr> PageDecoder20::AllNulls(const DataType& type, uint64_t n) {
  QV_RETURN_IF_ERROR(Charge(AllNullPageBytes20(type, n), "an all-null array"));
  return arrow::MakeNullArray(type, static_cast<int64_t>(n), pool_);
}

Result<ArrayPtr> PageDecoder20::Nullable(const pb20::Nullable& e, const DataType& type,
                                         uint64_t n) {
  switch (e.nullability_case()) {
    case pb20::Nullable::kNoNulls:
      return Decode(e.no_nulls().values(), type, n);
    case pb20::Nullable::kAllNulls:
      return AllNulls(type, n);
    case pb20::Nullable::kSomeNulls: {
      if (type.id() == TypeId::kNull) return AllNulls(type, n);
      QV_ASSIGN_OR_RETURN(ArrayPtr validity,
                          Decode(e.some_nulls().validity(), DataType::Bool(), n));
      if (validity->type.id() != TypeId::kBool || validity->null_count != 0 ||
          validity->offset != 0) {
        return Status::Corruption("a validity bitmap that is not a plain bitmap");
      }
      QV_ASSIGN_OR_RETURN(ArrayPtr values, Decode(e.some_nulls().values(), type, n));
      return AndValidity(values, validity->buffers[1]->data(), pool_);
    }
    case pb20::Nullable::NULLABILITY_NOT_SET:
      break;
  }
  return Status::Corruption("a Nullable encoding without a variant");
}

Result<std::shared_ptr<arrow::Buffer>> PageDecoder20::FlatBytes(const pb20::Flat& flat,
                                                                uint64_t bytes) {
  if (!flat.has_buffer()) return Status::Corruption("a Flat encoding without a buffer");
  QV_ASSIGN_OR_RETURN(std::string_view in, BufferOf(flat.buffer()));
  const std::string& scheme = flat.compression().scheme();
  if (!flat.has_compression() || scheme.empty() || scheme == "none") {
    if (in.size() < bytes) {
      return Status::Corruption(
          fmt::format("a Flat buffer of {} bytes holds {} bytes of values", in.size(), bytes));
    }
    QV_RETURN_IF_ERROR(Charge(bytes, "Flat values"));
    return arrow::Buffer::CopyOf(in.substr(0, bytes), pool_);
  }
  codecs::GeneralCodec codec;
  if (scheme == "zstd") {
    codec = codecs::GeneralCodec::kZstd;
  } else if (scheme == "lz4") {
    codec = codecs::GeneralCodec::kLz4;
  } else {
    return Status::Unsupported(fmt::format("Flat buffers compressed with '{}'", scheme));
  }
  // The unit decompresses to exactly the values; the cap keeps a lying length prefix from
  // allocating more.
  QV_RETURN_IF_ERROR(Charge(bytes, "compressed Flat values"));
  std::vector<uint8_t> out;
  QV_RETURN_IF_ERROR(codecs::DecompressGeneral(
      codec, {reinterpret_cast<const uint8_t*>(in.data()), in.size()}, bytes, &out));
  if (out.size() != bytes) {
    return Status::Corruption(fmt::format("a {} unit decompressed to {} bytes, the values need {}",
                                          scheme, out.size(), bytes));
  }
  return arrow::Buffer::CopyOf(
      std::string_view(reinterpret_cast<const char*>(out.data()), out.size()), pool_);
}

Result<ArrayPtr> PageDecoder20::Flat(const pb20::Flat& e, const DataType& type, uint64_t n) {
  const uint64_t bits = e.bits_per_value();
  if (type.id() == TypeId::kFixedSizeList) {
    // Lance writes FixedSizeList{Flat}, but a Flat holding whole vectors is the same bytes.
    const DataType& item = type.item().type;
    const uint64_t size = static_cast<uint64_t>(type.list_size());
    if (arrow::IsFixedWidth(item) && bits == SatMul(size, arrow::BitWidth(item))) {
      pb20::Flat items = e;
      items.set_bits_per_value(static_cast<uint64_t>(arrow::BitWidth(item)));
      QV_ASSIGN_OR_RETURN(ArrayPtr child, Flat(items, item, SatMul(n, size)));
      auto out = std::make_shared<arrow::ArrayData>();
      out->type = type;
      out->length = static_cast<int64_t>(n);
      out->buffers = {nullptr};
      out->children = {std::move(child)};
      return ArrayPtr(std::move(out));
    }
  }
  if (!arrow::IsFixedWidth(type) || static_cast<uint64_t>(arrow::BitWidth(type)) != bits) {
    return Status::Corruption(
        fmt::format("Flat values of {} bits for a {} column", bits, type.ToString()));
  }
  if (bits != 1 && bits % 8 != 0) {
    return Status::Unsupported(fmt::format("Flat values of {} bits", bits));
  }
  QV_ASSIGN_OR_RETURN(auto values, FlatBytes(e, BytesFor(n, bits)));
  return MakeFixed(type, n, std::move(values));
}

Result<ArrayPtr> PageDecoder20::FixedSizeList(const pb20::FixedSizeList& e, const DataType& type,
                                              uint64_t n) {
  if (type.id() != TypeId::kFixedSizeList ||
      static_cast<uint64_t>(type.list_size()) != e.dimension()) {
    return Status::Corruption(fmt::format("a FixedSizeList of dimension {} for a {} column",
                                          e.dimension(), type.ToString()));
  }
  QV_ASSIGN_OR_RETURN(ArrayPtr items,
                      Decode(e.items(), type.item().type, SatMul(n, e.dimension())));
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = type;
  out->length = static_cast<int64_t>(n);
  out->buffers = {nullptr};
  out->children = {std::move(items)};
  return ArrayPtr(std::move(out));
}

Result<ArrayPtr> PageDecoder20::Binary(const pb20::Binary& e, const DataType& type, uint64_t n) {
  if (!arrow::IsBinaryLike(type.id())) {
    return Status::Corruption("a Binary encoding for a " + type.ToString() + " column");
  }
  // Per row the cumulative end of its bytes; null rows carry null_adjustment on top.
  QV_ASSIGN_OR_RETURN(ArrayPtr indices, Decode(e.indices(), DataType::UInt64(), n));
  const auto* ends = arrow::Values<uint64_t>(*indices);
  const bool large = arrow::IsLargeOffsets(type.id());
  const uint64_t adjustment = e.null_adjustment();
  QV_ASSIGN_OR_RETURN(auto offsets, Allocate(SatMul(n + 1, large ? 8 : 4), "string offsets"));
  QV_ASSIGN_OR_RETURN(auto validity,
                      Allocate(arrow::BytesForBits(static_cast<int64_t>(n)), "string validity"));
  int64_t null_count = 0;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const bool valid = ends[i] < adjustment;
    const uint64_t end = valid ? ends[i] : ends[i] - adjustment;
    if (end < prev) {
      return Status::Corruption(
          fmt::format("string {} ends at byte {}, before its start {}", i, end, prev));
    }
    if (!large && end > static_cast<uint64_t>(INT32_MAX)) {
      return Status::Corruption(
          fmt::format("{} bytes of strings in one page of a 32-bit type", end));
    }
    if (valid) {
      arrow::SetBit(validity->mutable_data(), static_cast<int64_t>(i));
    } else {
      ++null_count;
    }
    if (large) {
      reinterpret_cast<int64_t*>(offsets->mutable_data())[i + 1] = static_cast<int64_t>(end);
    } else {
      reinterpret_cast<int32_t*>(offsets->mutable_data())[i + 1] = static_cast<int32_t>(end);
    }
    prev = end;
  }
  std::shared_ptr<arrow::Buffer> data;
  if (prev == 0) {
    QV_ASSIGN_OR_RETURN(data, arrow::Buffer::Allocate(0, pool_));
  } else {
    QV_ASSIGN_OR_RETURN(ArrayPtr bytes, Decode(e.bytes(), DataType::UInt8(), prev));
    data = bytes->buffers[1];
  }
  return MakeBinary(type, n, std::move(validity), null_count, std::move(offsets), std::move(data));
}

Result<ArrayPtr> PageDecoder20::Dictionary(const pb20::Dictionary& e, const DataType& type,
                                           uint64_t n) {
  // (a) Lance's automatic string dictionary: u8 indices, 1-based, 0 = null. (b) An Arrow
  // dictionary column: 0-based indices of the key type, nulls through Nullable.
  const bool arrow_dictionary = options_.dictionary_index.has_value();
  const TypeId index_id = arrow_dictionary ? *options_.dictionary_index : TypeId::kUInt8;
  if (!arrow_dictionary && !arrow::IsBinaryLike(type.id())) {
    return Status::Corruption("a string dictionary for a " + type.ToString() + " column");
  }
  QV_ASSIGN_OR_RETURN(ArrayPtr indices, Decode(e.indices(), arrow::SimpleType(index_id), n));
  QV_ASSIGN_OR_RETURN(ArrayPtr items, Decode(e.items(), type, e.num_dictionary_items()));
  std::vector<int64_t> take(n, 0);
  QV_ASSIGN_OR_RETURN(
      auto validity, Allocate(arrow::BytesForBits(static_cast<int64_t>(n)), "dictionary validity"));
  uint64_t taken_bytes = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (arrow::IsNull(*indices, static_cast<int64_t>(i))) continue;
    int64_t k = ReadIndex(*indices, index_id, i);
    if (!arrow_dictionary) {
      if (k == 0) continue;
      --k;
    }
    if (k < 0 || k >= items->length) {
      return Status::Corruption(
          fmt::format("dictionary index {} of row {} outside the {} items", k, i, items->length));
    }
    take[i] = k;
    if (arrow::IsValid(*items, k)) arrow::SetBit(validity->mutable_data(), static_cast<int64_t>(i));
    if (arrow::IsBinaryLike(type.id())) taken_bytes += arrow::BinaryValue(*items, k).size();
  }
  // Strings repeat: charge what the materialized rows really take.
  QV_RETURN_IF_ERROR(Charge(SatAdd(taken_bytes, BytesFor(n, RowBits(type))), "dictionary values"));
  const int64_t valid = arrow::CountSetBits(validity->data(), 0, static_cast<int64_t>(n));
  if (items->length == 0) {
    if (valid != 0) return Status::Internal("valid rows in an empty dictionary");
    return arrow::MakeNullArray(type, static_cast<int64_t>(n), pool_);
  }
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(type, pool_));
  QV_RETURN_IF_ERROR(values->AppendTaken(*items, take.data(), static_cast<int64_t>(n)));
  QV_ASSIGN_OR_RETURN(ArrayPtr out, values->Finish());
  if (valid == static_cast<int64_t>(n)) return out;
  return AndValidity(out, validity->data(), pool_);
}

Result<ArrayPtr> PageDecoder20::PackedStruct(const pb20::PackedStruct& e, const DataType& type,
                                             uint64_t n) {
  if (type.id() != TypeId::kStruct) {
    return Status::Corruption("a PackedStruct encoding for a " + type.ToString() + " column");
  }
  // Members are fixed-width values (or fixed-size lists of them), row-major in one buffer.
  std::vector<uint64_t> widths;
  uint64_t row_bytes = 0;
  for (const auto& member : type.children()) {
    const DataType& t = member.type;
    const DataType& value = t.id() == TypeId::kFixedSizeList ? t.item().type : t;
    const uint64_t count =
        t.id() == TypeId::kFixedSizeList ? static_cast<uint64_t>(t.list_size()) : 1;
    if (!arrow::IsFixedWidth(value) || value.id() == TypeId::kBool) {
      return Status::Unsupported("packed struct member of type " + t.ToString());
    }
    widths.push_back(SatMul(count, static_cast<uint64_t>(arrow::BitWidth(value)) / 8));
    row_bytes = SatAdd(row_bytes, widths.back());
  }
  if (!e.has_buffer()) return Status::Corruption("a PackedStruct without a buffer");
  QV_ASSIGN_OR_RETURN(std::string_view in, BufferOf(e.buffer()));
  if (SatMul(n, row_bytes) > in.size()) {
    return Status::Corruption(
        fmt::format("a packed struct buffer of {} bytes for {} rows of {} "
                    "bytes",
                    in.size(), n, row_bytes));
  }
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = type;
  out->length = static_cast<int64_t>(n);
  out->buffers = {nullptr};
  uint64_t at = 0;
  for (size_t m = 0; m < widths.size(); ++m) {
    const uint64_t w = widths[m];
    QV_ASSIGN_OR_RETURN(auto bytes, Allocate(n * w, "packed struct member"));
    for (uint64_t i = 0; i < n; ++i) {
      std::memcpy(bytes->mutable_data() + i * w, in.data() + i * row_bytes + at, w);
    }
    at += w;
    const DataType& t = type.children()[m].type;
    if (t.id() == TypeId::kFixedSizeList) {
      auto list = std::make_shared<arrow::ArrayData>();
      list->type = t;
      list->length = static_cast<int64_t>(n);
      list->buffers = {nullptr};
      list->children = {
          MakeFixed(t.item().type, n * static_cast<uint64_t>(t.list_size()), std::move(bytes))};
      out->children.push_back(std::move(list));
    } else {
      out->children.push_back(MakeFixed(t, n, std::move(bytes)));
    }
  }
  return ArrayPtr(std::move(out));
}

Result<ArrayPtr> DecodeLeafPage20(const pb20::ArrayEncoding& encoding,
                                  std::span<const std::string_view> buffers, const DataType& type,
                                  uint64_t rows, const LeafDecodeOptions20& options,
                                  arrow::MemoryPool* pool) {
  PageDecoder20 decoder(buffers, options, pool);
  QV_ASSIGN_OR_RETURN(ArrayPtr out, decoder.Decode(encoding, type, rows));
  if (!(out->type == type) || static_cast<uint64_t>(out->length) != rows) {
    return Status::Internal(fmt::format("decoded {} rows of {}, wanted {} of {}", out->length,
                                        out->type.ToString(), rows, type.ToString()));
  }
  return out;
}

Result<ListOffsets20> DecodeListOffsets20(const pb20::List& list,
                                          std::span<const std::string_view> buffers, uint64_t rows,
                                          arrow::MemoryPool* pool) {
  LeafDecodeOptions20 options;
  PageDecoder20 decoder(buffers, options, pool);
  QV_ASSIGN_OR_RETURN(ArrayPtr offsets, decoder.Decode(list.offsets(), DataType::UInt64(), rows));
  const uint64_t adjustment = list.null_offset_adjustment();
  if (rows > 0 && adjustment == 0) {
    return Status::Corruption("a list offsets page with null_offset_adjustment 0");
  }
  // A list is null when its stored end carries the adjustment; its base is the previous end
  // taken modulo the adjustment (lance's encodings_v2_0.proto, List).
  ListOffsets20 out;
  out.ends.resize(rows);
  out.valid.resize(rows);
  const auto* v = arrow::Values<uint64_t>(*offsets);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t end = v[i] % adjustment;
    if (end < prev) {
      return Status::Corruption(
          fmt::format("list {} ends at item {}, before its start {}", i, end, prev));
    }
    out.ends[i] = end;
    out.valid[i] = v[i] < adjustment ? 1 : 0;
    prev = end;
  }
  out.num_items = list.num_items();
  if (prev > out.num_items) {
    return Status::Corruption(
        fmt::format("list offsets reach item {} of a page of {} items", prev, out.num_items));
  }
  return out;
}

}  // namespace quiver::format::internal
