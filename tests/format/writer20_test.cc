// The Lance 2.0 writer (src/format/internal/writer20, values20) on the cases the random property
// test does not reach: dictionaries with more distinct values than their index type holds across
// batches (the column cuts extra pages), the null type, members that are not nullable under a
// null struct, the struct header's single page over multi-page members, and the file's
// container: footer (0,3), DataFile (2,0), every field owning a column.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "format/arrow_schema.h"
#include "format/internal/file_container.h"
#include "format/lance_file_reader.h"
#include "format/lance_file_writer.h"
#include "store/memory_store.h"

namespace quiver::format {
namespace {

using arrow::DataType;

std::vector<std::optional<std::string>> DictionaryStrings(const arrow::ArrayData& a) {
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < a.length; ++i) {
    if (arrow::IsNull(a, i)) {
      out.emplace_back();
      continue;
    }
    const int64_t k = arrow::DictionaryIndex(a, i);
    if (arrow::IsNull(*a.dictionary, k)) {
      out.emplace_back();
    } else {
      out.emplace_back(std::string(arrow::BinaryValue(*a.dictionary, k)));
    }
  }
  return out;
}

struct Written {
  std::shared_ptr<ObjectStore> store;
  FileWriteResult result;
};

Written Write20(const arrow::Schema& schema, const std::vector<arrow::RecordBatch>& batches,
                uint64_t page_bytes = 8u << 20) {
  Written w;
  w.store = MemoryObjectStore::Create();
  auto lance = FromArrowSchema(schema);
  EXPECT_TRUE(lance.ok()) << lance.status().ToString();
  FileWriteOptions options;
  options.version = FileVersion::kV2_0;
  options.page_bytes = page_bytes;
  auto writer = LanceFileWriter::Open(w.store, "f.lance", *lance, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return w;
  for (const auto& b : batches) {
    Status s = (*writer)->Write(b);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto result = (*writer)->Finish();
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (result.ok()) w.result = *result;
  return w;
}

TEST(Writer20, DictionaryIndexOverflowCutsPages) {
  const DataType type = DataType::Dictionary(arrow::TypeId::kInt8, DataType::Utf8());
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("d", type, true);
  std::vector<arrow::RecordBatch> batches;
  std::vector<std::optional<std::string>> want;
  for (int b = 0; b < 3; ++b) {
    // 100 distinct values per batch, none shared: 300 in all, int8 indices reach 127.
    std::vector<std::string> values;
    for (int k = 0; k < 100; ++k) values.push_back(fmt::format("b{}v{}", b, k));
    std::vector<int8_t> idx;
    std::vector<bool> valid;
    for (int i = 0; i < 250; ++i) {
      idx.push_back(static_cast<int8_t>((i * 7) % 100));
      valid.push_back(i % 11 != 3);
      want.push_back(valid.back() ? std::optional<std::string>(values[idx.back()]) : std::nullopt);
    }
    auto dictionary = arrow::MakeBinaryArray(DataType::Utf8(), values);
    auto indices = arrow::MakeFixedArray(DataType::Int8(), idx, valid);
    ASSERT_TRUE(dictionary.ok() && indices.ok());
    auto column = arrow::MakeDictionaryArray(type, *indices, *dictionary);
    ASSERT_TRUE(column.ok()) << column.status().ToString();
    batches.push_back(arrow::RecordBatch{schema, 250, {*column}});
  }
  Written w = Write20(*schema, batches);
  auto container = internal::ReadFileContainer(*w.store, "f.lance", 0);
  ASSERT_TRUE(container.ok()) << container.status().ToString();
  EXPECT_GE((*container)->columns[0].pages.size(), 3u);  // 300 values in pages of <= 127
  auto reader = LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // Batches of 100 rows: the reader hands a dictionary column back re-encoded per batch, and
  // 300 distinct values do not fit one int8-indexed batch.
  ReadRequest request;
  request.batch_rows = 100;
  auto stream = (*reader)->Read(request);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::vector<std::optional<std::string>> got;
  while (true) {
    auto batch = (*stream)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    for (auto& v : DictionaryStrings(*(*batch)->columns[0])) got.push_back(std::move(v));
  }
  EXPECT_EQ(got, want);
}

TEST(Writer20, NullTypeAndNullMembersOfStructs) {
  const DataType st = DataType::Struct(
      {arrow::Field("a", DataType::Int32(), false), arrow::Field("b", DataType::Utf8(), true)});
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("n", DataType::Null(), true);
  schema->fields.emplace_back("s", st, true);
  auto a = arrow::MakeFixedArray(DataType::Int32(), std::vector<int32_t>{1, 0, 3});
  auto b = arrow::MakeBinaryArray(DataType::Utf8(), {"x", "", "z"}, {true, false, true});
  ASSERT_TRUE(a.ok() && b.ok());
  auto s = arrow::MakeStructArray(st, 3, {*a, *b});
  auto n = arrow::MakeNullArray(DataType::Null(), 3);
  ASSERT_TRUE(s.ok() && n.ok());
  Written w = Write20(*schema, {arrow::RecordBatch{schema, 3, {*n, *s}}});
  EXPECT_EQ(w.result.major, 2u);
  EXPECT_EQ(w.result.minor, 0u);
  EXPECT_EQ(w.result.fields, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(w.result.column_indices, (std::vector<int32_t>{0, 1, 2, 3}));
  auto container = internal::ReadFileContainer(*w.store, "f.lance", 0);
  ASSERT_TRUE(container.ok()) << container.status().ToString();
  EXPECT_EQ((*container)->major, 0);
  EXPECT_EQ((*container)->minor, 3);

  auto reader = LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->columns[0]->type.id(), arrow::TypeId::kNull);
  EXPECT_EQ(all->columns[0]->length, 3);
  auto d = arrow::Diff(*all->columns[1], **s);
  EXPECT_FALSE(d.has_value()) << *d;
}

// 2.0 cannot say a struct is null. Lance 8 wrote a null struct as a struct of nulls; Lance 12
// refuses it (lance#8507), and so does quiver, with Lance 12's words, publishing nothing.
TEST(Writer20, ANullStructIsRefusedAsLance12RefusesIt) {
  const DataType inner = DataType::Struct({arrow::Field("x", DataType::Int32(), true)});
  const DataType outer = DataType::Struct({arrow::Field("in", inner, true)});
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("s", outer, true);
  auto x = arrow::MakeFixedArray(DataType::Int32(), std::vector<int32_t>{1, 2, 3});
  ASSERT_TRUE(x.ok());
  // The null is one level down: the outer struct is valid everywhere.
  auto in = arrow::MakeStructArray(inner, 3, {*x}, {true, false, true});
  ASSERT_TRUE(in.ok());
  auto s = arrow::MakeStructArray(outer, 3, {*in});
  ASSERT_TRUE(s.ok());
  auto store = MemoryObjectStore::Create();
  auto lance = FromArrowSchema(*schema);
  ASSERT_TRUE(lance.ok());
  FileWriteOptions options;
  options.version = FileVersion::kV2_0;
  auto writer = LanceFileWriter::Open(store, "f.lance", *lance, options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  Status wrote = (*writer)->Write(arrow::RecordBatch{schema, 3, {*s}});
  ASSERT_EQ(wrote.code(), StatusCode::kInvalidInput) << wrote.ToString();
  EXPECT_EQ(wrote.message(),
            "The struct field `in` contains 1 null value(s), but Lance file version 2.0 does not "
            "encode struct validity; use file version 2.1 or later");
  EXPECT_FALSE((*writer)->Finish().ok());
  EXPECT_TRUE(store->ListAll("")->empty());
}

TEST(Writer20, StructHeaderIsOnePageOverManyMemberPages) {
  const DataType st = DataType::Struct(
      {arrow::Field("v", DataType::Int64(), true),
       arrow::Field("l", DataType::List(arrow::Field("item", DataType::Int32(), true)), true)});
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("s", st, true);
  std::vector<int64_t> v, offsets{0};
  std::vector<int32_t> items;
  for (int64_t i = 0; i < 5000; ++i) {
    v.push_back(i);
    for (int64_t k = 0; k < i % 4; ++k) items.push_back(static_cast<int32_t>(i * 10 + k));
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  auto vs = arrow::MakeFixedArray(DataType::Int64(), v);
  auto is = arrow::MakeFixedArray(DataType::Int32(), items);
  ASSERT_TRUE(vs.ok() && is.ok());
  auto ls = arrow::MakeListArray(st.children()[1].type, offsets, *is);
  ASSERT_TRUE(ls.ok());
  auto s = arrow::MakeStructArray(st, 5000, {*vs, *ls});
  ASSERT_TRUE(s.ok());
  Written w = Write20(*schema, {arrow::RecordBatch{schema, 5000, {*s}}}, 4096);
  auto container = internal::ReadFileContainer(*w.store, "f.lance", 0);
  ASSERT_TRUE(container.ok()) << container.status().ToString();
  const auto& columns = (*container)->columns;
  ASSERT_EQ(columns.size(), 4u);  // s, s.v, s.l, s.l.item
  EXPECT_EQ(columns[0].pages.size(), 1u);
  EXPECT_EQ(columns[0].pages[0].rows, 5000u);
  EXPECT_GT(columns[1].pages.size(), 5u);
  // Offsets and items pages are cut together.
  EXPECT_EQ(columns[2].pages.size(), columns[3].pages.size());
  auto reader = LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  auto d = arrow::Diff(*all->columns[0], **s);
  EXPECT_FALSE(d.has_value()) << *d;
}

// A dictionary page is cut on what it holds in memory: indices at their width plus, per
// distinct value, its bytes twice and a lookup node (64 bytes). All-distinct values then make
// pages of at most about page_bytes / 64 rows.
TEST(Writer20, DictionaryPagesCountTheirLookup) {
  const DataType type = DataType::Dictionary(arrow::TypeId::kInt32, DataType::Utf8());
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("d", type, true);
  const int64_t n = 20'000;
  std::vector<std::string> values;
  std::vector<int32_t> idx;
  std::vector<bool> valid;
  for (int64_t i = 0; i < n; ++i) {
    values.push_back(fmt::format("v{:06}", i));
    idx.push_back(static_cast<int32_t>(i));
    valid.push_back(i % 9 != 4);
  }
  auto column =
      arrow::MakeDictionaryArray(type, *arrow::MakeFixedArray(DataType::Int32(), idx, valid),
                                 *arrow::MakeBinaryArray(DataType::Utf8(), values));
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  const uint64_t page_bytes = 64 * 1024;
  Written w = Write20(*schema, {arrow::RecordBatch{schema, n, {*column}}}, page_bytes);
  auto container = internal::ReadFileContainer(*w.store, "f.lance", 0);
  ASSERT_TRUE(container.ok()) << container.status().ToString();
  const auto& pages = (*container)->columns[0].pages;
  EXPECT_GT(pages.size(), static_cast<size_t>(n * 64 / page_bytes) - 1);
  for (const auto& page : pages) EXPECT_LE(page.rows, page_bytes / 64 + 64);  // + a slice
  auto reader = LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(DictionaryStrings(*all->columns[0]), DictionaryStrings(**column));
}

// page_bytes 0 is refused; page_bytes 1 still gives pages of several rows (a slice's minimum),
// not one page per row.
TEST(Writer20, TinyPageBytes) {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("v", DataType::Int64(), true);
  auto lance = FromArrowSchema(*schema);
  ASSERT_TRUE(lance.ok());
  for (FileVersion version : {FileVersion::kV2_0, FileVersion::kV2_1}) {
    FileWriteOptions options;
    options.version = version;
    options.page_bytes = 0;
    auto refused = LanceFileWriter::Open(MemoryObjectStore::Create(), "f.lance", *lance, options);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput) << refused.status().ToString();
  }
  std::vector<int64_t> v(100);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  auto column = arrow::MakeFixedArray(DataType::Int64(), v);
  ASSERT_TRUE(column.ok());
  Written w = Write20(*schema, {arrow::RecordBatch{schema, 100, {*column}}}, 1);
  auto container = internal::ReadFileContainer(*w.store, "f.lance", 0);
  ASSERT_TRUE(container.ok()) << container.status().ToString();
  const auto& pages = (*container)->columns[0].pages;
  EXPECT_LE(pages.size(), 100u / 8 + 1);
  for (size_t p = 0; p + 1 < pages.size(); ++p) EXPECT_GE(pages[p].rows, 8u);
  auto reader = LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  auto d = arrow::Diff(*all->columns[0], **column);
  EXPECT_FALSE(d.has_value()) << *d;
}

}  // namespace
}  // namespace quiver::format
