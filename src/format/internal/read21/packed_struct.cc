#include "format/internal/read21/packed_struct.h"

#include <fmt/format.h>

#include "format/internal/leaf_values.h"
#include "format/internal/read21/compressive.h"
#include "format/internal/read21/decode_util.h"

namespace quiver::format::internal {

namespace pb = lance::encodings21;

struct PackedStructRows::Impl {
  arrow::DataType type;
  arrow::MemoryPool* pool = nullptr;
  struct Member {
    const pb::CompressiveEncoding* encoding = nullptr;
    uint64_t fixed_bytes = 0;  // fixed-width members
    int length_bytes = 0;      // variable-width members: 4 or 8
    std::unique_ptr<LeafValues> values;
  };
  std::vector<Member> members;
  int64_t length = 0;
};

PackedStructRows::PackedStructRows(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PackedStructRows::PackedStructRows(PackedStructRows&&) noexcept = default;
PackedStructRows& PackedStructRows::operator=(PackedStructRows&&) noexcept = default;
PackedStructRows::~PackedStructRows() = default;

Result<PackedStructRows> PackedStructRows::Make(const pb::VariablePackedStruct& encoding,
                                                const arrow::DataType& type,
                                                arrow::MemoryPool* pool) {
  if (type.id() != arrow::TypeId::kStruct ||
      static_cast<size_t>(encoding.fields_size()) != type.children().size()) {
    return Status::Corruption(fmt::format("a packed struct of {} members for {}",
                                          encoding.fields_size(), type.ToString()));
  }
  auto impl = std::make_unique<Impl>();
  impl->type = type;
  impl->pool = pool;
  for (int k = 0; k < encoding.fields_size(); ++k) {
    const auto& field = encoding.fields(k);
    const arrow::Field& member = type.children()[static_cast<size_t>(k)];
    Impl::Member m;
    m.encoding = &field.value();
    Result<std::unique_ptr<LeafValues>> values = LeafValues::Make(member.type, pool);
    if (!values.ok()) {
      return Status::Unsupported(
          fmt::format("packed struct member '{}' of type {}", member.name, member.type.ToString()));
    }
    m.values = std::move(values).value();
    if (field.has_bits_per_value()) {
      // A fixed-size-list member is FixedSizeList(n, Flat(item bits)) (Lance 12), others Flat.
      const pb::CompressiveEncoding& value = field.value();
      const bool described = m.values->is_fsl()
                                 ? value.has_fixed_size_list() &&
                                       !value.fixed_size_list().has_validity() &&
                                       value.fixed_size_list().items_per_value() ==
                                           static_cast<uint64_t>(m.values->list_size()) &&
                                       value.fixed_size_list().values().has_flat() &&
                                       value.fixed_size_list().values().flat().bits_per_value() ==
                                           static_cast<uint64_t>(m.values->value_bits())
                                 : value.has_flat();
      if (m.values->is_variable() || field.bits_per_value() % 8 != 0 || !described ||
          field.bits_per_value() !=
              static_cast<uint64_t>(m.values->value_bits() * m.values->list_size()) ||
          m.values->value_bits() % 8 != 0) {
        return Status::Corruption(fmt::format(
            "packed struct member '{}' ({}): {} bits per value as {}", member.name,
            member.type.ToString(), field.bits_per_value(), DescribeEncoding(field.value())));
      }
      m.fixed_bytes = field.bits_per_value() / 8;
    } else if (field.has_bits_per_length()) {
      if (!m.values->is_variable() ||
          (field.bits_per_length() != 32 && field.bits_per_length() != 64)) {
        return Status::Corruption(fmt::format("packed struct member '{}' ({}): {}-bit lengths",
                                              member.name, member.type.ToString(),
                                              field.bits_per_length()));
      }
      m.length_bytes = static_cast<int>(field.bits_per_length() / 8);
    } else {
      return Status::Corruption(
          fmt::format("packed struct member '{}' has neither a width nor a length", member.name));
    }
    impl->members.push_back(std::move(m));
  }
  return PackedStructRows(std::move(impl));
}

Status PackedStructRows::Append(std::string_view row, PageDecodeCache* cache) {
  uint64_t at = 0;
  for (size_t k = 0; k < impl_->members.size(); ++k) {
    Impl::Member& m = impl_->members[k];
    const std::string_view rest = row.substr(at);
    if (m.length_bytes == 0) {
      if (m.fixed_bytes > rest.size()) {
        return Status::Corruption(
            fmt::format("packed struct row {}: member {} past the row", impl_->length, k));
      }
      if (m.values->is_fsl()) {
        QV_RETURN_IF_ERROR(m.values->AppendItemValidity(nullptr, 0, m.values->list_size()));
      }
      QV_RETURN_IF_ERROR(m.values->AppendFixed(reinterpret_cast<const uint8_t*>(rest.data()),
                                               m.values->list_size()));
      at += m.fixed_bytes;
      continue;
    }
    if (static_cast<uint64_t>(m.length_bytes) > rest.size()) {
      return Status::Corruption(
          fmt::format("packed struct row {}: member {} length past the row", impl_->length, k));
    }
    const uint64_t len =
        m.length_bytes == 8 ? Load<uint64_t>(rest.data()) : Load<uint32_t>(rest.data());
    if (len > rest.size() - static_cast<uint64_t>(m.length_bytes)) {
      return Status::Corruption(fmt::format(
          "packed struct row {}: member {} of {} bytes past the row", impl_->length, k, len));
    }
    QV_RETURN_IF_ERROR(DecodeFullZipValue(
        *m.encoding, rest.substr(static_cast<size_t>(m.length_bytes), len), cache, m.values.get()));
    at += static_cast<uint64_t>(m.length_bytes) + len;
  }
  if (at != row.size()) {
    return Status::Corruption(fmt::format("packed struct row {}: {} of its {} bytes used",
                                          impl_->length, at, row.size()));
  }
  ++impl_->length;
  return Status::OK();
}

Status PackedStructRows::AppendNull() {
  for (Impl::Member& m : impl_->members) QV_RETURN_IF_ERROR(m.values->AppendEmpty(1));
  ++impl_->length;
  return Status::OK();
}

Result<arrow::ArrayPtr> PackedStructRows::Finish() {
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = impl_->type;
  out->length = impl_->length;
  out->buffers = {nullptr};
  for (Impl::Member& m : impl_->members) {
    QV_ASSIGN_OR_RETURN(arrow::ArrayPtr member, m.values->Finish());
    out->children.push_back(std::move(member));
  }
  return arrow::ArrayPtr(out);
}

}  // namespace quiver::format::internal
