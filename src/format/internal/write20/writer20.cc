#include "format/internal/write20/writer20.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "format/arrow_schema.h"
#include "format/internal/write20/values20.h"

namespace quiver::format::internal {

namespace pb20 = lance::encodings;
using arrow::ArrayData;
using arrow::DataType;
using arrow::TypeId;

namespace {

// Rows appended before a field's bytes per row are known (its first slice).
constexpr uint64_t kProbeRows = 64;
// The fewest rows a slice takes once bytes per row are known (unless the batch has fewer left):
// a page may then pass page_bytes by a few rows, but a small page_bytes or wide rows do not turn
// every row into a slice of its own (a Slice and an Append per column each).
constexpr uint64_t kMinSliceRows = 8;

// A view of `a` without its validity: a field that is not nullable never stores nulls (Arrow
// lets a non-nullable member be null under a null struct; lance keeps the values then).
ArrayData WithoutValidity(const ArrayData& a) {
  ArrayData copy = a;
  if (!copy.buffers.empty()) copy.buffers[0] = nullptr;
  copy.null_count = 0;
  return copy;
}

Status Emit(uint32_t column, uint64_t rows, pb20::ArrayEncoding encoding, PageBuffers20 buffers,
            const PageSink20& sink) {
  EncodedPage20 page;
  page.column = column;
  page.rows = rows;
  page.encoding = std::move(encoding);
  page.buffers = std::move(buffers.buffers);
  return sink(std::move(page));
}

}  // namespace

// The writer of one field's columns.
class WriteNode20 {
 public:
  virtual ~WriteNode20() = default;
  // Appends every row of `a`; `mask` as in values20.h.
  virtual Status Append(const ArrayData& a, const uint8_t* mask, const PageSink20& sink) = 0;
  virtual uint64_t buffered_bytes() const = 0;
  // Cuts a page in every column of the field except struct headers.
  virtual Status Flush(const PageSink20& sink) = 0;
  // Pages only written at the end (struct headers).
  virtual Status Finish(const PageSink20& /*sink*/) { return Status::OK(); }
};

namespace {

template <typename Values>
class LeafNode final : public WriteNode20 {
 public:
  LeafNode(uint32_t column, bool nullable, std::unique_ptr<Values> values)
      : column_(column), nullable_(nullable), values_(std::move(values)) {}

  Status Append(const ArrayData& a, const uint8_t* mask, const PageSink20&) override {
    if (nullable_) {
      values_->Append(a, mask);
    } else {
      values_->Append(WithoutValidity(a), nullptr);
    }
    return Status::OK();
  }
  uint64_t buffered_bytes() const override { return values_->buffered_bytes(); }
  Status Flush(const PageSink20& sink) override {
    const uint64_t rows = values_->rows();
    PageBuffers20 buffers;
    pb20::ArrayEncoding encoding = values_->Take(&buffers);
    return Emit(column_, rows, std::move(encoding), std::move(buffers), sink);
  }

 private:
  uint32_t column_;
  bool nullable_;
  std::unique_ptr<Values> values_;
};

// An Arrow dictionary column: per page, the distinct values in order of first appearance and
// 0-based indices of the field's index type. Like lance, nulls are a null item (the last one)
// rather than null indices.
class DictionaryNode final : public WriteNode20 {
 public:
  DictionaryNode(uint32_t column, bool nullable, const DataType& type)
      : column_(column),
        nullable_(nullable),
        index_bytes_(static_cast<size_t>(arrow::IntegerByteWidth(type.index_type()))) {
    const DataType& value = type.dictionary_value();
    binary_ = arrow::IsBinaryLike(value.id());
    if (binary_) {
      binary_items_ = std::make_unique<BinaryValues20>();
    } else {
      fixed_items_ = std::make_unique<FixedValues20>(value);
    }
    // Room for every index up to the type's maximum, the last one kept for the null item.
    const size_t bits = index_bytes_ * 8 - (arrow::IsSignedInteger(type.index_type()) ? 1 : 0);
    max_distinct_ = bits >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
  }

  Status Append(const ArrayData& a, const uint8_t* mask, const PageSink20& sink) override {
    if (a.length == 0) return Status::OK();
    const ArrayData& dict = *a.dictionary;
    for (int64_t i = 0; i < a.length; ++i) {
      bool valid = nullable_ ? RowValid(a, i, mask) : arrow::IsValid(a, i);
      const int64_t k = valid ? arrow::DictionaryIndex(a, i) : -1;
      if (valid && arrow::IsNull(dict, k)) valid = false;
      if (!valid) {
        PushIndex(kNullMark);
        ++nulls_;
        continue;
      }
      const std::string_view bytes =
          binary_ ? arrow::BinaryValue(dict, k) : arrow::FixedValue(dict, k);
      auto it = lookup_.find(bytes);  // transparent: no string made per row
      if (it == lookup_.end()) {
        if (lookup_.size() >= max_distinct_) QV_RETURN_IF_ERROR(Flush(sink));
        it = lookup_.emplace(std::string(bytes), lookup_.size()).first;
        if (binary_) {
          binary_items_->AppendValue(bytes);
        } else {
          fixed_items_->AppendValue(bytes);
        }
        item_bytes_ += bytes.size();
      }
      PushIndex(it->second);
    }
    return Status::OK();
  }

  // What the page holds in memory: the indices at their width, each item twice (the items
  // buffer and its lookup key) and a lookup node per item.
  uint64_t buffered_bytes() const override {
    return indices_.size() + item_bytes_ * 2 + lookup_.size() * kLookupEntryBytes;
  }

  Status Flush(const PageSink20& sink) override {
    const uint64_t rows = indices_.size() / index_bytes_;
    const bool need_null = rows == 0 || nulls_ > 0;  // lance gives an empty page a null item too
    const uint64_t null_index = lookup_.size();
    if (need_null) {
      if (binary_) {
        binary_items_->AppendNull();
      } else {
        fixed_items_->AppendNull();
      }
    }
    if (nulls_ > 0) {
      // The null item's index is only known now that the page's values are.
      for (uint64_t i = 0; i < rows; ++i) {
        char* at = indices_.data() + i * index_bytes_;
        uint64_t v = 0;
        std::memcpy(&v, at, index_bytes_);
        if (v == (kNullMark & WidthMask())) std::memcpy(at, &null_index, index_bytes_);
      }
    }
    PageBuffers20 buffers;
    pb20::ArrayEncoding encoding;
    pb20::Dictionary* d = encoding.mutable_dictionary();
    *d->mutable_indices()->mutable_nullable()->mutable_no_nulls()->mutable_values() =
        Flat20(static_cast<uint64_t>(index_bytes_) * 8, buffers.Add(std::move(indices_)));
    *d->mutable_items() = binary_ ? binary_items_->Take(&buffers) : fixed_items_->Take(&buffers);
    d->set_num_dictionary_items(static_cast<uint32_t>(null_index + (need_null ? 1 : 0)));
    lookup_.clear();
    indices_.clear();
    nulls_ = 0;
    item_bytes_ = 0;
    return Emit(column_, rows, std::move(encoding), std::move(buffers), sink);
  }

 private:
  // Null rows hold all ones until the page is cut: no value gets that index (values stay below
  // max_distinct_, itself at most all ones).
  static constexpr uint64_t kNullMark = std::numeric_limits<uint64_t>::max();
  // An unordered_map node of (string, uint64_t) with its hash and bucket slot, besides the key's
  // bytes (counted in item_bytes_).
  static constexpr uint64_t kLookupEntryBytes = 64;

  // Lookups by string_view without building a std::string per row.
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  uint64_t WidthMask() const {
    return index_bytes_ >= 8 ? std::numeric_limits<uint64_t>::max()
                             : (uint64_t{1} << (index_bytes_ * 8)) - 1;
  }
  void PushIndex(uint64_t v) {
    const size_t at = indices_.size();
    indices_.resize(at + index_bytes_);
    std::memcpy(indices_.data() + at, &v, index_bytes_);  // little-endian: the low bytes
  }

  uint32_t column_;
  bool nullable_;
  size_t index_bytes_;
  bool binary_ = false;
  uint64_t max_distinct_ = 0;
  std::unique_ptr<BinaryValues20> binary_items_;
  std::unique_ptr<FixedValues20> fixed_items_;
  std::unordered_map<std::string, uint64_t, ViewHash, std::equal_to<>> lookup_;
  std::string indices_;  // index_bytes_ per row, little-endian
  uint64_t nulls_ = 0;
  uint64_t item_bytes_ = 0;
};

// A list's offsets column (§5 List): per row the end of its items counted from the page's first
// item, null rows carrying null_offset_adjustment (items in the page + 1) on top. Null lists keep
// whatever items Arrow has under them, as lance does; the items go to the item node unchanged.
class ListNode final : public WriteNode20 {
 public:
  ListNode(uint32_t column, bool nullable, std::unique_ptr<WriteNode20> items)
      : column_(column), nullable_(nullable), item_node_(std::move(items)) {}

  Status Append(const ArrayData& a, const uint8_t* mask, const PageSink20& sink) override {
    const int64_t n = a.length;
    if (n == 0) return Status::OK();
    const int64_t first = arrow::OffsetValue(a, 0);
    const int64_t last = arrow::OffsetValue(a, n);
    for (int64_t i = 0; i < n; ++i) {
      ends_.push_back(items_ + static_cast<uint64_t>(arrow::OffsetValue(a, i + 1) - first));
      valid_.push_back(!nullable_ || RowValid(a, i, mask) ? 1 : 0);
    }
    items_ += static_cast<uint64_t>(last - first);
    return item_node()->Append(*arrow::Slice(a.children[0], first, last - first), nullptr, sink);
  }

  uint64_t buffered_bytes() const override {
    return ends_.size() * 9 + item_node()->buffered_bytes();
  }

  Status Flush(const PageSink20& sink) override {
    const uint64_t adjustment = items_ + 1;
    for (size_t i = 0; i < ends_.size(); ++i) {
      if (valid_[i] == 0) ends_[i] += adjustment;
    }
    PageBuffers20 buffers;
    pb20::ArrayEncoding encoding;
    pb20::List* list = encoding.mutable_list();
    *list->mutable_offsets() = PlainU64s20(ends_, &buffers);
    list->set_null_offset_adjustment(adjustment);
    list->set_num_items(items_);
    const uint64_t rows = ends_.size();
    ends_.clear();
    valid_.clear();
    items_ = 0;
    QV_RETURN_IF_ERROR(Emit(column_, rows, std::move(encoding), std::move(buffers), sink));
    // The items page ends with this offsets page (even when empty, as lance writes it).
    return item_node()->Flush(sink);
  }

  Status Finish(const PageSink20& sink) override { return item_node()->Finish(sink); }

 private:
  WriteNode20* item_node() const { return item_node_.get(); }

  uint32_t column_;
  bool nullable_;
  std::unique_ptr<WriteNode20> item_node_;
  std::vector<uint64_t> ends_;
  std::vector<uint8_t> valid_;
  uint64_t items_ = 0;  // items referenced by the rows buffered
};

// A struct's header column (one SimpleStruct page at Finish, rows = every row written) and its
// members. A 2.0 file cannot say a struct is null: Lance 8 wrote a null struct as a struct of
// nulls, Lance 12 refuses it (lance#8507: the data would not read back as written), and so does
// quiver, with Lance 12's message.
class StructNode final : public WriteNode20 {
 public:
  StructNode(std::string name, uint32_t column, std::vector<std::unique_ptr<WriteNode20>> members)
      : name_(std::move(name)), column_(column), members_(std::move(members)) {}

  Status Append(const ArrayData& a, const uint8_t* mask, const PageSink20& sink) override {
    int64_t nulls = 0;
    if (!a.buffers.empty() && a.buffers[0] != nullptr) {
      for (int64_t i = 0; i < a.length; ++i) nulls += arrow::IsNull(a, i) ? 1 : 0;
    }
    if (nulls > 0) {
      return Status::InvalidInput(fmt::format(
          "The struct field `{}` contains {} null value(s), but Lance file version 2.0 does not "
          "encode struct validity; use file version 2.1 or later",
          name_, nulls));
    }
    rows_ += static_cast<uint64_t>(a.length);
    for (size_t k = 0; k < members_.size(); ++k) {
      QV_RETURN_IF_ERROR(
          members_[k]->Append(*arrow::StructField(a, static_cast<int>(k)), mask, sink));
    }
    return Status::OK();
  }

  uint64_t buffered_bytes() const override {
    uint64_t bytes = 0;
    for (const auto& m : members_) bytes += m->buffered_bytes();
    return bytes;
  }

  Status Flush(const PageSink20& sink) override {
    for (auto& m : members_) QV_RETURN_IF_ERROR(m->Flush(sink));
    return Status::OK();
  }

  Status Finish(const PageSink20& sink) override {
    pb20::ArrayEncoding encoding;
    encoding.mutable_simple_struct();
    QV_RETURN_IF_ERROR(Emit(column_, rows_, std::move(encoding), PageBuffers20{}, sink));
    for (auto& m : members_) QV_RETURN_IF_ERROR(m->Finish(sink));
    return Status::OK();
  }

 private:
  std::string name_;
  uint32_t column_;
  std::vector<std::unique_ptr<WriteNode20>> members_;
  uint64_t rows_ = 0;
};

Result<std::unique_ptr<WriteNode20>> MakeNode(const SchemaField& field, const arrow::Field& arrow,
                                              uint32_t* next_column) {
  const DataType& type = arrow.type;
  const uint32_t column = (*next_column)++;
  const TypeId id = type.id();
  auto unsupported = [&]() {
    return Status::Unsupported(fmt::format("a Lance 2.0 file cannot hold field '{}' of type {}",
                                           field.name, type.ToString()));
  };
  if (id == TypeId::kStruct) {
    if (field.children.size() != type.children().size()) {
      return Status::Internal(fmt::format("struct field '{}' has {} Lance children for {} members",
                                          field.name, field.children.size(),
                                          type.children().size()));
    }
    std::vector<std::unique_ptr<WriteNode20>> members;
    for (size_t k = 0; k < field.children.size(); ++k) {
      QV_ASSIGN_OR_RETURN(auto member,
                          MakeNode(field.children[k], type.children()[k], next_column));
      members.push_back(std::move(member));
    }
    return std::unique_ptr<WriteNode20>(
        std::make_unique<StructNode>(field.name, column, std::move(members)));
  }
  if (id == TypeId::kList || id == TypeId::kLargeList) {
    if (field.children.size() != 1) {
      return Status::Internal(
          fmt::format("list field '{}' has {} Lance children", field.name, field.children.size()));
    }
    QV_ASSIGN_OR_RETURN(auto item, MakeNode(field.children[0], type.item(), next_column));
    return std::unique_ptr<WriteNode20>(
        std::make_unique<ListNode>(column, arrow.nullable, std::move(item)));
  }
  if (id == TypeId::kDictionary) {
    const DataType& value = type.dictionary_value();
    if (!arrow::IsBinaryLike(value.id()) &&
        !(arrow::IsFixedWidth(value) && value.id() != TypeId::kBool)) {
      return unsupported();
    }
    return std::unique_ptr<WriteNode20>(
        std::make_unique<DictionaryNode>(column, arrow.nullable, type));
  }
  if (arrow::IsBinaryLike(id)) {
    return std::unique_ptr<WriteNode20>(std::make_unique<LeafNode<BinaryValues20>>(
        column, arrow.nullable, std::make_unique<BinaryValues20>()));
  }
  if (FixedValues20::Supports(type)) {
    return std::unique_ptr<WriteNode20>(std::make_unique<LeafNode<FixedValues20>>(
        column, arrow.nullable, std::make_unique<FixedValues20>(type)));
  }
  return unsupported();
}

}  // namespace

struct FileWriter20::Field {
  std::unique_ptr<WriteNode20> node;
  uint64_t pending_rows = 0;
  uint64_t row_bytes = 0;  // bytes per row of the last page, 0 before the first
};

FileWriter20::~FileWriter20() = default;

Result<std::unique_ptr<FileWriter20>> FileWriter20::Make(const Schema& schema,
                                                         const arrow::Schema& arrow_schema,
                                                         uint64_t page_bytes) {
  if (schema.fields.size() != arrow_schema.fields.size()) {
    return Status::Internal("Lance and Arrow schemas of different sizes");
  }
  std::unique_ptr<FileWriter20> writer(new FileWriter20());
  writer->page_bytes_ = page_bytes;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    Field f;
    QV_ASSIGN_OR_RETURN(f.node,
                        MakeNode(schema.fields[i], arrow_schema.fields[i], &writer->num_columns_));
    writer->fields_.push_back(std::move(f));
  }
  return writer;
}

Status FileWriter20::Write(const arrow::RecordBatch& batch, const PageSink20& sink) {
  const uint64_t n = static_cast<uint64_t>(batch.length);
  for (size_t i = 0; i < fields_.size(); ++i) {
    Field& f = fields_[i];
    // Appended in slices sized from the bytes per row seen so far, so that a large batch still
    // gives pages of about page_bytes.
    uint64_t at = 0;
    while (at < n) {
      uint64_t take = std::min<uint64_t>(n - at, kProbeRows);
      const uint64_t buffered = f.node->buffered_bytes();
      const uint64_t per_row = f.pending_rows > 0 && buffered > 0
                                   ? (buffered + f.pending_rows - 1) / f.pending_rows
                                   : f.row_bytes;
      if (per_row > 0) {
        const uint64_t room = page_bytes_ > buffered ? page_bytes_ - buffered : 0;
        take = std::min<uint64_t>(n - at, std::max<uint64_t>(room / per_row + 1, kMinSliceRows));
      }
      const arrow::ArrayPtr part = take == n
                                       ? batch.columns[i]
                                       : arrow::Slice(batch.columns[i], static_cast<int64_t>(at),
                                                      static_cast<int64_t>(take));
      QV_RETURN_IF_ERROR(f.node->Append(*part, nullptr, sink));
      f.pending_rows += take;
      at += take;
      if (f.node->buffered_bytes() >= page_bytes_) {
        f.row_bytes = std::max<uint64_t>(1, f.node->buffered_bytes() / f.pending_rows);
        QV_RETURN_IF_ERROR(f.node->Flush(sink));
        f.pending_rows = 0;
      }
    }
  }
  return Status::OK();
}

Status FileWriter20::Finish(const PageSink20& sink) {
  for (Field& f : fields_) {
    if (f.pending_rows > 0) QV_RETURN_IF_ERROR(f.node->Flush(sink));
    f.pending_rows = 0;
    QV_RETURN_IF_ERROR(f.node->Finish(sink));
  }
  return Status::OK();
}

void CollectFieldIds20(const SchemaField& field, std::vector<int32_t>* ids) {
  ids->push_back(field.id);
  if (IsLeaf21(field)) return;  // the same fields own no child columns in 2.0 as in 2.1
  for (const auto& child : field.children) CollectFieldIds20(child, ids);
}

}  // namespace quiver::format::internal
