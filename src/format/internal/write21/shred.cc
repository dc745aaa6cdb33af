#include "format/internal/write21/shred.h"

#include <cstring>

#include <fmt/format.h>

namespace quiver::format::internal {

using arrow::TypeId;

Result<std::unique_ptr<LeafShredder>> LeafShredder::Make(
    const arrow::DataType& top, std::vector<int> path, arrow::MemoryPool* pool,
    std::shared_ptr<const PackedStructLayout> packed) {
  std::unique_ptr<LeafShredder> s(new LeafShredder());
  s->pool_ = pool;
  s->packed_ = std::move(packed);
  s->path_ = path;
  const arrow::DataType* t = &top;
  s->types_.push_back(t);
  for (int c : path) {
    if (c < 0 || static_cast<size_t>(c) >= t->children().size()) {
      return Status::Internal("LeafShredder: path leaves the type");
    }
    t = &t->children()[static_cast<size_t>(c)].type;
    s->types_.push_back(t);
  }
  const size_t m = s->types_.size();
  for (size_t k = 0; k + 1 < m; ++k) {
    const TypeId id = s->types_[k]->id();
    if (id != TypeId::kStruct && !arrow::IsOffsetList(id)) {
      return Status::Internal("LeafShredder: a non-leaf layer of type " + s->types_[k]->ToString());
    }
  }
  s->is_list_.resize(m);
  for (size_t k = 0; k < m; ++k) {
    const TypeId id = s->types_[k]->id();
    s->is_list_[k] = k + 1 < m && arrow::IsOffsetList(id);
  }
  // General numbering, innermost first: an item claims "null", a list "null" then "empty".
  s->null_def_.assign(m, 0);
  s->empty_def_.assign(m, 0);
  uint16_t num = 0;
  for (size_t k = m; k-- > 0;) {
    s->null_def_[k] = ++num;
    if (s->is_list_[k]) s->empty_def_[k] = ++num;
  }
  // A stop at layer k has a value slot iff no list lies between k and the leaf.
  s->visible_stop_.assign(m, true);
  bool list_inside = false;
  for (size_t k = m; k-- > 0;) {
    s->visible_stop_[k] = !list_inside && !s->is_list_[k];
    if (s->is_list_[k]) list_inside = true;
  }
  // List depths: innermost list = 1; a continuing item of a list at depth d has rep d - 1.
  s->continue_rep_.assign(m, 0);
  int depth = 0;
  for (size_t k = m; k-- > 0;) {
    if (s->is_list_[k]) s->continue_rep_[k] = static_cast<uint16_t>(depth++);
  }
  s->max_rep_ = depth;
  const arrow::DataType& leaf = *s->types_.back();
  if (s->packed_ && leaf.id() != TypeId::kStruct) {
    return Status::Internal("LeafShredder: a packed leaf of type " + leaf.ToString());
  }
  s->storage_ = s->packed_                         ? s->packed_->row_type()
                : leaf.id() == TypeId::kDictionary ? leaf.dictionary_value()
                                                   : leaf;
  QV_ASSIGN_OR_RETURN(s->values_, LeafValues::Make(s->storage_, pool));
  return s;
}

uint64_t LeafShredder::buffered_bytes() const {
  const uint64_t value_bytes =
      values_->is_variable() ? 0
                             : static_cast<uint64_t>(values_->length()) * values_->list_size() *
                                   std::max<int64_t>(values_->value_bits(), 8) / 8;
  return 2 * (rep_.size() + def_.size()) + value_bytes + variable_bytes_;
}

Status LeafShredder::Append(const arrow::ArrayData& array) {
  if (types_.size() == 1 && array.type.id() != TypeId::kDictionary && !packed_) {
    return AppendFlat(array);
  }
  const uint16_t top_rep = static_cast<uint16_t>(max_rep_);
  for (int64_t i = 0; i < array.length; ++i) {
    QV_RETURN_IF_ERROR(Visit(0, array, i, top_rep));
  }
  rows_ += static_cast<uint64_t>(array.length);
  return Status::OK();
}

// A top-level leaf: one level per row, every slot visible, so values copy over in bulk (bytes
// under null slots included: Lance ignores them too).
Status LeafShredder::AppendFlat(const arrow::ArrayData& a) {
  const int64_t n = a.length;
  const size_t start = def_.size();
  def_.resize(start + static_cast<size_t>(n), 0);
  int64_t nulls = 0;
  if (a.buffers[0] != nullptr) {
    const uint8_t* bits = a.buffers[0]->data();
    for (int64_t i = 0; i < n; ++i) {
      const bool valid = arrow::GetBit(bits, a.offset + i);
      def_[start + static_cast<size_t>(i)] = valid ? 0 : null_def_[0];
      nulls += valid ? 0 : 1;
    }
  }
  valid_values_ += static_cast<uint64_t>(n - nulls);
  rows_ += static_cast<uint64_t>(n);
  if (n == 0) return Status::OK();
  if (values_->is_variable()) {
    const int width = arrow::IsLargeOffsets(a.type.id()) ? 8 : 4;
    const uint8_t* offsets = a.buffers[1]->data() + a.offset * width;
    const uint64_t before = variable_bytes_;
    int64_t first, last;
    if (width == 8) {
      std::memcpy(&first, offsets, 8);
      std::memcpy(&last, offsets + 8 * n, 8);
    } else {
      int32_t f, l;
      std::memcpy(&f, offsets, 4);
      std::memcpy(&l, offsets + 4 * n, 4);
      first = f, last = l;
    }
    variable_bytes_ = before + static_cast<uint64_t>(last - first) + 8 * static_cast<uint64_t>(n);
    return values_->AppendVariable(offsets, width, n, a.buffers[2]->data(), a.buffers[2]->size());
  }
  if (values_->is_fsl()) {
    const int64_t size = values_->list_size();
    const arrow::ArrayData& items = *a.children[0];
    const int64_t first = items.offset + a.offset * size;
    const bool has_validity = items.buffers[0] != nullptr;
    QV_RETURN_IF_ERROR(values_->AppendItemValidity(
        has_validity ? items.buffers[0]->data() : nullptr, first, n * size));
    if (values_->value_bits() == 1) {
      return values_->AppendFixed(items.buffers[1]->data(), n * size, first);
    }
    return values_->AppendFixed(items.buffers[1]->data() + first * (values_->value_bits() / 8),
                                n * size);
  }
  if (values_->value_bits() == 1) return values_->AppendFixed(a.buffers[1]->data(), n, a.offset);
  return values_->AppendFixed(a.buffers[1]->data() + a.offset * (values_->value_bits() / 8), n);
}

Status LeafShredder::Visit(size_t k, const arrow::ArrayData& a, int64_t i, uint16_t rep) {
  const size_t m = types_.size();
  if (arrow::IsNull(a, i)) {
    PushLevel(rep, null_def_[k]);
    if (!visible_stop_[k]) return Status::OK();
    if (packed_ && packed_->fixed_only() && k + 1 == m) {
      // A null packed row keeps its slot with the members' bytes under it, as Lance's does.
      row_.clear();
      packed_->AppendRow(a, i, &row_);
      return values_->AppendFixed(reinterpret_cast<const uint8_t*>(row_.data()), 1);
    }
    return PushNullValue();
  }
  if (k + 1 == m) {
    PushLevel(rep, 0);
    return PushValue(a, i);
  }
  const arrow::ArrayData& child = *a.children[static_cast<size_t>(path_[k])];
  if (!is_list_[k]) {  // a struct: its member's row i (the struct's offset applies)
    return Visit(k + 1, child, a.offset + i, rep);
  }
  auto [begin, end] = arrow::ListRange(a, i);
  if (begin == end) {
    PushLevel(rep, empty_def_[k]);
    return Status::OK();
  }
  for (int64_t j = begin; j < end; ++j) {
    QV_RETURN_IF_ERROR(Visit(k + 1, child, j, j == begin ? rep : continue_rep_[k]));
  }
  return Status::OK();
}

Status LeafShredder::PushValue(const arrow::ArrayData& leaf, int64_t i) {
  ++valid_values_;
  if (packed_) {
    row_.clear();
    packed_->AppendRow(leaf, i, &row_);
    if (!packed_->fixed_only()) {
      variable_bytes_ += row_.size() + 8;
      return values_->AppendValue(row_);
    }
    return values_->AppendFixed(reinterpret_cast<const uint8_t*>(row_.data()), 1);
  }
  if (leaf.type.id() == TypeId::kDictionary) {
    const int64_t index = arrow::DictionaryIndex(leaf, i);
    return PushValue(*leaf.dictionary, index);
  }
  if (values_->is_variable()) {
    std::string_view v = arrow::BinaryValue(leaf, i);
    variable_bytes_ += v.size() + 8;
    return values_->AppendValue(v);
  }
  if (values_->is_fsl()) {
    const int64_t size = values_->list_size();
    const arrow::ArrayData& items = *leaf.children[0];
    const int64_t first = (leaf.offset + i) * size;
    const bool has_validity = items.buffers[0] != nullptr;
    QV_RETURN_IF_ERROR(values_->AppendItemValidity(
        has_validity ? items.buffers[0]->data() : nullptr, items.offset + first, size));
    if (values_->value_bits() == 1) {
      return values_->AppendFixed(items.buffers[1]->data(), size, items.offset + first);
    }
    return values_->AppendFixed(
        items.buffers[1]->data() + (items.offset + first) * (values_->value_bits() / 8), size);
  }
  if (values_->value_bits() == 1) {
    return values_->AppendFixed(leaf.buffers[1]->data(), 1, leaf.offset + i);
  }
  return values_->AppendFixed(
      leaf.buffers[1]->data() + (leaf.offset + i) * (values_->value_bits() / 8), 1);
}

Status LeafShredder::PushNullValue() { return values_->AppendEmpty(1); }

Result<LeafPageData> LeafShredder::TakePage() {
  LeafPageData page;
  page.rows = rows_;
  page.num_levels = def_.size();
  page.num_valid_values = valid_values_;
  page.dictionary_type = types_.back()->id() == TypeId::kDictionary;
  page.packed = packed_;
  const size_t m = types_.size();
  // Which general numbers occur, then Lance's layer kinds and numbering for this page.
  std::vector<bool> used(2 * m + 2, false);
  for (uint16_t d : def_) used[d] = true;
  std::vector<uint16_t> remap(2 * m + 2, 0);
  uint16_t num = 0;
  for (size_t k = m; k-- > 0;) {  // innermost first
    const bool has_null = used[null_def_[k]];
    const bool has_empty = is_list_[k] && used[empty_def_[k]];
    if (has_null) remap[null_def_[k]] = ++num;
    if (has_empty) remap[empty_def_[k]] = ++num;
    LayerKind kind;
    if (!is_list_[k]) {
      kind = has_null ? LayerKind::kNullableItem : LayerKind::kAllValidItem;
    } else if (has_null && has_empty) {
      kind = LayerKind::kNullAndEmptyList;
    } else if (has_null) {
      kind = LayerKind::kNullableList;
    } else if (has_empty) {
      kind = LayerKind::kEmptyableList;
    } else {
      kind = LayerKind::kAllValidList;
    }
    page.layers.push_back(kind);
  }
  if (num > 0) {
    page.def = std::move(def_);
    for (uint16_t& d : page.def) d = remap[d];
  }
  page.rep = std::move(rep_);
  QV_ASSIGN_OR_RETURN(page.values, values_->Finish());
  // Start over.
  rows_ = 0;
  valid_values_ = 0;
  variable_bytes_ = 0;
  def_.clear();
  rep_.clear();
  QV_ASSIGN_OR_RETURN(values_, LeafValues::Make(storage_, pool_));
  return page;
}

}  // namespace quiver::format::internal
