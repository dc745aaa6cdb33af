#include "format/internal/read20/reader20.h"

#include <algorithm>

#include <fmt/format.h>

#include "format/internal/read20/columns20.h"
#include "format/internal/read20/nodes20.h"

namespace quiver::format::internal {

namespace {

struct FieldCursor {
  std::string name;
  std::unique_ptr<ColumnNode20> node;
};

class V20Stream final : public arrow::BatchStream {
 public:
  V20Stream(std::shared_ptr<const arrow::Schema> schema, std::vector<FieldCursor> fields,
            std::vector<std::pair<uint64_t, uint64_t>> ranges, uint32_t batch_rows,
            std::string what)
      : schema_(std::move(schema)),
        fields_(std::move(fields)),
        ranges_(std::move(ranges)),
        batch_rows_(batch_rows == 0 ? 8192 : batch_rows),
        what_(std::move(what)) {}

  const std::shared_ptr<const arrow::Schema>& schema() const override { return schema_; }

  Result<std::optional<arrow::RecordBatch>> Next() override {
    if (!failed_.ok()) return failed_;
    Result<std::optional<arrow::RecordBatch>> batch = NextBatch();
    if (!batch.ok()) failed_ = batch.status();  // cursors are mid-way: the stream is over
    return batch;
  }

 private:
  Result<std::optional<arrow::RecordBatch>> NextBatch() {
    while (range_ < ranges_.size() && at_ >= ranges_[range_].second) ++range_;
    if (range_ >= ranges_.size()) return std::optional<arrow::RecordBatch>();
    const auto [begin, end] = ranges_[range_];
    if (at_ < begin) {
      for (FieldCursor& f : fields_) {
        Status skipped = f.node->Skip(begin - at_);
        if (!skipped.ok()) {
          return skipped.WithContext(
              fmt::format("{}: field '{}' rows {}..{}", what_, f.name, at_, begin));
        }
      }
      at_ = begin;
    }
    const uint64_t rows = std::min<uint64_t>(batch_rows_, end - at_);
    arrow::RecordBatch batch;
    batch.schema = schema_;
    batch.length = static_cast<int64_t>(rows);
    for (FieldCursor& f : fields_) {
      Result<arrow::ArrayPtr> column = f.node->Take(rows);
      if (!column.ok()) {
        return column.status().WithContext(
            fmt::format("{}: field '{}' rows {}..{}", what_, f.name, at_, at_ + rows));
      }
      batch.columns.push_back(std::move(column).value());
    }
    Status valid = batch.Validate(/*full=*/true);
    if (!valid.ok()) {
      return valid.WithContext(fmt::format("{}: rows {}..{}", what_, at_, at_ + rows));
    }
    at_ += rows;
    return std::optional<arrow::RecordBatch>(std::move(batch));
  }

  std::shared_ptr<const arrow::Schema> schema_;
  std::vector<FieldCursor> fields_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  uint32_t batch_rows_;
  std::string what_;
  size_t range_ = 0;
  uint64_t at_ = 0;
  Status failed_;
};

}  // namespace

Result<std::unique_ptr<arrow::BatchStream>> OpenV20Stream(
    std::shared_ptr<ObjectStore> store, std::string key,
    std::shared_ptr<const FileContainer> container, const Schema& lance_schema,
    std::shared_ptr<const arrow::Schema> out_schema, const std::vector<size_t>& selected,
    std::vector<std::pair<uint64_t, uint64_t>> ranges, uint32_t batch_rows,
    arrow::MemoryPool* pool) {
  const std::string& what = container->what;
  if (out_schema->fields.size() != selected.size()) {
    return Status::Internal("OpenV20Stream: the output schema does not match the selection");
  }
  // Every field is planned: a field's first column depends on all fields before it.
  std::vector<ColumnPlan20> plans;
  uint32_t next = 0;
  for (const SchemaField& field : lance_schema.fields) {
    QV_ASSIGN_OR_RETURN(ColumnPlan20 plan, PlanField20(field, *container, &next));
    plans.push_back(std::move(plan));
  }
  if (next != container->columns.size()) {
    return Status::Corruption(fmt::format("{}: the schema maps to {} columns, the file has {}",
                                          what, next, container->columns.size()));
  }
  NodeContext20 context{std::move(store), std::move(key), container, pool};
  std::vector<FieldCursor> fields;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (selected[i] >= plans.size()) return Status::Internal("OpenV20Stream: bad field index");
    const arrow::Field& field = out_schema->fields[i];
    Result<std::unique_ptr<ColumnNode20>> node =
        MakeColumnNode20(plans[selected[i]], field.type, context);
    if (!node.ok())
      return node.status().WithContext(fmt::format("{}: field '{}'", what, field.name));
    fields.push_back({field.name, std::move(node).value()});
  }
  return std::unique_ptr<arrow::BatchStream>(std::make_unique<V20Stream>(
      std::move(out_schema), std::move(fields), std::move(ranges), batch_rows, what));
}

}  // namespace quiver::format::internal
