// Test support for the data plane's server tests (data_plane_test.cc, remote_dialect_test.cc): a
// table `d` in the default project with two versions of rows, Arrow IPC bodies for the writes,
// and readers for the Arrow IPC file a query answers.
#pragma once

#include <string>
#include <vector>

#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "server_fixture.h"
#include "table/write.h"

namespace quiver::server::testing {

class DataPlaneTest : public ServerFixture {
 protected:
  // `id` in the default project with rows id = first..first+n-1, name = "n<id>",
  // v = [id % 10, id / 10] (float32, 2-d), appended (or created) as one version.
  static arrow::RecordBatch Batch(int64_t first, int64_t n) {
    auto schema = std::make_shared<arrow::Schema>();
    auto v_type =
        arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, 2);
    schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
    schema->fields.emplace_back("name", arrow::DataType::Utf8(), true);
    schema->fields.emplace_back("v", v_type, true);
    std::vector<int64_t> ids;
    std::vector<std::string> names;
    std::vector<float> items;
    for (int64_t i = first; i < first + n; ++i) {
      ids.push_back(i);
      names.push_back("n" + std::to_string(i));
      items.push_back(static_cast<float>(i % 10));
      items.push_back(static_cast<float>(i / 10));
    }
    arrow::RecordBatch batch;
    batch.schema = schema;
    batch.length = n;
    batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                     *arrow::MakeBinaryArray(arrow::DataType::Utf8(), names),
                     *arrow::MakeFixedSizeListArray(
                         v_type, n, *arrow::MakeFixedArray(arrow::DataType::Float32(), items))};
    return batch;
  }
  // Rows as Batch(first, n), as an Arrow IPC stream (the write operations' body).
  static std::string Stream(int64_t first, int64_t n) {
    auto batch = Batch(first, n);
    auto bytes = arrow::ipc::WriteStreamToString(batch.schema, {batch});
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return bytes.ok() ? *bytes : "";
  }
  Reply SendArrow(const std::string& target, const std::string& body) {
    return client_->Send("POST", target, body, {}, "application/vnd.apache.arrow.stream");
  }
  std::string Count(const std::string& table, const std::string& predicate = "") {
    nlohmann::json body = nlohmann::json::object();
    if (!predicate.empty()) body["predicate"] = predicate;
    return client_->Post("/v1/table/" + table + "/count_rows", body).body;
  }

  void Write(const catalog::TableInfo& table, int64_t first, int64_t n, table::WriteMode mode) {
    auto batch = Batch(first, n);
    auto root = catalog_->TableStore(table);
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    auto stream = arrow::MakeVectorStream(batch.schema, {batch});
    table::WriteOptions options;
    options.mode = mode;
    auto written = table::WriteData(table::CommitTarget{*root, std::nullopt}, *stream, options);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }

  void SetUp() override {
    ServerFixture::SetUp();
    auto t = catalog_->DeclareTable(Scoped({"d"}), {}, {});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_ = *t;
    Write(table_, 0, 60, table::WriteMode::kCreate);   // version 1
    Write(table_, 60, 40, table::WriteMode::kAppend);  // version 2
  }

  // The answer's batches as one, checked to be an Arrow IPC file.
  static arrow::ipc::IpcContents Rows(const Reply& reply) {
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.headers.count("content-type") ? reply.headers.at("content-type") : "",
              "application/vnd.apache.arrow.file");
    auto contents = arrow::ipc::ReadFileFromString(reply.body);
    EXPECT_TRUE(contents.ok()) << contents.status().ToString();
    return contents.ok() ? *contents : arrow::ipc::IpcContents{};
  }
  static std::vector<std::string> Names(const arrow::ipc::IpcContents& c) {
    std::vector<std::string> out;
    if (c.schema) {
      for (const auto& f : c.schema->fields) out.push_back(f.name);
    }
    return out;
  }
  template <typename T>
  static std::vector<T> Column(const arrow::ipc::IpcContents& c, const std::string& name) {
    std::vector<T> out;
    if (!c.schema) return out;
    const int at = c.schema->FieldIndex(name);
    EXPECT_GE(at, 0) << name;
    if (at < 0) return out;
    for (const auto& b : c.batches) {
      const auto& col = *b.columns[static_cast<size_t>(at)];
      for (int64_t i = 0; i < col.length; ++i) out.push_back(arrow::Values<T>(col)[i]);
    }
    return out;
  }

  catalog::TableInfo table_;
};

}  // namespace quiver::server::testing
