// UpdateRows (update_rows.h).
#include "table/update_rows.h"

#include <fmt/format.h>

#include "format/arrow_schema.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "table/delete_rows.h"
#include "table/write.h"

namespace quiver::table {

namespace {

// The replacement rows without their `_rowaddr` column, whose values it collects.
class WithoutAddresses final : public arrow::BatchStream {
 public:
  WithoutAddresses(arrow::BatchStream& input, std::shared_ptr<const arrow::Schema> schema)
      : input_(input), schema_(std::move(schema)) {}
  const std::shared_ptr<const arrow::Schema>& schema() const override { return schema_; }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    QV_ASSIGN_OR_RETURN(auto batch, input_.Next());
    if (!batch) return batch;
    if (batch->columns.size() != schema_->fields.size() + 1) {
      return Status::Internal("update: a replacement batch without its _rowaddr column");
    }
    const arrow::ArrayData& addrs = *batch->columns.back();
    const uint64_t* values = arrow::Values<uint64_t>(addrs);
    for (int64_t i = 0; i < addrs.length; ++i) {
      if (values[i] != kInsertedRow) addresses_.push_back(values[i]);
    }
    batch->columns.pop_back();
    batch->schema = schema_;
    return batch;
  }
  std::vector<uint64_t>& addresses() { return addresses_; }

 private:
  arrow::BatchStream& input_;
  std::shared_ptr<const arrow::Schema> schema_;
  std::vector<uint64_t> addresses_;
};

}  // namespace

Result<UpdateRowsResult> UpdateRows(const Dataset& read, arrow::BatchStream& replacements,
                                    const std::vector<int32_t>& fields_modified,
                                    const CommitOptions& options,
                                    const UpdateRowsOptions& rows_options) {
  if ((read.WriterFlags() & format::kFlagStableRowIds) != 0) {
    return Status::Unsupported(
        "updating rows of a table with stable row ids is not supported yet (Lance keeps each "
        "row's id and created-at version; quiver cannot read those versions yet)");
  }
  QV_ASSIGN_OR_RETURN(arrow::Schema table_schema, format::ToArrowSchema(read.schema()));
  WithoutAddresses rows(replacements, std::make_shared<arrow::Schema>(std::move(table_schema)));
  QV_ASSIGN_OR_RETURN(WrittenFragments written, WriteFragments(read, rows, WriteOptions{}));
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
