// query::AddColumnsSql over table::AddColumns: columns computed by SQL for every row (deleted
// rows stay deleted), typed as DataFusion types them (an int32 column plus a literal is int32, a
// string literal a non-null utf8), one Merge commit whose fragments keep their rows and gain one
// data file each, and refusals before anything is written.
#include "query/add_columns_sql.h"
#include "query/cast_columns.h"

#include <gtest/gtest.h>

#include <map>

#include "arrow/array.h"
#include "query/delete_where.h"
#include "query/query.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/write.h"
#include "testing/status_matchers.h"

namespace quiver::query {
namespace {

// id int64 not null, i int32, s utf8: ids 0..11 in files of 5 rows.
std::shared_ptr<ObjectStore> AddColumnsTable() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  schema->fields.emplace_back("i", arrow::DataType::Int32(), true);
  schema->fields.emplace_back("s", arrow::DataType::Utf8(), true);
  std::vector<int64_t> ids;
  std::vector<int32_t> is;
  std::vector<std::string> ss;
  for (int64_t k = 0; k < 12; ++k) {
    ids.push_back(k);
    is.push_back(static_cast<int32_t>(k * 3));
    ss.push_back("s" + std::to_string(k));
  }
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = 12;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                   *arrow::MakeFixedArray(arrow::DataType::Int32(), is),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), ss)};
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(schema, {batch});
  table::WriteOptions options;
  options.mode = table::WriteMode::kCreate;
  options.max_rows_per_file = 5;
  EXPECT_OK(table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options).status());
  return root;
}

table::CommitTarget Main(const std::shared_ptr<ObjectStore>& root) {
  return table::CommitTarget{root, std::nullopt};
}

TEST(AddColumnsSql, ComputesEveryRowWithDataFusionsTypes) {
  auto root = AddColumnsTable();
  ASSERT_OK(DeleteWhere(Main(root), "id = 3 OR id = 10").status());  // version 2
  auto version = AddColumnsSql(Main(root), {{"twice", "id * 2"},
                                            {"j", "i + 1"},
                                            {"up", "upper(s)"},
                                            {"k", "'k'"},
                                            {"big", "i > 10"},
                                            {"wide", "cast(i as bigint)"}});
  ASSERT_OK(version.status());
  EXPECT_EQ(*version, 3u);
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  std::map<std::string, std::pair<std::string, bool>> fields;
  for (const auto& f : (*ds)->schema().fields) fields[f.name] = {f.logical_type, f.nullable};
  EXPECT_EQ(fields["twice"], (std::pair<std::string, bool>{"int64", false}));
  EXPECT_EQ(fields["j"], (std::pair<std::string, bool>{"int32", true}));
  EXPECT_EQ(fields["up"], (std::pair<std::string, bool>{"string", true}));
  EXPECT_EQ(fields["k"], (std::pair<std::string, bool>{"string", false}));
  EXPECT_EQ(fields["big"], (std::pair<std::string, bool>{"bool", true}));
  EXPECT_EQ(fields["wide"], (std::pair<std::string, bool>{"int64", true}));
  // Every fragment kept its rows and deletion file and gained one data file.
  for (const auto& fragment : (*ds)->manifest().fragments()) {
    EXPECT_EQ(fragment.files_size(), 2) << fragment.id();
  }
  QueryRequest request;
  request.columns = {"id", "twice", "j", "up"};
  auto stream = RunQuery(*ds, request);
  ASSERT_OK(stream.status());
  int64_t rows = 0;
  while (true) {
    auto batch = (*stream)->Next();
    ASSERT_OK(batch.status());
    if (!*batch) break;
    for (int64_t r = 0; r < (*batch)->length; ++r, ++rows) {
      const int64_t id = arrow::Values<int64_t>(*(*batch)->columns[0])[r];
      EXPECT_NE(id, 3);
      EXPECT_NE(id, 10);
      EXPECT_EQ(arrow::Values<int64_t>(*(*batch)->columns[1])[r], 2 * id);
      EXPECT_EQ(arrow::Values<int32_t>(*(*batch)->columns[2])[r], static_cast<int32_t>(3 * id + 1));
      EXPECT_EQ(arrow::BinaryValue(*(*batch)->columns[3], r), "S" + std::to_string(id));
    }
  }
  EXPECT_EQ(rows, 10);
}

TEST(AddColumnsSql, BadRequestsChangeNothing) {
  auto root = AddColumnsTable();
  EXPECT_FALSE(AddColumnsSql(Main(root), {}).ok());
  EXPECT_EQ(AddColumnsSql(Main(root), {{"id", "1"}}).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(AddColumnsSql(Main(root), {{"a", "1"}, {"a", "2"}}).status().code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(AddColumnsSql(Main(root), {{"a", "i +"}}).status().code(), StatusCode::kInvalidInput);
  EXPECT_FALSE(AddColumnsSql(Main(root), {{"a", "nope + 1"}}).ok());
  EXPECT_EQ(AddColumnsSql(Main(root), {{"", "1"}}).status().code(), StatusCode::kInvalidInput);
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  EXPECT_EQ((*ds)->version(), 1u);
  EXPECT_EQ((*ds)->schema().fields.size(), 3u);
}

TEST(CastColumns, RewritesTheColumnUnderANewIdInItsPlace) {
  auto root = AddColumnsTable();
  ASSERT_OK(DeleteWhere(Main(root), "id = 4").status());  // version 2
  auto version = CastColumns(Main(root), {{"i", arrow::DataType::Int64()}});
  ASSERT_OK(version.status());
  EXPECT_EQ(*version, 3u);
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  const auto& fields = (*ds)->schema().fields;
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[1].name, "i");
  EXPECT_EQ(fields[1].logical_type, "int64");
  EXPECT_EQ(fields[1].id, 3);  // after the largest (2)
  EXPECT_TRUE(fields[1].nullable);
  QueryRequest request;
  request.columns = {"id", "i"};
  request.filter = "id = 7";
  auto stream = RunQuery(*ds, request);
  ASSERT_OK(stream.status());
  auto batch = (*stream)->Next();
  ASSERT_OK(batch.status());
  ASSERT_TRUE(*batch);
  ASSERT_EQ((*batch)->length, 1);
  EXPECT_EQ(arrow::Values<int64_t>(*(*batch)->columns[1])[0], 21);
  EXPECT_EQ(*CountRows(*ds, ""), 11u);
  EXPECT_OK(CastColumns(Main(root), {{"i", arrow::DataType::Int8()}}).status());  // 33 fits
  // A pairing CAST refuses and a missing column refuse the change: nothing written.
  EXPECT_FALSE(CastColumns(Main(root), {{"s", arrow::DataType::Int32()}}).ok());
  EXPECT_EQ(CastColumns(Main(root), {{"nope", arrow::DataType::Int32()}}).status().code(),
            StatusCode::kTableColumnNotFound);
  auto after = table::Dataset::Open(root);
  ASSERT_OK(after.status());
  EXPECT_EQ((*after)->version(), 4u);
}

}  // namespace
}  // namespace quiver::query
