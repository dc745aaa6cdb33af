// query::UpdateWhere and the value conversion behind it (internal/to_column_type.h), over
// tables written here: values computed from the old row, casts into the column's type,
// refusals before anything is written, no commit when nothing matches, and the Update
// transaction quiver commits read back (rows moved to new fragments, old ones deleted).
#include "query/update_where.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "arrow/array.h"
#include "arrow/concatenate.h"
#include "query/internal/to_column_type.h"
#include "query/query.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/write.h"
#include "testing/status_matchers.h"

namespace quiver::query {
namespace {

using internal::ToColumnType;

// id int64, n int32 (null when id % 5 == 4), s utf8, f float32, ts timestamp[ms]; `rows` rows in
// files of 16.
std::shared_ptr<ObjectStore> MakeTable(int64_t rows) {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  schema->fields.emplace_back("n", arrow::DataType::Int32(), true);
  schema->fields.emplace_back("s", arrow::DataType::Utf8(), true);
  schema->fields.emplace_back("f", arrow::DataType::Float32(), true);
  schema->fields.emplace_back("ts", arrow::DataType::Timestamp(arrow::TimeUnit::kMilli), true);
  std::vector<int64_t> ids, ts;
  std::vector<int32_t> ns;
  std::vector<bool> n_valid;
  std::vector<std::string> ss;
  std::vector<float> fs;
  for (int64_t i = 0; i < rows; ++i) {
    ids.push_back(i);
    ns.push_back(static_cast<int32_t>(i * 10));
    n_valid.push_back(i % 5 != 4);
    ss.push_back("s" + std::to_string(i));
    fs.push_back(static_cast<float>(i) / 2);
    ts.push_back(1'700'000'000'000 + i * 1000);
  }
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = rows;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                   *arrow::MakeFixedArray(arrow::DataType::Int32(), ns, n_valid),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), ss),
                   *arrow::MakeFixedArray(arrow::DataType::Float32(), fs),
                   *arrow::MakeFixedArray(schema->fields[4].type, ts)};
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(schema, {batch});
  table::WriteOptions options;
  options.mode = table::WriteMode::kCreate;
  options.max_rows_per_file = 16;
  EXPECT_OK(table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options).status());
  return root;
}

// Column `name` of the latest version, in id order, as text (NULL for nulls).
std::map<int64_t, std::string> Values(const std::shared_ptr<ObjectStore>& root,
                                      const std::string& name) {
  auto ds = table::Dataset::Open(root);
  EXPECT_OK(ds.status());
  QueryRequest r;
  r.columns = {"id", name};
  auto stream = RunQuery(*ds, r);
  EXPECT_OK(stream.status());
  std::map<int64_t, std::string> out;
  while (true) {
    auto batch = (*stream)->Next();
    EXPECT_OK(batch.status());
    if (!batch.ok() || !*batch) break;
    const auto& ids = *(*batch)->columns[0];
    const auto& col = *(*batch)->columns[1];
    for (int64_t i = 0; i < ids.length; ++i) {
      std::string text = "NULL";
      if (arrow::IsValid(col, i)) {
        switch (col.type.id()) {
          case arrow::TypeId::kInt32:
            text = std::to_string(arrow::Values<int32_t>(col)[i]);
            break;
          case arrow::TypeId::kFloat32:
            text = fmt::format("{}", arrow::Values<float>(col)[i]);
            break;
          case arrow::TypeId::kUtf8:
            text = std::string(arrow::BinaryValue(col, i));
            break;
          case arrow::TypeId::kTimestamp:
            text = std::to_string(arrow::Values<int64_t>(col)[i]);
            break;
          default:
            text = "?";
        }
      }
      out[arrow::Values<int64_t>(ids)[i]] = text;
    }
  }
  return out;
}

TEST(UpdateWhere, SetsValuesFromTheOldRow) {
  auto root = MakeTable(50);
  const table::CommitTarget target{root, std::nullopt};
  auto updated = UpdateWhere(target, {{"n", "n + id"}, {"s", "upper(s)"}, {"f", "f * 2"}},
                             "id >= 10 AND id < 20");
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->rows_updated, 10u);
  EXPECT_EQ(updated->version, 2u);
  auto n = Values(root, "n"), s = Values(root, "s"), f = Values(root, "f");
  ASSERT_EQ(n.size(), 50u);  // no row lost, none doubled
  for (int64_t i = 0; i < 50; ++i) {
    const bool hit = i >= 10 && i < 20;
    const std::string n_want = i % 5 == 4 ? "NULL" : std::to_string(hit ? i * 11 : i * 10);
    EXPECT_EQ(n[i], n_want) << i;
    EXPECT_EQ(s[i], (hit ? "S" : "s") + std::to_string(i)) << i;
    EXPECT_EQ(f[i], fmt::format("{}", static_cast<float>(i) / 2 * (hit ? 2 : 1))) << i;
  }
  // The moved rows live in new fragments; the old ones keep the others.
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  EXPECT_EQ((*ds)->Stats().num_rows, 50u);
  EXPECT_EQ((*ds)->manifest().fragments_size(), 5);  // 4 original (16, 16, 16, 2) + 1 new
}

TEST(UpdateWhere, EveryExpressionSeesTheRowBeforeTheUpdate) {
  auto root = MakeTable(5);
  auto updated = UpdateWhere(table::CommitTarget{root, std::nullopt},
                             {{"n", "CAST(f * 10 AS INT)"}, {"f", "n"}}, "");
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->rows_updated, 5u);
  auto n = Values(root, "n"), f = Values(root, "f");
  EXPECT_EQ(n[3], "15");  // f was 1.5
  EXPECT_EQ(f[3], "30");  // n was 30
  EXPECT_EQ(f[4], "NULL");
}

TEST(UpdateWhere, NothingMatchedCommitsNothing) {
  auto root = MakeTable(5);
  auto updated = UpdateWhere(table::CommitTarget{root, std::nullopt}, {{"n", "1"}}, "id > 100");
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->rows_updated, 0u);
  EXPECT_EQ(updated->version, 1u);
  auto all = root->ListAll("data/");
  ASSERT_OK(all.status());
  EXPECT_EQ(all->size(), 1u) << "no data file left behind";
}

TEST(UpdateWhere, BadUpdatesAreRefusedBeforeAnyWrite) {
  auto root = MakeTable(20);
  const table::CommitTarget target{root, std::nullopt};
  auto before = root->ListAll("");
  ASSERT_OK(before.status());
  auto expect = [&](const std::vector<std::pair<std::string, std::string>>& updates,
                    const std::string& where, StatusCode code, const std::string& needle) {
    auto r = UpdateWhere(target, updates, where);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().ToString();
  };
  expect({}, "", StatusCode::kInvalidInput, "at least one column");
  expect({{"n", "1"}, {"n", "2"}}, "", StatusCode::kInvalidInput, "updated twice");
  expect({{"nope", "1"}}, "", StatusCode::kTableColumnNotFound, "nope");
  expect({{"n", "1 +"}}, "", StatusCode::kInvalidInput, "update of 'n'");
  expect({{"n", "s"}}, "", StatusCode::kInvalidInput, "cannot take a value of type utf8");
  expect({{"n", "missing + 1"}}, "", StatusCode::kInvalidInput, "missing");
  expect({{"n", "1"}}, "id >", StatusCode::kInvalidInput, "filter");
  // A value that does not fit: found while writing, and nothing is committed.
  expect({{"n", "id * 1000000000"}}, "", StatusCode::kInvalidInput, "does not fit");
  auto after = root->ListAll("");
  ASSERT_OK(after.status());
  EXPECT_EQ(after->size(), before->size()) << "the refused updates left no file";
}

TEST(ToColumnType, CastsAsDataFusionDoes) {
  auto i64 = *arrow::MakeFixedArray(arrow::DataType::Int64(), std::vector<int64_t>{1, -128, 127},
                                    {true, true, false});
  auto i8 = ToColumnType(i64, arrow::DataType::Int8(), "c");
  ASSERT_OK(i8.status());
  EXPECT_EQ((*i8)->type, arrow::DataType::Int8());
  EXPECT_EQ(arrow::Values<int8_t>(**i8)[1], -128);
  EXPECT_TRUE(arrow::IsNull(**i8, 2));
  auto big = *arrow::MakeFixedArray(arrow::DataType::Int64(), std::vector<int64_t>{128});
  auto refused = ToColumnType(big, arrow::DataType::Int8(), "c");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("the value 128 does not fit its type int8"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_OK(ToColumnType(big, arrow::DataType::UInt8(), "c").status());  // 128 fits uint8
  auto negative = *arrow::MakeFixedArray(arrow::DataType::Int64(), std::vector<int64_t>{-1});
  EXPECT_FALSE(ToColumnType(negative, arrow::DataType::UInt64(), "c").ok());

  auto floats = *arrow::MakeFixedArray(arrow::DataType::Float64(), std::vector<double>{2.9, -2.9});
  auto truncated = ToColumnType(floats, arrow::DataType::Int32(), "c");
  ASSERT_OK(truncated.status());
  EXPECT_EQ(arrow::Values<int32_t>(**truncated)[0], 2);
  EXPECT_EQ(arrow::Values<int32_t>(**truncated)[1], -2);
  auto huge = *arrow::MakeFixedArray(arrow::DataType::Float64(), std::vector<double>{9.3e18});
  EXPECT_FALSE(ToColumnType(huge, arrow::DataType::Int64(), "c").ok());
  auto f32 = ToColumnType(floats, arrow::DataType::Float32(), "c");
  ASSERT_OK(f32.status());
  EXPECT_FLOAT_EQ(arrow::Values<float>(**f32)[0], 2.9f);

  auto seconds = *arrow::MakeFixedArray(arrow::DataType::Timestamp(arrow::TimeUnit::kNano),
                                        std::vector<int64_t>{1'500'000'000, -1});
  auto ms = ToColumnType(seconds, arrow::DataType::Timestamp(arrow::TimeUnit::kMilli), "t");
  ASSERT_OK(ms.status());
  EXPECT_EQ(arrow::Values<int64_t>(**ms)[0], 1500);
  EXPECT_EQ(arrow::Values<int64_t>(**ms)[1], -1) << "floors, as arrow's cast does";

  auto text = *arrow::MakeBinaryArray(arrow::DataType::Utf8(), {"a", "b"});
  EXPECT_FALSE(ToColumnType(text, arrow::DataType::Int32(), "c").ok());
  // The pairing is checked on no rows too (what an update checks before it writes).
  auto no_text = *arrow::MakeBinaryArray(arrow::DataType::Utf8(), {});
  EXPECT_FALSE(ToColumnType(no_text, arrow::DataType::Int32(), "c").ok());
  EXPECT_FALSE(ToColumnType(no_text, arrow::DataType::Float64(), "c").ok());
  EXPECT_FALSE(ToColumnType(floats, arrow::DataType::Utf8(), "c").ok());
  auto large = ToColumnType(text, arrow::DataType::LargeUtf8(), "c");
  ASSERT_OK(large.status());
  EXPECT_EQ(arrow::BinaryValue(**large, 1), "b");

  auto nulls = *arrow::MakeNullArray(arrow::DataType::Null(), 3);
  auto vec_type =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, 2);
  auto null_vectors = ToColumnType(nulls, vec_type, "v");
  ASSERT_OK(null_vectors.status());
  EXPECT_EQ((*null_vectors)->null_count, 3);
  auto refused_vec = ToColumnType(floats, vec_type, "v");
  ASSERT_FALSE(refused_vec.ok());
  EXPECT_EQ(refused_vec.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace quiver::query
