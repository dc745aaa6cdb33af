#include "format/internal/write21/pack_struct.h"

#include <fmt/format.h>

namespace quiver::format::internal {

namespace pb = lance::encodings21;
using arrow::TypeId;

namespace {

// Fixed-width, whole bytes, not bool: what a packed row can hold as raw bytes.
bool IsPackableFixed(const arrow::DataType& t) {
  return arrow::IsFixedWidth(t) && t.id() != TypeId::kBool && t.id() != TypeId::kFixedSizeList &&
         arrow::BitWidth(t) > 0 && arrow::BitWidth(t) % 8 == 0;
}

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

Result<PackedStructLayout> PackedStructLayout::Make(const arrow::DataType& type,
                                                    std::string_view column, bool v22) {
  if (type.id() != TypeId::kStruct || type.children().empty()) {
    return Status::Unsupported(fmt::format(
        "column '{}' is marked lance-encoding:packed but is {}, not a struct with members", column,
        type.ToString()));
  }
  PackedStructLayout layout;
  for (const arrow::Field& field : type.children()) {
    const arrow::DataType& t = field.type;
    Member m;
    auto refuse = [&](std::string_view why) {
      return Status::Unsupported(fmt::format(
          "column '{}' is a packed struct (lance-encoding:packed) whose member '{}' is {}: {} "
          "(store it unpacked: drop the metadata)",
          column, field.name, t.ToString(), why));
    };
    if (t.id() == TypeId::kBool) {
      return refuse("Lance 12 cannot read bool members of a packed struct back");
    }
    if (IsPackableFixed(t)) {
      m.kind = Member::Kind::kFixed;
      m.bytes = arrow::BitWidth(t) / 8;
    } else if (t.id() == TypeId::kFixedSizeList && IsPackableFixed(t.item().type)) {
      m.kind = Member::Kind::kFixedSizeList;
      m.item_bytes = arrow::BitWidth(t.item().type) / 8;
      m.bytes = m.item_bytes * t.list_size();
    } else if (arrow::IsBinaryLike(t.id())) {
      m.kind = Member::Kind::kVariable;
      m.length_bytes = arrow::IsLargeOffsets(t.id()) ? 8 : 4;
    } else {
      return refuse("Lance packs only fixed-width, string and binary members");
    }
    layout.fixed_only_ = layout.fixed_only_ && m.kind == Member::Kind::kFixed;
    layout.row_bytes_ += m.bytes;
    layout.members_.push_back(m);
    layout.names_.push_back(field.name);
  }
  if (layout.fixed_only_) {
    if (layout.row_bytes_ > kMaxFixedPackedRowBytes) {
      return Status::Unsupported(fmt::format(
          "column '{}' is a packed struct (lance-encoding:packed) of fixed-width members {} bytes "
          "wide: Lance 12 packs such rows only up to {} bytes (\"Packed struct per-value "
          "compression should not be used for fixed-width-only structs\"); store it unpacked "
          "(drop the metadata)",
          column, layout.row_bytes_, kMaxFixedPackedRowBytes));
    }
    auto* packed = layout.encoding_.mutable_packed_struct();
    for (const Member& m : layout.members_) {
      packed->add_bits_per_value(static_cast<uint64_t>(8 * m.bytes));
    }
    packed->mutable_values()->mutable_flat()->set_bits_per_value(
        static_cast<uint64_t>(8 * layout.row_bytes_));
    return layout;
  }
  if (!v22) {
    return Status::Unsupported(fmt::format(
        "column '{}' is a packed struct (lance-encoding:packed) with variable-width members: "
        "file format 2.1 packs only fixed-width members (Lance 8: \"Variable packed struct "
        "encoding requires Lance file version 2.2 or later\") and LanceDB 0.31 reads a packed "
        "struct only packed; use file format 2.2 (--storage-version 2.2) or drop the metadata",
        column));
  }
  auto* variable = layout.encoding_.mutable_variable_packed_struct();
  for (size_t k = 0; k < layout.members_.size(); ++k) {
    const Member& m = layout.members_[k];
    auto* f = variable->add_fields();
    switch (m.kind) {
      case Member::Kind::kFixed:
        f->mutable_value()->mutable_flat()->set_bits_per_value(static_cast<uint64_t>(8 * m.bytes));
        f->set_bits_per_value(static_cast<uint64_t>(8 * m.bytes));
        break;
      case Member::Kind::kFixedSizeList: {
        auto* fsl = f->mutable_value()->mutable_fixed_size_list();
        fsl->set_items_per_value(static_cast<uint64_t>(m.bytes / m.item_bytes));
        fsl->mutable_values()->mutable_flat()->set_bits_per_value(
            static_cast<uint64_t>(8 * m.item_bytes));
        f->set_bits_per_value(static_cast<uint64_t>(8 * m.bytes));
        break;
      }
      case Member::Kind::kVariable:
        f->mutable_value()
            ->mutable_variable()
            ->mutable_offsets()
            ->mutable_flat()
            ->set_bits_per_value(static_cast<uint64_t>(8 * m.length_bytes));
        f->set_bits_per_length(static_cast<uint64_t>(8 * m.length_bytes));
        break;
    }
  }
  return layout;
}

arrow::DataType PackedStructLayout::row_type() const {
  return fixed_only_ ? arrow::DataType::FixedSizeBinary(static_cast<int32_t>(row_bytes_))
                     : arrow::DataType::Binary();
}

void PackedStructLayout::AppendRow(const arrow::ArrayData& s, int64_t i, std::string* out) const {
  const int64_t row = s.offset + i;  // struct children are not sliced by the struct's offset
  for (size_t k = 0; k < members_.size(); ++k) {
    const Member& m = members_[k];
    const arrow::ArrayData& child = *s.children[k];
    switch (m.kind) {
      case Member::Kind::kFixed:
        out->append(reinterpret_cast<const char*>(child.buffers[1]->data()) +
                        (child.offset + row) * m.bytes,
                    static_cast<size_t>(m.bytes));
        break;
      case Member::Kind::kFixedSizeList: {
        const arrow::ArrayData& items = *child.children[0];
        const int64_t list_size = m.bytes / m.item_bytes;
        out->append(reinterpret_cast<const char*>(items.buffers[1]->data()) +
                        (items.offset + (child.offset + row) * list_size) * m.item_bytes,
                    static_cast<size_t>(m.bytes));
        break;
      }
      case Member::Kind::kVariable: {
        const std::string_view v = arrow::BinaryValue(child, row);
        if (m.length_bytes == 8) {
          Put<uint64_t>(out, v.size());
        } else {
          Put<uint32_t>(out, static_cast<uint32_t>(v.size()));
        }
        out->append(v);
        break;
      }
    }
  }
}

Status PackedStructLayout::CheckMembers(const arrow::ArrayData& s, std::string_view column) const {
  for (size_t k = 0; k < members_.size(); ++k) {
    arrow::ArrayPtr child = arrow::StructField(s, static_cast<int>(k));
    arrow::ArrayPtr items;  // fixed-size lists: their items must be valid too
    int64_t list_size = 1;
    if (members_[k].kind == Member::Kind::kFixedSizeList) {
      items = arrow::StructField(*child, 0);
      list_size = members_[k].bytes / members_[k].item_bytes;
    }
    // A null under a null struct row is no value at all: the row's slot gets whatever bytes
    // the member holds there, as Lance writes the values under null rows.
    auto null_in_valid_row = [&](const arrow::ArrayData& a, int64_t per_row) -> int64_t {
      if (a.null_count == 0) return -1;
      for (int64_t j = 0; j < a.length; ++j) {
        if (arrow::IsNull(a, j) && arrow::IsValid(s, j / per_row)) return j;
      }
      return -1;
    };
    const int64_t row = null_in_valid_row(*child, 1);
    const int64_t item = items ? null_in_valid_row(*items, list_size) : -1;
    if (row < 0 && item < 0) continue;
    return Status::Unsupported(fmt::format(
        "column '{}' is a packed struct (lance-encoding:packed) and its member '{}' is null in "
        "{} {}: Lance 12 refuses nulls inside packed structs (\"Per-value compression not yet "
        "supported for block type Nullable\"); only whole struct rows may be null",
        column, names_[k], row >= 0 ? "row" : "item", row >= 0 ? row : item));
  }
  return Status::OK();
}

}  // namespace quiver::format::internal
