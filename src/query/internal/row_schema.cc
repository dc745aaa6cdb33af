#include "query/internal/row_schema.h"

#include "arrow/array.h"

namespace quiver::query::internal {

std::shared_ptr<arrow::Schema> WithRowAddress(const arrow::Schema& table) {
  auto out = std::make_shared<arrow::Schema>(table);
  out->fields.push_back(arrow::Field{"_rowaddr", arrow::DataType::UInt64(), false});
  return out;
}

Result<arrow::RecordBatch> EmptyBatch(std::shared_ptr<const arrow::Schema> schema) {
  arrow::RecordBatch empty;
  for (const auto& f : schema->fields) {
    QV_ASSIGN_OR_RETURN(auto column, arrow::MakeNullArray(f.type, 0));
    empty.columns.push_back(std::move(column));
  }
  empty.schema = std::move(schema);
  return empty;
}

}  // namespace quiver::query::internal
