// AddColumnsSql (add_columns_sql.h).
#include "query/add_columns_sql.h"

#include <fmt/format.h>

#include "expr/eval.h"
#include "expr/parser.h"
#include "format/arrow_schema.h"
#include "query/internal/on_latest.h"
#include "query/internal/row_schema.h"
#include "query/internal/sql_type.h"
#include "query/internal/to_column_type.h"
#include "table/add_columns.h"
#include "table/dataset.h"

namespace quiver::query {

namespace {

struct NewColumn {
  std::string name;
  expr::ExprPtr value;
  arrow::Field field;
};

Result<std::vector<NewColumn>> CheckColumns(
    const arrow::Schema& table, const std::vector<std::pair<std::string, std::string>>& columns) {
  auto visible = internal::WithRowAddress(table);
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch empty, internal::EmptyBatch(visible));
  std::vector<NewColumn> out;
  for (const auto& [name, sql] : columns) {
    if (name.empty()) return Status::InvalidInput("a new column needs a name");
    if (table.FieldIndex(name) >= 0) {
      return Status::InvalidInput(fmt::format("column '{}' already exists", name));
    }
    for (const NewColumn& c : out) {
      if (c.name == name)
        return Status::InvalidInput(fmt::format("column '{}' is added twice", name));
    }
    auto parsed = expr::ParseExpression(sql);
    if (!parsed.ok()) return parsed.status().WithContext(fmt::format("new column '{}'", name));
    NewColumn c;
    c.name = name;
    c.value = *parsed;
    if (Status s = expr::CheckExpression(*c.value, *visible, /*want_bool=*/false); !s.ok()) {
      return s.WithContext(fmt::format("new column '{}'", name));
    }
    auto value = expr::Evaluate(*c.value, empty);
    if (!value.ok()) return value.status().WithContext(fmt::format("new column '{}'", name));
    internal::SqlType type = internal::SqlResultType(*c.value, *visible, (*value)->type);
    if (type.type.id() == arrow::TypeId::kNull) {
      return Status::InvalidInput(
          fmt::format("new column '{}': the expression has no type (NULL); CAST it", name));
    }
    QV_RETURN_IF_ERROR(internal::ToColumnType(*value, type.type, name).status());
    c.field = arrow::Field{name, type.type, type.nullable};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<uint64_t> AddColumnsSql(const table::CommitTarget& target,
                               const std::vector<std::pair<std::string, std::string>>& columns,
                               const table::CommitOptions& options) {
  if (columns.empty()) return Status::InvalidInput("add columns needs at least one column");
  return internal::OnLatestVersion(
      target, "add columns",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<uint64_t> {
        QV_ASSIGN_OR_RETURN(arrow::Schema table, format::ToArrowSchema(dataset->schema()));
        QV_ASSIGN_OR_RETURN(std::vector<NewColumn> checked, CheckColumns(table, columns));
        std::vector<arrow::Field> fields;
        for (const NewColumn& c : checked) fields.push_back(c.field);
        auto compute =
            [&checked](const arrow::RecordBatch& rows) -> Result<std::vector<arrow::ArrayPtr>> {
          std::vector<arrow::ArrayPtr> out;
          for (const NewColumn& c : checked) {
            auto value = expr::Evaluate(*c.value, rows);
            if (!value.ok())
              return value.status().WithContext(fmt::format("new column '{}'", c.name));
            QV_ASSIGN_OR_RETURN(auto typed, internal::ToColumnType(*value, c.field.type, c.name));
            out.push_back(std::move(typed));
          }
          return out;
        };
        QV_ASSIGN_OR_RETURN(table::CommitResult committed,
                            table::AddColumns(*dataset, fields, compute, options));
        return committed.version;
      });
}

}  // namespace quiver::query
