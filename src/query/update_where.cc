// UpdateWhere (update_where.h).
#include "query/update_where.h"

#include <fmt/format.h>

#include <set>

#include "expr/eval.h"
#include "expr/parser.h"
#include "format/arrow_schema.h"
#include "query/internal/on_latest.h"
#include "query/internal/row_schema.h"
#include "query/internal/to_column_type.h"
#include "query/query.h"
#include "table/dataset.h"
#include "table/update_rows.h"

namespace quiver::query {

namespace {

struct ColumnUpdate {
  size_t column = 0;  // in the table's schema
  std::string name;
  expr::ExprPtr value;
};

// Every field id under `f` (itself included): what fields_modified names.
void FieldIds(const format::SchemaField& f, std::vector<int32_t>* out) {
  out->push_back(f.id);
  for (const auto& c : f.children) FieldIds(c, out);
}

// The matching rows (every column and `_rowaddr`), with the updated columns replaced.
class Replacements final : public arrow::BatchStream {
 public:
  Replacements(std::unique_ptr<arrow::BatchStream> rows, const std::vector<ColumnUpdate>& updates,
               const arrow::Schema& table)
      : rows_(std::move(rows)), updates_(updates), table_(table) {}
  const std::shared_ptr<const arrow::Schema>& schema() const override { return rows_->schema(); }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    QV_ASSIGN_OR_RETURN(auto batch, rows_->Next());
    if (!batch) return batch;
    std::vector<arrow::ArrayPtr> values;
    for (const ColumnUpdate& u : updates_) {
      // Against the batch before any replacement: each expression sees the old row.
      auto value = expr::Evaluate(*u.value, *batch);
      if (!value.ok()) return value.status().WithContext(fmt::format("update of '{}'", u.name));
      QV_ASSIGN_OR_RETURN(auto typed,
                          internal::ToColumnType(*value, table_.fields[u.column].type, u.name));
      values.push_back(std::move(typed));
    }
    for (size_t i = 0; i < updates_.size(); ++i) {
      batch->columns[updates_[i].column] = std::move(values[i]);
    }
    return batch;
  }

 private:
  std::unique_ptr<arrow::BatchStream> rows_;
  const std::vector<ColumnUpdate>& updates_;
  const arrow::Schema& table_;
};

// The updates checked against `dataset`'s schema, before anything is read: names, expressions,
// and that each expression's type is one its column can take (evaluated on no rows).
Result<std::vector<ColumnUpdate>> CheckUpdates(
    const table::Dataset& dataset, const arrow::Schema& table,
    const std::vector<std::pair<std::string, std::string>>& updates,
    std::vector<int32_t>* fields_modified) {
  std::vector<ColumnUpdate> out;
  // The rows the expressions run over: every column, then `_rowaddr` (query.h).
  auto visible = internal::WithRowAddress(table);
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch empty, internal::EmptyBatch(visible));
  std::set<std::string> seen;
  for (const auto& [name, sql] : updates) {
    if (name.empty()) return Status::InvalidInput("an update names an empty column");
    if (!seen.insert(name).second) {
      return Status::InvalidInput(fmt::format("column '{}' is updated twice", name));
    }
    const int at = table.FieldIndex(name);
    if (at < 0) {
      if (name.find('.') != std::string::npos) {
        return Status::InvalidInput(fmt::format(
            "'{}': only top-level columns can be updated (a struct column is set whole)", name));
      }
      return Status(StatusCode::kTableColumnNotFound,
                    fmt::format("column '{}' is not in the table", name));
    }
    ColumnUpdate u;
    u.column = static_cast<size_t>(at);
    u.name = name;
    auto parsed = expr::ParseExpression(sql);
    if (!parsed.ok()) return parsed.status().WithContext(fmt::format("update of '{}'", name));
    u.value = *parsed;
    if (Status s = expr::CheckExpression(*u.value, *visible, /*want_bool=*/false); !s.ok()) {
      return s.WithContext(fmt::format("update of '{}'", name));
    }
    auto value = expr::Evaluate(*u.value, empty);
    if (!value.ok()) return value.status().WithContext(fmt::format("update of '{}'", name));
    QV_RETURN_IF_ERROR(internal::ToColumnType(*value, table.fields[u.column].type, name).status());
    FieldIds(dataset.schema().fields[u.column], fields_modified);
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace

Result<UpdateWhereResult> UpdateWhere(
    const table::CommitTarget& target,
    const std::vector<std::pair<std::string, std::string>>& updates, const std::string& predicate,
    const table::CommitOptions& options) {
  if (updates.empty()) return Status::InvalidInput("an update needs at least one column to set");
  return internal::OnLatestVersion(
      target, "update",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<UpdateWhereResult> {
        QV_ASSIGN_OR_RETURN(arrow::Schema table, format::ToArrowSchema(dataset->schema()));
        std::vector<int32_t> fields_modified;
        QV_ASSIGN_OR_RETURN(std::vector<ColumnUpdate> checked,
                            CheckUpdates(*dataset, table, updates, &fields_modified));
        QueryRequest request;
        request.filter = predicate;
        request.with_row_addr = true;  // every column, then `_rowaddr`
        QV_ASSIGN_OR_RETURN(auto rows, RunQuery(dataset, request));
        Replacements replacements(std::move(rows), checked, table);
        QV_ASSIGN_OR_RETURN(table::UpdateRowsResult updated,
                            table::UpdateRows(*dataset, replacements, fields_modified, options));
        return UpdateWhereResult{updated.commit ? updated.commit->version : dataset->version(),
                                 updated.rows};
      });
}

}  // namespace quiver::query
