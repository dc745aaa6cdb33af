#include "table/fragment_rows.h"

#include <map>

#include <algorithm>

#include <fmt/format.h>

#include "format/arrow_schema.h"
#include "format/deletion.h"
#include "format/lance_proto.h"
#include "store/prefix_store.h"

namespace quiver::table {

namespace {

void CollectIds(const format::SchemaField& field, std::unordered_set<int32_t>* ids) {
  ids->insert(field.id);
  for (const auto& child : field.children) CollectIds(child, ids);
}

std::string ColumnNames(const arrow::Schema& schema) {
  std::string all;
  for (const auto& f : schema.fields) all += (all.empty() ? "" : ", ") + f.name;
  return all;
}

}  // namespace

Result<Projection> Project(const Dataset& dataset, const std::vector<std::string>& columns,
                           bool with_row_id, bool with_row_addr) {
  QV_ASSIGN_OR_RETURN(arrow::Schema full, format::ToArrowSchema(dataset.schema()));
  std::vector<size_t> selected;
  if (columns.empty()) {
    for (size_t i = 0; i < full.fields.size(); ++i) selected.push_back(i);
  }
  for (const std::string& name : columns) {
    int i = full.FieldIndex(name);
    if (i < 0) {
      return Status::InvalidInput(
          fmt::format("no column '{}' in the table (columns: {})", name, ColumnNames(full)));
    }
    selected.push_back(static_cast<size_t>(i));
  }
  auto out = std::make_shared<arrow::Schema>();
  out->metadata = full.metadata;
  Projection projection;
  for (size_t i : selected) {
    ProjectedField f{i, {}};
    CollectIds(dataset.schema().fields[i], &f.ids);
    projection.fields.push_back(std::move(f));
    out->fields.push_back(full.fields[i]);
  }
  // Lance's scanner appends `_rowid` before `_rowaddr`.
  if (with_row_id) out->fields.push_back(arrow::Field("_rowid", arrow::DataType::UInt64(), false));
  if (with_row_addr) {
    out->fields.push_back(arrow::Field("_rowaddr", arrow::DataType::UInt64(), false));
  }
  projection.schema = std::move(out);
  return projection;
}

std::vector<FileFields> AssignFields(const lance::table::DataFragment& fragment,
                                     const std::vector<ProjectedField>& fields,
                                     std::vector<size_t>* missing) {
  std::vector<bool> covered(fields.size(), false);
  std::vector<FileFields> out;
  for (const auto& file : fragment.files()) {
    FileFields part{&file, {}};
    for (size_t o = 0; o < fields.size(); ++o) {
      if (covered[o]) continue;
      if (std::any_of(file.fields().begin(), file.fields().end(),
                      [&](int32_t id) { return fields[o].ids.count(id) > 0; })) {
        covered[o] = true;
        part.outputs.push_back(o);
      }
    }
    if (!part.outputs.empty()) out.push_back(std::move(part));
  }
  missing->clear();
  for (size_t o = 0; o < fields.size(); ++o) {
    if (!covered[o]) missing->push_back(o);
  }
  return out;
}

Result<std::unique_ptr<format::LanceFileReader>> OpenDataFile(
    const Dataset& dataset, const lance::table::DataFragment& fragment,
    const lance::table::DataFile& file, arrow::MemoryPool* pool) {
  std::optional<uint32_t> base;
  if (file.has_base_id()) base = file.base_id();
  QV_ASSIGN_OR_RETURN(auto store, StoreForBase(dataset, base, "data file " + file.path()));
  format::FileReadOptions read_options;
  read_options.known_size = file.file_size_bytes();
  read_options.pool = pool;
  QV_ASSIGN_OR_RETURN(auto reader,
                      format::LanceFileReader::Open(store, "data/" + file.path(), read_options));
  if (reader->num_rows() != fragment.physical_rows()) {
    return Status::Corruption(fmt::format("fragment {}: data file {} has {} rows, the fragment {}",
                                          fragment.id(), file.path(), reader->num_rows(),
                                          fragment.physical_rows()));
  }
  QV_RETURN_IF_ERROR(CheckFileTypes(dataset.schema(), reader->lance_schema(), file.path()));
  return reader;
}

namespace {

void CollectTypes(const std::vector<format::SchemaField>& fields,
                  std::map<int32_t, const format::SchemaField*>* out) {
  for (const auto& f : fields) {
    out->emplace(f.id, &f);
    CollectTypes(f.children, out);
  }
}

}  // namespace

Status CheckFileTypes(const format::Schema& manifest, const format::Schema& file,
                      const std::string& path) {
  std::map<int32_t, const format::SchemaField*> want, got;
  CollectTypes(manifest.fields, &want);
  CollectTypes(file.fields, &got);
  for (const auto& [id, field] : got) {
    auto it = want.find(id);
    if (it == want.end()) continue;  // a field dropped since the file was written
    if (it->second->logical_type != field->logical_type) {
      return Status::Corruption(
          fmt::format("data file {}: field {} ('{}') is {} in the file but {} in the manifest",
                      path, id, it->second->name, field->logical_type, it->second->logical_type));
    }
  }
  return Status::OK();
}

Status CheckAddressable(const lance::table::DataFragment& fragment) {
  if (fragment.id() > UINT32_MAX) {
    return Status::Corruption(fmt::format(
        "fragment id {} is 2^32 or more: its rows have no row addresses", fragment.id()));
  }
  if (fragment.physical_rows() > (uint64_t{1} << 32)) {
    return Status::Corruption(fmt::format("fragment {} has {} physical rows, more than 2^32",
                                          fragment.id(), fragment.physical_rows()));
  }
  return Status::OK();
}

Status RowNotFound(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message), Subcode::kNotFound);
}

Result<std::shared_ptr<ObjectStore>> StoreForBase(const Dataset& dataset,
                                                  std::optional<uint32_t> base_id,
                                                  const std::string& what) {
  if (!base_id) return dataset.store();
  for (const auto& base : dataset.manifest().base_paths()) {
    if (base.id() != *base_id) continue;
    const auto& root = dataset.root();
    if (base.path() == root->ExternalPath("")) return root;
    if (base.has_name()) {
      const std::string prefix = "tree/" + base.name();
      if (base.path() == root->ExternalPath(prefix)) {
        QV_ASSIGN_OR_RETURN(auto store, PrefixStore::Make(root, prefix + "/"));
        return std::shared_ptr<ObjectStore>(std::move(store));
      }
    }
    return Status::Unsupported(what + " lives under base path " + base.path() +
                               ", outside this dataset's roots");
  }
  return Status::Corruption(
      fmt::format("{} names base path {} which the manifest does not have", what, *base_id));
}

Result<format::DeletionVector> FragmentDeletions(const Dataset& dataset,
                                                 const lance::table::DataFragment& fragment) {
  if (!fragment.has_deletion_file()) return format::DeletionVector();
  const auto& file = fragment.deletion_file();
  const std::string what = fmt::format("the deletion file of fragment {}", fragment.id());
  std::optional<uint32_t> base;
  if (file.has_base_id()) base = file.base_id();
  QV_ASSIGN_OR_RETURN(auto store, StoreForBase(dataset, base, what));
  return format::ReadDeletionFile(*store, fragment.id(), file, fragment.physical_rows());
}

Result<RowRanges> KeptRows(const Dataset& dataset, const lance::table::DataFragment& fragment) {
  const uint64_t rows = fragment.physical_rows();
  if (!fragment.has_deletion_file()) return RowRanges{{0, rows}};
  QV_ASSIGN_OR_RETURN(format::DeletionVector deleted, FragmentDeletions(dataset, fragment));
  return deleted.SelectedRanges(rows);
}

std::optional<uint64_t> KnownKeptRows(const lance::table::DataFragment& fragment) {
  const uint64_t rows = fragment.physical_rows();
  if (!fragment.has_deletion_file()) return rows;
  const uint64_t deleted = fragment.deletion_file().num_deleted_rows();
  if (deleted == 0 || deleted > rows) return std::nullopt;  // unknown, or wrong: read the file
  return rows - deleted;
}

uint64_t CountRows(const RowRanges& ranges) {
  uint64_t n = 0;
  for (const auto& [b, e] : ranges) n += e - b;
  return n;
}

RowRanges SliceRows(const RowRanges& ranges, uint64_t skip, uint64_t take) {
  RowRanges out;
  for (auto [b, e] : ranges) {
    if (take == 0) break;
    const uint64_t len = e - b;
    if (skip >= len) {
      skip -= len;
      continue;
    }
    b += skip;
    skip = 0;
    const uint64_t n = std::min(e - b, take);  // not b + take: take may be UINT64_MAX
    take -= n;
    out.emplace_back(b, b + n);
  }
  return out;
}

RowRanges SplitEvery(const RowRanges& ranges, uint64_t group) {
  if (group == 0) return ranges;
  RowRanges out;
  uint64_t room = group;  // rows left in the current group
  for (auto [b, e] : ranges) {
    while (e - b > room) {
      out.emplace_back(b, b + room);
      b += room;
      room = group;
    }
    if (b < e) out.emplace_back(b, e);
    room -= e - b;
    if (room == 0) room = group;
  }
  return out;
}

RowRanges CoalesceReads(const RowRanges& kept, uint64_t max_gap, uint64_t group) {
  RowRanges out;
  uint64_t count = 0;  // kept rows before the current range
  for (const auto& [b, e] : kept) {
    const bool group_starts = group != 0 && count % group == 0;
    if (!out.empty() && !group_starts && b - out.back().second <= max_gap) {
      out.back().second = e;
    } else {
      out.emplace_back(b, e);
    }
    count += e - b;
  }
  return out;
}

RowSelector::RowSelector(std::shared_ptr<const RowRanges> reads,
                         std::shared_ptr<const RowRanges> kept)
    : reads_(std::move(reads)), kept_(std::move(kept)) {
  if (!reads_->empty()) pos_ = reads_->front().first;
}

Result<std::vector<std::pair<int64_t, int64_t>>> RowSelector::Next(uint64_t rows) {
  if (read_ >= reads_->size() || rows > (*reads_)[read_].second - pos_) {
    return Status::Corruption(fmt::format(
        "the reader returned {} rows at row {}, past the ranges it was asked for", rows, pos_));
  }
  const uint64_t end = pos_ + rows;
  std::vector<std::pair<int64_t, int64_t>> slices;
  while (kept_at_ < kept_->size() && (*kept_)[kept_at_].first < end) {
    const auto [b, e] = (*kept_)[kept_at_];
    const uint64_t from = std::max(b, pos_);
    const uint64_t to = std::min(e, end);
    if (from < to) {
      slices.emplace_back(static_cast<int64_t>(from - pos_), static_cast<int64_t>(to - from));
    }
    if (e > end) break;
    ++kept_at_;
  }
  pos_ = end;
  if (pos_ == (*reads_)[read_].second && ++read_ < reads_->size()) pos_ = (*reads_)[read_].first;
  return slices;
}

void RowRangeCursor::Take(uint64_t n, uint64_t high, std::vector<uint64_t>* out) {
  while (n > 0 && range_ < ranges_->size()) {
    const auto [b, e] = (*ranges_)[range_];
    const uint64_t here = std::min(n, e - b - at_);
    for (uint64_t i = 0; i < here; ++i) out->push_back(high | (b + at_ + i));
    at_ += here;
    n -= here;
    if (at_ == e - b) {
      ++range_;
      at_ = 0;
    }
  }
}

}  // namespace quiver::table
