// UpdateRows (update_rows.h).
#include "table/update_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "arrow/concatenate.h"
#include "format/arrow_schema.h"
#include "format/lance_proto.h"
#include "table/delete_rows.h"
#include "table/row_ids.h"
#include "table/write.h"

namespace quiver::table {

namespace {

// The replacement rows without their `_rowaddr` column, whose values it collects. With
// `hold_inserted` (a table with stable row ids) the rows that replace none are held aside, in
// memory (merge-insert's inserts, whose source is in memory anyway), and the stream yields only
// the moved rows, so that these go into fragments of their own that keep the rows' ids.
class WithoutAddresses final : public arrow::BatchStream {
 public:
  WithoutAddresses(arrow::BatchStream& input, std::shared_ptr<const arrow::Schema> schema,
                   bool hold_inserted)
      : input_(input), schema_(std::move(schema)), hold_inserted_(hold_inserted) {}
  const std::shared_ptr<const arrow::Schema>& schema() const override { return schema_; }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    QV_ASSIGN_OR_RETURN(auto batch, input_.Next());
    if (!batch) return batch;
    if (batch->columns.size() != schema_->fields.size() + 1) {
      return Status::Internal("update: a replacement batch without its _rowaddr column");
    }
    const arrow::ArrayData& addrs = *batch->columns.back();
    const uint64_t* values = arrow::Values<uint64_t>(addrs);
    std::vector<bool> moved(static_cast<size_t>(addrs.length));
    bool any_inserted = false;
    for (int64_t i = 0; i < addrs.length; ++i) {
      moved[static_cast<size_t>(i)] = values[i] != kInsertedRow;
      if (values[i] != kInsertedRow) {
        addresses_.push_back(values[i]);
      } else {
        any_inserted = true;
      }
    }
    batch->columns.pop_back();
    batch->schema = schema_;
    if (!hold_inserted_ || !any_inserted) return batch;
    std::vector<bool> inserted(moved.size());
    for (size_t i = 0; i < moved.size(); ++i) inserted[i] = !moved[i];
    QV_ASSIGN_OR_RETURN(arrow::RecordBatch held, Select(*batch, inserted));
    inserted_.push_back(std::move(held));
    QV_ASSIGN_OR_RETURN(arrow::RecordBatch kept, Select(*batch, moved));
    return std::optional<arrow::RecordBatch>(std::move(kept));
  }
  std::vector<uint64_t>& addresses() { return addresses_; }
  std::vector<arrow::RecordBatch>& inserted() { return inserted_; }

 private:
  static Result<arrow::RecordBatch> Select(const arrow::RecordBatch& batch,
                                           const std::vector<bool>& keep) {
    arrow::RecordBatch out;
    out.schema = batch.schema;
    out.length = static_cast<int64_t>(std::count(keep.begin(), keep.end(), true));
    for (const auto& column : batch.columns) {
      QV_ASSIGN_OR_RETURN(auto selected, arrow::SelectRows(column, keep));
      out.columns.push_back(std::move(selected));
    }
    return out;
  }

  arrow::BatchStream& input_;
  std::shared_ptr<const arrow::Schema> schema_;
  bool hold_inserted_;
  std::vector<uint64_t> addresses_;
  std::vector<arrow::RecordBatch> inserted_;
};

// On a table with stable row ids, the moved rows keep what Lance keeps: each new fragment (in
// `fragments`, holding the rows `addresses` name, in that order) gets the rows' ids and their
// created-at versions; the last-updated version is the one being committed (apply_data.cc).
// A source fragment without created-at versions leaves its rows to get the commit's version.
Status CarryRowLineage(const Dataset& read, const std::vector<uint64_t>& addresses,
                       std::vector<lance::table::DataFragment>& fragments) {
  std::map<uint64_t, const lance::table::DataFragment*> by_id;
  for (const auto& f : read.manifest().fragments()) by_id[f.id()] = &f;
  struct Source {
    std::shared_ptr<const RowIdSequence> ids;
    std::vector<uint64_t> created;
  };
  std::map<uint64_t, Source> sources;
  std::vector<uint64_t> ids, created;
  ids.reserve(addresses.size());
  created.reserve(addresses.size());
  bool all_created = true;
  for (uint64_t address : addresses) {
    const uint64_t fragment_id = address >> 32;
    const uint64_t offset = address & 0xFFFFFFFFu;
    auto it = sources.find(fragment_id);
    if (it == sources.end()) {
      auto f = by_id.find(fragment_id);
      if (f == by_id.end()) {
        return Status::Internal(
            fmt::format("update: row address {} names no fragment of the version", address));
      }
      Source source;
      QV_ASSIGN_OR_RETURN(source.ids, FragmentRowIds(read, *f->second));
      QV_ASSIGN_OR_RETURN(source.created, FragmentCreatedAtVersions(read, *f->second));
      it = sources.emplace(fragment_id, std::move(source)).first;
    }
    if (offset >= it->second.ids->size()) {
      return Status::Internal(fmt::format("update: row address {} is past its fragment", address));
    }
    ids.push_back(it->second.ids->Get(offset));
    if (offset < it->second.created.size()) {
      created.push_back(it->second.created[offset]);
    } else {
      all_created = false;
    }
  }
  size_t at = 0;
  for (auto& fragment : fragments) {
    const size_t rows = static_cast<size_t>(fragment.physical_rows());
    if (rows > ids.size() - at) {
      return Status::Internal("update: the new fragments hold more rows than were moved");
    }
    fragment.set_inline_row_ids(
        EncodeRowIds(std::vector<uint64_t>(ids.begin() + at, ids.begin() + at + rows)));
    if (all_created && rows > 0) {
      fragment.set_created_at_version_inline(EncodeRowVersions(
          std::vector<uint64_t>(created.begin() + at, created.begin() + at + rows)));
    }
    at += rows;
  }
  if (at != ids.size())
    return Status::Internal("update: moved rows missing from the new fragments");
  return Status::OK();
}

}  // namespace

Result<UpdateRowsResult> UpdateRows(const Dataset& read, arrow::BatchStream& replacements,
                                    const std::vector<int32_t>& fields_modified,
                                    const CommitOptions& options,
                                    const UpdateRowsOptions& rows_options) {
  const bool stable_row_ids = UsesStableRowIds(read);
  QV_ASSIGN_OR_RETURN(arrow::Schema table_schema, format::ToArrowSchema(read.schema()));
  auto schema = std::make_shared<const arrow::Schema>(std::move(table_schema));
  WithoutAddresses rows(replacements, schema, stable_row_ids);
  QV_ASSIGN_OR_RETURN(WrittenFragments written, WriteFragments(read, rows, WriteOptions{}));
  if (stable_row_ids) {
    // The moved rows keep their ids; the inserted ones get theirs at commit, in fragments of
    // their own.
    Status carried = CarryRowLineage(read, rows.addresses(), written.fragments);
    Result<WrittenFragments> inserted = Status::OK();
    if (carried.ok()) {
      auto held = arrow::MakeVectorStream(schema, std::move(rows.inserted()));
      inserted = WriteFragments(read, *held, WriteOptions{});
    }
    if (!carried.ok() || !inserted.ok()) {
      DeleteFragmentFiles(*read.store(), written.fragments);
      return carried.ok() ? inserted.status() : carried;
    }
    for (auto& f : inserted->fragments) written.fragments.push_back(std::move(f));
    written.rows += inserted->rows;
  }
  UpdateRowsResult result;
  result.rows = written.rows;
  std::vector<uint64_t>& leaving = rows.addresses();
  leaving.insert(leaving.end(), rows_options.deletions.begin(), rows_options.deletions.end());
  if (leaving.empty() && written.fragments.empty() && !rows_options.commit_unchanged) return result;
  auto edits = WriteDeletions(read, leaving);
  if (!edits.ok()) {
    DeleteFragmentFiles(*read.store(), written.fragments);
    return edits.status();
  }
  lance::table::Transaction txn;
  txn.set_read_version(read.version());
  auto* update = txn.mutable_update();
  for (auto& f : edits->updated) *update->add_updated_fragments() = std::move(f);
  for (uint64_t id : edits->removed) update->add_removed_fragment_ids(id);
  for (const auto& f : written.fragments) *update->add_new_fragments() = f;
  for (int32_t id : fields_modified) update->add_fields_modified(static_cast<uint32_t>(id));
  update->set_update_mode(lance::table::Transaction::REWRITE_ROWS);
  bool outcome_unknown = false;
  auto committed = CommitTransaction(*read.store(), std::move(txn), options, &outcome_unknown);
  if (!committed.ok()) {
    // Files a manifest may reference stay (cleanup removes them if none does).
    if (!outcome_unknown) DeleteFragmentFiles(*read.store(), written.fragments);
    return committed.status();
  }
  result.commit = std::move(*committed);
  return result;
}

}  // namespace quiver::table
