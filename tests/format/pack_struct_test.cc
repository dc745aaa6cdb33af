// Packed structs written in file format 2.2 as Lance 12 writes them
// (docs/research/packed-struct-writes.md): one column per struct, fixed-width members as
// mini-block PackedStruct rows in Lance's chunk sizes, variable-width ones as full-zip
// VariablePackedStruct rows, null struct rows as levels; the struct's id in DataFile.fields;
// what Lance refuses refused with the column and member named, before the file takes any row.
// 2.1 files pack fixed-width members only, as Lance 8 does. Every file is read back equal.
#include <cstring>

#include <gtest/gtest.h>

#include "file_write_test_util.h"
#include "testing/status_matchers.h"

namespace quiver {
namespace {

using arrow::ArrayPtr;
using arrow::DataType;
using arrow::Field;
using testing::ChunkWords;
using testing::ColumnMeta;
using testing::ExpectReadsBack;
using testing::PageLayouts;
using testing::WriteFileWithSchema;
using testing::Written;
namespace pb = lance::encodings21;

const arrow::Metadata kPacked = {{"lance-encoding:packed", "true"}};

format::FileWriteOptions V22() {
  format::FileWriteOptions options;
  options.version = format::FileVersion::kV2_2;
  return options;
}

ArrayPtr Ids(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return *arrow::MakeFixedArray(DataType::Int64(), v);
}

std::shared_ptr<arrow::Schema> SchemaOf(std::vector<Field> fields) {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields = std::move(fields);
  return schema;
}

// struct{a int32 = i + 1, b float64 = 0.5 i, c int16 = -i}: the research's case (a).
const DataType kFixedType =
    DataType::Struct({Field("a", DataType::Int32(), false), Field("b", DataType::Float64(), false),
                      Field("c", DataType::Int16(), false)});
ArrayPtr FixedStructs(int64_t n, const std::vector<bool>& valid = {}) {
  std::vector<int32_t> a;
  std::vector<double> b;
  std::vector<int16_t> c;
  for (int64_t i = 0; i < n; ++i) {
    a.push_back(static_cast<int32_t>(i + 1));
    b.push_back(0.5 * static_cast<double>(i));
    c.push_back(static_cast<int16_t>(-i));
  }
  return *arrow::MakeStructArray(
      kFixedType, n,
      {*arrow::MakeFixedArray(DataType::Int32(), a), *arrow::MakeFixedArray(DataType::Float64(), b),
       *arrow::MakeFixedArray(DataType::Int16(), c)},
      valid);
}

// struct{a int32, s utf8, v fsl<float32, 2>, ls large_utf8, bin binary}.
const DataType kFsl2 = DataType::FixedSizeList(Field("item", DataType::Float32()), 2);
const DataType kVariableType =
    DataType::Struct({Field("a", DataType::Int32(), false), Field("s", DataType::Utf8(), false),
                      Field("v", kFsl2, false), Field("ls", DataType::LargeUtf8(), false),
                      Field("bin", DataType::Binary(), false)});
ArrayPtr VariableStructs(int64_t n, const std::vector<bool>& valid = {}) {
  std::vector<int32_t> a;
  std::vector<std::string> s, ls, bin;
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) {
    a.push_back(static_cast<int32_t>(3 * i - 100));
    s.push_back(std::string(static_cast<size_t>(i % 4), 'x'));
    v.push_back(static_cast<float>(i) / 8);
    v.push_back(-static_cast<float>(i));
    ls.push_back("row " + std::to_string(i));
    bin.push_back(std::string(static_cast<size_t>(i % 5), static_cast<char>(i & 0x7f)));
  }
  return *arrow::MakeStructArray(
      kVariableType, n,
      {*arrow::MakeFixedArray(DataType::Int32(), a), *arrow::MakeBinaryArray(DataType::Utf8(), s),
       *arrow::MakeFixedSizeListArray(kFsl2, n, *arrow::MakeFixedArray(DataType::Float32(), v)),
       *arrow::MakeBinaryArray(DataType::LargeUtf8(), ls),
       *arrow::MakeBinaryArray(DataType::Binary(), bin)},
      valid);
}

TEST(PackStruct, FixedWidthMembersAreMiniBlockRowsInLanceChunkSizes) {
  const int64_t n = 5000;
  auto schema =
      SchemaOf({Field("id", DataType::Int64(), false), Field("ps", kFixedType, false, kPacked)});
  Written w = WriteFileWithSchema(schema, {Ids(n), FixedStructs(n)}, V22());
  ExpectReadsBack(w);
  // One column for the struct (id 1), none for its members (ids 2-4).
  EXPECT_EQ(w.result.fields, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(w.result.column_indices, (std::vector<int32_t>{0, 1}));
  const std::vector<pb::PageLayout> pages = PageLayouts(w, 1);
  ASSERT_EQ(pages.size(), 1u);
  ASSERT_TRUE(pages[0].has_mini_block_layout());
  const pb::MiniBlockLayout& mb = pages[0].mini_block_layout();
  EXPECT_TRUE(mb.has_large_chunk());
  ASSERT_EQ(mb.layers_size(), 1);
  EXPECT_EQ(mb.layers(0), pb::REPDEF_ALL_VALID_ITEM);
  EXPECT_FALSE(mb.has_def_compression());
  EXPECT_FALSE(mb.has_dictionary());
  ASSERT_TRUE(mb.value_compression().has_packed_struct());
  const pb::PackedStruct& packed = mb.value_compression().packed_struct();
  EXPECT_EQ(std::vector<uint64_t>(packed.bits_per_value().begin(), packed.bits_per_value().end()),
            (std::vector<uint64_t>{32, 64, 16}));
  EXPECT_EQ(packed.values().flat().bits_per_value(), 112u);
  // Lance's chunks: 9 of 512 rows (8 header bytes + 7,168 row bytes), then 392 rows.
  const std::vector<testing::ChunkWord> chunks = ChunkWords(w, 1);
  ASSERT_EQ(chunks.size(), 10u);
  for (size_t k = 0; k < 9; ++k) {
    EXPECT_EQ(chunks[k].bytes, 7176u) << k;
    EXPECT_EQ(chunks[k].log_values, 9u) << k;
  }
  EXPECT_TRUE(chunks[9].last);
  // Rows are the members' bytes back to back: row 1 = 2, 0.5, -1.
  auto file = w.store->Get("f.lance");
  ASSERT_TRUE(file.ok());
  const auto meta = ColumnMeta(w, 1);
  const char* chunk = file->data.data() + meta.pages(0).buffer_offsets(1);
  uint32_t value_bytes;
  std::memcpy(&value_bytes, chunk + 2, 4);
  EXPECT_EQ(value_bytes, 7168u);
  int32_t a;
  double b;
  int16_t c;
  std::memcpy(&a, chunk + 8 + 14, 4);
  std::memcpy(&b, chunk + 8 + 14 + 4, 8);
  std::memcpy(&c, chunk + 8 + 14 + 12, 2);
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 0.5);
  EXPECT_EQ(c, -1);
}

// Lance 8 packs fixed-width members in 2.1 too (and reads packed structs only packed), but
// refuses variable-width ones there.
TEST(PackStruct, TwoPointOnePacksFixedWidthMembersOnly) {
  const int64_t n = 1000;
  auto schema =
      SchemaOf({Field("id", DataType::Int64(), false), Field("ps", kFixedType, false, kPacked)});
  Written w = WriteFileWithSchema(schema, {Ids(n), FixedStructs(n)});
  ExpectReadsBack(w);
  EXPECT_EQ(w.result.fields, (std::vector<int32_t>{0, 1}));
  const pb::MiniBlockLayout mb = PageLayouts(w, 1)[0].mini_block_layout();
  EXPECT_FALSE(mb.has_large_chunk());
  EXPECT_TRUE(mb.value_compression().has_packed_struct());

  auto variable =
      format::FromArrowSchema(arrow::Schema{{Field("pv", kVariableType, true, kPacked)}, {}});
  ASSERT_TRUE(variable.ok());
  auto refused =
      format::LanceFileWriter::Open(MemoryObjectStore::Create(), "f.lance", *variable, {});
  ASSERT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("column 'pv'"), std::string::npos);
  EXPECT_NE(refused.status().message().find("requires Lance file version 2.2"), std::string::npos)
      << refused.status().ToString();
}

TEST(PackStruct, NullStructRowsAreLevels) {
  const int64_t n = 3000;
  std::vector<bool> valid(n);
  for (int64_t i = 0; i < n; ++i) valid[i] = i % 7 != 3;
  auto schema =
      SchemaOf({Field("id", DataType::Int64(), false), Field("pf", kFixedType, true, kPacked),
                Field("pv", kVariableType, true, kPacked)});
  Written w = WriteFileWithSchema(
      schema, {Ids(n), FixedStructs(n, valid), VariableStructs(n, valid)}, V22(), 1000);
  ExpectReadsBack(w);
  const pb::MiniBlockLayout mb = PageLayouts(w, 1)[0].mini_block_layout();
  EXPECT_EQ(mb.layers(0), pb::REPDEF_NULLABLE_ITEM);
  EXPECT_TRUE(mb.has_def_compression());
  EXPECT_EQ(mb.num_items(), static_cast<uint64_t>(n));  // null rows keep their slot
  const pb::FullZipLayout fz = PageLayouts(w, 2)[0].full_zip_layout();
  EXPECT_EQ(fz.bits_def(), 1u);
  EXPECT_EQ(fz.layers(0), pb::REPDEF_NULLABLE_ITEM);
}

TEST(PackStruct, VariableWidthMembersAreFullZipRows) {
  const int64_t n = 1000;
  auto schema =
      SchemaOf({Field("id", DataType::Int64(), false), Field("ps", kVariableType, false, kPacked)});
  Written w = WriteFileWithSchema(schema, {Ids(n), VariableStructs(n)}, V22(), 333);
  ExpectReadsBack(w);
  EXPECT_EQ(w.result.fields, (std::vector<int32_t>{0, 1}));
  const std::vector<pb::PageLayout> pages = PageLayouts(w, 1);
  ASSERT_EQ(pages.size(), 1u);
  ASSERT_TRUE(pages[0].has_full_zip_layout());
  const pb::FullZipLayout& fz = pages[0].full_zip_layout();
  EXPECT_EQ(fz.bits_per_offset(), 32u);
  EXPECT_EQ(fz.bits_def(), 0u);
  EXPECT_EQ(fz.layers(0), pb::REPDEF_ALL_VALID_ITEM);
  ASSERT_TRUE(fz.value_compression().has_variable_packed_struct());
  const auto& fields = fz.value_compression().variable_packed_struct().fields();
  ASSERT_EQ(fields.size(), 5);
  EXPECT_EQ(fields[0].bits_per_value(), 32u);
  EXPECT_EQ(fields[0].value().flat().bits_per_value(), 32u);
  EXPECT_EQ(fields[1].bits_per_length(), 32u);
  EXPECT_EQ(fields[1].value().variable().offsets().flat().bits_per_value(), 32u);
  EXPECT_EQ(fields[2].bits_per_value(), 64u);
  EXPECT_EQ(fields[2].value().fixed_size_list().items_per_value(), 2u);
  EXPECT_EQ(fields[3].bits_per_length(), 64u);
  EXPECT_EQ(fields[4].bits_per_length(), 32u);
  // Row 1: its length, a = -97, s = "x", v = {0.125, -1}, ls = "row 1", bin = "\x01".
  auto file = w.store->Get("f.lance");
  ASSERT_TRUE(file.ok());
  const char* data = file->data.data() + ColumnMeta(w, 1).pages(0).buffer_offsets(0);
  uint32_t len0, len1;
  std::memcpy(&len0, data, 4);
  const char* row1 = data + 4 + len0;
  std::memcpy(&len1, row1, 4);
  const std::string want = [] {
    std::string r;
    auto put = [&](const void* p, size_t k) { r.append(static_cast<const char*>(p), k); };
    const int32_t a = -97;
    const uint32_t one = 1, five = 5;
    const uint64_t five64 = 5;
    const float v[2] = {0.125f, -1.0f};
    put(&a, 4), put(&one, 4), r += "x", put(v, 8), put(&five64, 8), r += "row 1", put(&one, 4);
    r += '\x01';
    (void)five;
    return r;
  }();
  EXPECT_EQ(len1, want.size());
  EXPECT_EQ(std::string(row1 + 4, len1), want);
}

TEST(PackStruct, ListsOfPackedStructsAndPackedStructsInStructs) {
  const int64_t n = 1200;
  std::vector<int64_t> offsets = {0};
  std::vector<bool> list_valid(n);
  for (int64_t i = 0; i < n; ++i) {
    list_valid[i] = i % 9 != 4;
    offsets.push_back(offsets.back() + (list_valid[i] ? i % 3 : 0));
  }
  const int64_t m = offsets.back();
  std::vector<bool> item_valid(m);
  for (int64_t k = 0; k < m; ++k) item_valid[k] = k % 5 != 2;
  auto list_of = [](const DataType& item) {
    return DataType::List(Field("item", item, true, kPacked));
  };
  ArrayPtr fixed_lists =
      *arrow::MakeListArray(list_of(kFixedType), offsets, FixedStructs(m, item_valid), list_valid);
  ArrayPtr variable_lists = *arrow::MakeListArray(list_of(kVariableType), offsets,
                                                  VariableStructs(m, item_valid), list_valid);
  const DataType outer_type =
      DataType::Struct({Field("x", DataType::Int32()), Field("p", kFixedType, true, kPacked)});
  std::vector<int32_t> xs(n);
  std::vector<bool> inner_valid(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = static_cast<int32_t>(i), inner_valid[i] = i % 4 != 1;
  ArrayPtr outer = *arrow::MakeStructArray(
      outer_type, n, {*arrow::MakeFixedArray(DataType::Int32(), xs), FixedStructs(n, inner_valid)});
  auto schema = SchemaOf({Field("id", DataType::Int64(), false), Field("lf", fixed_lists->type),
                          Field("lv", variable_lists->type), Field("o", outer_type)});
  Written w = WriteFileWithSchema(schema, {Ids(n), fixed_lists, variable_lists, outer}, V22(), 500);
  ExpectReadsBack(w);
  // id 0; lf 1 (item 2: a column, its members 3-5 not); lv 6 (item 7, members 8-12);
  // o 13 (x 14, p 15 with members 16-18).
  EXPECT_EQ(w.result.fields, (std::vector<int32_t>{0, 2, 7, 14, 15}));
  const pb::MiniBlockLayout lf = PageLayouts(w, 1)[0].mini_block_layout();
  ASSERT_EQ(lf.layers_size(), 2);
  EXPECT_EQ(lf.layers(0), pb::REPDEF_NULLABLE_ITEM);
  EXPECT_TRUE(lf.value_compression().has_packed_struct());
  EXPECT_TRUE(
      PageLayouts(w, 2)[0].full_zip_layout().value_compression().has_variable_packed_struct());
}

TEST(PackStruct, WhatLanceRefusesIsRefusedNamingTheMember) {
  auto open = [](const DataType& type) {
    auto schema = format::FromArrowSchema(arrow::Schema{{Field("ps", type, true, kPacked)}, {}});
    EXPECT_TRUE(schema.ok());
    return format::LanceFileWriter::Open(MemoryObjectStore::Create(), "f.lance", *schema, V22());
  };
  struct Case {
    DataType type;
    const char* says;
  } cases[] = {
      {DataType::Struct({Field("a", DataType::Int32()), Field("flag", DataType::Bool())}),
       "member 'flag' is bool"},
      {DataType::Struct({Field("a", DataType::Int32()),
                         Field("inner", DataType::Struct({Field("z", DataType::Int32())}))}),
       "member 'inner'"},
      {DataType::Struct({Field("l", DataType::List(Field("item", DataType::Int32())))}),
       "member 'l'"},
      {DataType::Struct([] {
         std::vector<Field> wide;
         for (int k = 0; k < 40; ++k)
           wide.emplace_back("f" + std::to_string(k), DataType::Float64());
         return wide;
       }()),
       "320 bytes wide"},
  };
  for (const Case& c : cases) {
    auto refused = open(c.type);
    ASSERT_FALSE(refused.ok()) << c.type.ToString();
    EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(refused.status().message().find("column 'ps'"), std::string::npos)
        << refused.status().ToString();
    EXPECT_NE(refused.status().message().find(c.says), std::string::npos)
        << refused.status().ToString();
  }
  // Without the metadata each is an ordinary struct.
  for (const Case& c : cases) {
    auto schema = format::FromArrowSchema(arrow::Schema{{Field("ps", c.type, true)}, {}});
    auto apart =
        format::LanceFileWriter::Open(MemoryObjectStore::Create(), "f.lance", *schema, V22());
    EXPECT_TRUE(apart.ok()) << apart.status().ToString();
  }
}

// A member null in a valid struct row is refused before any column takes the batch: the writer
// goes on with the next batch and the file holds exactly the good rows. Nulls under null struct
// rows are no values and pass.
TEST(PackStruct, MemberNullsInValidRowsAreRefusedAndChangeNothing) {
  const DataType type =
      DataType::Struct({Field("a", DataType::Int32(), true), Field("s", DataType::Utf8(), true)});
  auto schema = SchemaOf({Field("id", DataType::Int64(), false), Field("ps", type, true, kPacked)});
  auto lance = format::FromArrowSchema(*schema);
  ASSERT_TRUE(lance.ok());
  auto store = MemoryObjectStore::Create();
  auto writer = format::LanceFileWriter::Open(store, "f.lance", *lance, V22());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto batch_of = [&](std::vector<bool> struct_valid, std::vector<bool> a_valid) {
    const int64_t n = static_cast<int64_t>(struct_valid.size());
    std::vector<int32_t> a(static_cast<size_t>(n), 7);
    std::vector<std::string> s(static_cast<size_t>(n), "v");
    arrow::RecordBatch batch;
    batch.schema = schema;
    batch.length = n;
    batch.columns = {
        Ids(n), *arrow::MakeStructArray(type, n,
                                        {*arrow::MakeFixedArray(DataType::Int32(), a, a_valid),
                                         *arrow::MakeBinaryArray(DataType::Utf8(), s, a_valid)},
                                        struct_valid)};
    return batch;
  };
  Status bad = (*writer)->Write(batch_of({true, true, true}, {true, false, true}));
  ASSERT_EQ(bad.code(), StatusCode::kUnsupported) << bad.ToString();
  EXPECT_NE(bad.message().find("member 'a' is null in row 1"), std::string::npos) << bad.ToString();
  // Nulls only under null struct rows: written.
  ASSERT_OK((*writer)->Write(batch_of({true, false, true, false}, {true, false, true, false})));
  auto done = (*writer)->Finish();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->num_rows, 4u);
  auto reader = format::LanceFileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok());
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const arrow::ArrayData& ps = *all->columns[1];
  ASSERT_EQ(ps.length, 4);
  EXPECT_TRUE(arrow::IsValid(ps, 0));
  EXPECT_TRUE(arrow::IsNull(ps, 1));
  EXPECT_TRUE(arrow::IsValid(ps, 2));
  EXPECT_TRUE(arrow::IsNull(ps, 3));
  EXPECT_EQ(arrow::Values<int32_t>(*arrow::StructField(ps, 0))[2], 7);
  EXPECT_EQ(arrow::BinaryValue(*arrow::StructField(ps, 1), 2), "v");
}

}  // namespace
}  // namespace quiver
