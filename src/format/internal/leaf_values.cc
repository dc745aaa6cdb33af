#include "format/internal/leaf_values.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace quiver::format::internal {

using arrow::TypeId;

LeafValues::LeafValues(arrow::DataType type, arrow::MemoryPool* pool)
    : type_(std::move(type)), data_(pool), offsets_(pool), item_validity_(pool) {}

Result<std::unique_ptr<LeafValues>> LeafValues::Make(const arrow::DataType& type,
                                                     arrow::MemoryPool* pool) {
  std::unique_ptr<LeafValues> v(new LeafValues(type, pool));
  const arrow::DataType& storage = type.id() == TypeId::kFixedSizeList ? type.item().type : type;
  if (type.id() == TypeId::kFixedSizeList &&
      (type.list_size() <= 0 || type.list_size() > (1 << 20))) {
    return Status::Unsupported("fixed-size lists of " + std::to_string(type.list_size()) +
                               " items are not supported");
  }
  if (type.id() == TypeId::kFixedSizeList &&
      (storage.id() == TypeId::kStruct || arrow::IsListLike(storage.id()) ||
       arrow::IsBinaryLike(storage.id()) || storage.id() == TypeId::kDictionary)) {
    return Status::Unsupported("fixed-size lists of " + storage.ToString() + " are not supported");
  }
  if (type.id() == TypeId::kStruct || arrow::IsOffsetList(type.id()) ||
      type.id() == TypeId::kNull) {
    return Status::Internal("LeafValues: not a leaf type: " + type.ToString());
  }
  v->value_bits_ = arrow::BitWidth(storage);
  v->large_ = arrow::IsLargeOffsets(storage.id());
  if (arrow::IsBinaryLike(storage.id())) {
    QV_RETURN_IF_ERROR(v->large_ ? v->offsets_.AppendValue<int64_t>(0)
                                 : v->offsets_.AppendValue<int32_t>(0));
  }
  return v;
}

TypeId LeafValues::storage_id() const {
  return type_.id() == TypeId::kFixedSizeList ? type_.item().type.id() : type_.id();
}

Status LeafValues::AppendFixed(const uint8_t* src, int64_t n, int64_t bit_offset) {
  if (adopted_ != nullptr) return Status::Internal("LeafValues: append after AdoptFixed");
  if (value_bits_ == 1) {
    const int64_t start = items_;
    QV_RETURN_IF_ERROR(data_.Resize(arrow::BytesForBits(start + n)));
    arrow::CopyBits(src, bit_offset, n, data_.mutable_data(), start);
  } else {
    QV_RETURN_IF_ERROR(data_.Append(src, static_cast<uint64_t>(n) * (value_bits_ / 8)));
  }
  items_ += n;
  length_ = items_ / list_size();
  return Status::OK();
}

Status LeafValues::Reserve(int64_t values, uint64_t data_bytes) {
  // A hint taken from page headers: a corrupt header must not make it allocate without bound
  // (real pages are ~8 MiB; beyond the cap the builders grow as usual).
  constexpr uint64_t kMaxReserve = uint64_t{64} << 20;
  if (values <= 0) return Status::OK();
  const uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(values), kMaxReserve);
  if (is_variable()) {
    QV_RETURN_IF_ERROR(offsets_.Reserve(std::min(n * (large_ ? 8 : 4), kMaxReserve)));
    return data_.Reserve(std::min(data_bytes, kMaxReserve));
  }
  if (value_bits_ < 8) return Status::OK();
  const uint64_t per_value =
      static_cast<uint64_t>(list_size()) * static_cast<uint64_t>(value_bits_ / 8);
  return data_.Reserve(std::min(n, kMaxReserve / per_value) * per_value);
}

Status LeafValues::AdoptFixed(std::shared_ptr<arrow::Buffer> data, int64_t items) {
  if (items_ != 0 || adopted_ != nullptr || is_variable() || value_bits_ % 8 != 0 ||
      data->size() < static_cast<uint64_t>(items) * static_cast<uint64_t>(value_bits_ / 8)) {
    return Status::Internal("LeafValues::AdoptFixed: not an empty fixed-width leaf");
  }
  adopted_ = std::move(data);
  items_ = items;
  length_ = items_ / list_size();
  if (is_fsl()) QV_RETURN_IF_ERROR(AppendItemValidity(nullptr, 0, items));
  return Status::OK();
}

Status LeafValues::AppendVariable(const uint8_t* offsets, int offset_width, int64_t n,
                                  const uint8_t* data, uint64_t data_size) {
  auto at = [&](int64_t i) -> uint64_t {
    if (offset_width == 8) {
      uint64_t v;
      std::memcpy(&v, offsets + 8 * i, 8);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, offsets + 4 * i, 4);
    return v;
  };
  const uint64_t first = at(0), last = at(n);
  if (first > last || last > data_size) {
    return Status::Corruption(fmt::format("variable-width offsets run from {} to {} over {} bytes",
                                          first, last, data_size));
  }
  const uint64_t base = data_.size();
  if (!large_ && base + (last - first) > static_cast<uint64_t>(INT32_MAX)) {
    return Status::Corruption("more than 2 GiB of string data in one page of a 32-bit type");
  }
  QV_RETURN_IF_ERROR(offsets_.Reserve(static_cast<uint64_t>(n) * (large_ ? 8 : 4)));
  uint64_t prev = first;
  for (int64_t i = 1; i <= n; ++i) {
    const uint64_t o = at(i);
    if (o < prev || o > last) {
      return Status::Corruption(fmt::format("variable-width offset {} of {} out of order", i, n));
    }
    prev = o;
    const uint64_t out = base + (o - first);
    QV_RETURN_IF_ERROR(large_ ? offsets_.AppendValue<int64_t>(static_cast<int64_t>(out))
                              : offsets_.AppendValue<int32_t>(static_cast<int32_t>(out)));
  }
  QV_RETURN_IF_ERROR(data_.Append(data + first, last - first));
  length_ += n;
  return Status::OK();
}

Result<LeafValues::VariableTarget> LeafValues::BeginVariable(int64_t n, uint64_t max_bytes) {
  if (!is_variable() || n < 0) return Status::Internal("LeafValues::BeginVariable: not variable");
  const int width = large_ ? 8 : 4;
  QV_RETURN_IF_ERROR(offsets_.Reserve(static_cast<uint64_t>(n) * width));
  QV_RETURN_IF_ERROR(data_.Reserve(max_bytes));
  return VariableTarget{data_.mutable_data() + data_.size(),
                        offsets_.mutable_data() + offsets_.size() - width, width, data_.size()};
}

Status LeafValues::EndVariable(int64_t n, uint64_t bytes) {
  const int width = large_ ? 8 : 4;
  const uint64_t end = data_.size() + bytes;
  if (static_cast<uint64_t>(n) * width > offsets_.capacity() - offsets_.size() ||
      bytes > data_.capacity() - data_.size()) {
    return Status::Internal("LeafValues::EndVariable: more than BeginVariable made room for");
  }
  if (!large_ && end > static_cast<uint64_t>(INT32_MAX)) {
    return Status::Corruption("more than 2 GiB of string data in one page of a 32-bit type");
  }
  const uint8_t* last = offsets_.data() + offsets_.size() + (n - 1) * width;
  uint64_t written = 0;
  std::memcpy(&written, last, width);  // little-endian: the low bytes of a u64
  if (n > 0 && written != end) {
    return Status::Internal("LeafValues::EndVariable: the offsets do not end at the data's end");
  }
  offsets_.Advance(static_cast<uint64_t>(n) * width);
  data_.Advance(bytes);
  length_ += n;
  return Status::OK();
}

Status LeafValues::AppendValue(std::string_view value) {
  const uint64_t end = data_.size() + value.size();
  if (!large_ && end > static_cast<uint64_t>(INT32_MAX)) {
    return Status::Corruption("more than 2 GiB of string data in one page of a 32-bit type");
  }
  QV_RETURN_IF_ERROR(data_.Append(value));
  QV_RETURN_IF_ERROR(large_ ? offsets_.AppendValue<int64_t>(static_cast<int64_t>(end))
                            : offsets_.AppendValue<int32_t>(static_cast<int32_t>(end)));
  ++length_;
  return Status::OK();
}

Status LeafValues::AppendItemValidity(const uint8_t* bits, int64_t bit_offset, int64_t items) {
  if (bits == nullptr && !item_validity_seen_) {
    // All valid so far: only count; the bitmap is materialized when a null first shows up.
    item_validity_bits_ += items;
    return Status::OK();
  }
  const int64_t start = item_validity_bits_;
  if (!item_validity_seen_) {
    item_validity_seen_ = true;
    QV_RETURN_IF_ERROR(item_validity_.Resize(arrow::BytesForBits(start + items)));
    arrow::SetBitRange(item_validity_.mutable_data(), 0, start);
  } else {
    QV_RETURN_IF_ERROR(item_validity_.Resize(arrow::BytesForBits(start + items)));
  }
  if (bits == nullptr) {
    arrow::SetBitRange(item_validity_.mutable_data(), start, items);
  } else {
    arrow::CopyBits(bits, bit_offset, items, item_validity_.mutable_data(), start);
  }
  item_validity_bits_ += items;
  return Status::OK();
}

Status LeafValues::AppendEmpty(int64_t n) {
  if (adopted_ != nullptr) return Status::Internal("LeafValues: append after AdoptFixed");
  if (is_variable()) {
    for (int64_t i = 0; i < n; ++i) QV_RETURN_IF_ERROR(AppendValue({}));
    return Status::OK();
  }
  const int64_t items = n * list_size();
  if (value_bits_ == 1) {
    QV_RETURN_IF_ERROR(data_.Resize(arrow::BytesForBits(items_ + items)));
  } else {
    QV_RETURN_IF_ERROR(data_.AppendZeros(static_cast<uint64_t>(items) * (value_bits_ / 8)));
  }
  if (is_fsl()) QV_RETURN_IF_ERROR(AppendItemValidity(nullptr, 0, items));
  items_ += items;
  length_ = items_ / list_size();
  return Status::OK();
}

Status LeafValues::AppendTaken(const arrow::ArrayData& dictionary, const int64_t* indices,
                               int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (indices[i] < 0 || indices[i] >= dictionary.length) {
      return Status::Corruption(
          fmt::format("dictionary index {} outside [0, {})", indices[i], dictionary.length));
    }
  }
  if (is_variable()) {
    for (int64_t i = 0; i < n; ++i) {
      QV_RETURN_IF_ERROR(AppendValue(arrow::BinaryValue(dictionary, indices[i])));
    }
    return Status::OK();
  }
  if (value_bits_ == 1 || is_fsl()) {
    return Status::Unsupported("dictionary-encoded " + type_.ToString() + " values");
  }
  const int64_t width = value_bits_ / 8;
  QV_RETURN_IF_ERROR(data_.Reserve(static_cast<uint64_t>(n) * width));
  for (int64_t i = 0; i < n; ++i) {
    QV_RETURN_IF_ERROR(data_.Append(arrow::FixedValue(dictionary, indices[i]).data(), width));
  }
  items_ += n;
  length_ = items_;
  return Status::OK();
}

Result<arrow::ArrayPtr> LeafValues::Finish() {
  auto out = std::make_shared<arrow::ArrayData>();
  out->type = type_;
  out->length = length_;
  if (is_variable()) {
    QV_ASSIGN_OR_RETURN(auto offsets, offsets_.Finish());
    QV_ASSIGN_OR_RETURN(auto data, data_.Finish());
    out->buffers = {nullptr, std::move(offsets), std::move(data)};
    return arrow::ArrayPtr(std::move(out));
  }
  std::shared_ptr<arrow::Buffer> data = std::move(adopted_);
  if (data == nullptr) {
    QV_ASSIGN_OR_RETURN(data, data_.Finish());
  }
  if (value_bits_ == 1 && data->size() < static_cast<uint64_t>(arrow::BytesForBits(items_))) {
    return Status::Internal("LeafValues: short boolean buffer");
  }
  if (!is_fsl()) {
    out->buffers = {nullptr, std::move(data)};
    return arrow::ArrayPtr(std::move(out));
  }
  auto items = std::make_shared<arrow::ArrayData>();
  items->type = type_.item().type;
  items->length = items_;
  std::shared_ptr<arrow::Buffer> validity;
  if (item_validity_seen_) {
    if (item_validity_bits_ != items_) {
      return Status::Corruption(fmt::format("fixed-size list item validity covers {} of {} items",
                                            item_validity_bits_, items_));
    }
    QV_ASSIGN_OR_RETURN(validity, item_validity_.Finish());
    items->null_count = items_ - arrow::CountSetBits(validity->data(), 0, items_);
    if (items->null_count == 0) validity.reset();
  }
  items->buffers = {std::move(validity), std::move(data)};
  out->buffers = {nullptr};
  out->children = {arrow::ArrayPtr(std::move(items))};
  return arrow::ArrayPtr(std::move(out));
}

}  // namespace quiver::format::internal
