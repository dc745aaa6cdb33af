// The Lance 2.1 file writer on inputs that stretch its page and chunk rules: list rows of 200,000
// items, runs of 100,000 empty or null lists, a single row with more invisible levels than a
// mini-block chunk can count, the full-zip shape Lance 8.0 misreads (struct{list<fsl>} with null
// structs and null lists), and large-string dictionaries. Each file is read back through
// quiver's reader (whole and in row ranges) and must equal what was written; the page layouts
// are checked where the case is about them.
#include <cstdlib>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "file_write_test_util.h"
#include "format/arrow_schema.h"
#include "format/lance_file_reader.h"
#include "format/lance_file_writer.h"
#include "format/proto/encodings21.pb.h"
#include "format/proto/file2.pb.h"
#include "format_test_util.h"
#include "store/fault_store.h"
#include "store/memory_store.h"

namespace quiver {
namespace {

using arrow::ArrayPtr;
using arrow::DataType;
using testing::ChunkWord;
using testing::ChunkWords;
using testing::ColumnMeta;
using testing::ExpectReadsBack;
using testing::PageLayouts;
using testing::WriteFile;
using testing::Written;

ArrayPtr Ids(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return *arrow::MakeFixedArray(DataType::Int64(), v);
}

DataType ListOf(DataType item) { return DataType::List(arrow::Field("item", std::move(item))); }

// list<int32> rows: `lengths[i]` items (-1 = a null list), item k of the column = k * 3.
ArrayPtr IntLists(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> offsets = {0};
  std::vector<bool> valid;
  for (int64_t len : lengths) {
    offsets.push_back(offsets.back() + std::max<int64_t>(len, 0));
    valid.push_back(len >= 0);
  }
  std::vector<int32_t> items(static_cast<size_t>(offsets.back()));
  for (size_t k = 0; k < items.size(); ++k) items[k] = static_cast<int32_t>(k * 3);
  auto item_array = *arrow::MakeFixedArray(DataType::Int32(), items);
  return *arrow::MakeListArray(ListOf(DataType::Int32()), offsets, item_array, valid);
}

format::FileWriteOptions Compress(bool on) {
  format::FileWriteOptions options;
  options.compress = on;
  return options;
}

// One row of 200,000 items among short, null and empty rows: its mini-block chunks hold parts
// of the same row (rows completing in a chunk: 0).
TEST(Writer21, ListRowOf200kItems) {
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    const std::vector<int64_t> lengths = {2, 0, 200'000, -1, 3, 200'000, 1};
    Written w = WriteFile({Ids(7), IntLists(lengths)}, Compress(compress));
    ExpectReadsBack(w);
    for (const auto& layout : PageLayouts(w, 1)) EXPECT_TRUE(layout.has_mini_block_layout());
  }
}

// 100,000 empty, then 100,000 null lists between two values: more invisible levels than a chunk
// counts (u16), so the page is cut by rows; pages of the run alone hold no values (constant).
TEST(Writer21, RunsOf100kEmptyAndNullLists) {
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    std::vector<int64_t> lengths = {2};
    lengths.insert(lengths.end(), 100'000, 0);
    lengths.insert(lengths.end(), 100'000, -1);
    lengths.push_back(1);
    lengths.insert(lengths.end(), 70'000, 0);  // trailing run after the last value
    const int64_t n = static_cast<int64_t>(lengths.size());
    Written w = WriteFile({Ids(n), IntLists(lengths)}, Compress(compress));
    ExpectReadsBack(w);
    const auto layouts = PageLayouts(w, 1);
    EXPECT_GT(layouts.size(), 2u);
    int constant = 0;
    for (const auto& layout : layouts) constant += layout.has_constant_layout() ? 1 : 0;
    EXPECT_GT(constant, 0);
  }
}

// Every value preceded by 7 empty lists: 8 levels per value. Uncompressed levels take 4 bytes a
// level, so chunks must shrink below the values' usual 1024 to stay within 32 KiB.
TEST(Writer21, ManyInvisibleLevelsPerValueShrinkChunks) {
  std::vector<int64_t> lengths;
  for (int i = 0; i < 20'000; ++i) {
    lengths.insert(lengths.end(), 7, i % 2 == 0 ? 0 : -1);
    lengths.push_back(1);
  }
  const int64_t n = static_cast<int64_t>(lengths.size());
  const uint64_t values = 20'000, chunks_of_1024 = (values + 1023) / 1024;
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    Written w = WriteFile({Ids(n), IntLists(lengths)}, Compress(compress));
    ExpectReadsBack(w);
    // One mini-block page (no cut by rows); its chunk metadata buffer holds a u16 per chunk.
    const auto meta = ColumnMeta(w, 1);
    ASSERT_EQ(meta.pages_size(), 1);
    ASSERT_TRUE(PageLayouts(w, 1)[0].has_mini_block_layout());
    const uint64_t chunks = meta.pages(0).buffer_sizes(0) / 2;
    if (compress) {
      EXPECT_GE(chunks, chunks_of_1024);  // compressed levels fit chunks of 1024 values
    } else {
      EXPECT_GT(chunks, chunks_of_1024);  // plain ones do not: the chunks shrank
    }
  }
}

// list<list<int32>>: one row holding 70,000 empty inner lists before its values. A row cannot be
// split across pages and no mini-block chunk counts its levels, so that page is full-zip.
TEST(Writer21, OneRowBeyondAChunkIsFullZip) {
  const DataType inner = ListOf(DataType::Int32());
  std::vector<int64_t> inner_lengths = {1, 2};  // row 0: [[0], [3, 6]]
  inner_lengths.insert(inner_lengths.end(), 70'000, 0);
  inner_lengths.push_back(2);  // ... then [x, y]
  inner_lengths.push_back(-1);
  inner_lengths.push_back(3);  // row 2: [null, [..]]
  ArrayPtr items = IntLists(inner_lengths);
  const int64_t m = items->length;
  // Rows: [[0],[3,6]], [70,000 x [] then [..]], [null, [...]], null, [].
  ArrayPtr outer = *arrow::MakeListArray(ListOf(inner), {0, 2, m - 2, m, m, m}, items,
                                         {true, true, true, false, true});
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    Written w = WriteFile({Ids(5), outer}, Compress(compress));
    ExpectReadsBack(w);
    bool full_zip = false;
    for (const auto& layout : PageLayouts(w, 1)) full_zip |= layout.has_full_zip_layout();
    EXPECT_TRUE(full_zip);
  }
}

// struct{l: list<fixed_size_list<float, D>>} with null structs and null lists. Lance 8.0 cannot
// read its own full-zip pages of this shape; quiver writes mini-block for it (D = 64), and for
// vectors too wide for a chunk (D = 9000) cuts pages so none holds both null kinds.
ArrayPtr StructListFsl(int64_t n, int32_t d, bool null_structs, bool null_lists) {
  const DataType fsl = DataType::FixedSizeList(arrow::Field("item", DataType::Float32()), d);
  const DataType list = ListOf(fsl);
  const DataType st = DataType::Struct({arrow::Field("l", list)});
  std::vector<bool> struct_valid, list_valid;
  std::vector<int64_t> offsets = {0};
  for (int64_t i = 0; i < n; ++i) {
    struct_valid.push_back(!(null_structs && i % 11 == 5));
    list_valid.push_back(!(null_lists && i % 13 == 8));
    const bool has = struct_valid.back() && list_valid.back() && i % 5 != 1;
    offsets.push_back(offsets.back() + (has ? 1 + i % 3 : 0));
  }
  std::vector<float> floats(static_cast<size_t>(offsets.back() * d));
  for (size_t k = 0; k < floats.size(); ++k) floats[k] = static_cast<float>(k % 1000) / 7.0f;
  auto vectors = *arrow::MakeFixedSizeListArray(
      fsl, offsets.back(), *arrow::MakeFixedArray(DataType::Float32(), floats));
  auto lists = *arrow::MakeListArray(list, offsets, vectors, list_valid);
  return *arrow::MakeStructArray(st, n, {lists}, struct_valid);
}

TEST(Writer21, StructListFslWithBothNullKindsAvoidsFullZip) {
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    Written w = WriteFile({Ids(1000), StructListFsl(1000, 64, true, true)}, Compress(compress));
    ExpectReadsBack(w);
    for (const auto& layout : PageLayouts(w, 1)) EXPECT_FALSE(layout.has_full_zip_layout());
  }
  // One kind of null alone: full-zip, as Lance writes it.
  Written lists_only = WriteFile({Ids(1000), StructListFsl(1000, 64, false, true)});
  ExpectReadsBack(lists_only);
  for (const auto& layout : PageLayouts(lists_only, 1)) {
    EXPECT_TRUE(layout.has_full_zip_layout());
  }
}

TEST(Writer21, StructListWideFslWithBothNullKindsSplitsPages) {
  Written w = WriteFile({Ids(60), StructListFsl(60, 9000, true, true)});
  ExpectReadsBack(w);
  const auto layouts = PageLayouts(w, 1);
  EXPECT_GT(layouts.size(), 1u);
  // Vectors of 36,000 bytes fit no mini-block chunk: the pages without null structs are
  // full-zip (narrowed to layers Lance reads), the ones of null structs hold no values.
  int full_zip = 0;
  for (const auto& layout : layouts) full_zip += layout.has_full_zip_layout() ? 1 : 0;
  EXPECT_GT(full_zip, 0);
  for (const auto& layout : layouts) {
    if (!layout.has_full_zip_layout()) continue;
    // No full-zip page has a nullable layer outside its list.
    bool outside_list = false;
    for (int kind : layout.full_zip_layout().layers()) {
      if (kind == lance::encodings21::REPDEF_NULLABLE_LIST ||
          kind == lance::encodings21::REPDEF_EMPTYABLE_LIST ||
          kind == lance::encodings21::REPDEF_NULL_AND_EMPTY_LIST ||
          kind == lance::encodings21::REPDEF_ALL_VALID_LIST) {
        outside_list = true;
      } else {
        EXPECT_FALSE(outside_list && kind == lance::encodings21::REPDEF_NULLABLE_ITEM);
      }
    }
  }
}

// list<struct{l: list<fsl<float, 9000>>}>, one row holding a null struct and a vector: the
// vector fits no mini-block chunk, the row cannot be cut, and full-zip of this shape is what
// Lance 8.0 misreads. The writer refuses it (Unsupported) rather than write a file LanceDB reads
// wrong, and the failed writer answers every later call with that error; nothing is published.
TEST(Writer21, SingleRowOfTheMisreadShapeIsUnsupported) {
  const DataType fsl = DataType::FixedSizeList(arrow::Field("item", DataType::Float32()), 9000);
  const DataType inner = ListOf(fsl);
  const DataType st = DataType::Struct({arrow::Field("l", inner)});
  std::mt19937 rng(7);
  std::vector<float> floats(9000);
  for (float& f : floats) f = std::uniform_real_distribution<float>(-1, 1)(rng);
  auto vectors =
      *arrow::MakeFixedSizeListArray(fsl, 1, *arrow::MakeFixedArray(DataType::Float32(), floats));
  // Structs: [null, {l: [vector]}].
  auto lists = *arrow::MakeListArray(inner, {0, 0, 1}, vectors);
  auto structs = *arrow::MakeStructArray(st, 2, {lists}, {false, true});
  auto rows = *arrow::MakeListArray(ListOf(st), {0, 2}, structs);
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    auto store = MemoryObjectStore::Create();
    auto schema = std::make_shared<arrow::Schema>();
    schema->fields.emplace_back("c0", rows->type, true);
    auto lance = format::FromArrowSchema(*schema);
    ASSERT_TRUE(lance.ok()) << lance.status().ToString();
    auto writer = format::LanceFileWriter::Open(store, "f.lance", *lance, Compress(compress));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    Status wrote = (*writer)->Write(arrow::RecordBatch{schema, 1, {rows}});
    ASSERT_TRUE(wrote.ok()) << wrote.ToString();  // buffered: the page is cut at Finish
    auto finished = (*writer)->Finish();
    ASSERT_FALSE(finished.ok());
    EXPECT_EQ(finished.status().code(), StatusCode::kUnsupported) << finished.status().ToString();
    EXPECT_NE(finished.status().message().find("misreads"), std::string::npos)
        << finished.status().ToString();
    EXPECT_EQ((*writer)->Finish().status(), finished.status());
    EXPECT_EQ((*writer)->Write(arrow::RecordBatch{schema, 1, {rows}}), finished.status());
    EXPECT_TRUE(store->Head("f.lance").status().IsNotFound());
  }
}

// A store error mid-file (an Append of a page) fails the writer for good, in 2.1 and 2.0: later
// calls return the first error and nothing is published. A batch that does not match the schema
// is refused without harm.
TEST(Writer21, FailedAppendFailsTheWriter) {
  for (format::FileVersion version : {format::FileVersion::kV2_1, format::FileVersion::kV2_0}) {
    SCOPED_TRACE(version == format::FileVersion::kV2_1 ? "2.1" : "2.0");
    auto memory = MemoryObjectStore::Create();
    auto faults = std::make_shared<FaultInjectingStore>(memory);
    auto schema = std::make_shared<arrow::Schema>();
    schema->fields.emplace_back("c0", DataType::Int64(), true);
    auto lance = format::FromArrowSchema(*schema);
    ASSERT_TRUE(lance.ok());
    format::FileWriteOptions options;
    options.version = version;
    options.page_bytes = 4096;
    auto writer = format::LanceFileWriter::Open(faults, "f.lance", *lance, options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    arrow::RecordBatch batch{schema, 10'000, {Ids(10'000)}};
    ASSERT_TRUE((*writer)->Write(batch).ok());
    arrow::RecordBatch wrong{schema, 1, {IntLists({1})}};
    EXPECT_EQ((*writer)->Write(wrong).code(), StatusCode::kInvalidInput);
    faults->FailNthAppend(1, Status::IOError("ENOSPC"));
    Status failed = (*writer)->Write(batch);
    ASSERT_FALSE(failed.ok());
    EXPECT_TRUE(failed.IsIOError()) << failed.ToString();
    EXPECT_EQ((*writer)->Write(batch), failed);
    EXPECT_EQ((*writer)->Finish().status(), failed);
    EXPECT_TRUE(memory->Head("f.lance").status().IsNotFound());
    EXPECT_EQ((*writer)->rows_written(), 0u);
  }
}

// A split page of fixed-size lists with item nulls, below a list (pages are slices of the page
// the shredder made; the FixedSizeList items must follow the slice's offset).
TEST(Writer21, SplitPagesOfFixedSizeListsKeepItems) {
  const DataType fsl = DataType::FixedSizeList(arrow::Field("item", DataType::Int16()), 3);
  std::vector<int64_t> offsets = {0};
  std::vector<bool> list_valid;
  for (int i = 0; i < 4; ++i) {  // [v, v], 70,000 x [], ... (70,000 empties after each)
    offsets.push_back(offsets.back() + 2);
    list_valid.push_back(true);
    for (int k = 0; k < 70'000; ++k) {
      offsets.push_back(offsets.back());
      list_valid.push_back(k % 3 != 0);
    }
  }
  const int64_t m = offsets.back();
  std::vector<int16_t> items(static_cast<size_t>(m * 3));
  std::vector<bool> item_valid(items.size());
  for (size_t k = 0; k < items.size(); ++k) {
    items[k] = static_cast<int16_t>(k + 1);
    item_valid[k] = k % 4 != 2;
  }
  auto vectors = *arrow::MakeFixedSizeListArray(
      fsl, m, *arrow::MakeFixedArray(DataType::Int16(), items, item_valid));
  auto lists = *arrow::MakeListArray(ListOf(fsl), offsets, vectors, list_valid);
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    Written w = WriteFile({Ids(lists->length), lists}, Compress(compress));
    ExpectReadsBack(w);
    EXPECT_GT(PageLayouts(w, 1).size(), 1u);
  }
}

// Random list<list<int16>> and struct{list<fsl<int8, 300>>} columns with occasional long runs
// of empty and null lists (between rows and inside one), in random batch and page sizes: every
// cut of pages and chunks must read back.
TEST(Writer21, RandomLongRunsReadBack) {
  std::mt19937_64 rng(20261129);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  // QUIVER_WRITER21_ROUNDS: 3 by default, 1 under sanitizers (CMake sets it).
  const char* rounds_env = std::getenv("QUIVER_WRITER21_ROUNDS");
  const int rounds = rounds_env != nullptr ? std::atoi(rounds_env) : 3;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int64_t rows = uniform(1, 3000);
    const int64_t long_row = uniform(0, rows - 1);  // at least one long run per round
    // Inner lists: mostly short, sometimes a run of empties or nulls of up to 80,000.
    std::vector<int64_t> inner_lengths;
    std::vector<int64_t> outer_offsets = {0};
    std::vector<bool> outer_valid;
    std::vector<bool> struct_valid;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t kind = uniform(0, 99);
      outer_valid.push_back(kind >= 3);
      struct_valid.push_back(kind < 90 || kind >= 95);
      int64_t lists = 0;
      if (kind >= 3) {
        lists = uniform(0, 4);
        if (r == long_row) lists += uniform(66'000, 80'000);  // beyond a chunk's u16 count
        if (uniform(0, 999) == 0) lists += uniform(1000, 80'000);
      }
      for (int64_t k = 0; k < lists; ++k) {
        const int64_t len = uniform(0, 9) == 0 ? -1 : uniform(0, 99) < 97 ? uniform(0, 3) : 0;
        inner_lengths.push_back(lists > 100 && k + 1 < lists ? (k % 2 == 0 ? 0 : -1) : len);
      }
      outer_offsets.push_back(outer_offsets.back() + lists);
    }
    std::vector<int64_t> inner_offsets = {0};
    std::vector<bool> inner_valid;
    for (int64_t len : inner_lengths) {
      inner_offsets.push_back(inner_offsets.back() + std::max<int64_t>(len, 0));
      inner_valid.push_back(len >= 0);
    }
    std::vector<int16_t> small(static_cast<size_t>(inner_offsets.back()));
    for (size_t k = 0; k < small.size(); ++k) small[k] = static_cast<int16_t>(k);
    ArrayPtr inner16 =
        *arrow::MakeListArray(ListOf(DataType::Int16()), inner_offsets,
                              *arrow::MakeFixedArray(DataType::Int16(), small), inner_valid);
    ArrayPtr nested =
        *arrow::MakeListArray(ListOf(inner16->type), outer_offsets, inner16, outer_valid);
    // struct{l: list<fsl<int8, 300>>}: the outer lists' shape again, one vector per inner list.
    const DataType fsl = DataType::FixedSizeList(arrow::Field("item", DataType::Int8()), 300);
    const int64_t vectors = outer_offsets.back();
    std::vector<int8_t> bytes(static_cast<size_t>(vectors * 300));
    for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<int8_t>(k * 7);
    ArrayPtr fsls = *arrow::MakeFixedSizeListArray(fsl, vectors,
                                                   *arrow::MakeFixedArray(DataType::Int8(), bytes));
    ArrayPtr lists = *arrow::MakeListArray(ListOf(fsl), outer_offsets, fsls, outer_valid);
    ArrayPtr st = *arrow::MakeStructArray(DataType::Struct({arrow::Field("l", lists->type)}), rows,
                                          {lists}, struct_valid);
    format::FileWriteOptions options;
    options.compress = uniform(0, 1) == 0;
    options.page_bytes = std::vector<uint64_t>{512, 64 * 1024, 8 << 20}[uniform(0, 2)];
    Written w = WriteFile({Ids(rows), nested, st}, options, uniform(1, rows));
    // (Comparing rows of 80,000 lists is slow: one ranged read besides the whole file.)
    ExpectReadsBack(w, {static_cast<uint32_t>(uniform(1, 500))});
  }
}

// Low-cardinality large_utf8 gets a dictionary with a 64-bit Variable block, as Lance 8.0 writes
// it in 2.1; an Arrow dictionary<int32, large_utf8> column is stored the same way.
TEST(Writer21, LargeStringDictionaries) {
  const int64_t n = 5000;
  std::vector<std::string> words;
  std::vector<bool> valid;
  std::vector<int32_t> keys;
  for (int64_t i = 0; i < n; ++i) {
    words.push_back(i % 4 == 3 ? "" : "word-" + std::to_string(i % 4));
    valid.push_back(i % 7 != 3);
    keys.push_back(static_cast<int32_t>(i % 5));
  }
  auto large = *arrow::MakeBinaryArray(DataType::LargeUtf8(), words, valid);
  auto dict_values = *arrow::MakeBinaryArray(DataType::LargeUtf8(),
                                             {"alpha", "beta", "", "gamma", std::string(40, 'x')});
  auto dict = *arrow::MakeDictionaryArray(
      DataType::Dictionary(arrow::TypeId::kInt32, DataType::LargeUtf8()),
      *arrow::MakeFixedArray(DataType::Int32(), keys, valid), dict_values);
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "compressed" : "plain");
    Written w = WriteFile({Ids(n), large, dict}, Compress(compress));
    ExpectReadsBack(w);
    for (size_t column : {1u, 2u}) {
      const bool want_dictionary = compress || column == 2;
      for (const auto& layout : PageLayouts(w, column)) {
        ASSERT_TRUE(layout.has_mini_block_layout());
        const auto& mb = layout.mini_block_layout();
        EXPECT_EQ(mb.has_dictionary(), want_dictionary) << "column " << column;
        if (mb.has_dictionary()) {
          EXPECT_EQ(mb.dictionary().variable().offsets().flat().bits_per_value(), 64u);
        }
      }
    }
  }
}

// File format 2.2 (Lance 12): the 2.1 encodings in the large-chunk grammar. Every mini-block
// page says has_large_chunk (Lance's 2.2 reader refuses any that does not), the footer and the
// DataFile say (2,2), and everything reads back, including lists that span chunks, dictionaries
// and nulls.
TEST(Writer22, MiniBlockPagesUseTheLargeChunkGrammar) {
  const int64_t n = 30000;
  std::vector<std::string> words(n);
  std::vector<bool> valid(n);
  std::vector<int64_t> lengths(n);
  for (int64_t i = 0; i < n; ++i) {
    words[i] = "w" + std::to_string(i % 17);  // a dictionary
    valid[i] = i % 5 != 3;
    lengths[i] = i % 11 == 4 ? -1 : i % 7;
  }
  format::FileWriteOptions options;
  options.version = format::FileVersion::kV2_2;
  Written w = WriteFile(
      {Ids(n), *arrow::MakeBinaryArray(DataType::Utf8(), words, valid), IntLists(lengths)}, options,
      4096);
  ExpectReadsBack(w);
  for (size_t c = 0; c < 3; ++c) {
    for (const auto& layout : PageLayouts(w, c)) {
      ASSERT_TRUE(layout.has_mini_block_layout()) << "column " << c;
      EXPECT_TRUE(layout.mini_block_layout().has_large_chunk()) << "column " << c;
    }
  }
  auto bytes = w.store->Get("f.lance");
  ASSERT_TRUE(bytes.ok());
  const std::string& file = bytes->data;
  uint16_t major = 0, minor = 0;
  std::memcpy(&major, file.data() + file.size() - 8, 2);
  std::memcpy(&minor, file.data() + file.size() - 6, 2);
  EXPECT_EQ(major, 2);
  EXPECT_EQ(minor, 2);
  auto reader = format::LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->version(), format::FileVersion::kV2_2);
}

// Lance 12's 2.2 constant pages, observed in LanceDB 0.39's files: a page whose valid items all
// hold one value is a ConstantLayout, the value inline (fixed width up to 32 bytes; a bool as
// one byte) or as a scalar value buffer (u32 buffer count, u32 lengths, the one-value array's
// buffers), plus the raw u16 levels when the page has any ([rep, def], an empty buffer for the
// kind it lacks). 2.1 has no such pages.
TEST(Writer22, PagesOfOneValueAreConstantPages) {
  const int64_t n = 3000;
  std::vector<int32_t> sevens(n, 7);
  std::vector<std::string> abc(n, "abc");
  std::vector<bool> thirds(n), trues(n, true);
  for (int64_t i = 0; i < n; ++i) thirds[i] = i % 3 != 0;
  std::vector<int64_t> ones(n, 1);  // list<int32> rows of one item, every item 5
  std::vector<int64_t> offsets(n + 1);
  for (int64_t i = 0; i <= n; ++i) offsets[i] = i;
  ArrayPtr fives = *arrow::MakeFixedArray(DataType::Int32(), std::vector<int32_t>(n, 5));
  const std::vector<ArrayPtr> columns = {
      *arrow::MakeFixedArray(DataType::Int32(), sevens),                 // c0: inline
      *arrow::MakeBinaryArray(DataType::Utf8(), abc, thirds),            // c1: scalar + def
      *arrow::MakeBinaryArray(DataType::LargeUtf8(), abc),               // c2: i64 offsets
      *arrow::MakeListArray(ListOf(DataType::Int32()), offsets, fives),  // c3: inline + rep
      *arrow::MakeBoolArray(trues),                                      // c4: one byte
      Ids(n),                                                            // c5: not constant
  };
  format::FileWriteOptions options;
  options.version = format::FileVersion::kV2_2;
  Written w = WriteFile(columns, options);
  ExpectReadsBack(w);
  auto constant = [&](size_t c) {
    auto layouts = PageLayouts(w, c);
    EXPECT_EQ(layouts.size(), 1u) << c;
    EXPECT_TRUE(layouts[0].has_constant_layout()) << c;
    return layouts[0].constant_layout();
  };
  auto buffer_sizes = [&](size_t c) {
    const lance::file::v2::ColumnMetadata meta = ColumnMeta(w, c);
    const auto& page = meta.pages(0);
    return std::vector<uint64_t>(page.buffer_sizes().begin(), page.buffer_sizes().end());
  };
  EXPECT_EQ(constant(0).inline_value(), std::string("\x07\0\0\0", 4));
  EXPECT_EQ(buffer_sizes(0), std::vector<uint64_t>{});
  EXPECT_FALSE(constant(1).has_inline_value());
  // 4 (two buffers) + 2 x 4 (their lengths) + offsets [0, 3] as i32 + "abc"; the def levels.
  EXPECT_EQ(buffer_sizes(1), (std::vector<uint64_t>{23, 0, 2 * n}));
  EXPECT_EQ(buffer_sizes(2), std::vector<uint64_t>{4 + 8 + 16 + 3});
  EXPECT_EQ(constant(3).inline_value(), std::string("\x05\0\0\0", 4));
  EXPECT_EQ(buffer_sizes(3), (std::vector<uint64_t>{2 * n, 0}));
  EXPECT_EQ(constant(4).inline_value(), std::string("\x01", 1));
  EXPECT_TRUE(PageLayouts(w, 5)[0].has_mini_block_layout());

  options.version = format::FileVersion::kV2_1;
  Written w21 = WriteFile(columns, options);
  ExpectReadsBack(w21);
  for (size_t c = 0; c < columns.size(); ++c) {
    EXPECT_FALSE(PageLayouts(w21, c)[0].has_constant_layout()) << c;
  }
}

// 2.2 levels go through Lance 12's block compressor: all-null pages store their levels RLE'd
// (LanceDB 0.39: 100,000 null lists in 1,187 bytes each), a few levels stay Flat(16) (a packed
// block would be larger), and long runs of list levels are bit-packed with the tail packed when
// padding it costs less than it saves.
TEST(Writer22, LevelsAreBlockCompressedAsLance12Does) {
  const int64_t n = 100000;
  Written nulls = WriteFile({Ids(n), IntLists(std::vector<int64_t>(n, -1))}, [] {
    format::FileWriteOptions o;
    o.version = format::FileVersion::kV2_2;
    return o;
  }());
  ExpectReadsBack(nulls);
  for (const auto& layout : PageLayouts(nulls, 1)) {
    ASSERT_TRUE(layout.has_constant_layout());
    const auto& c = layout.constant_layout();
    EXPECT_TRUE(c.rep_compression().has_rle());
    EXPECT_EQ(c.def_compression().rle().run_lengths().flat().bits_per_value(), 8u);
  }
  const lance::file::v2::ColumnMetadata meta = ColumnMeta(nulls, 1);
  const auto& page = meta.pages(0);
  const uint64_t rows = PageLayouts(nulls, 1)[0].constant_layout().num_def_values();
  // u64 header + (u16 value, u8 length) per run of at most 255.
  EXPECT_EQ(page.buffer_sizes(1), 8 + 3 * ((rows + 254) / 255));

  format::FileWriteOptions options;
  options.version = format::FileVersion::kV2_2;
  Written few = WriteFile({Ids(1), IntLists({3})}, options);
  ExpectReadsBack(few);
  EXPECT_TRUE(PageLayouts(few, 1)[0].mini_block_layout().rep_compression().has_flat());
}

// struct{l: list<fsl<float32, 9000>>} (36,000-byte vectors) with null structs: the shape Lance
// 8.0 misreads in full-zip, so it is written mini-block. A vector is wider than a 2.1 chunk, so
// 2.1 pages are cut by rows; 2.2's large chunks hold them (two per chunk: a
// chunk of one value may only be the last, as its log_num_values of 0 marks the last chunk,
// and Lance 12 refuses any other as corrupt).
TEST(Writer22, VectorsWiderThan32KiBGetLargeChunks) {
  const int64_t n = 40;
  const int32_t dim = 9000;
  std::vector<bool> struct_valid(n), list_valid(n);
  std::vector<int64_t> offsets = {0};
  for (int64_t i = 0; i < n; ++i) {
    struct_valid[i] = i % 11 != 5;
    list_valid[i] = i % 13 != 8;
    offsets.push_back(offsets.back() +
                      (struct_valid[i] && list_valid[i] && i % 5 != 1 ? 1 + i % 3 : 0));
  }
  const int64_t vectors = offsets.back();
  std::vector<float> values(static_cast<size_t>(vectors * dim));
  for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(k % 1000) / 8;
  const DataType fsl = DataType::FixedSizeList(arrow::Field("item", DataType::Float32()), dim);
  ArrayPtr fsls = *arrow::MakeFixedSizeListArray(
      fsl, vectors, *arrow::MakeFixedArray(DataType::Float32(), values));
  ArrayPtr lists = *arrow::MakeListArray(ListOf(fsl), offsets, fsls, list_valid);
  ArrayPtr st = *arrow::MakeStructArray(DataType::Struct({arrow::Field("l", lists->type)}), n,
                                        {lists}, struct_valid);
  for (auto version : {format::FileVersion::kV2_1, format::FileVersion::kV2_2}) {
    const bool v22 = version == format::FileVersion::kV2_2;
    SCOPED_TRACE(v22 ? "2.2" : "2.1");
    format::FileWriteOptions options;
    options.version = version;
    Written w = WriteFile({Ids(n), st}, options);
    ExpectReadsBack(w);
    const std::vector<ChunkWord> chunks = ChunkWords(w, 1);
    if (v22) {
      ASSERT_FALSE(chunks.empty());
    }
    uint64_t largest = 0;
    for (const ChunkWord& c : chunks) {
      largest = std::max(largest, c.bytes);
      if (!c.last) {
        EXPECT_GT(c.log_values, 0u) << "a non-final chunk of one value";
      }
    }
    if (v22) {
      EXPECT_GT(largest, uint64_t{32 * 1024});
      EXPECT_EQ(PageLayouts(w, 1).size(), 1u);  // no cut pages
    } else {
      // Cut apart: rows with null structs (constant pages) from the rest (full-zip, in layers
      // Lance 8 reads).
      EXPECT_LE(largest, uint64_t{32 * 1024});
      EXPECT_GT(PageLayouts(w, 1).size(), 1u);
    }
  }
}

// Map columns (file format 2.2 only, as in Lance): null maps, empty maps, null values, a map
// in a list; written as list layers over the entries struct and read back equal. 2.0 and 2.1
// files refuse them with Lance's rule, naming the column.
TEST(Writer22, MapColumnsRoundTripAndNeedTwoPointTwo) {
  const int64_t n = 5000;
  std::vector<int64_t> offsets = {0};
  std::vector<bool> valid(n);
  for (int64_t i = 0; i < n; ++i) {
    valid[i] = i % 7 != 3;
    offsets.push_back(offsets.back() + (valid[i] && i % 5 != 0 ? i % 4 + 1 : 0));
  }
  const int64_t m = offsets.back();
  std::vector<std::string> keys;
  std::vector<int32_t> values;
  std::vector<bool> value_valid;
  for (int64_t k = 0; k < m; ++k) {
    keys.push_back("k" + std::to_string(k % 97));
    values.push_back(static_cast<int32_t>(k * 3));
    value_valid.push_back(k % 3 != 0);
  }
  const DataType entries_type = DataType::Struct(
      {arrow::Field("key", DataType::Utf8(), false), arrow::Field("value", DataType::Int32())});
  const DataType map_type = DataType::Map(arrow::Field("entries", entries_type, false));
  ArrayPtr entries =
      *arrow::MakeStructArray(entries_type, m,
                              {*arrow::MakeBinaryArray(DataType::Utf8(), keys),
                               *arrow::MakeFixedArray(DataType::Int32(), values, value_valid)});
  ArrayPtr maps = *arrow::MakeListArray(map_type, offsets, entries, valid);
  // list<map>: every third row's maps in one list.
  std::vector<int64_t> list_offsets = {0};
  for (int64_t i = 0; i < n / 3; ++i) list_offsets.push_back(3 * (i + 1));
  ArrayPtr lists =
      *arrow::MakeListArray(ListOf(map_type), list_offsets, arrow::Slice(maps, 0, 3 * (n / 3)));
  format::FileWriteOptions options;
  options.version = format::FileVersion::kV2_2;
  Written w = WriteFile({Ids(n / 3), arrow::Slice(maps, 0, n / 3), lists}, options, 777);
  ExpectReadsBack(w);
  auto reader = format::LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->schema()->fields[1].type, map_type);

  auto schema = format::FromArrowSchema(arrow::Schema{{arrow::Field("m", map_type)}, {}});
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->fields[0].logical_type, "map");
  for (auto version : {format::FileVersion::kV2_0, format::FileVersion::kV2_1}) {
    format::FileWriteOptions old;
    old.version = version;
    auto refused =
        format::LanceFileWriter::Open(MemoryObjectStore::Create(), "g.lance", *schema, old);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(refused.status().message().find("column 'm'"), std::string::npos);
    EXPECT_NE(refused.status().message().find("only supported in Lance file format 2.2"),
              std::string::npos)
        << refused.status().ToString();
  }
}

}  // namespace
}  // namespace quiver
