#include "format/internal/write21/page_encoder21.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "arrow/concatenate.h"
#include "common/little_endian.h"

#include <fmt/format.h>

#include "format/internal/codecs/bitpacking.h"
#include "format/internal/codecs/fsst.h"
#include "format/internal/codecs/general.h"
#include "format/internal/codecs/rle.h"

namespace quiver::format::internal {

namespace {

namespace pb = lance::encodings21;

constexpr uint64_t kFullZipMinValueBytes = 256;  // §6: mini-block below, full-zip from here
constexpr uint64_t kChunkTargetBytes = 4096;     // what Lance aims a chunk's values at
constexpr uint64_t kMaxChunkBytes = 32 * 1024;   // u16 chunk words: (size / 8 - 1) < 4096
// 2.2's u32 chunk words could say 2 GiB; chunks stay small (the values aim at
// kChunkTargetBytes) and grow past 32 KiB only for what 2.1 cannot hold at all: a value wider
// than 32 KiB, or levels and a value that together are. 8 MiB bounds what a reader allocates
// for one chunk.
constexpr uint64_t kMaxLargeChunkBytes = 8 * 1024 * 1024;
constexpr uint64_t kMaxChunkBuffer = 65535;  // u16 buffer sizes in the chunk header
constexpr uint64_t kMaxChunkLevels = 65535;  // u16 level count in the chunk header
constexpr int64_t kMaxChunkValues = 4096;
constexpr int64_t kBitpackChunk = 1024;
constexpr int64_t kRleChunk = 2048;
constexpr uint64_t kPackedChunkBytes = 8186;  // Lance 12's packed-row chunk bound (ChunkValues) //
                                              // Lance caps RLE chunks (lance#4429)
constexpr uint64_t kFsstMinPageBytes = 32 * 1024;   // §4.8: FSST only for pages this large
constexpr uint64_t kFsstMinMaxLength = 5;           // ... whose longest string has 5+ bytes
constexpr uint64_t kZstdMinValueBytes = 32 * 1024;  // §4.9: per-value ZSTD above this
constexpr int kPerValueZstdLevel = 3;
constexpr size_t kMaxInlineConstantBytes = 32;  // 2.2 ConstantLayout.inline_value (Lance's)

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PadTo(std::string* s, size_t multiple, char fill = 0) {
  while (s->size() % multiple != 0) s->push_back(fill);
}

int BitsFor(uint64_t max_value) { return max_value == 0 ? 0 : std::bit_width(max_value); }

void SetLayers(const std::vector<LayerKind>& layers, google::protobuf::RepeatedField<int>* out) {
  for (LayerKind k : layers) out->Add(static_cast<int>(k));
}

// Value-slot ordinal boundaries: for each visible level, its level index.
std::vector<uint64_t> VisibleLevels(const LeafPageData& page) {
  const uint16_t max_visible = MaxVisibleDef(page.layers);
  std::vector<uint64_t> out;
  out.reserve(static_cast<size_t>(page.values->length));
  for (uint64_t i = 0; i < page.num_levels; ++i) {
    if (page.def.empty() || page.def[i] <= max_visible) out.push_back(i);
  }
  return out;
}

// The bytes of values [begin, end) of the page's values in Lance's value encoding.
struct ValueWriter {
  int offset_bytes;
  const arrow::ArrayData& values;
  bool compress;
  bool variable;
  bool fsl;
  int64_t list_size;
  int64_t bits;  // per item

  // `offset_bytes`: the width of Variable offsets and full-zip length prefixes: 8 for the large
  // types (Lance reads them as 64-bit), 4 otherwise.
  ValueWriter(const arrow::ArrayData& v, bool c, int offset_width = 0)
      : offset_bytes(offset_width != 0                    ? offset_width
                     : arrow::IsLargeOffsets(v.type.id()) ? 8
                                                          : 4),
        values(v),
        compress(c),
        variable(arrow::IsBinaryLike(v.type.id())),
        fsl(v.type.id() == arrow::TypeId::kFixedSizeList),
        list_size(fsl ? v.type.list_size() : 1),
        bits(arrow::BitWidth(fsl ? v.type.item().type : v.type)) {}

  const arrow::ArrayData& items() const { return fsl ? *values.children[0] : values; }
  // The item index of value 0: a slice of a FixedSizeList keeps its offset in the parent (the
  // pages of a split page are such slices); other values are their own items.
  int64_t item_base() const { return fsl ? values.offset * list_size : 0; }

  // Bytes one value takes uncompressed (variable: its length).
  uint64_t ValueBytes(int64_t i) const {
    if (variable) return arrow::BinaryValue(values, i).size();
    return static_cast<uint64_t>((list_size * bits + 7) / 8);
  }

  uint64_t MaxValueBytes() const {
    if (!variable) return ValueBytes(0);
    uint64_t max = 0;
    for (int64_t i = 0; i < values.length; ++i) max = std::max(max, ValueBytes(i));
    return max;
  }

  // Flat bytes of items [first, first + n) (bools bit-packed from bit 0).
  std::string FlatItems(int64_t first, int64_t n) const {
    const arrow::ArrayData& it = items();
    std::string out;
    if (bits == 1) {
      out.assign(static_cast<size_t>((n + 7) / 8), '\0');
      arrow::CopyBits(it.buffers[1]->data(), it.offset + item_base() + first, n,
                      reinterpret_cast<uint8_t*>(out.data()), 0);
    } else {
      const uint64_t width = static_cast<uint64_t>(bits / 8);
      out.assign(reinterpret_cast<const char*>(it.buffers[1]->data()) +
                     (it.offset + item_base() + first) * width,
                 static_cast<size_t>(n * width));
    }
    return out;
  }

  std::string ItemValidity(int64_t first, int64_t n) const {
    const arrow::ArrayData& it = items();
    std::string out(static_cast<size_t>((n + 7) / 8), '\0');
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    if (it.buffers[0] == nullptr) {
      for (int64_t i = 0; i < n; ++i) arrow::SetBit(dst, i);
    } else {
      arrow::CopyBits(it.buffers[0]->data(), it.offset + item_base() + first, n, dst, 0);
    }
    return out;
  }

  bool HasItemValidity() const { return fsl && items().buffers[0] != nullptr; }

  // Whether InlineBitpacking applies to this column (unsigned packing of T-bit words).
  bool CanBitpack() const {
    return compress && !variable && !fsl && (bits == 8 || bits == 16 || bits == 32 || bits == 64);
  }

  // Packed size of all values with InlineBitpacking (chunks of 1024).
  uint64_t BitpackedSize() const {
    uint64_t total = 0;
    const uint8_t* base = values.buffers[1]->data() + values.offset * (bits / 8);
    for (int64_t s = 0; s < values.length; s += kBitpackChunk) {
      const int64_t n = std::min(kBitpackChunk, values.length - s);
      int w = 0;
      switch (bits) {
        case 8:
          w = codecs::BitWidthOf(reinterpret_cast<const uint8_t*>(base) + s, n);
          break;
        case 16:
          w = codecs::BitWidthOf(reinterpret_cast<const uint16_t*>(base) + s, n);
          break;
        case 32:
          w = codecs::BitWidthOf(reinterpret_cast<const uint32_t*>(base) + s, n);
          break;
        default:
          w = codecs::BitWidthOf(reinterpret_cast<const uint64_t*>(base) + s, n);
          break;
      }
      total += static_cast<uint64_t>(bits / 8) + 128ull * static_cast<uint64_t>(w);
    }
    return total;
  }

  // Runs of equal values (each split at 255), over all values.
  uint64_t RleSize() const {
    const uint8_t* base = values.buffers[1]->data() + values.offset * (bits / 8);
    const size_t n = static_cast<size_t>(values.length);
    size_t entries = 0;
    switch (bits) {
      case 8:
        entries = codecs::RleEntries<uint8_t>({base, n});
        break;
      case 16:
        entries = codecs::RleEntries<uint16_t>({reinterpret_cast<const uint16_t*>(base), n});
        break;
      case 32:
        entries = codecs::RleEntries<uint32_t>({reinterpret_cast<const uint32_t*>(base), n});
        break;
      default:
        entries = codecs::RleEntries<uint64_t>({reinterpret_cast<const uint64_t*>(base), n});
        break;
    }
    return entries * static_cast<uint64_t>(bits / 8 + 1);
  }

  void Rle(int64_t first, int64_t n, std::string* run_values, std::string* run_lengths) const {
    std::vector<uint8_t> v, l;
    const uint8_t* base = values.buffers[1]->data() + (values.offset + first) * (bits / 8);
    const size_t count = static_cast<size_t>(n);
    switch (bits) {
      case 8:
        codecs::EncodeRle<uint8_t>({base, count}, &v, &l);
        break;
      case 16:
        codecs::EncodeRle<uint16_t>({reinterpret_cast<const uint16_t*>(base), count}, &v, &l);
        break;
      case 32:
        codecs::EncodeRle<uint32_t>({reinterpret_cast<const uint32_t*>(base), count}, &v, &l);
        break;
      default:
        codecs::EncodeRle<uint64_t>({reinterpret_cast<const uint64_t*>(base), count}, &v, &l);
        break;
    }
    run_values->assign(reinterpret_cast<const char*>(v.data()), v.size());
    run_lengths->assign(reinterpret_cast<const char*>(l.data()), l.size());
  }

  Status Bitpack(int64_t first, int64_t n, std::string* out) const {
    std::vector<uint8_t> packed;
    const uint8_t* base = values.buffers[1]->data() + (values.offset + first) * (bits / 8);
    Status s;
    switch (bits) {
      case 8:
        s = codecs::EncodeInlineChunk<uint8_t>({base, static_cast<size_t>(n)}, &packed);
        break;
      case 16: {
        std::vector<uint16_t> v(static_cast<size_t>(n));
        std::memcpy(v.data(), base, v.size() * 2);
        s = codecs::EncodeInlineChunk<uint16_t>(v, &packed);
        break;
      }
      case 32: {
        std::vector<uint32_t> v(static_cast<size_t>(n));
        std::memcpy(v.data(), base, v.size() * 4);
        s = codecs::EncodeInlineChunk<uint32_t>(v, &packed);
        break;
      }
      default: {
        std::vector<uint64_t> v(static_cast<size_t>(n));
        std::memcpy(v.data(), base, v.size() * 8);
        s = codecs::EncodeInlineChunk<uint64_t>(v, &packed);
        break;
      }
    }
    QV_RETURN_IF_ERROR(s);
    out->assign(reinterpret_cast<const char*>(packed.data()), packed.size());
    return Status::OK();
  }

  // Variable mini-block buffer: n + 1 offsets from the buffer start, then the bytes, padded to a
  // multiple of the offset width (§4.2, §7 gotcha 1).
  std::string VariableChunk(int64_t first, int64_t n) const {
    std::string out;
    uint64_t at = static_cast<uint64_t>((n + 1) * offset_bytes);
    for (int64_t i = 0; i <= n; ++i) {
      if (offset_bytes == 8) {
        Put<uint64_t>(&out, at);
      } else {
        Put<uint32_t>(&out, static_cast<uint32_t>(at));
      }
      if (i < n) at += ValueBytes(first + i);
    }
    for (int64_t i = 0; i < n; ++i) out += arrow::BinaryValue(values, first + i);
    PadTo(&out, static_cast<size_t>(offset_bytes));
    return out;
  }

  uint64_t offset_bits() const { return static_cast<uint64_t>(8 * offset_bytes); }
};

// A page's values as first-appearance dictionary entries plus one u32 index per value (null
// slots point at entry 0, as Lance's do).
struct Dictionary {
  arrow::ArrayPtr items;
  arrow::ArrayPtr indices;  // uint32
  uint64_t item_bytes = 0;
};

constexpr int64_t kDictionaryMinValues = 100;     // Lance: LANCE_ENCODING_DICT_TOO_SMALL
constexpr int64_t kDictionaryMaxItems = 100'000;  // Lance: LANCE_ENCODING_DICT_MAX_CARDINALITY
constexpr double kDictionarySizeRatio = 0.8;      // Lance: LANCE_ENCODING_DICT_SIZE_RATIO

// Builds the dictionary; gives up (nullopt) once `max_items` distinct values are exceeded.
Result<std::optional<Dictionary>> BuildDictionary(const arrow::ArrayData& values,
                                                  int64_t max_items) {
  const bool variable = arrow::IsBinaryLike(values.type.id());
  std::unordered_map<std::string_view, uint32_t> seen;
  std::vector<int64_t> first_rows;
  std::vector<uint32_t> indices(static_cast<size_t>(values.length), 0);
  uint64_t item_bytes = 0;
  for (int64_t i = 0; i < values.length; ++i) {
    std::string_view v = variable ? arrow::BinaryValue(values, i) : arrow::FixedValue(values, i);
    auto [it, inserted] = seen.emplace(v, static_cast<uint32_t>(first_rows.size()));
    if (inserted) {
      if (static_cast<int64_t>(first_rows.size()) >= max_items) return std::optional<Dictionary>();
      first_rows.push_back(i);
      item_bytes += v.size();
    }
    indices[static_cast<size_t>(i)] = it->second;
  }
  Dictionary d;
  d.item_bytes = item_bytes;
  std::vector<arrow::ArrayPtr> rows;
  auto values_ptr = std::make_shared<arrow::ArrayData>(values);
  for (int64_t r : first_rows) rows.push_back(arrow::Slice(values_ptr, r, 1));
  if (rows.empty()) {
    QV_ASSIGN_OR_RETURN(d.items, arrow::MakeNullArray(values.type, 0));
  } else {
    QV_ASSIGN_OR_RETURN(d.items, arrow::Concatenate(rows));
  }
  QV_ASSIGN_OR_RETURN(d.indices, arrow::MakeFixedArray(arrow::DataType::UInt32(), indices));
  return std::optional<Dictionary>(std::move(d));
}

// The dictionary items as a block buffer: Variable's block form for strings (u32 width 32, u32
// data start, n + 1 offsets from the data start, data; §4.2), Flat for fixed-width items.
std::string DictionaryBlock(const arrow::ArrayData& items, pb::CompressiveEncoding* encoding) {
  std::string out;
  const int64_t n = items.length;
  if (arrow::IsBinaryLike(items.type.id())) {
    const bool wide = arrow::IsLargeOffsets(items.type.id());
    encoding->mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(wide ? 64
                                                                                             : 32);
    auto put = [&](uint64_t v) {
      if (wide) {
        Put<uint64_t>(&out, v);
      } else {
        Put<uint32_t>(&out, static_cast<uint32_t>(v));
      }
    };
    const uint64_t width = wide ? 8 : 4;
    put(wide ? 64 : 32);
    put(2 * width + static_cast<uint64_t>(n + 1) * width);  // data start
    uint64_t at = 0;
    for (int64_t i = 0; i <= n; ++i) {
      put(at);
      if (i < n) at += arrow::BinaryValue(items, i).size();
    }
    for (int64_t i = 0; i < n; ++i) out += arrow::BinaryValue(items, i);
    return out;
  }
  encoding->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(arrow::BitWidth(items.type)));
  for (int64_t i = 0; i < n; ++i) out += arrow::FixedValue(items, i);
  return out;
}

// 2.2's dictionary items, through Lance 12's block compressor with the "lz4" compression its
// dictionaries ask for (DEFAULT_DICT_VALUES_COMPRESSION): 64-bit items that leave high bits
// unused are bit-packed (inline up to 1,024 items, unless one packed block is no smaller than
// the items; out-of-line above); everything else is General{LZ4} around the 2.1 block (Flat or
// Variable). RLE, which Lance tries first, never wins on distinct items.
Result<std::string> DictionaryBlock22(const arrow::ArrayData& items,
                                      pb::CompressiveEncoding* encoding) {
  const int64_t n = items.length;
  if (!arrow::IsBinaryLike(items.type.id()) && arrow::BitWidth(items.type) == 64 && n > 0) {
    std::vector<uint64_t> words(static_cast<size_t>(n));
    std::memcpy(words.data(), items.buffers[1]->data() + items.offset * 8, words.size() * 8);
    const int width = codecs::BitWidthOf<uint64_t>(words.data(), words.size());
    const uint64_t raw = static_cast<uint64_t>(n) * 8;
    const bool too_small = n <= 1024 && 1024ull * static_cast<uint64_t>(width) / 8 >= raw;
    if (width < 64 && !too_small) {
      std::vector<uint8_t> bytes;
      if (n <= 1024) {
        encoding->mutable_inline_bitpacking()->set_uncompressed_bits_per_value(64);
        QV_RETURN_IF_ERROR(codecs::EncodeInlineChunk<uint64_t>(words, &bytes));
      } else {
        auto* ool = encoding->mutable_out_of_line_bitpacking();
        ool->set_uncompressed_bits_per_value(64);
        ool->mutable_values()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(width));
        QV_RETURN_IF_ERROR(codecs::EncodeOutOfLine<uint64_t>(words, width, &bytes));
      }
      return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
  }
  auto* general = encoding->mutable_general();
  general->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_LZ4);
  const std::string block = DictionaryBlock(items, general->mutable_values());
  std::vector<uint8_t> compressed;
  QV_RETURN_IF_ERROR(codecs::CompressLz4Unit(
      std::span(reinterpret_cast<const uint8_t*>(block.data()), block.size()), &compressed));
  return std::string(reinterpret_cast<const char*>(compressed.data()), compressed.size());
}

// Whether Lance would dictionary-encode these values (§6): strings and 128-bit values, at least
// 100 of them, at most half distinct and 100k entries, and a result no larger than 0.8x raw.
// Large (64-bit offset) strings too: Lance 8.0 does so in 2.1 files, with a 64-bit Variable
// dictionary block (observed, lance-findings.md; the reference has that as 2.2 only).
//
// 2.2 (Lance 12's `dense_u32` dictionary strategy, lance-file v2_2) also takes 64-bit values
// (integers, doubles, dates and timestamps), and weighs a dictionary as Lance's dictionary_encode
// does: its items plus 4 bytes per index against 0.8x raw.
Result<std::optional<Dictionary>> MaybeDictionary(const ValueWriter& vw, bool v22) {
  const bool eligible = vw.compress && !vw.fsl &&
                        (vw.variable || vw.bits == 128 || (v22 && vw.bits == 64)) &&
                        vw.values.length >= kDictionaryMinValues;
  if (!eligible) return std::optional<Dictionary>();
  const int64_t max_items = std::min<int64_t>(kDictionaryMaxItems, vw.values.length / 2);
  QV_ASSIGN_OR_RETURN(auto dict, BuildDictionary(vw.values, max_items));
  if (!dict) return dict;
  uint64_t raw = 0;
  const uint64_t offset = vw.variable ? static_cast<uint64_t>(vw.offset_bytes) : 0;
  for (int64_t i = 0; i < vw.values.length; ++i) raw += vw.ValueBytes(i) + offset;
  const uint64_t items = static_cast<uint64_t>(dict->items->length);
  const uint64_t index_bytes = v22 ? 4 : std::max<uint64_t>(1, (std::bit_width(items) + 7) / 8);
  const uint64_t encoded =
      dict->item_bytes + offset * items + static_cast<uint64_t>(vw.values.length) * index_bytes;
  if (static_cast<double>(encoded) > kDictionarySizeRatio * static_cast<double>(raw)) {
    return std::optional<Dictionary>();
  }
  return dict;
}

// FSST (§4.8): Lance compresses utf8 (never binary) pages of 32 KiB or more whose longest value
// has at least 5 bytes. Returns the compressed values (one binary value per input value) and the
// symbol table.
struct FsstPage {
  arrow::ArrayPtr compressed;
  std::string table;
};

Result<std::optional<FsstPage>> MaybeFsst(const ValueWriter& vw) {
  const arrow::TypeId id = vw.values.type.id();
  if (!vw.compress || (id != arrow::TypeId::kUtf8 && id != arrow::TypeId::kLargeUtf8)) {
    return std::optional<FsstPage>();
  }
  uint64_t total = 0, max = 0;
  std::vector<std::string_view> strings;
  strings.reserve(static_cast<size_t>(vw.values.length));
  for (int64_t i = 0; i < vw.values.length; ++i) {
    strings.push_back(arrow::BinaryValue(vw.values, i));
    total += strings.back().size();
    max = std::max<uint64_t>(max, strings.back().size());
  }
  if (total < kFsstMinPageBytes || max < kFsstMinMaxLength) return std::optional<FsstPage>();
  codecs::FsstEncoder encoder = codecs::FsstEncoder::Train(strings);
  if (!encoder.compressed()) return std::optional<FsstPage>();
  std::vector<std::string> out(strings.size());
  std::vector<uint8_t> scratch;
  uint64_t compressed_total = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    scratch.resize(codecs::FsstEncoder::MaxCompressedSize(strings[i].size()) + 8);
    const size_t n = encoder.CompressString(
        {reinterpret_cast<const uint8_t*>(strings[i].data()), strings[i].size()}, scratch.data());
    out[i].assign(reinterpret_cast<const char*>(scratch.data()), n);
    compressed_total += n;
  }
  if (compressed_total >= total) return std::optional<FsstPage>();  // no gain
  FsstPage page;
  QV_ASSIGN_OR_RETURN(page.compressed, arrow::MakeBinaryArray(arrow::DataType::Binary(), out));
  const auto table = encoder.SerializeTable();
  page.table.assign(reinterpret_cast<const char*>(table.data()), table.size());
  return std::optional<FsstPage>(std::move(page));
}

// Levels of [begin, end) encoded with the page's level compression.
Status EncodeLevels(const std::vector<uint16_t>& levels, uint64_t begin, uint64_t end,
                    const pb::CompressiveEncoding& encoding, std::string* out) {
  std::span<const uint16_t> slice(levels.data() + begin, end - begin);
  std::vector<uint8_t> bytes;
  if (encoding.has_rle()) {
    codecs::EncodeRleBlock<uint16_t>(slice, &bytes);
  } else if (encoding.has_inline_bitpacking()) {
    QV_RETURN_IF_ERROR(codecs::EncodeInlineChunk<uint16_t>(slice, &bytes));
  } else if (encoding.has_out_of_line_bitpacking()) {
    const int width =
        static_cast<int>(encoding.out_of_line_bitpacking().values().flat().bits_per_value());
    QV_RETURN_IF_ERROR(codecs::EncodeOutOfLine<uint16_t>(slice, width, &bytes));
  } else {
    out->assign(reinterpret_cast<const char*>(slice.data()), slice.size() * 2);
    return Status::OK();
  }
  out->assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::OK();
}

// 2.2's block compression of levels, as Lance 12's block compressor picks it for a page's levels
// (then applied to each chunk's levels, or to a constant page's whole buffer): RLE (u16 values,
// u8 run lengths, after its u64 header) when smaller than both the raw levels and bit-packing;
// else bit-packing when smaller than raw (inline up to 1,024 levels, where one packed block must
// also beat raw; out-of-line above); else Flat(16). General (LZ4), which Lance tries only for
// blocks over 32 KiB that neither shrinks, is not used.
pb::CompressiveEncoding LevelBlockEncoding22(const std::vector<uint16_t>& levels) {
  pb::CompressiveEncoding e;
  const uint64_t n = levels.size();
  const uint64_t raw = n * 2;
  const uint64_t rle = 8 + codecs::RleEntries<uint16_t>(levels) * 3;
  uint16_t max = 0;
  for (uint16_t v : levels) max = std::max(max, v);
  const int width = BitsFor(max);
  const uint64_t packed = n <= 1024 ? 2 + 128 * static_cast<uint64_t>(width)
                                    : codecs::OutOfLineEncodedBytes<uint16_t>(n, width);
  if (rle < raw && rle <= packed) {
    auto* r = e.mutable_rle();
    r->mutable_values()->mutable_flat()->set_bits_per_value(16);
    r->mutable_run_lengths()->mutable_flat()->set_bits_per_value(8);
  } else if (packed < raw && n <= 1024) {
    e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(16);
  } else if (packed < raw) {
    auto* ool = e.mutable_out_of_line_bitpacking();
    ool->set_uncompressed_bits_per_value(16);
    ool->mutable_values()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(width));
  } else {
    e.mutable_flat()->set_bits_per_value(16);
  }
  return e;
}

// 2.1 (§4.5): InlineBitpacking(16) for pages of up to 1024 levels, OutOfLineBitpacking(16, W)
// above; 2.2: LevelBlockEncoding22.
pb::CompressiveEncoding LevelEncoding(const std::vector<uint16_t>& levels, bool compress,
                                      bool v22) {
  pb::CompressiveEncoding e;
  if (!compress) {
    e.mutable_flat()->set_bits_per_value(16);
    return e;
  }
  if (v22) return LevelBlockEncoding22(levels);
  if (levels.size() <= 1024) {
    e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(16);
    return e;
  }
  uint16_t max = 0;
  for (uint16_t v : levels) max = std::max(max, v);
  auto* ool = e.mutable_out_of_line_bitpacking();
  ool->set_uncompressed_bits_per_value(16);
  ool->mutable_values()->mutable_flat()->set_bits_per_value(
      static_cast<uint64_t>(std::max(BitsFor(max), 1)));
  return e;
}

// A page without values (every item null, or only empty and null lists). One without layers
// beyond a nullable item has no buffers; others store [rep, def]: raw u16 in 2.1; in 2.2 each
// block-compressed with its count (an empty buffer for levels the page does not have).
Result<EncodedPage> EncodeConstant(const LeafPageData& page, const PageEncodeOptions& options) {
  EncodedPage out;
  out.rows = page.rows;
  auto* layout = out.layout.mutable_constant_layout();
  SetLayers(page.layers, layout->mutable_layers());
  const bool simple = page.layers.size() == 1 && page.layers[0] == LayerKind::kNullableItem;
  if (simple) return out;
  std::string rep, def;
  if (!options.large_chunks) {
    rep.assign(reinterpret_cast<const char*>(page.rep.data()), page.rep.size() * 2);
    def.assign(reinterpret_cast<const char*>(page.def.data()), page.def.size() * 2);
  } else {
    if (!page.rep.empty()) {
      *layout->mutable_rep_compression() = LevelBlockEncoding22(page.rep);
      QV_RETURN_IF_ERROR(
          EncodeLevels(page.rep, 0, page.rep.size(), layout->rep_compression(), &rep));
      layout->set_num_rep_values(page.rep.size());
    }
    if (!page.def.empty()) {
      *layout->mutable_def_compression() = LevelBlockEncoding22(page.def);
      QV_RETURN_IF_ERROR(
          EncodeLevels(page.def, 0, page.def.size(), layout->def_compression(), &def));
      layout->set_num_def_values(page.def.size());
    }
  }
  out.buffers = {std::move(rep), std::move(def)};
  return out;
}

// The one value every valid (definition 0) item of the page holds, as Arrow bytes (a bool as
// one byte, 0 or 1); nullopt when they differ, or for values Lance 12 never writes as a
// constant (dictionary columns, fixed-size lists).
std::optional<std::string> SingleValue(const LeafPageData& page, const ValueWriter& vw) {
  if (page.dictionary_type || vw.fsl || page.num_valid_values == 0) return std::nullopt;
  if (!vw.variable && vw.bits != 1 && vw.bits % 8 != 0) return std::nullopt;
  const uint8_t* data = vw.values.buffers[1]->data();
  const size_t width = static_cast<size_t>(vw.bits / 8);
  // Compared in place (no copy per value): strings by their bytes, fixed widths by memcmp,
  // bools by bit.
  auto same = [&](int64_t a, int64_t b) {
    if (vw.variable) return arrow::BinaryValue(vw.values, a) == arrow::BinaryValue(vw.values, b);
    if (vw.bits == 1) {
      return arrow::GetBit(data, vw.values.offset + a) == arrow::GetBit(data, vw.values.offset + b);
    }
    return std::memcmp(data + (vw.values.offset + a) * width, data + (vw.values.offset + b) * width,
                       width) == 0;
  };
  int64_t first = -1;
  auto valid_value = [&](int64_t i) {  // false once a value differs from the first
    if (first < 0) first = i;
    return first == i || same(first, i);
  };
  if (page.def.empty()) {
    for (int64_t i = 0; i < vw.values.length; ++i) {
      if (!valid_value(i)) return std::nullopt;
    }
  } else {
    // Values are the visible levels'; only definition 0 holds one (others are null slots).
    const uint16_t max_visible = MaxVisibleDef(page.layers);
    int64_t v = -1;
    for (uint64_t level = 0; level < page.num_levels; ++level) {
      if (page.def[level] > max_visible) continue;
      ++v;
      if (page.def[level] == 0 && !valid_value(v)) return std::nullopt;
    }
  }
  if (first < 0) return std::nullopt;
  if (vw.variable) return std::string(arrow::BinaryValue(vw.values, first));
  return vw.FlatItems(first, 1);
}

// 2.2: a page whose valid items all hold one value, as Lance 12 writes it: a ConstantLayout
// with the value inline (fixed width, up to 32 bytes) or as a scalar value buffer (`u32 number
// of Arrow buffers, u32 length of each, the buffers` of a one-value array: i32 or i64 offsets
// [0, len] and the bytes for strings and binaries). A page with repetition or definition levels
// also stores them, raw u16 (Lance does not compress these; an empty buffer for the kind it
// lacks): [scalar,] rep, def.
std::optional<EncodedPage> EncodeConstantValue(const LeafPageData& page, const ValueWriter& vw) {
  std::optional<std::string> value = SingleValue(page, vw);
  if (!value) return std::nullopt;
  EncodedPage out;
  out.rows = page.rows;
  auto* layout = out.layout.mutable_constant_layout();
  SetLayers(page.layers, layout->mutable_layers());
  if (!vw.variable && value->size() <= kMaxInlineConstantBytes) {
    layout->set_inline_value(*value);
  } else {
    std::string scalar;
    if (vw.variable) {
      const uint32_t width = static_cast<uint32_t>(vw.offset_bytes);
      Put<uint32_t>(&scalar, 2);
      Put<uint32_t>(&scalar, 2 * width);
      Put<uint32_t>(&scalar, static_cast<uint32_t>(value->size()));
      if (width == 8) {
        Put<uint64_t>(&scalar, 0), Put<uint64_t>(&scalar, value->size());
      } else {
        Put<uint32_t>(&scalar, 0), Put<uint32_t>(&scalar, static_cast<uint32_t>(value->size()));
      }
    } else {
      Put<uint32_t>(&scalar, 1);
      Put<uint32_t>(&scalar, static_cast<uint32_t>(value->size()));
    }
    scalar += *value;
    out.buffers.push_back(std::move(scalar));
  }
  if (!page.rep.empty() || !page.def.empty()) {
    out.buffers.emplace_back(reinterpret_cast<const char*>(page.rep.data()), page.rep.size() * 2);
    out.buffers.emplace_back(reinterpret_cast<const char*>(page.def.data()), page.def.size() * 2);
  }
  return out;
}

// `narrow_index` (2.2): repetition index entries as wide as the largest offset needs (1, 2, 4
// or 8 bytes), as Lance 12 writes them; 2.1's are 4 or 8 bytes.
Result<EncodedPage> EncodeFullZip(const LeafPageData& page, const ValueWriter& vw,
                                  bool narrow_index) {
  EncodedPage out;
  out.rows = page.rows;
  auto* layout = out.layout.mutable_full_zip_layout();
  SetLayers(page.layers, layout->mutable_layers());
  uint16_t max_rep = 0, max_def = 0;
  for (uint16_t r : page.rep) max_rep = std::max(max_rep, r);
  for (uint16_t d : page.def) max_def = std::max(max_def, d);
  const int bits_rep = page.rep.empty() ? 0 : std::max(BitsFor(max_rep), 1);
  const int bits_def = page.def.empty() ? 0 : std::max(BitsFor(max_def), 1);
  const int ctrl_bits = bits_rep + bits_def;
  const int ctrl_bytes = ctrl_bits == 0 ? 0 : ctrl_bits <= 8 ? 1 : ctrl_bits <= 16 ? 2 : 4;
  layout->set_bits_rep(static_cast<uint32_t>(bits_rep));
  layout->set_bits_def(static_cast<uint32_t>(bits_def));
  const uint16_t max_visible = MaxVisibleDef(page.layers);
  const int max_rep_level = MaxRep(page.layers);
  const bool fsl_validity = vw.HasItemValidity();
  uint64_t value_bytes = 0;
  // Variable values: per-value ZSTD for very long ones, FSST with a page table for strings,
  // else raw (§3.3, §6).
  std::optional<FsstPage> fsst;
  bool zstd = false;
  if (vw.variable) {
    layout->set_bits_per_offset(static_cast<uint32_t>(vw.offset_bits()));
    pb::CompressiveEncoding variable;
    variable.mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(
        vw.offset_bits());
    // Packed struct rows: their own per-value encoding, never compressed (Lance 12's).
    zstd = !page.packed && vw.compress && vw.MaxValueBytes() > kZstdMinValueBytes;
    if (!zstd && !page.packed) {
      QV_ASSIGN_OR_RETURN(fsst, MaybeFsst(vw));
    }
    if (page.packed) {
      *layout->mutable_value_compression() = page.packed->encoding();
    } else if (zstd) {
      auto* general = layout->mutable_value_compression()->mutable_general();
      general->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
      general->mutable_compression()->set_level(0);
      *general->mutable_values() = variable;
    } else if (fsst) {
      auto* f = layout->mutable_value_compression()->mutable_fsst();
      f->set_symbol_table(fsst->table);
      *f->mutable_values() = variable;
    } else {
      *layout->mutable_value_compression() = variable;
    }
  } else {
    value_bytes = static_cast<uint64_t>((vw.list_size * vw.bits + 7) / 8) +
                  (fsl_validity ? static_cast<uint64_t>((vw.list_size + 7) / 8) : 0);
    layout->set_bits_per_value(static_cast<uint32_t>(value_bytes * 8));
    if (vw.fsl) {
      auto* fsl = layout->mutable_value_compression()->mutable_fixed_size_list();
      fsl->set_items_per_value(static_cast<uint64_t>(vw.list_size));
      fsl->set_has_validity(fsl_validity);
      fsl->mutable_values()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(vw.bits));
    } else {
      layout->mutable_value_compression()->mutable_flat()->set_bits_per_value(
          static_cast<uint64_t>(vw.bits));
    }
  }
  std::string data;
  std::vector<uint8_t> zstd_scratch;
  std::vector<uint64_t> row_starts;
  int64_t v = 0;
  const uint64_t n = page.num_levels;
  for (uint64_t i = 0; i < n; ++i) {
    const uint16_t rep = page.rep.empty() ? 0 : page.rep[i];
    const uint16_t def = page.def.empty() ? 0 : page.def[i];
    if (page.rep.empty() || rep == max_rep_level) row_starts.push_back(data.size());
    if (ctrl_bytes > 0) {
      const uint32_t ctrl = (static_cast<uint32_t>(rep) << bits_def) | def;
      if (ctrl_bytes == 1) {
        data.push_back(static_cast<char>(ctrl));
      } else if (ctrl_bytes == 2) {
        Put<uint16_t>(&data, static_cast<uint16_t>(ctrl));
      } else {
        Put<uint32_t>(&data, ctrl);
      }
    }
    if (def > max_visible) continue;
    if (vw.variable) {
      if (def == 0) {
        std::string_view value = arrow::BinaryValue(fsst ? *fsst->compressed : vw.values, v);
        if (zstd) {
          zstd_scratch.clear();  // the codec appends
          QV_RETURN_IF_ERROR(codecs::CompressZstdUnit(
              {reinterpret_cast<const uint8_t*>(value.data()), value.size()}, kPerValueZstdLevel,
              &zstd_scratch));
          value = std::string_view(reinterpret_cast<const char*>(zstd_scratch.data()),
                                   zstd_scratch.size());
        }
        if (vw.offset_bytes == 8) {
          Put<uint64_t>(&data, value.size());
        } else {
          Put<uint32_t>(&data, static_cast<uint32_t>(value.size()));
        }
        data += value;
      }
    } else {
      if (fsl_validity) data += vw.ItemValidity(v * vw.list_size, vw.list_size);
      data += vw.FlatItems(v * vw.list_size, vw.list_size);
    }
    ++v;
  }
  if (v != vw.values.length) {
    return Status::Internal(
        fmt::format("full-zip page wrote {} of {} values", v, vw.values.length));
  }
  layout->set_num_items(static_cast<uint32_t>(ctrl_bytes > 0 ? n : static_cast<uint64_t>(v)));
  layout->set_num_visible_items(static_cast<uint32_t>(v));
  out.buffers.push_back(std::move(data));
  if (!page.rep.empty() || vw.variable) {
    row_starts.push_back(out.buffers[0].size());
    std::string index;
    const uint64_t size = out.buffers[0].size();
    const int width = size > UINT32_MAX                    ? 8
                      : !narrow_index || size > UINT16_MAX ? 4
                      : size > UINT8_MAX                   ? 2
                                                           : 1;
    index.reserve(row_starts.size() * static_cast<size_t>(width));
    for (uint64_t s : row_starts) {
      switch (width) {
        case 1:
          AppendLE<uint8_t>(&index, static_cast<uint8_t>(s));
          break;
        case 2:
          AppendLE<uint16_t>(&index, static_cast<uint16_t>(s));
          break;
        case 4:
          AppendLE<uint32_t>(&index, static_cast<uint32_t>(s));
          break;
        default:
          AppendLE<uint64_t>(&index, s);
          break;
      }
    }
    out.buffers.push_back(std::move(index));
  }
  return out;
}

// Values per chunk starting at value `first`: a power of two (the last chunk may be shorter).
int64_t ChunkValues(const ValueWriter& vw, bool bitpack, bool rle, bool packed, int64_t first) {
  const int64_t left = vw.values.length - first;
  if (bitpack) return std::min(kBitpackChunk, left);
  if (rle) return std::min(kRleChunk, left);
  int64_t n;
  if (packed) {
    // Lance 12's rule for packed rows (its ValueEncoder's): from two values, double while twice
    // the bytes stay under kPackedChunkBytes and twice the values within kMaxChunkValues.
    const uint64_t w = static_cast<uint64_t>(vw.bits / 8);
    n = 2;
    while (2 * static_cast<uint64_t>(n) * w < kPackedChunkBytes && 2 * n <= kMaxChunkValues) n *= 2;
    return std::min(n, left);
  }
  if (vw.variable) {
    // As many values as fit the target, as a power of two.
    uint64_t bytes = 0;
    n = 0;
    while (n < left && n < kMaxChunkValues) {
      bytes += vw.ValueBytes(first + n) + static_cast<uint64_t>(vw.offset_bytes);
      if (n > 0 && bytes > kChunkTargetBytes) break;
      ++n;
    }
    n = std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(n, 1)));
  } else {
    const uint64_t per = std::max<uint64_t>(1, static_cast<uint64_t>(vw.list_size * vw.bits));
    uint64_t fit = kChunkTargetBytes * 8 / per;
    n = static_cast<int64_t>(
        std::bit_floor(std::max<uint64_t>(1, std::min<uint64_t>(fit, kMaxChunkValues))));
  }
  return std::min(n, left);
}

// How a mini-block page stores its values: the value encoding chosen for them (§6) and the
// level encodings. Dictionary pages hold u32 indices in the chunks and the items in buffer 2
// (§3.2); Arrow dictionary columns are always stored this way (Lance rebuilds a DictionaryArray
// from it). FSST pages hold the compressed strings.
struct MiniBlockPlan {
  std::optional<Dictionary> dict;
  std::optional<FsstPage> fsst;
  bool bitpack = false;  // inline bit-packing
  bool rle = false;      // run-length encoding
  uint64_t num_buffers = 1;
  bool has_rep = false, has_def = false;
  bool large_chunks = false;  // 2.2's chunk grammar (PageEncodeOptions::large_chunks)
  bool packed = false;        // packed struct rows (Flat under PackedStruct, Lance's chunk rule)
  pb::CompressiveEncoding rep_enc, def_enc;
};

Status PlanValues(const LeafPageData& page, const ValueWriter& page_values, MiniBlockPlan* plan) {
  if (page.dictionary_type) {
    QV_ASSIGN_OR_RETURN(plan->dict, BuildDictionary(page_values.values, INT64_MAX));
  } else {
    QV_ASSIGN_OR_RETURN(plan->dict, MaybeDictionary(page_values, plan->large_chunks));
  }
  if (!plan->dict && page_values.variable) {
    QV_ASSIGN_OR_RETURN(plan->fsst, MaybeFsst(page_values));
  }
  return Status::OK();
}

// Fixed-width integers: the smallest of raw, bit-packed and run-length encoded (§6).
void PlanIntegers(const ValueWriter& vw, MiniBlockPlan* plan) {
  if (!vw.CanBitpack()) return;
  const uint64_t raw = static_cast<uint64_t>(vw.values.length) * vw.bits / 8;
  const uint64_t packed = vw.BitpackedSize();
  const uint64_t runs = vw.RleSize();
  plan->rle = runs < raw && runs < packed;
  plan->bitpack = !plan->rle && packed < raw;
}

// The layout's value_compression for the plan; sets plan->num_buffers (the value buffers per
// chunk).
void DescribeValues(const ValueWriter& vw, MiniBlockPlan* plan, pb::CompressiveEncoding* vc) {
  plan->num_buffers = 1;
  if (plan->packed) {
    // Set by EncodeMiniBlock from the page's PackedStructLayout.
  } else if (plan->fsst) {
    auto* f = vc->mutable_fsst();
    f->set_symbol_table(plan->fsst->table);
    f->mutable_values()->mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(
        vw.offset_bits());
  } else if (plan->rle) {
    auto* r = vc->mutable_rle();
    r->mutable_values()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(vw.bits));
    r->mutable_run_lengths()->mutable_flat()->set_bits_per_value(8);
    plan->num_buffers = 2;
  } else if (plan->bitpack) {
    vc->mutable_inline_bitpacking()->set_uncompressed_bits_per_value(
        static_cast<uint64_t>(vw.bits));
  } else if (vw.variable) {
    vc->mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(vw.offset_bits());
  } else if (vw.fsl) {
    auto* fsl = vc->mutable_fixed_size_list();
    fsl->set_items_per_value(static_cast<uint64_t>(vw.list_size));
    fsl->set_has_validity(vw.HasItemValidity());
    fsl->mutable_values()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(vw.bits));
    if (vw.HasItemValidity()) plan->num_buffers = 2;
  } else {
    vc->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(vw.bits));
  }
}

// The value buffers of values [first, first + n) in the plan's encoding.
Result<std::vector<std::string>> ChunkValueBuffers(const ValueWriter& vw, const MiniBlockPlan& plan,
                                                   int64_t first, int64_t n) {
  std::vector<std::string> buffers;
  if (plan.bitpack) {
    std::string packed;
    QV_RETURN_IF_ERROR(vw.Bitpack(first, n, &packed));
    buffers.push_back(std::move(packed));
  } else if (plan.rle) {
    std::string run_values, run_lengths;
    vw.Rle(first, n, &run_values, &run_lengths);
    buffers.push_back(std::move(run_values));
    buffers.push_back(std::move(run_lengths));
  } else if (vw.variable) {
    buffers.push_back(vw.VariableChunk(first, n));
  } else {
    if (plan.num_buffers == 2)
      buffers.push_back(vw.ItemValidity(first * vw.list_size, n * vw.list_size));
    buffers.push_back(vw.FlatItems(first * vw.list_size, n * vw.list_size));
  }
  return buffers;
}

// One chunk (§3.2): values [first, first + n) with levels [level_begin, level_end) (the last
// chunk takes the rest); false when it breaks a limit of §3.2 (u16 level count and buffer
// sizes, 32 KiB; 2.2: u32 value-buffer sizes, kMaxLargeChunkBytes): many invisible levels (empty or
// null lists) between values make even a small chunk big.
Result<bool> BuildChunk(const LeafPageData& page, const ValueWriter& vw, const MiniBlockPlan& plan,
                        int64_t first, int64_t n, uint64_t level_begin, uint64_t level_end,
                        bool large, std::string* chunk) {
  chunk->clear();
  if (level_end - level_begin > kMaxChunkLevels) return false;
  Put<uint16_t>(chunk, static_cast<uint16_t>(level_end - level_begin));
  std::string rep_bytes, def_bytes;
  if (plan.has_rep)
    QV_RETURN_IF_ERROR(EncodeLevels(page.rep, level_begin, level_end, plan.rep_enc, &rep_bytes));
  if (plan.has_def)
    QV_RETURN_IF_ERROR(EncodeLevels(page.def, level_begin, level_end, plan.def_enc, &def_bytes));
  QV_ASSIGN_OR_RETURN(std::vector<std::string> value_buffers,
                      ChunkValueBuffers(vw, plan, first, n));
  if (rep_bytes.size() > kMaxChunkBuffer || def_bytes.size() > kMaxChunkBuffer) return false;
  if (plan.has_rep) Put<uint16_t>(chunk, static_cast<uint16_t>(rep_bytes.size()));
  if (plan.has_def) Put<uint16_t>(chunk, static_cast<uint16_t>(def_bytes.size()));
  for (const auto& b : value_buffers) {
    if (large) {  // 2.2: u32 value-buffer sizes (a larger buffer fails the chunk bound below)
      Put<uint32_t>(chunk, static_cast<uint32_t>(b.size()));
      continue;
    }
    if (b.size() > kMaxChunkBuffer) return false;
    Put<uint16_t>(chunk, static_cast<uint16_t>(b.size()));
  }
  PadTo(chunk, 8);
  if (plan.has_rep) *chunk += rep_bytes, PadTo(chunk, 8);
  if (plan.has_def) *chunk += def_bytes, PadTo(chunk, 8);
  for (const auto& b : value_buffers) *chunk += b, PadTo(chunk, 8);
  return chunk->size() <= (large ? kMaxLargeChunkBytes : kMaxChunkBytes);
}

// The repetition index entry of a chunk holding levels [level_begin, level_end) (§3.2): the rows
// completing in it, and the levels of a row that continues into the next chunk. `row_starts`
// holds the level index of every row start.
void AppendRepIndexEntry(const std::vector<uint64_t>& row_starts, uint64_t num_levels,
                         uint64_t level_begin, uint64_t level_end, std::string* rep_index) {
  auto lo = std::upper_bound(row_starts.begin(), row_starts.end(), level_begin);
  auto hi = std::upper_bound(row_starts.begin(), row_starts.end(), level_end);
  // Rows whose end (the next row's start, or the page end) falls in (begin, end].
  const uint64_t completed = static_cast<uint64_t>(hi - lo) + (level_end == num_levels ? 1 : 0);
  uint64_t trailing = 0;
  const bool ends_at_row = level_end == num_levels ||
                           std::binary_search(row_starts.begin(), row_starts.end(), level_end);
  if (!ends_at_row) {
    const uint64_t row_start = *std::prev(hi);
    trailing = level_end - std::max(row_start, level_begin);
  }
  Put<uint64_t>(rep_index, completed);
  Put<uint64_t>(rep_index, trailing);
}

// The level index of each row start (pages with repetition levels).
std::vector<uint64_t> RowStartLevels(const LeafPageData& page) {
  std::vector<uint64_t> row_starts;
  const int max_rep = MaxRep(page.layers);
  for (uint64_t i = 0; i < page.num_levels; ++i) {
    if (page.rep[i] == max_rep) row_starts.push_back(i);
  }
  return row_starts;
}

// The page's chunks: chunk metadata words, chunk bytes and the repetition index. false when some
// value cannot get a chunk of its own.
struct MiniBlockChunks {
  std::string meta, data, rep_index;
};

Result<bool> WriteChunks(const LeafPageData& page, const ValueWriter& vw, const MiniBlockPlan& plan,
                         MiniBlockChunks* out) {
  const std::vector<uint64_t> visible = VisibleLevels(page);
  const std::vector<uint64_t> row_starts =
      plan.has_rep ? RowStartLevels(page) : std::vector<uint64_t>();
  uint64_t level_begin = 0;
  std::string chunk;
  for (int64_t first = 0; first < vw.values.length;) {
    int64_t n = ChunkValues(vw, plan.bitpack, plan.rle, plan.packed, first);
    bool last = false;
    uint64_t level_end = 0;
    // Halve the chunk until it fits (every chunk but the last holds a power of two values). A
    // single value that still does not fit leaves the page to be cut by rows (EncodePages21).
    // Nor may a chunk other than the last hold one value: its log_num_values would be 0, which
    // marks the last chunk (Lance 12 refuses such a page as corrupt, Lance 8 misreads it), so a
    // lone value gets a partner or the page is cut.
    bool pair_tried = false;
    while (true) {
      last = first + n == vw.values.length;
      level_end = (plan.has_rep || plan.has_def)
                      ? (last ? page.num_levels : visible[static_cast<size_t>(first + n - 1)] + 1)
                      : 0;
      QV_ASSIGN_OR_RETURN(bool fits, BuildChunk(page, vw, plan, first, n, level_begin, level_end,
                                                plan.large_chunks, &chunk));
      if (fits && (n > 1 || last)) break;
      if (fits && !pair_tried) {  // a lone value that is not the last: try two
        n = 2;
        pair_tried = true;
        continue;
      }
      if (n == 1 || pair_tried) return false;
      n = std::has_single_bit(static_cast<uint64_t>(n))
              ? n / 2
              : static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(n)));
    }
    const uint16_t log_n =
        last ? 0 : static_cast<uint16_t>(std::countr_zero(static_cast<uint64_t>(n)));
    const uint64_t word = ((chunk.size() / 8 - 1) << 4) | log_n;
    if (plan.large_chunks) {
      Put<uint32_t>(&out->meta, static_cast<uint32_t>(word));
    } else {
      Put<uint16_t>(&out->meta, static_cast<uint16_t>(word));
    }
    out->data += chunk;
    if (plan.has_rep) {
      AppendRepIndexEntry(row_starts, page.num_levels, level_begin, level_end, &out->rep_index);
    }
    level_begin = level_end;
    first += n;
  }
  return true;
}

// nullopt when some value cannot get a chunk of its own (the invisible levels before it, or
// after the last one, are more than a chunk holds).
Result<std::optional<EncodedPage>> EncodeMiniBlock(const LeafPageData& page,
                                                   const ValueWriter& page_values,
                                                   const PageEncodeOptions& options) {
  MiniBlockPlan plan;
  plan.large_chunks = options.large_chunks;
  plan.packed = page.packed != nullptr;
  if (!plan.packed) QV_RETURN_IF_ERROR(PlanValues(page, page_values, &plan));
  ValueWriter index_writer(plan.dict   ? *plan.dict->indices
                           : plan.fsst ? *plan.fsst->compressed
                                       : page_values.values,
                           options.compress, plan.fsst ? page_values.offset_bytes : 0);
  const ValueWriter& vw = plan.dict || plan.fsst ? index_writer : page_values;
  if (!plan.packed) PlanIntegers(vw, &plan);

  EncodedPage out;
  out.rows = page.rows;
  auto* layout = out.layout.mutable_mini_block_layout();
  SetLayers(page.layers, layout->mutable_layers());
  if (options.large_chunks) layout->set_has_large_chunk(true);
  plan.has_rep = !page.rep.empty();
  plan.has_def = !page.def.empty();
  if (plan.has_rep)
    *layout->mutable_rep_compression() = plan.rep_enc =
        LevelEncoding(page.rep, options.compress, options.large_chunks);
  if (plan.has_def)
    *layout->mutable_def_compression() = plan.def_enc =
        LevelEncoding(page.def, options.compress, options.large_chunks);
  DescribeValues(vw, &plan, layout->mutable_value_compression());
  if (plan.packed) *layout->mutable_value_compression() = page.packed->encoding();
  layout->set_num_buffers(plan.num_buffers);
  layout->set_num_items(static_cast<uint64_t>(vw.values.length));
  std::string dictionary_block;
  if (plan.dict) {
    if (options.large_chunks) {
      QV_ASSIGN_OR_RETURN(dictionary_block,
                          DictionaryBlock22(*plan.dict->items, layout->mutable_dictionary()));
    } else {
      dictionary_block = DictionaryBlock(*plan.dict->items, layout->mutable_dictionary());
    }
    layout->set_num_dictionary_items(static_cast<uint64_t>(plan.dict->items->length));
  }

  MiniBlockChunks chunks;
  QV_ASSIGN_OR_RETURN(bool fitted, WriteChunks(page, vw, plan, &chunks));
  if (!fitted) return std::optional<EncodedPage>();
  out.buffers.push_back(std::move(chunks.meta));
  out.buffers.push_back(std::move(chunks.data));
  if (plan.dict) out.buffers.push_back(std::move(dictionary_block));
  if (plan.has_rep) {
    layout->set_repetition_index_depth(1);
    out.buffers.push_back(std::move(chunks.rep_index));
  }
  return std::optional<EncodedPage>(std::move(out));
}

// Lance 8.0's full-zip reader counts the definition levels of every non-list layer as visible
// (carrying a value), while its writer, like ours, counts only the layers inside the innermost
// list (§3.1). With a nullable struct outside a list the two disagree, and LanceDB misreads the
// page (lance-findings.md). True for such layers.
bool LanceMisreadsFullZip(const std::vector<LayerKind>& layers) {
  bool outside_list = false;
  for (LayerKind k : layers) {  // innermost first
    if (IsListLayer(k)) {
      outside_list = true;
    } else if (outside_list && k == LayerKind::kNullableItem) {
      return true;
    }
  }
  return false;
}

// The definition numbers each layer claims (§3.1), innermost first; 0 = none.
struct LayerClaims {
  uint16_t null = 0, empty = 0;
};

std::vector<LayerClaims> ClaimsOf(const std::vector<LayerKind>& layers) {
  std::vector<LayerClaims> claims(layers.size());
  uint16_t num = 0;
  for (size_t k = 0; k < layers.size(); ++k) {
    switch (layers[k]) {
      case LayerKind::kNullableItem:
      case LayerKind::kNullableList:
        claims[k].null = ++num;
        break;
      case LayerKind::kEmptyableList:
        claims[k].empty = ++num;
        break;
      case LayerKind::kNullAndEmptyList:
        claims[k].null = ++num;
        claims[k].empty = ++num;
        break;
      default:
        break;
    }
  }
  return claims;
}

// Narrows the layers of a page cut from a bigger one to the kinds its levels use, renumbering
// the definition levels to match: what Lance writes (a layer is nullable only where it has nulls),
// and what keeps a cut page free of the layer shape LanceMisreadsFullZip describes when its rows
// have no such nulls.
void NarrowLayers(LeafPageData* page) {
  if (page->def.empty()) return;
  const std::vector<LayerClaims> claims = ClaimsOf(page->layers);
  uint16_t max = 0;
  for (const LayerClaims& c : claims) max = std::max({max, c.null, c.empty});
  std::vector<bool> used(static_cast<size_t>(max) + 1, false);
  for (uint16_t d : page->def) used[std::min(d, max)] = true;
  std::vector<uint16_t> remap(static_cast<size_t>(max) + 1, 0);
  uint16_t next = 0;
  for (size_t k = 0; k < claims.size(); ++k) {
    const bool has_null = claims[k].null != 0 && used[claims[k].null];
    const bool has_empty = claims[k].empty != 0 && used[claims[k].empty];
    if (has_null) remap[claims[k].null] = ++next;
    if (has_empty) remap[claims[k].empty] = ++next;
    if (!IsListLayer(page->layers[k])) {
      page->layers[k] = has_null ? LayerKind::kNullableItem : LayerKind::kAllValidItem;
    } else if (has_null && has_empty) {
      page->layers[k] = LayerKind::kNullAndEmptyList;
    } else if (has_null) {
      page->layers[k] = LayerKind::kNullableList;
    } else if (has_empty) {
      page->layers[k] = LayerKind::kEmptyableList;
    } else {
      page->layers[k] = LayerKind::kAllValidList;
    }
  }
  if (next == 0) {
    page->def.clear();
    return;
  }
  for (uint16_t& d : page->def) d = remap[std::min(d, max)];
}

// The level index each row of `page` starts at.
std::vector<uint64_t> RowStarts(const LeafPageData& page) {
  std::vector<uint64_t> starts;
  if (page.rep.empty()) {
    starts.resize(page.num_levels);
    for (uint64_t i = 0; i < page.num_levels; ++i) starts[i] = i;
    return starts;
  }
  const int max_rep = MaxRep(page.layers);
  for (uint64_t i = 0; i < page.num_levels; ++i) {
    if (page.rep[i] == max_rep) starts.push_back(i);
  }
  return starts;
}

// Rows [r0, r1) of `page` as a page of their own (values are a zero-copy slice); `first_value`
// is the value index of row r0's first level.
LeafPageData SliceRows(const LeafPageData& page, const std::vector<uint64_t>& row_starts,
                       uint64_t r0, uint64_t r1, int64_t first_value) {
  LeafPageData out;
  out.rows = r1 - r0;
  out.layers = page.layers;
  out.dictionary_type = page.dictionary_type;
  out.packed = page.packed;
  const uint64_t l0 = row_starts[r0];
  const uint64_t l1 = r1 < row_starts.size() ? row_starts[r1] : page.num_levels;
  out.num_levels = l1 - l0;
  if (!page.rep.empty()) out.rep.assign(page.rep.begin() + l0, page.rep.begin() + l1);
  if (!page.def.empty()) out.def.assign(page.def.begin() + l0, page.def.begin() + l1);
  const uint16_t max_visible = MaxVisibleDef(page.layers);
  int64_t n = 0;
  uint64_t valid = 0;
  if (page.def.empty()) {
    n = static_cast<int64_t>(l1 - l0);
    valid = l1 - l0;
  } else {
    for (uint64_t i = l0; i < l1; ++i) {
      n += page.def[i] <= max_visible ? 1 : 0;
      valid += page.def[i] == 0 ? 1 : 0;
    }
  }
  out.values = arrow::Slice(page.values, first_value, n);
  out.num_valid_values = valid;
  NarrowLayers(&out);
  return out;
}

// The value index at the first level of each row in `rows` (ascending).
std::vector<int64_t> FirstValues(const LeafPageData& page, const std::vector<uint64_t>& row_starts,
                                 const std::vector<uint64_t>& rows) {
  std::vector<int64_t> out;
  const uint16_t max_visible = MaxVisibleDef(page.layers);
  uint64_t level = 0;
  int64_t values = 0;
  for (uint64_t r : rows) {
    const uint64_t to = r < row_starts.size() ? row_starts[r] : page.num_levels;
    if (page.def.empty()) {
      values = static_cast<int64_t>(to);
    } else {
      for (; level < to; ++level) values += page.def[level] <= max_visible ? 1 : 0;
    }
    level = to;
    out.push_back(values);
  }
  return out;
}

// For each row, whether it uses a definition number of a nullable layer outside a list (the
// levels LanceMisreadsFullZip is about).
std::vector<bool> RowsWithOuterNulls(const LeafPageData& page,
                                     const std::vector<uint64_t>& row_starts) {
  const std::vector<LayerClaims> claims = ClaimsOf(page.layers);
  std::vector<bool> outer;
  bool outside_list = false;
  for (size_t k = 0; k < page.layers.size(); ++k) {
    if (IsListLayer(page.layers[k])) {
      outside_list = true;
    } else if (outside_list && claims[k].null != 0) {
      if (outer.size() <= claims[k].null) outer.resize(claims[k].null + 1u, false);
      outer[claims[k].null] = true;
    }
  }
  std::vector<bool> rows(row_starts.size(), false);
  if (page.def.empty()) return rows;
  for (size_t r = 0; r < row_starts.size(); ++r) {
    const uint64_t end = r + 1 < row_starts.size() ? row_starts[r + 1] : page.num_levels;
    for (uint64_t i = row_starts[r]; i < end && !rows[r]; ++i) {
      rows[r] = page.def[i] < outer.size() && outer[page.def[i]];
    }
  }
  return rows;
}

Status EncodeInto(const LeafPageData& page, const PageEncodeOptions& options,
                  std::vector<EncodedPage>* out) {
  if (page.num_valid_values == 0) {
    QV_ASSIGN_OR_RETURN(EncodedPage encoded, EncodeConstant(page, options));
    out->push_back(std::move(encoded));
    return Status::OK();
  }
  ValueWriter vw(*page.values, options.compress);
  if (page.packed && !page.packed->fixed_only()) {
    // Rows of varying width: full-zip VariablePackedStruct, whatever their size (Lance 12's).
    QV_ASSIGN_OR_RETURN(EncodedPage encoded, EncodeFullZip(page, vw, options.large_chunks));
    out->push_back(std::move(encoded));
    return Status::OK();
  }
  if (options.large_chunks && options.compress && !page.packed) {
    if (std::optional<EncodedPage> constant = EncodeConstantValue(page, vw)) {
      out->push_back(std::move(*constant));
      return Status::OK();
    }
  }
  // Fixed-width packed rows are narrower than the full-zip threshold (pack_struct.h).
  const bool wide =
      !page.dictionary_type && !page.packed && vw.MaxValueBytes() >= kFullZipMinValueBytes;
  const bool misread = wide && LanceMisreadsFullZip(page.layers);
  if (wide && !misread) {
    QV_ASSIGN_OR_RETURN(EncodedPage encoded, EncodeFullZip(page, vw, options.large_chunks));
    out->push_back(std::move(encoded));
    return Status::OK();
  }
  // Mini-block; also for wide values Lance would misread in full-zip (a value per chunk when
  // need be).
  QV_ASSIGN_OR_RETURN(std::optional<EncodedPage> mini, EncodeMiniBlock(page, vw, options));
  if (mini) {
    out->push_back(std::move(*mini));
    return Status::OK();
  }
  // Some value cannot have a chunk: cut the page by rows. Wide values of the misread shape go
  // apart from the rows with outer nulls (those pages then narrow to layers Lance reads, or hold
  // no values); otherwise in halves, which isolates long runs of invisible levels.
  if (page.rows > 1) {
    const std::vector<uint64_t> starts = RowStarts(page);
    std::vector<uint64_t> cuts = {0};
    if (misread) {
      const std::vector<bool> outer = RowsWithOuterNulls(page, starts);
      for (uint64_t r = 1; r < page.rows; ++r) {
        if (outer[r] != outer[r - 1]) cuts.push_back(r);
      }
    }
    if (cuts.size() == 1) cuts.push_back(page.rows / 2);
    cuts.push_back(page.rows);
    const std::vector<int64_t> first_values = FirstValues(page, starts, cuts);
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      QV_RETURN_IF_ERROR(
          EncodeInto(SliceRows(page, starts, cuts[k], cuts[k + 1], first_values[k]), options, out));
    }
    return Status::OK();
  }
  // A single row with more invisible levels between two values than a chunk holds (nested
  // lists), or with a value wider than a chunk: full-zip has no per-chunk limits. Not in the
  // misread shape, though: this row itself has a null at a nullable layer outside a list next to
  // its values, and a file LanceDB reads wrong (or panics on) is worse than none.
  if (misread) {
    return Status::Unsupported(fmt::format(
        "a row of {} levels that no mini-block chunk can hold (values of up to {} bytes, or a "
        "long run of empty or null lists) and that has a null struct outside a list: Lance 8.0 "
        "misreads such a row written full-zip, so it is not written",
        page.num_levels, vw.MaxValueBytes()));
  }
  if (page.dictionary_type || page.packed || (!vw.variable && !vw.fsl && vw.bits == 1)) {
    return Status::Unsupported(fmt::format(
        "a row of {} levels with runs of empty or null lists longer than a mini-block chunk "
        "holds, in a {} column",
        page.num_levels,
        page.dictionary_type ? "dictionary"
        : page.packed        ? "packed struct"
                             : "boolean"));
  }
  QV_ASSIGN_OR_RETURN(EncodedPage encoded, EncodeFullZip(page, vw, options.large_chunks));
  out->push_back(std::move(encoded));
  return Status::OK();
}

}  // namespace

Result<std::vector<EncodedPage>> EncodePages21(const LeafPageData& page,
                                               const PageEncodeOptions& options) {
  std::vector<EncodedPage> out;
  QV_RETURN_IF_ERROR(EncodeInto(page, options, &out));
  return out;
}

}  // namespace quiver::format::internal
