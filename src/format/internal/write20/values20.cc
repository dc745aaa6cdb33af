#include "format/internal/write20/values20.h"

#include <cstring>

namespace quiver::format::internal {

namespace pb20 = lance::encodings;
using arrow::TypeId;

namespace {

std::string Bitmap(const std::vector<uint8_t>& flags) {
  std::string bits(static_cast<size_t>(arrow::BytesForBits(static_cast<int64_t>(flags.size()))),
                   '\0');
  auto* out = reinterpret_cast<uint8_t*>(bits.data());
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] != 0) arrow::SetBit(out, static_cast<int64_t>(i));
  }
  return bits;
}

}  // namespace

pb20::ArrayEncoding Flat20(uint64_t bits, uint32_t buffer) {
  pb20::ArrayEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  e.mutable_flat()->mutable_buffer()->set_index(buffer);
  return e;
}

pb20::ArrayEncoding PlainU64s20(const std::vector<uint64_t>& values, PageBuffers20* out) {
  std::string bytes(values.size() * 8, '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());  // little-endian
  pb20::ArrayEncoding e;
  *e.mutable_nullable()->mutable_no_nulls()->mutable_values() =
      Flat20(64, out->Add(std::move(bytes)));
  return e;
}

// ---- FixedValues20 ----

bool FixedValues20::Supports(const arrow::DataType& type) {
  if (type.id() == TypeId::kFixedSizeList) return Supports(type.item().type);
  return type.id() == TypeId::kNull || arrow::IsFixedWidth(type);
}

FixedValues20::FixedValues20(const arrow::DataType& type) : type_(type) {
  if (type.id() == TypeId::kFixedSizeList) {
    items_ = std::make_unique<FixedValues20>(type.item().type);
  } else if (type.id() != TypeId::kNull) {
    bits_ = arrow::BitWidth(type);
  }
}

void FixedValues20::PushValidity(bool valid) {
  valid_.push_back(valid ? 1 : 0);
  if (!valid) ++nulls_;
}

void FixedValues20::Append(const arrow::ArrayData& a, const uint8_t* mask) {
  const int64_t n = a.length;
  if (n == 0) return;
  for (int64_t i = 0; i < n; ++i) PushValidity(RowValid(a, i, mask));
  const TypeId id = type_.id();
  if (id == TypeId::kFixedSizeList) {
    // Items under null lists are kept as they are: the list's validity hides them.
    items_->Append(*arrow::StructField(a, 0), nullptr);
  } else if (id == TypeId::kBool) {
    values_.resize(static_cast<size_t>(arrow::BytesForBits(static_cast<int64_t>(rows_) + n)));
    auto* bits = reinterpret_cast<uint8_t*>(values_.data());
    for (int64_t i = 0; i < n; ++i) {
      if (arrow::BoolValue(a, i)) arrow::SetBit(bits, static_cast<int64_t>(rows_) + i);
    }
  } else if (id != TypeId::kNull && bits_ > 0) {
    const int64_t width = bits_ / 8;
    values_.append(reinterpret_cast<const char*>(a.buffers[1]->data()) + a.offset * width,
                   static_cast<size_t>(n * width));
  }
  rows_ += static_cast<uint64_t>(n);
}

void FixedValues20::AppendValue(std::string_view bytes) {
  PushValidity(true);
  values_.append(bytes);
  ++rows_;
}

void FixedValues20::AppendNull() {
  PushValidity(false);
  if (items_) {
    for (int32_t k = 0; k < type_.list_size(); ++k) items_->AppendNull();
  } else if (type_.id() == TypeId::kBool) {
    values_.resize(static_cast<size_t>(arrow::BytesForBits(static_cast<int64_t>(rows_) + 1)));
  } else {
    values_.append(static_cast<size_t>(bits_ / 8), '\0');
  }
  ++rows_;
}

uint64_t FixedValues20::buffered_bytes() const {
  return valid_.size() + values_.size() + (items_ ? items_->buffered_bytes() : 0);
}

pb20::ArrayEncoding FixedValues20::Take(PageBuffers20* out) {
  pb20::ArrayEncoding e;
  pb20::Nullable* nullable = e.mutable_nullable();
  pb20::ArrayEncoding* values = nullptr;
  if (rows_ == 0 || nulls_ == rows_) {
    nullable->mutable_all_nulls();  // no buffers at all
  } else if (nulls_ == 0) {
    values = nullable->mutable_no_nulls()->mutable_values();
  } else {
    auto* some = nullable->mutable_some_nulls();
    *some->mutable_validity() = Flat20(1, out->Add(Bitmap(valid_)));
    values = some->mutable_values();
  }
  if (values != nullptr) {
    if (items_) {
      auto* fsl = values->mutable_fixed_size_list();
      fsl->set_dimension(static_cast<uint32_t>(type_.list_size()));
      *fsl->mutable_items() = items_->Take(out);
      fsl->set_has_validity(false);
    } else {
      *values = Flat20(static_cast<uint64_t>(bits_), out->Add(std::move(values_)));
    }
  } else if (items_) {
    PageBuffers20 dropped;
    items_->Take(&dropped);
  }
  rows_ = nulls_ = 0;
  valid_.clear();
  values_.clear();
  return e;
}

// ---- BinaryValues20 ----

void BinaryValues20::Append(const arrow::ArrayData& a, const uint8_t* mask) {
  for (int64_t i = 0; i < a.length; ++i) {
    if (RowValid(a, i, mask)) {
      AppendValue(arrow::BinaryValue(a, i));
    } else {
      AppendNull();  // null rows take no bytes (lance would keep whatever Arrow had there)
    }
  }
}

void BinaryValues20::AppendValue(std::string_view bytes) {
  data_.append(bytes);
  ends_.push_back(data_.size());
  valid_.push_back(1);
}

void BinaryValues20::AppendNull() {
  ends_.push_back(data_.size());
  valid_.push_back(0);
}

pb20::ArrayEncoding BinaryValues20::Take(PageBuffers20* out) {
  // A null row's end carries null_adjustment (> every end) on top (§5 Binary).
  const uint64_t adjustment = ends_.empty() ? 0 : ends_.back() + 1;
  for (size_t i = 0; i < ends_.size(); ++i) {
    if (valid_[i] == 0) ends_[i] += adjustment;
  }
  pb20::ArrayEncoding e;
  pb20::Binary* binary = e.mutable_binary();
  *binary->mutable_indices() = PlainU64s20(ends_, out);
  *binary->mutable_bytes() = Flat20(8, out->Add(std::move(data_)));
  binary->set_null_adjustment(adjustment);
  ends_.clear();
  valid_.clear();
  data_.clear();
  return e;
}

}  // namespace quiver::format::internal
