#include "arrow/record_batch.h"

namespace quiver::arrow {

Status RecordBatch::Validate(bool full) const {
  if (schema == nullptr) return Status::Corruption("record batch without a schema");
  if (columns.size() != schema->fields.size()) {
    return Status::Corruption("record batch has " + std::to_string(columns.size()) +
                              " columns for " + std::to_string(schema->fields.size()) + " fields");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& field = schema->fields[i];
    if (columns[i] == nullptr) return Status::Corruption("column " + field.name + " missing");
    if (!(columns[i]->type == field.type)) {
      return Status::Corruption("column " + field.name + " is " + columns[i]->type.ToString() +
                                ", the schema says " + field.type.ToString());
    }
    if (columns[i]->length != length) {
      return Status::Corruption("column " + field.name + " has " +
                                std::to_string(columns[i]->length) + " rows, the batch " +
                                std::to_string(length));
    }
    Status s = arrow::Validate(*columns[i], full);
    if (!s.ok()) return Status::Corruption("column " + field.name + ": " + s.message());
  }
  return Status::OK();
}

namespace {

class VectorStream final : public BatchStream {
 public:
  VectorStream(std::shared_ptr<const Schema> schema, std::vector<RecordBatch> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}
  const std::shared_ptr<const Schema>& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(std::move(batches_[next_++]));
  }

 private:
  std::shared_ptr<const Schema> schema_;
  std::vector<RecordBatch> batches_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<BatchStream> MakeVectorStream(std::shared_ptr<const Schema> schema,
                                              std::vector<RecordBatch> batches) {
  return std::make_unique<VectorStream>(std::move(schema), std::move(batches));
}

}  // namespace quiver::arrow
