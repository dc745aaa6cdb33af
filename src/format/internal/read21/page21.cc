#include "format/internal/read21/page21.h"

#include <cstring>

#include <fmt/format.h>

#include "format/internal/leaf_values.h"
#include "format/internal/read21/compressive.h"
#include "format/internal/read21/decode_util.h"
#include "format/internal/read21/packed_struct.h"

namespace quiver::format::internal {

namespace {

namespace pb = lance::encodings21;

uint64_t Pad8(uint64_t x) { return (x + 7) & ~uint64_t{7}; }

// Lance chunks hold at most 4096 values; anything far above is a corrupt count (and would make
// size arithmetic overflow).
constexpr uint64_t kMaxChunkValues = 1 << 16;
// Pages are decoded whole: refuse page sizes no Lance writer makes rather than allocate them.
constexpr uint64_t kMaxPageRows = uint64_t{1} << 26;

Result<std::vector<LayerKind>> Layers(const google::protobuf::RepeatedField<int>& raw) {
  std::vector<LayerKind> layers;
  for (int v : raw) {
    if (v < 1 || v > 6) return Status::Corruption(fmt::format("unknown rep/def layer {}", v));
    layers.push_back(static_cast<LayerKind>(v));
  }
  if (layers.empty()) return Status::Corruption("a page without rep/def layers");
  if (layers.size() > 64) return Status::Corruption("more than 64 rep/def layers");
  return layers;
}

// Counts levels with a value slot.
uint64_t CountVisible(const std::vector<uint16_t>& def, uint64_t num_levels, uint16_t max_visible) {
  if (def.empty()) return num_levels;
  uint64_t visible = 0;
  for (uint16_t d : def) visible += d <= max_visible ? 1 : 0;
  return visible;
}

Status DecodeMiniBlock(const pb::MiniBlockLayout& layout,
                       const std::vector<std::string_view>& buffers,
                       const arrow::DataType& leaf_type, arrow::MemoryPool* pool,
                       DecodedPage* out) {
  const bool has_rep = layout.has_rep_compression();
  const bool has_def = layout.has_def_compression();
  const bool has_dict = layout.has_dictionary();
  const bool large = layout.has_large_chunk();
  const uint64_t num_value_buffers = layout.num_buffers();
  const size_t need_buffers =
      2 + (has_dict ? 1 : 0) + (layout.repetition_index_depth() > 0 ? 1 : 0);
  if (buffers.size() < need_buffers) {
    return Status::Corruption(
        fmt::format("mini-block page with {} buffers, needs {}", buffers.size(), need_buffers));
  }
  if (num_value_buffers == 0 || num_value_buffers > 16) {
    return Status::Corruption(
        fmt::format("mini-block page with {} value buffers", num_value_buffers));
  }
  const uint64_t num_items = layout.num_items();
  std::string_view meta = buffers[0];
  std::string_view data = buffers[1];
  const size_t word = large ? 4 : 2;
  if (meta.size() % word != 0) return Status::Corruption("chunk metadata of a partial word");
  const uint64_t num_chunks = meta.size() / word;

  arrow::ArrayPtr dictionary;
  if (has_dict) {
    if (layout.num_dictionary_items() > buffers[2].size() * 8 + 1) {
      return Status::Corruption("more dictionary items than dictionary bytes");
    }
    QV_ASSIGN_OR_RETURN(dictionary,
                        DecodeDictionaryItems(layout.dictionary(), buffers[2],
                                              layout.num_dictionary_items(), leaf_type, pool));
  }
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(leaf_type, pool));
  // Sized for the page up front (variable width: at least the stored bytes).
  QV_RETURN_IF_ERROR(values->Reserve(static_cast<int64_t>(std::min(num_items, kMaxPageRows)),
                                     has_dict ? 0 : data.size()));
  PageDecodeCache cache;
  std::vector<int64_t> indices;
  std::vector<std::string_view> chunk_buffers(num_value_buffers);
  uint64_t pos = 0, items_done = 0;
  for (uint64_t c = 0; c < num_chunks; ++c) {
    const uint32_t w =
        large ? Load<uint32_t>(meta.data() + 4 * c) : Load<uint16_t>(meta.data() + 2 * c);
    const uint64_t chunk_size = (static_cast<uint64_t>(w >> 4) + 1) * 8;
    const bool last = c + 1 == num_chunks;
    const uint64_t n = last ? num_items - std::min(num_items, items_done) : uint64_t{1} << (w & 15);
    if (n > kMaxChunkValues) {
      return Status::Corruption(fmt::format("chunk {} claims {} values", c, n));
    }
    if (!last && items_done + n > num_items) {
      return Status::Corruption(
          fmt::format("chunk {} holds values past the page's {}", c, num_items));
    }
    if (chunk_size > data.size() - pos) {
      return Status::Corruption(
          fmt::format("chunk {} of {} bytes at {} runs past the chunk "
                      "data ({} bytes)",
                      c, chunk_size, pos, data.size()));
    }
    std::string_view chunk = data.substr(pos, chunk_size);
    pos += chunk_size;
    // Header: level count, rep size, def size, one size per value buffer, padding to 8.
    const uint64_t header = 2 + (has_rep ? 2 : 0) + (has_def ? 2 : 0) + num_value_buffers * word;
    if (header > chunk.size()) return Status::Corruption(fmt::format("chunk {} header", c));
    uint64_t h = 0;
    const uint64_t num_levels = Load<uint16_t>(chunk.data());
    h += 2;
    uint64_t rep_size = 0, def_size = 0;
    if (has_rep) rep_size = Load<uint16_t>(chunk.data() + h), h += 2;
    if (has_def) def_size = Load<uint16_t>(chunk.data() + h), h += 2;
    std::vector<uint64_t> sizes(num_value_buffers);
    for (uint64_t b = 0; b < num_value_buffers; ++b) {
      sizes[b] = large ? Load<uint32_t>(chunk.data() + h) : Load<uint16_t>(chunk.data() + h);
      h += word;
    }
    uint64_t p = Pad8(h);
    auto take = [&](uint64_t size, const char* what) -> Result<std::string_view> {
      if (p > chunk.size() || size > chunk.size() - p) {
        return Status::Corruption(
            fmt::format("chunk {}: {} of {} bytes runs past the chunk", c, what, size));
      }
      std::string_view v = chunk.substr(p, size);
      p = Pad8(p + size);
      return v;
    };
    if (has_rep) {
      QV_ASSIGN_OR_RETURN(std::string_view rep, take(rep_size, "repetition levels"));
      QV_RETURN_IF_ERROR(DecodeLevels(layout.rep_compression(), rep, num_levels, &out->rep));
    }
    if (has_def) {
      QV_ASSIGN_OR_RETURN(std::string_view def, take(def_size, "definition levels"));
      QV_RETURN_IF_ERROR(DecodeLevels(layout.def_compression(), def, num_levels, &out->def));
    }
    for (uint64_t b = 0; b < num_value_buffers; ++b) {
      QV_ASSIGN_OR_RETURN(chunk_buffers[b], take(sizes[b], "value buffer"));
    }
    if (has_rep || has_def) {
      out->num_levels += num_levels;
    }
    if (has_dict) {
      QV_RETURN_IF_ERROR(DecodeMiniBlockIndices(layout.value_compression(), chunk_buffers,
                                                static_cast<int64_t>(n), &cache, &indices));
    } else {
      QV_RETURN_IF_ERROR(DecodeMiniBlockValues(layout.value_compression(), chunk_buffers,
                                               static_cast<int64_t>(n), &cache, values.get()));
    }
    items_done += n;
  }
  if (items_done != num_items) {
    return Status::Corruption(
        fmt::format("mini-block chunks hold {} values, the page says {}", items_done, num_items));
  }
  if (has_dict) {
    QV_RETURN_IF_ERROR(
        values->AppendTaken(*dictionary, indices.data(), static_cast<int64_t>(indices.size())));
  }
  if (!has_rep && !has_def) out->num_levels = num_items;
  QV_ASSIGN_OR_RETURN(out->values, values->Finish());
  return Status::OK();
}

// A packed struct of fixed-width members in mini-block chunks (PackedStruct{bits_per_value per
// member, values: Flat of their sum}, 2.1 and 2.2): the chunks decode as fixed-size binary rows
// of the members' bytes back to back, which are then split into the members.
Status DecodeMiniBlockPackedStruct(const pb::MiniBlockLayout& layout,
                                   const std::vector<std::string_view>& buffers,
                                   const arrow::DataType& type, arrow::MemoryPool* pool,
                                   DecodedPage* out) {
  const pb::CompressiveEncoding& vc = layout.value_compression();
  if (!vc.has_packed_struct() || layout.has_dictionary()) {
    return Status::Unsupported(
        fmt::format("mini-block {} values encoded as {}", type.ToString(), DescribeEncoding(vc)));
  }
  const pb::PackedStruct& packed = vc.packed_struct();
  if (static_cast<size_t>(packed.bits_per_value_size()) != type.children().size()) {
    return Status::Corruption(fmt::format("a packed struct of {} members for {}",
                                          packed.bits_per_value_size(), type.ToString()));
  }
  uint64_t row_bits = 0;
  for (size_t k = 0; k < type.children().size(); ++k) {
    const arrow::DataType& member = type.children()[k].type;
    const uint64_t bits = packed.bits_per_value(static_cast<int>(k));
    if (!arrow::IsFixedWidth(member) || member.id() == arrow::TypeId::kBool || bits % 8 != 0 ||
        static_cast<int64_t>(bits) != arrow::BitWidth(member)) {
      return Status::Corruption(fmt::format("packed struct member '{}' ({}) of {} bits",
                                            type.children()[k].name, member.ToString(), bits));
    }
    row_bits += bits;
  }
  if (row_bits == 0 || row_bits > (uint64_t{1} << 20)) {
    return Status::Corruption(fmt::format("packed struct rows of {} bits", row_bits));
  }
  pb::MiniBlockLayout rows_layout = layout;
  *rows_layout.mutable_value_compression() = packed.values();
  const int32_t row_bytes = static_cast<int32_t>(row_bits / 8);
  QV_RETURN_IF_ERROR(DecodeMiniBlock(rows_layout, buffers,
                                     arrow::DataType::FixedSizeBinary(row_bytes), pool, out));
  const arrow::ArrayData& rows = *out->values;
  const uint8_t* base = rows.buffers[1]->data() + rows.offset * row_bytes;
  auto result = std::make_shared<arrow::ArrayData>();
  result->type = type;
  result->length = rows.length;
  result->buffers = {nullptr};
  uint64_t at = 0;
  for (size_t k = 0; k < type.children().size(); ++k) {
    const uint64_t width = packed.bits_per_value(static_cast<int>(k)) / 8;
    QV_ASSIGN_OR_RETURN(auto buffer,
                        arrow::Buffer::Allocate(static_cast<int64_t>(width) * rows.length, pool));
    for (int64_t r = 0; r < rows.length; ++r) {
      std::memcpy(buffer->mutable_data() + r * static_cast<int64_t>(width),
                  base + r * row_bytes + static_cast<int64_t>(at), width);
    }
    auto member = std::make_shared<arrow::ArrayData>();
    member->type = type.children()[k].type;
    member->length = rows.length;
    member->buffers = {nullptr, std::move(buffer)};
    result->children.push_back(std::move(member));
    at += width;
  }
  out->values = std::move(result);
  return Status::OK();
}

// The control word of full-zip item `i` at `*p` (advanced past it): rep and def levels.
Status FullZipControl(std::string_view data, int ctrl_bytes, uint32_t bits_def, uint64_t i,
                      uint64_t* p, uint32_t* rep, uint32_t* def) {
  if (ctrl_bytes > static_cast<int64_t>(data.size() - *p)) {
    return Status::Corruption(fmt::format("full-zip item {} control word past the end", i));
  }
  const uint32_t ctrl = ctrl_bytes == 1   ? static_cast<uint8_t>(data[*p])
                        : ctrl_bytes == 2 ? Load<uint16_t>(data.data() + *p)
                                          : Load<uint32_t>(data.data() + *p);
  *p += static_cast<uint64_t>(ctrl_bytes);
  *rep = ctrl >> bits_def;
  *def = ctrl & ((1u << bits_def) - 1);
  return Status::OK();
}

// The length-prefixed value of full-zip item `i` at `*p` (advanced past it); `width` is the
// prefix's 4 or 8 bytes.
Result<std::string_view> FullZipValue(std::string_view data, uint64_t width, uint64_t i,
                                      uint64_t* p) {
  if (width > data.size() - *p) {
    return Status::Corruption(fmt::format("full-zip item {} length past the end", i));
  }
  const uint64_t len =
      width == 8 ? Load<uint64_t>(data.data() + *p) : Load<uint32_t>(data.data() + *p);
  *p += width;
  if (len > data.size() - *p) {
    return Status::Corruption(fmt::format("full-zip item {} of {} bytes past the end", i, len));
  }
  const std::string_view value = data.substr(*p, len);
  *p += len;
  return value;
}

// A packed struct stored per value (2.2 VariablePackedStruct, packed_struct.h): each visible
// item is a length-prefixed row of the members' bytes.
Status DecodeFullZipPackedStruct(const pb::FullZipLayout& layout, std::string_view data,
                                 int ctrl_bytes, const arrow::DataType& type,
                                 arrow::MemoryPool* pool, DecodedPage* out) {
  const pb::CompressiveEncoding& vc = layout.value_compression();
  if (!vc.has_variable_packed_struct() || layout.has_bits_per_value()) {
    return Status::Unsupported(
        fmt::format("full-zip {} values encoded as {}", type.ToString(), DescribeEncoding(vc)));
  }
  if (layout.bits_per_offset() != 32 && layout.bits_per_offset() != 64) {
    return Status::Corruption(fmt::format("full-zip offsets of {} bits", layout.bits_per_offset()));
  }
  const uint64_t width = layout.bits_per_offset() / 8;
  QV_ASSIGN_OR_RETURN(PackedStructRows rows,
                      PackedStructRows::Make(vc.variable_packed_struct(), type, pool));
  PageDecodeCache cache;
  const uint16_t max_visible = MaxVisibleDef(out->layers);
  uint64_t p = 0;
  for (uint64_t i = 0; i < layout.num_items(); ++i) {
    uint32_t rep = 0, def = 0;
    if (ctrl_bytes > 0) {
      QV_RETURN_IF_ERROR(FullZipControl(data, ctrl_bytes, layout.bits_def(), i, &p, &rep, &def));
      if (layout.bits_rep() > 0) out->rep.push_back(static_cast<uint16_t>(rep));
      if (layout.bits_def() > 0) out->def.push_back(static_cast<uint16_t>(def));
    }
    if (def > max_visible) continue;
    if (def != 0) {
      QV_RETURN_IF_ERROR(rows.AppendNull());
      continue;
    }
    QV_ASSIGN_OR_RETURN(std::string_view row, FullZipValue(data, width, i, &p));
    QV_RETURN_IF_ERROR(rows.Append(row, &cache));
  }
  out->num_levels = layout.num_items();
  QV_ASSIGN_OR_RETURN(out->values, rows.Finish());
  if (layout.num_visible_items() != 0 &&
      static_cast<uint64_t>(out->values->length) != layout.num_visible_items()) {
    return Status::Corruption(fmt::format("full-zip page decoded {} values, the page says {}",
                                          out->values->length, layout.num_visible_items()));
  }
  return Status::OK();
}

Status DecodeFullZip(const pb::FullZipLayout& layout, const std::vector<std::string_view>& buffers,
                     uint64_t rows, const arrow::DataType& leaf_type, arrow::MemoryPool* pool,
                     const std::shared_ptr<const void>& owner, DecodedPage* out) {
  if (buffers.empty()) return Status::Corruption("full-zip page without a data buffer");
  const uint32_t bits_rep = layout.bits_rep(), bits_def = layout.bits_def();
  if (bits_rep > 16 || bits_def > 16) {
    return Status::Corruption(fmt::format("full-zip control bits {}+{}", bits_rep, bits_def));
  }
  const uint32_t ctrl_bits = bits_rep + bits_def;
  const int ctrl_bytes = ctrl_bits == 0 ? 0 : ctrl_bits <= 8 ? 1 : ctrl_bits <= 16 ? 2 : 4;
  const uint16_t max_visible = MaxVisibleDef(out->layers);
  const uint64_t num_items = layout.num_items();
  std::string_view data = buffers[0];
  if (ctrl_bytes == 0 && num_items != rows) {
    return Status::Corruption(
        fmt::format("full-zip page without levels has {} items for {} rows", num_items, rows));
  }
  if (leaf_type.id() == arrow::TypeId::kStruct) {
    return DecodeFullZipPackedStruct(layout, data, ctrl_bytes, leaf_type, pool, out);
  }
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(leaf_type, pool));
  PageDecodeCache cache;

  // What each visible value looks like.
  const pb::CompressiveEncoding& vc = layout.value_compression();
  const bool fixed = layout.has_bits_per_value();
  uint64_t value_bytes = 0;
  int offset_width = 0;
  bool fsl_validity = false;
  if (fixed) {
    if (layout.bits_per_value() % 8 != 0) {
      return Status::Corruption("full-zip fixed values of a fractional byte width");
    }
    value_bytes = layout.bits_per_value() / 8;
    if (vc.has_fixed_size_list()) {
      const auto& fsl = vc.fixed_size_list();
      if (!values->is_fsl() || static_cast<int64_t>(fsl.items_per_value()) != values->list_size() ||
          !fsl.values().has_flat() ||
          static_cast<int64_t>(fsl.values().flat().bits_per_value()) != values->value_bits()) {
        return Status::Corruption("full-zip " + DescribeEncoding(vc) + " for " +
                                  leaf_type.ToString());
      }
      fsl_validity = fsl.has_validity();
    } else if (!vc.has_flat() || static_cast<int64_t>(vc.flat().bits_per_value()) !=
                                     values->value_bits() * values->list_size()) {
      return Status::Unsupported("full-zip fixed values encoded as " + DescribeEncoding(vc) +
                                 " for " + leaf_type.ToString());
    }
    const uint64_t items = static_cast<uint64_t>(values->list_size());
    const uint64_t expect =
        (fsl_validity ? (items + 7) / 8 : 0) +
        (values->value_bits() == 1 ? (items + 7) / 8 : items * values->value_bits() / 8);
    if (expect != value_bytes) {
      return Status::Corruption(fmt::format("full-zip values of {} bytes for {} ({} expected)",
                                            value_bytes, leaf_type.ToString(), expect));
    }
  } else {
    if (layout.bits_per_offset() != 32 && layout.bits_per_offset() != 64) {
      return Status::Corruption(
          fmt::format("full-zip offsets of {} bits", layout.bits_per_offset()));
    }
    offset_width = static_cast<int>(layout.bits_per_offset() / 8);
    if (!values->is_variable()) {
      return Status::Corruption("full-zip variable values for " + leaf_type.ToString());
    }
    if (!vc.has_variable() && !vc.has_fsst() && !vc.has_general()) {
      return Status::Unsupported("full-zip variable values encoded as " + DescribeEncoding(vc));
    }
  }

  if (fixed && ctrl_bytes == 0 && !fsl_validity && values->value_bits() % 8 == 0) {
    // Every item is a value and the values sit back to back: the page is the Arrow buffer.
    if (value_bytes == 0 || num_items > data.size() / value_bytes) {
      return Status::Corruption(fmt::format("full-zip page of {} values of {} bytes in {} bytes",
                                            num_items, value_bytes, data.size()));
    }
    const auto* first = reinterpret_cast<const uint8_t*>(data.data());
    const uint64_t total = num_items * value_bytes;
    const int64_t items = static_cast<int64_t>(num_items) * values->list_size();
    const uint64_t width = static_cast<uint64_t>(values->value_bits() / 8);
    if (owner != nullptr &&
        reinterpret_cast<uintptr_t>(first) % std::min<uint64_t>(width, 8) == 0) {
      QV_RETURN_IF_ERROR(values->AdoptFixed(arrow::Buffer::Wrap(first, total, owner), items));
    } else {
      QV_RETURN_IF_ERROR(values->Reserve(static_cast<int64_t>(num_items), 0));
      QV_RETURN_IF_ERROR(values->AppendFixed(first, items));
    }
    out->num_levels = num_items;
    QV_ASSIGN_OR_RETURN(out->values, values->Finish());
    if (layout.num_visible_items() != 0 && layout.num_visible_items() != num_items) {
      return Status::Corruption(fmt::format("full-zip page decoded {} values, the page says {}",
                                            num_items, layout.num_visible_items()));
    }
    return Status::OK();
  }
  if (fixed) {
    QV_RETURN_IF_ERROR(values->Reserve(static_cast<int64_t>(layout.num_visible_items()), 0));
  }

  uint64_t p = 0;
  for (uint64_t i = 0; i < num_items; ++i) {
    uint32_t rep = 0, def = 0;
    if (ctrl_bytes > 0) {
      QV_RETURN_IF_ERROR(FullZipControl(data, ctrl_bytes, bits_def, i, &p, &rep, &def));
      if (bits_rep > 0) out->rep.push_back(static_cast<uint16_t>(rep));
      if (bits_def > 0) out->def.push_back(static_cast<uint16_t>(def));
    }
    if (def > max_visible) continue;  // an invisible level: the control word is all there is
    if (fixed) {
      if (value_bytes > data.size() - p) {
        return Status::Corruption(fmt::format("full-zip item {} value past the end", i));
      }
      const auto* v = reinterpret_cast<const uint8_t*>(data.data() + p);
      if (values->is_fsl()) {
        const int64_t items = values->list_size();
        const uint64_t vbytes = fsl_validity ? (items + 7) / 8 : 0;
        QV_RETURN_IF_ERROR(values->AppendItemValidity(fsl_validity ? v : nullptr, 0, items));
        QV_RETURN_IF_ERROR(values->AppendFixed(v + vbytes, items));
      } else {
        QV_RETURN_IF_ERROR(values->AppendFixed(v, 1));
      }
      p += value_bytes;
    } else if (def == 0) {
      QV_ASSIGN_OR_RETURN(std::string_view value,
                          FullZipValue(data, static_cast<uint64_t>(offset_width), i, &p));
      QV_RETURN_IF_ERROR(DecodeFullZipValue(vc, value, &cache, values.get()));
    } else {
      QV_RETURN_IF_ERROR(values->AppendEmpty(1));  // a visible null stores nothing
    }
  }
  out->num_levels = num_items;
  QV_ASSIGN_OR_RETURN(out->values, values->Finish());
  if (static_cast<uint64_t>(out->values->length) != layout.num_visible_items() &&
      layout.num_visible_items() != 0) {
    return Status::Corruption(fmt::format("full-zip page decoded {} values, the page says {}",
                                          out->values->length, layout.num_visible_items()));
  }
  return Status::OK();
}

// One level buffer of a constant page: empty = absent; raw u16 unless `compression` says how
// it was block-compressed (2.2 all-null pages), then `count` levels.
Status ConstantLevels(std::string_view buffer, const pb::CompressiveEncoding* compression,
                      uint64_t count, std::vector<uint16_t>* out) {
  if (buffer.empty()) return Status::OK();
  if (compression != nullptr) return DecodeLevels(*compression, buffer, count, out);
  if (buffer.size() % 2 != 0) return Status::Corruption("constant page levels of a partial u16");
  out->resize(buffer.size() / 2);
  std::memcpy(out->data(), buffer.data(), buffer.size());
  return Status::OK();
}

// The scalar of a 2.2 constant page with a value, as the Arrow buffers of a length-1 array: the
// inline value (one buffer of at most 32 bytes, fixed-width types) or the scalar value buffer
// `u32 n, u32 len x n, bytes` (lance-2.2-notes.md §9.1).
Result<std::vector<std::string_view>> ConstantScalar(const pb::ConstantLayout& layout,
                                                     std::string_view value_buffer) {
  if (layout.has_inline_value()) return std::vector<std::string_view>{layout.inline_value()};
  if (value_buffer.size() < 4) return Short("constant scalar", 4, value_buffer.size());
  const uint32_t count = Load<uint32_t>(value_buffer.data());
  if (count == 0 || count > 3) {
    return Status::Corruption(fmt::format("a constant scalar of {} buffers", count));
  }
  uint64_t at = 4 + 4ull * count;
  if (value_buffer.size() < at) return Short("constant scalar", at, value_buffer.size());
  std::vector<std::string_view> buffers;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t len = Load<uint32_t>(value_buffer.data() + 4 + 4 * i);
    if (value_buffer.size() - at < len)
      return Short("constant scalar", at + len, value_buffer.size());
    buffers.push_back(value_buffer.substr(at, len));
    at += len;
  }
  if (at != value_buffer.size()) return Status::Corruption("a constant scalar with trailing bytes");
  return buffers;
}

// Appends the scalar `n` times.
Status AppendConstant(const std::vector<std::string_view>& scalar, uint64_t n, LeafValues* values) {
  const std::string type = values->type().ToString();
  if (values->is_fsl()) return Status::Unsupported("constant pages of " + type);
  if (values->is_variable()) {
    // Offsets [start, end] of one value (4 or 8 bytes each), then the bytes.
    if (scalar.size() != 2 || (scalar[0].size() != 8 && scalar[0].size() != 16)) {
      return Status::Corruption("a constant " + type + " scalar without offsets and data");
    }
    const bool wide = scalar[0].size() == 16;
    const uint64_t start =
        wide ? Load<uint64_t>(scalar[0].data()) : Load<uint32_t>(scalar[0].data());
    const uint64_t end =
        wide ? Load<uint64_t>(scalar[0].data() + 8) : Load<uint32_t>(scalar[0].data() + 4);
    if (start > end || end > scalar[1].size()) {
      return Status::Corruption("a constant " + type + " scalar with offsets past its data");
    }
    std::string_view value = scalar[1].substr(start, end - start);
    if (n > 0 && value.size() > (uint64_t{1} << 30) / n) {
      return Status::Unsupported(
          fmt::format("a constant page of {} values of {} bytes", n, value.size()));
    }
    QV_RETURN_IF_ERROR(values->Reserve(static_cast<int64_t>(n), n * value.size()));
    for (uint64_t i = 0; i < n; ++i) QV_RETURN_IF_ERROR(values->AppendValue(value));
    return Status::OK();
  }
  if (scalar.size() != 1)
    return Status::Corruption("a constant " + type + " scalar of several buffers");
  std::string_view value = scalar[0];
  if (values->value_bits() == 1) {  // a bitmap of one bit
    if (value.size() != 1)
      return Status::Corruption("a constant boolean of " + std::to_string(value.size()) + " bytes");
    std::vector<uint8_t> bits((n + 7) / 8, (value[0] & 1) ? 0xFF : 0x00);
    return values->AppendFixed(bits.data(), static_cast<int64_t>(n));
  }
  if (static_cast<int64_t>(value.size() * 8) != values->value_bits()) {
    return Status::Corruption(
        fmt::format("a constant scalar of {} bytes for a {} column", value.size(), type));
  }
  std::vector<uint8_t> repeated(n * value.size());
  for (uint64_t i = 0; i < n; ++i)
    std::memcpy(repeated.data() + i * value.size(), value.data(), value.size());
  return values->AppendFixed(repeated.data(), static_cast<int64_t>(n));
}

// ConstantLayout (§3.4; 2.2: lance-2.2-notes.md §9.1). Lance's buffer-count rule: with an
// inline value, 0 buffers (no levels) or 2 ([rep, def]); with a scalar value buffer, 1 or 3
// ([scalar, rep, def]); without a value the page is all null, with 0 buffers or 2 ([rep, def],
// block-compressed when rep_compression / def_compression say so). Levels of pages with a value
// are raw u16; an empty level buffer is an absent one. Visible items take the scalar (all-null
// pages: empty slots; the definition levels make them null).
Status DecodeConstant(const pb::ConstantLayout& layout, const PageInfo& page,
                      const std::vector<std::string_view>& buffers,
                      const arrow::DataType& leaf_type, arrow::MemoryPool* pool, DecodedPage* out) {
  const size_t nb = buffers.size();
  const bool has_value = layout.has_inline_value() || nb == 1 || nb == 3;
  if (layout.has_inline_value() ? (nb != 0 && nb != 2) : nb > 3) {
    return Status::Corruption(fmt::format("a constant page with {} buffers{}", nb,
                                          layout.has_inline_value() ? " and an inline value" : ""));
  }
  const size_t levels_at = (nb == 3) ? 1 : 0;
  const bool has_levels = nb >= 2;
  if (has_levels) {
    const bool compressed = !has_value;  // only all-null pages compress their levels
    QV_RETURN_IF_ERROR(ConstantLevels(
        buffers[levels_at],
        compressed && layout.has_rep_compression() ? &layout.rep_compression() : nullptr,
        layout.num_rep_values(), &out->rep));
    QV_RETURN_IF_ERROR(ConstantLevels(
        buffers[levels_at + 1],
        compressed && layout.has_def_compression() ? &layout.def_compression() : nullptr,
        layout.num_def_values(), &out->def));
    const uint64_t nrep = out->rep.size(), ndef = out->def.size();
    if (nrep > 0 && ndef > 0 && nrep != ndef) {
      return Status::Corruption("constant page with different repetition and definition counts");
    }
    out->num_levels = std::max(nrep, ndef);
    if (out->num_levels == 0) out->num_levels = page.rows;
  } else if (!has_value) {
    // Every row null at the leaf (§3.4 simple all-null).
    if (out->layers.size() != 1 || out->layers[0] != LayerKind::kNullableItem) {
      return Status::Corruption("an all-null page without levels must have one nullable layer");
    }
    out->num_levels = page.rows;
    out->def.assign(page.rows, 1);
  } else {
    out->num_levels = page.rows;  // a value and no levels: every row is the value
  }
  const uint64_t visible = CountVisible(out->def, out->num_levels, MaxVisibleDef(out->layers));
  QV_ASSIGN_OR_RETURN(auto values, LeafValues::Make(leaf_type, pool));
  // The slots are materialized: refuse sizes no real page has (a tiny file could ask for
  // terabytes otherwise).
  const uint64_t slot_bytes = static_cast<uint64_t>(
      std::max<int64_t>(1, values->list_size() * std::max<int64_t>(values->value_bits(), 8) / 8));
  if (visible > (uint64_t{1} << 30) / slot_bytes) {
    return Status::Unsupported(
        fmt::format("a constant page of {} values of {} bytes", visible, slot_bytes));
  }
  if (has_value) {
    QV_ASSIGN_OR_RETURN(
        std::vector<std::string_view> scalar,
        ConstantScalar(layout, layout.has_inline_value() ? std::string_view() : buffers[0]));
    QV_RETURN_IF_ERROR(AppendConstant(scalar, visible, values.get()));
  } else {
    QV_RETURN_IF_ERROR(values->AppendEmpty(static_cast<int64_t>(visible)));
  }
  QV_ASSIGN_OR_RETURN(out->values, values->Finish());
  return Status::OK();
}

}  // namespace

Result<DecodedPage> DecodePage21(const PageInfo& page, const std::vector<std::string_view>& buffers,
                                 const arrow::DataType& leaf_type, arrow::MemoryPool* pool,
                                 std::shared_ptr<const void> owner) {
  if (page.rows > kMaxPageRows) {
    return Status::Unsupported(
        fmt::format("a page of {} rows (at most {} are read)", page.rows, kMaxPageRows));
  }
  DecodedPage out;
  out.rows = page.rows;
  const pb::PageLayout& layout = page.layout;
  switch (layout.layout_case()) {
    case pb::PageLayout::kMiniBlockLayout: {
      QV_ASSIGN_OR_RETURN(out.layers, Layers(layout.mini_block_layout().layers()));
      if (leaf_type.id() == arrow::TypeId::kStruct) {
        QV_RETURN_IF_ERROR(DecodeMiniBlockPackedStruct(layout.mini_block_layout(), buffers,
                                                       leaf_type, pool, &out));
        break;
      }
      QV_RETURN_IF_ERROR(
          DecodeMiniBlock(layout.mini_block_layout(), buffers, leaf_type, pool, &out));
      break;
    }
    case pb::PageLayout::kFullZipLayout: {
      QV_ASSIGN_OR_RETURN(out.layers, Layers(layout.full_zip_layout().layers()));
      QV_RETURN_IF_ERROR(DecodeFullZip(layout.full_zip_layout(), buffers, page.rows, leaf_type,
                                       pool, owner, &out));
      break;
    }
    case pb::PageLayout::kConstantLayout: {
      QV_ASSIGN_OR_RETURN(out.layers, Layers(layout.constant_layout().layers()));
      QV_RETURN_IF_ERROR(
          DecodeConstant(layout.constant_layout(), page, buffers, leaf_type, pool, &out));
      break;
    }
    case pb::PageLayout::kBlobLayout:
      return Status::Unsupported("blob pages");
    default:
      return Status::Corruption("a page without a layout");
  }
  // Levels must stay within the page's layers: later steps index tables by them.
  const int max_rep = MaxRep(out.layers);
  uint32_t max_def = 0;
  for (LayerKind k : out.layers) {
    max_def += k == LayerKind::kNullAndEmptyList ? 2
               : (k == LayerKind::kNullableItem || k == LayerKind::kNullableList ||
                  k == LayerKind::kEmptyableList)
                   ? 1
                   : 0;
  }
  if (max_rep > 0 && out.num_levels > 0 && out.rep.empty()) {
    return Status::Corruption("a page with list layers has no repetition levels");
  }
  if (out.num_levels > kMaxPageRows * 16) {
    return Status::Unsupported(fmt::format("a page of {} levels", out.num_levels));
  }
  for (uint16_t r : out.rep) {
    if (r > max_rep) return Status::Corruption(fmt::format("repetition level {} > {}", r, max_rep));
  }
  for (uint16_t d : out.def) {
    if (d > max_def) return Status::Corruption(fmt::format("definition level {} > {}", d, max_def));
  }
  if (!out.rep.empty() && out.rep.size() != out.num_levels) {
    return Status::Corruption(
        fmt::format("page has {} repetition levels for {} levels", out.rep.size(), out.num_levels));
  }
  if (!out.def.empty() && out.def.size() != out.num_levels) {
    return Status::Corruption(
        fmt::format("page has {} definition levels for {} levels", out.def.size(), out.num_levels));
  }
  const uint64_t visible = CountVisible(out.def, out.num_levels, MaxVisibleDef(out.layers));
  if (static_cast<uint64_t>(out.values->length) != visible) {
    return Status::Corruption(
        fmt::format("page decoded {} values for {} visible levels", out.values->length, visible));
  }
  return out;
}

}  // namespace quiver::format::internal
