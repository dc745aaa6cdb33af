// CastColumns (cast_columns.h).
#include "query/cast_columns.h"

#include <fmt/format.h>

#include "expr/eval.h"
#include "expr/parser.h"
#include "format/arrow_schema.h"
#include "query/internal/on_latest.h"
#include "query/internal/row_schema.h"
#include "query/internal/to_column_type.h"
#include "table/add_columns.h"
#include "table/dataset.h"

namespace quiver::query {

namespace {

struct ColumnCast {
  std::string name;
  expr::ExprPtr column;  // a reference to it, evaluated into the evaluator's wide type
  arrow::Field field;    // the new type, the old nullability
};

// `name` as an identifier (backticks doubled inside).
std::string Quoted(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

Result<std::vector<ColumnCast>> CheckCasts(
    const arrow::Schema& table, const std::vector<std::pair<std::string, arrow::DataType>>& casts) {
  auto visible = internal::WithRowAddress(table);
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch empty, internal::EmptyBatch(visible));
  std::vector<ColumnCast> out;
  for (const auto& [name, type] : casts) {
    const int at = table.FieldIndex(name);
    if (at < 0) {
      return Status(StatusCode::kTableColumnNotFound,
                    fmt::format("column '{}' is not in the table", name));
    }
    ColumnCast c;
    c.name = name;
    QV_ASSIGN_OR_RETURN(c.column, expr::ParseExpression(Quoted(name)));
    QV_ASSIGN_OR_RETURN(auto value, expr::Evaluate(*c.column, empty));
    QV_RETURN_IF_ERROR(internal::ToColumnType(value, type, name).status());
    c.field = arrow::Field{name, type, table.fields[static_cast<size_t>(at)].nullable};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<uint64_t> CastColumns(const table::CommitTarget& target,
                             const std::vector<std::pair<std::string, arrow::DataType>>& casts,
                             const table::CommitOptions& options) {
  if (casts.empty()) return Status::InvalidInput("no column to change the type of");
  return internal::OnLatestVersion(
      target, "change column types",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<uint64_t> {
        QV_ASSIGN_OR_RETURN(arrow::Schema table, format::ToArrowSchema(dataset->schema()));
        QV_ASSIGN_OR_RETURN(std::vector<ColumnCast> checked, CheckCasts(table, casts));
        std::vector<arrow::Field> fields;
        for (const ColumnCast& c : checked) fields.push_back(c.field);
        auto compute =
            [&checked](const arrow::RecordBatch& rows) -> Result<std::vector<arrow::ArrayPtr>> {
          std::vector<arrow::ArrayPtr> out;
          for (const ColumnCast& c : checked) {
            QV_ASSIGN_OR_RETURN(auto value, expr::Evaluate(*c.column, rows));
            QV_ASSIGN_OR_RETURN(auto typed, internal::ToColumnType(value, c.field.type, c.name));
            out.push_back(std::move(typed));
          }
          return out;
        };
        QV_ASSIGN_OR_RETURN(table::CommitResult committed,
                            table::RewriteColumns(*dataset, fields, compute, options));
        return committed.version;
      });
}

}  // namespace quiver::query
