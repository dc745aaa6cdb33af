#include "format/lance_file_reader.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "common/thread_pool.h"
#include "format/arrow_schema.h"
#include "format/internal/file_container.h"
#include "format/internal/read20/reader20.h"
#include "format/internal/read21/page21.h"
#include "format/internal/repdef.h"

namespace quiver::format {

std::string_view FileVersionName(FileVersion version) {
  switch (version) {
    case FileVersion::kV2_0:
      return "2.0";
    case FileVersion::kV2_1:
      return "2.1";
    case FileVersion::kV2_2:
      return "2.2";
  }
  return "?";
}

namespace {

using internal::DecodedPage;
using internal::FileContainer;
using internal::LayerKind;

// The type a leaf column's pages decode into: dictionary columns decode their values and are
// re-encoded afterwards.
const arrow::DataType& StorageType(const arrow::DataType& type) {
  return type.id() == arrow::TypeId::kDictionary ? type.dictionary_value() : type;
}

// The most general kinds for a page's layers: every item nullable, every list null-and-empty.
// Pages of one column may differ (a page without nulls has no nullable layer); levels from
// several pages are joined in this common numbering.
std::vector<LayerKind> GeneralLayers(const std::vector<LayerKind>& layers) {
  std::vector<LayerKind> out;
  for (LayerKind k : layers) {
    out.push_back(internal::IsListLayer(k) ? LayerKind::kNullAndEmptyList
                                           : LayerKind::kNullableItem);
  }
  return out;
}

// For each definition level in `from`'s numbering, the same meaning in `to`'s. REQUIRES: same
// structure (lists at the same positions) and `to` at least as general.
std::vector<uint16_t> DefRemap(const std::vector<LayerKind>& from,
                               const std::vector<LayerKind>& to) {
  std::vector<uint16_t> map{0};
  uint16_t to_num = 0;
  for (size_t k = 0; k < from.size(); ++k) {
    auto claims = [](LayerKind kind, bool* null, bool* empty) {
      *null = kind == LayerKind::kNullableItem || kind == LayerKind::kNullableList ||
              kind == LayerKind::kNullAndEmptyList;
      *empty = kind == LayerKind::kEmptyableList || kind == LayerKind::kNullAndEmptyList;
    };
    bool from_null, from_empty, to_null, to_empty;
    claims(from[k], &from_null, &from_empty);
    claims(to[k], &to_null, &to_empty);
    const uint16_t to_null_num = to_null ? ++to_num : 0;
    const uint16_t to_empty_num = to_empty ? ++to_num : 0;
    if (from_null) map.push_back(to_null_num);
    if (from_empty) map.push_back(to_empty_num);
  }
  return map;
}

bool SameStructure(const std::vector<LayerKind>& a, const std::vector<LayerKind>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (internal::IsListLayer(a[k]) != internal::IsListLayer(b[k])) return false;
  }
  return true;
}

// One leaf column's levels and values for a run of whole rows.
struct LeafSlice {
  std::vector<LayerKind> layers;
  std::vector<uint16_t> rep, def;
  uint64_t num_levels = 0;
  std::vector<arrow::ArrayPtr> values;  // pieces, in order
};

// Walks the pages of one leaf column, decoding a page when rows of it are first needed.
class ColumnCursor {
 public:
  ColumnCursor(const ObjectStore* /*unused*/, std::shared_ptr<ObjectStore> store, std::string key,
               std::shared_ptr<const FileContainer> container, uint32_t column,
               arrow::DataType leaf_type, arrow::MemoryPool* pool)
      : store_(std::move(store)),
        key_(std::move(key)),
        container_(std::move(container)),
        column_(column),
        leaf_type_(std::move(leaf_type)),
        pool_(pool) {}

  // Moves forward `rows` rows without producing them.
  Status Skip(uint64_t rows) {
    while (rows > 0) {
      if (!page_ready_) {
        const auto& pages = container_->columns[column_].pages;
        if (page_ >= pages.size())
          return Status::Corruption(Where() + ": fewer rows than the file");
        const uint64_t left = pages[page_].rows - row_in_page_;
        if (rows >= left) {  // the rest of this page: no need to decode it
          rows -= left;
          ++page_;
          row_in_page_ = 0;
          continue;
        }
        QV_RETURN_IF_ERROR(LoadPage());
      }
      const uint64_t left = decoded_.rows - row_in_page_;
      const uint64_t n = std::min(rows, left);
      row_in_page_ += n;
      rows -= n;
      if (row_in_page_ == decoded_.rows) NextPage();
    }
    return Status::OK();
  }

  // Appends the next `rows` rows to `out`.
  Status Take(uint64_t rows, LeafSlice* out) {
    while (rows > 0) {
      if (!page_ready_) QV_RETURN_IF_ERROR(LoadPage());
      const uint64_t n = std::min(rows, decoded_.rows - row_in_page_);
      // Without repetition every row is one level and one value slot.
      const bool direct = decoded_.rep.empty();
      const uint64_t l0 = direct ? row_in_page_ : row_level_[row_in_page_];
      const uint64_t l1 = direct ? row_in_page_ + n : row_level_[row_in_page_ + n];
      const uint64_t v0 = direct ? l0 : row_value_[row_in_page_];
      const uint64_t v1 = direct ? l1 : row_value_[row_in_page_ + n];
      std::vector<uint16_t> remap;  // empty: this page's numbering is the slice's
      if (out->layers.empty()) {
        out->layers = decoded_.layers;
      } else if (out->layers != decoded_.layers) {
        if (!SameStructure(out->layers, decoded_.layers)) {
          return Status::Corruption(Where() + ": pages disagree on the column's structure");
        }
        // Join both in the general numbering.
        std::vector<LayerKind> general = GeneralLayers(out->layers);
        if (out->layers != general) {
          const std::vector<uint16_t> old = DefRemap(out->layers, general);
          if (out->def.size() < out->num_levels) out->def.resize(out->num_levels, 0);
          for (uint16_t& d : out->def) d = old[d];
          out->layers = general;
        }
        remap = DefRemap(decoded_.layers, general);
        if (out->def.size() < out->num_levels) out->def.resize(out->num_levels, 0);
      }
      if (!decoded_.rep.empty()) {
        if (out->rep.size() != out->num_levels) {
          return Status::Corruption(Where() + ": repetition levels missing from a page");
        }
        out->rep.insert(out->rep.end(), decoded_.rep.begin() + l0, decoded_.rep.begin() + l1);
      } else if (!out->rep.empty()) {
        return Status::Corruption(Where() + ": repetition levels missing from a page");
      }
      if (!decoded_.def.empty()) {
        // Pages without definition levels are fully defined: pad earlier pieces' absence.
        if (out->def.size() < out->num_levels) out->def.resize(out->num_levels, 0);
        const size_t at = out->def.size();
        out->def.insert(out->def.end(), decoded_.def.begin() + l0, decoded_.def.begin() + l1);
        if (!remap.empty()) {
          for (size_t i = at; i < out->def.size(); ++i) out->def[i] = remap[out->def[i]];
        }
      } else if (!out->def.empty()) {
        out->def.resize(out->def.size() + (l1 - l0), 0);
      }
      out->num_levels += l1 - l0;
      out->values.push_back(
          arrow::Slice(decoded_.values, static_cast<int64_t>(v0), static_cast<int64_t>(v1 - v0)));
      row_in_page_ += n;
      rows -= n;
      if (row_in_page_ == decoded_.rows) NextPage();
    }
    return Status::OK();
  }

 private:
  std::string Where() const {
    return fmt::format("{} column {} page {}", container_->what, column_, page_);
  }

  void NextPage() {
    ++page_;
    row_in_page_ = 0;
    page_ready_ = false;
    decoded_ = {};
    row_level_.clear();
    row_value_.clear();
  }

  Status LoadPage() {
    const auto& pages = container_->columns[column_].pages;
    if (page_ >= pages.size()) return Status::Corruption(Where() + ": fewer rows than the file");
    const internal::PageInfo& page = pages[page_];
    // One read covering every buffer of the page (they are written back to back).
    uint64_t begin = UINT64_MAX, end = 0;
    for (const auto& b : page.buffers) {
      if (b.size == 0) continue;
      begin = std::min(begin, b.offset);
      end = std::max(end, b.offset + b.size);
    }
    std::vector<std::string_view> buffers;
    std::shared_ptr<arrow::Buffer> bytes;
    std::string_view view;
    if (end > 0) {
      QV_ASSIGN_OR_RETURN(bytes, PageBuffer(end - begin));
      Status read = store_->ReadAt(
          key_, begin,
          std::span<std::byte>(reinterpret_cast<std::byte*>(bytes->mutable_data()), end - begin));
      if (!read.ok()) {
        if (read.IsInvalidInput()) {
          return Status::Corruption(Where() + ": the file is shorter than its metadata says");
        }
        return read;
      }
      view = bytes->view().substr(0, end - begin);
    }
    for (const auto& b : page.buffers) {
      buffers.push_back(b.size == 0 ? std::string_view() : view.substr(b.offset - begin, b.size));
    }
    Result<DecodedPage> decoded =
        internal::DecodePage21(page, buffers, leaf_type_, pool_, std::move(bytes));
    if (!decoded.ok()) return decoded.status().WithContext(Where());
    decoded_ = std::move(decoded).value();
    QV_RETURN_IF_ERROR(IndexRows());
    page_ready_ = true;
    return Status::OK();
  }

  // A buffer of at least `size` bytes for a page's bytes. Decoded values may alias it (zero-copy
  // pages) and live on in batches the consumer holds, so a buffer is reused only once nothing
  // else references it; in a steady scan that is every page, so scanning neither allocates nor
  // faults in fresh memory per page.
  Result<std::shared_ptr<arrow::Buffer>> PageBuffer(uint64_t size) {
    constexpr size_t kKept = 3;  // the page being decoded plus pages batches still hold
    for (auto& b : page_buffers_) {
      if (b.use_count() == 1 && b->size() >= size) return b;
    }
    // Some slack so pages of slightly different sizes share buffers.
    const uint64_t rounded = size + size / 8;
    QV_ASSIGN_OR_RETURN(auto fresh, arrow::Buffer::AllocateUninitialized(rounded, pool_));
    auto unused = std::find_if(page_buffers_.begin(), page_buffers_.end(),
                               [](const auto& b) { return b.use_count() == 1; });
    if (unused != page_buffers_.end()) {
      *unused = fresh;  // too small: replaced
    } else if (page_buffers_.size() < kKept) {
      page_buffers_.push_back(fresh);
    } else {
      page_buffers_[next_evict_++ % kKept] = fresh;  // the consumer keeps the old one alive
    }
    return fresh;
  }

  // Where each row of the page starts, in levels and in values (only needed with repetition:
  // otherwise row i is level i and value slot i).
  Status IndexRows() {
    row_level_.clear();
    row_value_.clear();
    if (decoded_.rep.empty()) {
      if (decoded_.num_levels != decoded_.rows ||
          static_cast<uint64_t>(decoded_.values->length) != decoded_.rows) {
        return Status::Corruption(fmt::format("{}: {} levels and {} values for {} rows", Where(),
                                              decoded_.num_levels, decoded_.values->length,
                                              decoded_.rows));
      }
      return Status::OK();
    }
    const int max_rep = internal::MaxRep(decoded_.layers);
    const uint16_t max_visible = internal::MaxVisibleDef(decoded_.layers);
    row_level_.clear();
    row_value_.clear();
    row_level_.reserve(decoded_.rows + 1);
    row_value_.reserve(decoded_.rows + 1);
    uint64_t visible = 0;
    for (uint64_t i = 0; i < decoded_.num_levels; ++i) {
      const bool starts = decoded_.rep.empty() || decoded_.rep[i] == max_rep;
      if (starts) {
        row_level_.push_back(i);
        row_value_.push_back(visible);
      }
      if (decoded_.def.empty() || decoded_.def[i] <= max_visible) ++visible;
    }
    if (row_level_.size() != decoded_.rows) {
      return Status::Corruption(fmt::format("{}: {} rows in the levels, the page says {}", Where(),
                                            row_level_.size(), decoded_.rows));
    }
    row_level_.push_back(decoded_.num_levels);
    row_value_.push_back(visible);
    return Status::OK();
  }

  std::shared_ptr<ObjectStore> store_;
  std::string key_;
  std::shared_ptr<const FileContainer> container_;
  uint32_t column_;
  arrow::DataType leaf_type_;
  arrow::MemoryPool* pool_;

  size_t page_ = 0;
  uint64_t row_in_page_ = 0;
  bool page_ready_ = false;
  DecodedPage decoded_;
  std::vector<std::shared_ptr<arrow::Buffer>> page_buffers_;
  size_t next_evict_ = 0;
  std::vector<uint64_t> row_level_, row_value_;
};

// A top-level field being read: its leaf columns and how to assemble them.
struct FieldReader {
  const SchemaField* lance = nullptr;
  arrow::Field field;
  std::vector<std::vector<int>> leaf_paths;  // child-index paths from the field, pre-order
  std::vector<std::unique_ptr<ColumnCursor>> cursors;
};

// Assembles the array of the node at `path_prefix` (depth = its layer) from unraveled leaves.
class Assembler {
 public:
  Assembler(const std::vector<std::vector<int>>& paths,
            const std::vector<std::vector<internal::UnraveledLayer>>& layers,
            const std::vector<arrow::ArrayPtr>& values, arrow::MemoryPool* pool)
      : paths_(paths), layers_(layers), values_(values), pool_(pool) {}

  Result<arrow::ArrayPtr> Build(const arrow::DataType& type, const std::vector<int>& prefix,
                                size_t first_leaf) {
    const size_t depth = prefix.size();
    const auto& layer_list = layers_[first_leaf];
    if (depth >= layer_list.size()) return Status::Corruption("the levels have too few layers");
    const internal::UnraveledLayer& layer = layer_list[depth];
    const arrow::TypeId id = type.id();
    // A packed struct is a leaf: its column decodes the whole struct.
    const bool packed_leaf = paths_[first_leaf].size() == depth;
    if (id == arrow::TypeId::kStruct && !packed_leaf) {
      if (layer.is_list) return Status::Corruption("a list layer where the schema has a struct");
      auto out = std::make_shared<arrow::ArrayData>();
      out->type = type;
      out->length = layer.length;
      out->null_count = layer.null_count;
      out->buffers = {layer.validity};
      for (size_t c = 0; c < type.children().size(); ++c) {
        std::vector<int> child = prefix;
        child.push_back(static_cast<int>(c));
        QV_ASSIGN_OR_RETURN(size_t leaf, FirstLeafUnder(child));
        QV_ASSIGN_OR_RETURN(arrow::ArrayPtr member, Build(type.children()[c].type, child, leaf));
        if (member->length != out->length) {
          return Status::Corruption(fmt::format("struct member {} has {} rows, the struct {}",
                                                type.children()[c].name, member->length,
                                                out->length));
        }
        out->children.push_back(std::move(member));
      }
      return arrow::ArrayPtr(out);
    }
    if (arrow::IsOffsetList(id) && !packed_leaf) {
      if (!layer.is_list) return Status::Corruption("an item layer where the schema has a list");
      std::vector<int> child = prefix;
      child.push_back(0);
      QV_ASSIGN_OR_RETURN(arrow::ArrayPtr items, Build(type.item().type, child, first_leaf));
      auto out = std::make_shared<arrow::ArrayData>();
      out->type = type;
      out->length = layer.length;
      out->null_count = layer.null_count;
      out->buffers = {layer.validity, layer.offsets};
      out->children = {std::move(items)};
      return arrow::ArrayPtr(out);
    }
    // A leaf.
    if (layer.is_list || depth + 1 != layer_list.size()) {
      return Status::Corruption("the levels have more layers than the schema");
    }
    const arrow::ArrayPtr& values = values_[first_leaf];
    if (values->length != layer.length) {
      return Status::Corruption(
          fmt::format("{} values for {} leaf slots", values->length, layer.length));
    }
    auto out = std::make_shared<arrow::ArrayData>(*values);
    if (layer.validity != nullptr) {
      out->null_count = layer.null_count;
      if (values->offset == 0) {
        out->buffers[0] = layer.validity;
      } else {
        // The values are a slice of a decoded page: shift the bits to the slice's offset
        // rather than copying the values.
        QV_ASSIGN_OR_RETURN(
            auto shifted,
            arrow::Buffer::Allocate(arrow::BytesForBits(values->offset + layer.length), pool_));
        arrow::CopyBits(layer.validity->data(), 0, layer.length, shifted->mutable_data(),
                        values->offset);
        out->buffers[0] = std::move(shifted);
      }
    }
    arrow::ArrayPtr leaf(out);
    if (type.id() == arrow::TypeId::kDictionary) {
      return arrow::DictionaryEncode(leaf, type);
    }
    return leaf;
  }

 private:
  Result<size_t> FirstLeafUnder(const std::vector<int>& prefix) const {
    for (size_t i = 0; i < paths_.size(); ++i) {
      if (paths_[i].size() >= prefix.size() &&
          std::equal(prefix.begin(), prefix.end(), paths_[i].begin())) {
        return i;
      }
    }
    return Status::Corruption("a struct member without a column");
  }

  const std::vector<std::vector<int>>& paths_;
  const std::vector<std::vector<internal::UnraveledLayer>>& layers_;
  const std::vector<arrow::ArrayPtr>& values_;
  arrow::MemoryPool* pool_;
};

// The large-offsets flag of each layer along a leaf path (outermost first).
std::vector<bool> LargeOffsets(const arrow::DataType& top, const std::vector<int>& path) {
  std::vector<bool> flags;
  const arrow::DataType* t = &top;
  flags.push_back(t->id() == arrow::TypeId::kLargeList);
  for (int i : path) {
    t = &t->children()[static_cast<size_t>(i)].type;
    flags.push_back(t->id() == arrow::TypeId::kLargeList);
  }
  return flags;
}

class FileStream final : public arrow::BatchStream {
 public:
  FileStream(std::shared_ptr<const arrow::Schema> schema, std::vector<FieldReader> fields,
             std::vector<std::pair<uint64_t, uint64_t>> ranges, uint32_t batch_rows,
             arrow::MemoryPool* pool, std::string what)
      : schema_(std::move(schema)),
        fields_(std::move(fields)),
        ranges_(std::move(ranges)),
        batch_rows_(batch_rows == 0 ? 8192 : batch_rows),
        pool_(pool),
        what_(std::move(what)) {}

  const std::shared_ptr<const arrow::Schema>& schema() const override { return schema_; }

  Result<std::optional<arrow::RecordBatch>> Next() override {
    while (range_ < ranges_.size() && at_ >= ranges_[range_].second) ++range_;
    if (range_ >= ranges_.size()) return std::optional<arrow::RecordBatch>();
    const auto [begin, end] = ranges_[range_];
    if (at_ < begin) {
      for (FieldReader& f : fields_) {
        for (auto& c : f.cursors) QV_RETURN_IF_ERROR(c->Skip(begin - at_));
      }
      at_ = begin;
    }
    const uint64_t rows = std::min<uint64_t>(batch_rows_, end - at_);
    arrow::RecordBatch batch;
    batch.schema = schema_;
    batch.length = static_cast<int64_t>(rows);
    // Fields decode independently (each owns its cursors), so they run in parallel.
    batch.columns.resize(fields_.size());
    QV_RETURN_IF_ERROR(ThreadPool::Cpu()->ParallelFor(fields_.size(), [&](size_t i) {
      FieldReader& f = fields_[i];
      Result<arrow::ArrayPtr> column = ReadField(f, rows);
      if (!column.ok()) {
        return column.status().WithContext(
            fmt::format("{}: field '{}' rows {}..{}", what_, f.field.name, at_, at_ + rows));
      }
      batch.columns[i] = std::move(column).value();
      return Status::OK();
    }));
    at_ += rows;
    QV_RETURN_IF_ERROR(batch.Validate(/*full=*/true));
    return std::optional<arrow::RecordBatch>(std::move(batch));
  }

 private:
  Result<arrow::ArrayPtr> ReadField(FieldReader& f, uint64_t rows) {
    std::vector<std::vector<internal::UnraveledLayer>> layers;
    std::vector<arrow::ArrayPtr> values;
    for (size_t i = 0; i < f.cursors.size(); ++i) {
      LeafSlice slice;
      QV_RETURN_IF_ERROR(f.cursors[i]->Take(rows, &slice));
      internal::LevelsView view{slice.rep.empty() ? nullptr : slice.rep.data(),
                                slice.def.empty() ? nullptr : slice.def.data(), slice.num_levels};
      QV_ASSIGN_OR_RETURN(auto unraveled,
                          internal::Unravel(slice.layers, view,
                                            LargeOffsets(f.field.type, f.leaf_paths[i]), pool_));
      if (unraveled.size() != f.leaf_paths[i].size() + 1) {
        return Status::Corruption(fmt::format("column has {} structural layers, the schema {}",
                                              unraveled.size(), f.leaf_paths[i].size() + 1));
      }
      if (static_cast<uint64_t>(unraveled[0].length) != rows) {
        return Status::Corruption(
            fmt::format("levels hold {} rows, expected {}", unraveled[0].length, rows));
      }
      layers.push_back(std::move(unraveled));
      // One piece (a batch within one page) stays a zero-copy slice of the decoded page.
      QV_ASSIGN_OR_RETURN(arrow::ArrayPtr joined, arrow::Concatenate(slice.values, pool_));
      values.push_back(std::move(joined));
    }
    Assembler assembler(f.leaf_paths, layers, values, pool_);
    return assembler.Build(f.field.type, {}, 0);
  }

  std::shared_ptr<const arrow::Schema> schema_;
  std::vector<FieldReader> fields_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  uint32_t batch_rows_;
  arrow::MemoryPool* pool_;
  std::string what_;
  size_t range_ = 0;
  uint64_t at_ = 0;
};

// The indices of the requested top-level fields (every field when `ids` is empty).
Result<std::vector<size_t>> SelectFields(const Schema& schema, const std::vector<int32_t>& ids,
                                         const std::string& what) {
  std::vector<size_t> selected;
  if (ids.empty()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) selected.push_back(i);
    return selected;
  }
  for (int32_t id : ids) {
    auto it = std::find_if(schema.fields.begin(), schema.fields.end(),
                           [id](const SchemaField& f) { return f.id == id; });
    if (it == schema.fields.end()) {
      return Status::InvalidInput(fmt::format("{}: no top-level field with id {}", what, id));
    }
    selected.push_back(static_cast<size_t>(it - schema.fields.begin()));
  }
  return selected;
}

// The requested row ranges (all rows when none), checked to be sorted, disjoint and in range.
Result<std::vector<std::pair<uint64_t, uint64_t>>> ResolveRanges(
    const std::vector<std::pair<uint64_t, uint64_t>>& requested, uint64_t num_rows,
    const std::string& what) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges = requested;
  if (ranges.empty()) ranges.push_back({0, num_rows});
  uint64_t prev_end = 0;
  for (const auto& [b, e] : ranges) {
    if (b > e || b < prev_end || e > num_rows) {
      return Status::InvalidInput(
          fmt::format("{}: row ranges must be sorted, disjoint and within "
                      "the file's {} rows",
                      what, num_rows));
    }
    prev_end = e;
  }
  return ranges;
}

}  // namespace

LanceFileReader::~LanceFileReader() = default;

Result<std::unique_ptr<LanceFileReader>> LanceFileReader::Open(std::shared_ptr<ObjectStore> store,
                                                               std::string key,
                                                               const FileReadOptions& options) {
  QV_ASSIGN_OR_RETURN(auto container, internal::ReadFileContainer(*store, key, options.known_size));
  std::unique_ptr<LanceFileReader> reader(new LanceFileReader());
  QV_ASSIGN_OR_RETURN(reader->lance_schema_,
                      SchemaFromFileDescriptor(container->descriptor, container->what));
  Result<arrow::Schema> schema = ToArrowSchema(reader->lance_schema_);
  if (!schema.ok()) return schema.status().WithContext(container->what);
  reader->schema_ = std::make_shared<const arrow::Schema>(std::move(schema).value());
  reader->store_ = std::move(store);
  reader->key_ = std::move(key);
  reader->options_ = options;
  reader->container_ = std::move(container);
  return reader;
}

FileVersion LanceFileReader::version() const { return container_->version; }
uint64_t LanceFileReader::num_rows() const { return container_->num_rows; }
uint64_t LanceFileReader::file_size() const { return container_->file_size; }
const Schema& LanceFileReader::lance_schema() const { return lance_schema_; }
const std::shared_ptr<const arrow::Schema>& LanceFileReader::schema() const { return schema_; }

Result<std::unique_ptr<arrow::BatchStream>> LanceFileReader::ReadV20(
    const ReadRequest& request) const {
  const std::string& what = container_->what;
  QV_ASSIGN_OR_RETURN(std::vector<size_t> selected,
                      SelectFields(lance_schema_, request.field_ids, what));
  for (size_t i : selected) {
    if (arrow::ContainsType(schema_->fields[i].type, arrow::TypeId::kMap)) {
      return Status::Corruption(
          fmt::format("{}: field '{}' is a Map, which file format 2.0 cannot hold", what,
                      schema_->fields[i].name));
    }
  }
  QV_ASSIGN_OR_RETURN(auto ranges, ResolveRanges(request.row_ranges, container_->num_rows, what));
  auto out_schema = std::make_shared<arrow::Schema>();
  out_schema->metadata = schema_->metadata;
  for (size_t i : selected) out_schema->fields.push_back(schema_->fields[i]);
  arrow::MemoryPool* pool = options_.pool != nullptr ? options_.pool : arrow::MemoryPool::Default();
  return internal::OpenV20Stream(store_, key_, container_, lance_schema_, std::move(out_schema),
                                 selected, std::move(ranges), request.batch_rows, pool);
}

Result<std::unique_ptr<arrow::BatchStream>> LanceFileReader::Read(
    const ReadRequest& request) const {
  const std::string& what = container_->what;
  if (container_->version == FileVersion::kV2_0) return ReadV20(request);
  // Columns are assigned to leaves in pre-order over every top-level field.
  // A struct stored packed (its members in one column, `lance-encoding:packed`) is one leaf;
  // whether Lance packed it depends on the file version and the member types (2.1 packs only
  // fixed-width members; LanceDB 0.31 writes a packed struct with a string member unpacked), so
  // the file's column count decides between the two readings.
  std::vector<uint32_t> first_column;
  std::vector<std::vector<std::vector<int>>> leaves(lance_schema_.fields.size());
  uint32_t next = 0;
  for (bool packed : {false, true}) {
    first_column.clear();
    next = 0;
    for (size_t i = 0; i < lance_schema_.fields.size(); ++i) {
      leaves[i].clear();
      CollectLeaves21(lance_schema_.fields[i], &leaves[i], {}, packed);
      first_column.push_back(next);
      next += static_cast<uint32_t>(leaves[i].size());
    }
    if (next == container_->columns.size() ||
        FindPackedStructField(lance_schema_.fields) == nullptr) {
      break;
    }
  }
  if (next != container_->columns.size()) {
    if (const SchemaField* packed = FindPackedStructField(lance_schema_.fields)) {
      return Status::Unsupported(fmt::format(
          "{}: the file has {} columns, which fits neither reading of its packed structs "
          "(field '{}', id {}: members apart, or packed into one column)",
          what, container_->columns.size(), packed->name, packed->id));
    }
    return Status::Corruption(fmt::format("{}: the schema has {} leaf columns, the file {}", what,
                                          next, container_->columns.size()));
  }
  QV_ASSIGN_OR_RETURN(std::vector<size_t> selected,
                      SelectFields(lance_schema_, request.field_ids, what));
  auto out_schema = std::make_shared<arrow::Schema>();
  out_schema->metadata = schema_->metadata;
  std::vector<FieldReader> fields;
  arrow::MemoryPool* pool = options_.pool != nullptr ? options_.pool : arrow::MemoryPool::Default();
  for (size_t i : selected) {
    FieldReader f;
    f.lance = &lance_schema_.fields[i];
    f.field = schema_->fields[i];
    f.leaf_paths = leaves[i];
    for (size_t l = 0; l < f.leaf_paths.size(); ++l) {
      const arrow::DataType* t = &f.field.type;
      for (int c : f.leaf_paths[l]) t = &t->children()[static_cast<size_t>(c)].type;
      f.cursors.push_back(std::make_unique<ColumnCursor>(nullptr, store_, key_, container_,
                                                         first_column[i] + static_cast<uint32_t>(l),
                                                         StorageType(*t), pool));
    }
    if (f.cursors.empty()) {
      return Status::Unsupported(fmt::format("{}: field '{}' has no columns", what, f.field.name));
    }
    out_schema->fields.push_back(f.field);
    fields.push_back(std::move(f));
  }
  QV_ASSIGN_OR_RETURN(auto ranges, ResolveRanges(request.row_ranges, container_->num_rows, what));
  return std::unique_ptr<arrow::BatchStream>(std::make_unique<FileStream>(
      std::move(out_schema), std::move(fields), std::move(ranges), request.batch_rows, pool, what));
}

Result<arrow::RecordBatch> LanceFileReader::ReadAll(const std::vector<int32_t>& field_ids) const {
  ReadRequest request;
  request.field_ids = field_ids;
  request.batch_rows = static_cast<uint32_t>(
      std::min<uint64_t>(std::max<uint64_t>(container_->num_rows, 1), UINT32_MAX));
  QV_ASSIGN_OR_RETURN(auto stream, Read(request));
  arrow::RecordBatch all;
  all.schema = stream->schema();
  std::vector<std::vector<arrow::ArrayPtr>> parts(all.schema->fields.size());
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    for (size_t c = 0; c < parts.size(); ++c) parts[c].push_back(batch->columns[c]);
    all.length += batch->length;
  }
  for (size_t c = 0; c < parts.size(); ++c) {
    if (parts[c].empty()) {
      QV_ASSIGN_OR_RETURN(auto empty, arrow::MakeNullArray(all.schema->fields[c].type, 0));
      all.columns.push_back(std::move(empty));
    } else {
      QV_ASSIGN_OR_RETURN(auto joined, arrow::Concatenate(parts[c]));
      all.columns.push_back(std::move(joined));
    }
  }
  return all;
}

}  // namespace quiver::format
