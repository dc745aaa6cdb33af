#include "format/internal/read20/nodes20.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "format/internal/read20/decode20.h"

namespace quiver::format::internal {

namespace {

using arrow::ArrayPtr;
using arrow::DataType;
using arrow::TypeId;

// A read covering several buffers may include the gaps between them, but not much more.
constexpr uint64_t kMaxGapBytes = 1 << 20;

// An array of `type` with no rows.
Result<ArrayPtr> Empty(const DataType& type, arrow::MemoryPool* pool) {
  QV_ASSIGN_OR_RETURN(ArrayPtr a, arrow::MakeNullArray(type, 0, pool));
  auto out = std::make_shared<arrow::ArrayData>(*a);
  out->null_count = 0;
  if (!out->buffers.empty()) out->buffers[0] = nullptr;
  return ArrayPtr(std::move(out));
}

Result<ArrayPtr> Join(std::vector<ArrayPtr> pieces, const DataType& type, arrow::MemoryPool* pool) {
  if (pieces.empty()) return Empty(type, pool);
  if (pieces.size() == 1) return std::move(pieces[0]);
  return arrow::Concatenate(pieces, pool);
}

// The pages of one column and where a cursor stands in them.
class PageWalker {
 public:
  PageWalker(const NodeContext20& context, uint32_t column) : context_(context), column_(column) {}

  const PageInfo* page() const {
    const auto& pages = context_.container->columns[column_].pages;
    return page_ < pages.size() ? &pages[page_] : nullptr;
  }
  uint64_t row_in_page() const { return row_; }
  uint64_t left() const { return page()->rows - row_; }
  void Advance(uint64_t rows) { row_ += rows; }
  void NextPage() {
    ++page_;
    row_ = 0;
    bytes_.clear();
    bytes_.shrink_to_fit();
  }

  std::string Where() const {
    return fmt::format("{} column {} page {}", context_.container->what, column_, page_);
  }
  Status Exhausted() const {
    return Status::Corruption(
        fmt::format("{} column {}: fewer rows than the file", context_.container->what, column_));
  }

  Result<lance::encodings::ArrayEncoding> Encoding() const {
    return PageEncoding20(*context_.container, column_, page_);
  }

  // The current page's buffers, read with as few requests as reasonable. The views stay valid
  // until the next Load or NextPage.
  Result<std::vector<std::string_view>> Load() {
    const PageInfo& info = *page();
    uint64_t begin = UINT64_MAX, end = 0, total = 0;
    for (const auto& b : info.buffers) {
      if (b.size == 0) continue;
      begin = std::min(begin, b.offset);
      end = std::max(end, b.offset + b.size);
      total += b.size;
    }
    bytes_.clear();
    std::vector<std::pair<uint64_t, uint64_t>> at;  // (position in bytes_, size) per buffer
    if (end > 0 && end - begin <= 2 * total + kMaxGapBytes) {
      QV_ASSIGN_OR_RETURN(bytes_, Read(begin, end - begin));
      for (const auto& b : info.buffers) at.push_back({b.size == 0 ? 0 : b.offset - begin, b.size});
    } else {
      // Buffers far apart: one read each.
      for (const auto& b : info.buffers) {
        at.push_back({bytes_.size(), b.size});
        if (b.size == 0) continue;
        QV_ASSIGN_OR_RETURN(std::string part, Read(b.offset, b.size));
        bytes_ += part;
      }
    }
    std::vector<std::string_view> views;
    for (const auto& [pos, size] : at) {
      views.push_back(size == 0 ? std::string_view() : std::string_view(bytes_).substr(pos, size));
    }
    return views;
  }

  void Release() {
    bytes_.clear();
    bytes_.shrink_to_fit();
  }

 private:
  Result<std::string> Read(uint64_t offset, uint64_t size) {
    QV_ASSIGN_OR_RETURN(GetResult got, context_.store->Get(context_.key, ByteRange{offset, size}));
    if (got.data.size() != size) {
      return Status::Corruption(Where() + ": the file is shorter than its metadata says");
    }
    return std::move(got.data);
  }

  NodeContext20 context_;
  uint32_t column_;
  size_t page_ = 0;
  uint64_t row_ = 0;
  std::string bytes_;
};

// How many of `rows` the walker's current page can give (at least one): pages with no rows left
// are passed (`next_page`), and the current one is loaded (`load_page`) unless `ready`.
template <typename NextPageFn, typename LoadPageFn>
Result<uint64_t> NextRun(PageWalker& walker, const bool& ready, uint64_t rows, NextPageFn next_page,
                         LoadPageFn load_page) {
  while (true) {
    if (walker.page() == nullptr) return walker.Exhausted();
    if (walker.left() == 0) {
      next_page();
      continue;
    }
    if (!ready) QV_RETURN_IF_ERROR(load_page());
    return std::min(rows, walker.left());
  }
}

// A column of values: primitives, strings, fixed-size lists, dictionaries, packed structs.
class LeafNode final : public ColumnNode20 {
 public:
  LeafNode(const NodeContext20& context, uint32_t column, DataType type)
      : context_(context), walker_(context, column), type_(std::move(type)) {
    if (type_.id() == TypeId::kDictionary) {
      storage_ = type_.dictionary_value();
      options_.dictionary_index = type_.index_type();
    } else {
      storage_ = type_;
    }
  }

  Status Skip(uint64_t rows) override {
    // Pages are decoded whole when taken, so skipping never needs to decode.
    while (rows > 0) {
      if (walker_.page() == nullptr) return walker_.Exhausted();
      const uint64_t n = std::min(rows, walker_.left());
      walker_.Advance(n);
      rows -= n;
      if (walker_.left() == 0) NextPage();
    }
    return Status::OK();
  }

  Result<ArrayPtr> Take(uint64_t rows) override {
    std::vector<ArrayPtr> pieces;
    while (rows > 0) {
      QV_ASSIGN_OR_RETURN(const uint64_t n, NextRun(
                                                walker_, ready_, rows, [this] { NextPage(); },
                                                [this] { return LoadPage(); }));
      if (decoded_ == nullptr) {
        QV_ASSIGN_OR_RETURN(ArrayPtr nulls,
                            arrow::MakeNullArray(storage_, static_cast<int64_t>(n), context_.pool));
        pieces.push_back(std::move(nulls));
      } else {
        pieces.push_back(arrow::Slice(decoded_, static_cast<int64_t>(walker_.row_in_page()),
                                      static_cast<int64_t>(n)));
      }
      walker_.Advance(n);
      rows -= n;
      if (walker_.left() == 0) NextPage();
    }
    QV_ASSIGN_OR_RETURN(ArrayPtr values, Join(std::move(pieces), storage_, context_.pool));
    if (type_.id() == TypeId::kDictionary) {
      return arrow::DictionaryEncode(values, type_, context_.pool);
    }
    return values;
  }

 private:
  void NextPage() {
    walker_.NextPage();
    ready_ = false;
    decoded_ = nullptr;
  }

  // Decodes the current page; all-null pages (and columns of the null type) stay undecoded
  // and yield null arrays of the size taken, whatever the page's row count.
  Status LoadPage() {
    decoded_ = nullptr;
    ready_ = true;
    if (storage_.id() == TypeId::kNull) return Status::OK();
    QV_ASSIGN_OR_RETURN(auto encoding, walker_.Encoding());
    if (encoding.has_nullable() && encoding.nullable().has_all_nulls()) {
      // Held as if decoded: bounded like any page without bytes.
      const uint64_t bytes = AllNullPageBytes20(storage_, walker_.page()->rows);
      if (bytes > DecodeBudget20({})) {
        ready_ = false;
        return Status::Corruption(fmt::format("{}: an all-null page of {} rows ({} bytes decoded)",
                                              walker_.Where(), walker_.page()->rows, bytes));
      }
      return Status::OK();
    }
    QV_ASSIGN_OR_RETURN(auto buffers, walker_.Load());
    Result<ArrayPtr> decoded = DecodeLeafPage20(encoding, buffers, storage_, walker_.page()->rows,
                                                options_, context_.pool);
    walker_.Release();
    if (!decoded.ok()) {
      ready_ = false;
      return decoded.status().WithContext(walker_.Where() + " (" + DescribeEncoding20(encoding) +
                                          ")");
    }
    decoded_ = std::move(decoded).value();
    return Status::OK();
  }

  NodeContext20 context_;
  PageWalker walker_;
  DataType type_;     // the field's type
  DataType storage_;  // what its pages decode to (a dictionary's values)
  LeafDecodeOptions20 options_;
  bool ready_ = false;
  ArrayPtr decoded_;  // nullptr when ready_: the page is all null
};

// A struct: members in step; 2.0 has no struct validity.
class StructNode final : public ColumnNode20 {
 public:
  StructNode(DataType type, std::vector<std::unique_ptr<ColumnNode20>> members)
      : type_(std::move(type)), members_(std::move(members)) {}

  Status Skip(uint64_t rows) override {
    for (auto& m : members_) QV_RETURN_IF_ERROR(m->Skip(rows));
    return Status::OK();
  }

  Result<ArrayPtr> Take(uint64_t rows) override {
    auto out = std::make_shared<arrow::ArrayData>();
    out->type = type_;
    out->length = static_cast<int64_t>(rows);
    out->buffers = {nullptr};
    for (size_t i = 0; i < members_.size(); ++i) {
      QV_ASSIGN_OR_RETURN(ArrayPtr member, members_[i]->Take(rows));
      if (static_cast<uint64_t>(member->length) != rows) {
        return Status::Corruption(fmt::format("struct member '{}' gave {} rows of {}",
                                              type_.children()[i].name, member->length, rows));
      }
      out->children.push_back(std::move(member));
    }
    return ArrayPtr(std::move(out));
  }

 private:
  DataType type_;
  std::vector<std::unique_ptr<ColumnNode20>> members_;
};

// A list: an offsets column (List pages) and the item's cursor.
class ListNode final : public ColumnNode20 {
 public:
  // `type`: list or large_list (the offsets width of the output).
  ListNode(const NodeContext20& context, uint32_t column, DataType type,
           std::unique_ptr<ColumnNode20> item)
      : context_(context),
        walker_(context, column),
        type_(std::move(type)),
        item_(std::move(item)) {}

  Status Skip(uint64_t rows) override {
    uint64_t items = 0;
    while (rows > 0) {
      if (walker_.page() == nullptr) return walker_.Exhausted();
      if (walker_.left() == 0) {
        NextPage();
        continue;
      }
      if (!ready_ && walker_.row_in_page() == 0 && rows >= walker_.left()) {
        // A whole page: its item count is in its encoding, no need to read it.
        QV_ASSIGN_OR_RETURN(auto encoding, walker_.Encoding());
        items += encoding.list().num_items();
        rows -= walker_.left();
        NextPage();
        continue;
      }
      if (!ready_) QV_RETURN_IF_ERROR(LoadPage());
      const uint64_t n = std::min(rows, walker_.left());
      items += Span(n);
      walker_.Advance(n);
      rows -= n;
      if (walker_.left() == 0) items += PageEnd();
    }
    return item_->Skip(items);
  }

  Result<ArrayPtr> Take(uint64_t rows) override {
    const bool large = type_.id() == TypeId::kLargeList;
    // Grown page by page: `rows` (for nested lists, an item count from the file) is only
    // trusted once pages have backed it.
    arrow::BufferBuilder offsets(context_.pool);
    arrow::BufferBuilder validity(context_.pool);
    // The item cursor's moves: items to take, then items to skip (a page's unreferenced tail).
    std::vector<std::pair<uint64_t, uint64_t>> moves{{0, 0}};
    uint64_t total = 0;
    int64_t nulls = 0, row = 0;
    QV_RETURN_IF_ERROR(AppendOffset(&offsets, 0, large));
    while (rows > 0) {
      QV_ASSIGN_OR_RETURN(const uint64_t n, NextRun(
                                                walker_, ready_, rows, [this] { NextPage(); },
                                                [this] { return LoadPage(); }));
      const uint64_t first = walker_.row_in_page();
      QV_RETURN_IF_ERROR(offsets.Reserve(n * (large ? 8 : 4)));
      QV_RETURN_IF_ERROR(validity.Resize(arrow::BytesForBits(row + static_cast<int64_t>(n))));
      for (uint64_t i = first; i < first + n; ++i, ++row) {
        const uint64_t start = i == 0 ? 0 : page_.ends[i - 1];
        total += page_.ends[i] - start;
        QV_RETURN_IF_ERROR(AppendOffset(&offsets, total, large));
        if (page_.valid[i]) {
          arrow::SetBit(validity.mutable_data(), row);
        } else {
          ++nulls;
        }
      }
      if (moves.back().second != 0) moves.push_back({0, 0});
      moves.back().first += Span(n);
      walker_.Advance(n);
      rows -= n;
      if (walker_.left() == 0) moves.back().second += PageEnd();
    }
    if (!large && total > static_cast<uint64_t>(INT32_MAX)) {
      return Status::Unsupported(
          fmt::format("a batch of lists holding {} items (more than a "
                      "32-bit list can address); read smaller batches",
                      total));
    }
    std::vector<ArrayPtr> pieces;
    for (const auto& [take, skip] : moves) {
      if (take > 0) {
        QV_ASSIGN_OR_RETURN(ArrayPtr piece, item_->Take(take));
        pieces.push_back(std::move(piece));
      }
      if (skip > 0) QV_RETURN_IF_ERROR(item_->Skip(skip));
    }
    QV_ASSIGN_OR_RETURN(ArrayPtr items, Join(std::move(pieces), type_.item().type, context_.pool));
    if (static_cast<uint64_t>(items->length) != total) {
      return Status::Corruption(
          fmt::format("list items column gave {} items of {}", items->length, total));
    }
    auto out = std::make_shared<arrow::ArrayData>();
    out->type = type_;
    out->length = row;
    out->null_count = nulls;
    QV_ASSIGN_OR_RETURN(auto offsets_buffer, offsets.Finish());
    QV_ASSIGN_OR_RETURN(auto validity_buffer, validity.Finish());
    out->buffers = {nulls > 0 ? std::move(validity_buffer) : nullptr, std::move(offsets_buffer)};
    out->children = {std::move(items)};
    return ArrayPtr(std::move(out));
  }

 private:
  static Status AppendOffset(arrow::BufferBuilder* b, uint64_t v, bool large) {
    return large ? b->AppendValue<int64_t>(static_cast<int64_t>(v))
                 : b->AppendValue<int32_t>(static_cast<int32_t>(v));
  }

  // Items spanned by the next n lists of the current page.
  uint64_t Span(uint64_t n) const {
    const uint64_t first = walker_.row_in_page();
    const uint64_t start = first == 0 ? 0 : page_.ends[first - 1];
    return page_.ends[first + n - 1] - start;
  }

  // At the end of a page: the page's items no list referenced (they belong to it, not to the
  // next page).
  uint64_t PageEnd() const {
    const uint64_t last = page_.ends.empty() ? 0 : page_.ends.back();
    return page_.num_items - last;
  }

  void NextPage() {
    walker_.NextPage();
    ready_ = false;
    page_ = {};
  }

  Status LoadPage() {
    QV_ASSIGN_OR_RETURN(auto encoding, walker_.Encoding());
    if (!encoding.has_list()) {
      return Status::Corruption(walker_.Where() + ": a list offsets column holds a '" +
                                DescribeEncoding20(encoding) + "' page");
    }
    QV_ASSIGN_OR_RETURN(auto buffers, walker_.Load());
    Result<ListOffsets20> decoded =
        DecodeListOffsets20(encoding.list(), buffers, walker_.page()->rows, context_.pool);
    walker_.Release();
    if (!decoded.ok()) {
      return decoded.status().WithContext(walker_.Where() + " (" + DescribeEncoding20(encoding) +
                                          ")");
    }
    page_ = std::move(decoded).value();
    ready_ = true;
    return Status::OK();
  }

  NodeContext20 context_;
  PageWalker walker_;
  DataType type_;
  std::unique_ptr<ColumnNode20> item_;
  bool ready_ = false;
  ListOffsets20 page_;
};

// Strings in the early list<u8> form: a list of bytes turned into a binary array.
class BinaryListNode final : public ColumnNode20 {
 public:
  BinaryListNode(DataType type, std::unique_ptr<ColumnNode20> list)
      : type_(std::move(type)), list_(std::move(list)) {}

  Status Skip(uint64_t rows) override { return list_->Skip(rows); }

  Result<ArrayPtr> Take(uint64_t rows) override {
    QV_ASSIGN_OR_RETURN(ArrayPtr list, list_->Take(rows));
    const ArrayPtr& bytes = list->children[0];
    auto out = std::make_shared<arrow::ArrayData>();
    out->type = type_;
    out->length = list->length;
    out->null_count = list->null_count;
    out->buffers = {list->buffers[0], list->buffers[1],
                    arrow::Buffer::Slice(bytes->buffers[1], static_cast<uint64_t>(bytes->offset),
                                         static_cast<uint64_t>(bytes->length))};
    return ArrayPtr(std::move(out));
  }

 private:
  DataType type_;
  std::unique_ptr<ColumnNode20> list_;
};

Status Mismatch(const ColumnPlan20& plan, const DataType& type) {
  return Status::Corruption(
      fmt::format("column {} does not fit a field of type {}", plan.column, type.ToString()));
}

}  // namespace

Result<std::unique_ptr<ColumnNode20>> MakeColumnNode20(const ColumnPlan20& plan,
                                                       const DataType& type,
                                                       const NodeContext20& context) {
  using Kind = ColumnPlan20::Kind;
  switch (plan.kind) {
    case Kind::kLeaf:
      if (type.id() == TypeId::kList || type.id() == TypeId::kLargeList) {
        return Mismatch(plan, type);
      }
      return std::unique_ptr<ColumnNode20>(new LeafNode(context, plan.column, type));
    case Kind::kStruct: {
      if (type.id() != TypeId::kStruct || type.children().size() != plan.children.size()) {
        return Mismatch(plan, type);
      }
      std::vector<std::unique_ptr<ColumnNode20>> members;
      for (size_t i = 0; i < plan.children.size(); ++i) {
        QV_ASSIGN_OR_RETURN(auto member,
                            MakeColumnNode20(plan.children[i], type.children()[i].type, context));
        members.push_back(std::move(member));
      }
      return std::unique_ptr<ColumnNode20>(new StructNode(type, std::move(members)));
    }
    case Kind::kList: {
      if ((type.id() != TypeId::kList && type.id() != TypeId::kLargeList) ||
          plan.children.size() != 1) {
        return Mismatch(plan, type);
      }
      QV_ASSIGN_OR_RETURN(auto item, MakeColumnNode20(plan.children[0], type.item().type, context));
      return std::unique_ptr<ColumnNode20>(
          new ListNode(context, plan.column, type, std::move(item)));
    }
    case Kind::kBinaryList: {
      if (!arrow::IsBinaryLike(type.id()) || plan.children.size() != 1) {
        return Mismatch(plan, type);
      }
      const arrow::Field byte("item", DataType::UInt8(), false);
      const DataType list_type =
          arrow::IsLargeOffsets(type.id()) ? DataType::LargeList(byte) : DataType::List(byte);
      auto bytes = std::unique_ptr<ColumnNode20>(
          new LeafNode(context, plan.children[0].column, DataType::UInt8()));
      auto list = std::unique_ptr<ColumnNode20>(
          new ListNode(context, plan.column, list_type, std::move(bytes)));
      return std::unique_ptr<ColumnNode20>(new BinaryListNode(type, std::move(list)));
    }
  }
  return Status::Internal("unknown column plan");
}

}  // namespace quiver::format::internal
