// Lance 2.0 reading (src/format/internal/{decode20,columns20,nodes20,reader20}): page decoders
// on small hand-built pages, and whole hand-built 2.0 files read through LanceFileReader (lists
// whose offsets and items pages split differently, structs, projections, row ranges), plus
// corrupted input, which must come back as Corruption and never crash.
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "format/internal/codecs/fastlanes.h"
#include "format/internal/codecs/fsst.h"
#include "format/internal/codecs/general.h"
#include "format/internal/read20/decode20.h"
#include "format/lance_file_reader.h"
#include "format/proto/file.pb.h"
#include "format/proto/file2.pb.h"
#include "store/memory_store.h"

namespace quiver::format {
namespace {

namespace pb = lance::encodings;
using arrow::ArrayPtr;
using arrow::DataType;
using internal::DecodeLeafPage20;
using internal::DecodeListOffsets20;
using internal::LeafDecodeOptions20;

bool IsCorruption(const Status& s) { return !s.ok() && s.subcode() == Subcode::kCorruption; }

// ---- Building encodings and buffers ----

pb::ArrayEncoding Flat(uint64_t bits, uint32_t buffer, const std::string& scheme = "") {
  pb::ArrayEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  e.mutable_flat()->mutable_buffer()->set_index(buffer);
  if (!scheme.empty()) e.mutable_flat()->mutable_compression()->set_scheme(scheme);
  return e;
}

pb::ArrayEncoding NoNulls(const pb::ArrayEncoding& values) {
  pb::ArrayEncoding e;
  *e.mutable_nullable()->mutable_no_nulls()->mutable_values() = values;
  return e;
}

pb::ArrayEncoding SomeNulls(uint32_t validity_buffer, const pb::ArrayEncoding& values) {
  pb::ArrayEncoding e;
  auto* some = e.mutable_nullable()->mutable_some_nulls();
  *some->mutable_validity() = Flat(1, validity_buffer);
  *some->mutable_values() = values;
  return e;
}

pb::ArrayEncoding AllNulls() {
  pb::ArrayEncoding e;
  e.mutable_nullable()->mutable_all_nulls();
  return e;
}

pb::ArrayEncoding Binary(uint32_t indices_buffer, uint32_t bytes_buffer, uint64_t adjustment) {
  pb::ArrayEncoding e;
  *e.mutable_binary()->mutable_indices() = NoNulls(Flat(64, indices_buffer));
  *e.mutable_binary()->mutable_bytes() = Flat(8, bytes_buffer);
  e.mutable_binary()->set_null_adjustment(adjustment);
  return e;
}

pb::ArrayEncoding Dictionary(const pb::ArrayEncoding& indices, const pb::ArrayEncoding& items,
                             uint32_t num_items) {
  pb::ArrayEncoding e;
  *e.mutable_dictionary()->mutable_indices() = indices;
  *e.mutable_dictionary()->mutable_items() = items;
  e.mutable_dictionary()->set_num_dictionary_items(num_items);
  return e;
}

pb::ArrayEncoding ListOffsets(uint32_t buffer, uint64_t adjustment, uint64_t num_items) {
  pb::ArrayEncoding e;
  *e.mutable_list()->mutable_offsets() = NoNulls(Flat(64, buffer));
  e.mutable_list()->set_null_offset_adjustment(adjustment);
  e.mutable_list()->set_num_items(num_items);
  return e;
}

pb::ArrayEncoding SimpleStruct() {
  pb::ArrayEncoding e;
  e.mutable_simple_struct();
  return e;
}

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string Bits(const std::vector<bool>& bits) {
  std::string out((bits.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) out[i / 8] = static_cast<char>(out[i / 8] | (1 << (i % 8)));
  }
  return out;
}

std::string Compressed(codecs::GeneralCodec codec, const std::string& raw) {
  std::vector<uint8_t> out;
  Status s = codecs::CompressGeneral(
      codec, {reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, 0, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::string(out.begin(), out.end());
}

struct Page {
  pb::ArrayEncoding encoding;
  std::vector<std::string> buffers;
};

Result<ArrayPtr> Decode(const Page& page, const DataType& type, uint64_t rows,
                        LeafDecodeOptions20 options = {}) {
  std::vector<std::string_view> views(page.buffers.begin(), page.buffers.end());
  QV_ASSIGN_OR_RETURN(ArrayPtr out, DecodeLeafPage20(page.encoding, views, type, rows, options,
                                                     arrow::MemoryPool::Default()));
  QV_RETURN_IF_ERROR(arrow::Validate(*out, /*full=*/true));
  return out;
}

void ExpectEqual(const ArrayPtr& got, const ArrayPtr& want) {
  auto diff = arrow::Diff(*got, *want);
  EXPECT_FALSE(diff.has_value()) << *diff;
}

ArrayPtr Strings(const DataType& type, const std::vector<std::string>& values,
                 const std::vector<bool>& valid = {}) {
  auto a = arrow::MakeBinaryArray(type, values, valid);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return *a;
}

template <typename T>
ArrayPtr Fixed(const DataType& type, const std::vector<T>& values,
               const std::vector<bool>& valid = {}) {
  auto a = arrow::MakeFixedArray<T>(type, values, valid);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return *a;
}

// ---- Page decoders ----

TEST(Decode20, NullableVariants) {
  Page no_nulls{NoNulls(Flat(32, 0)), {Bytes<int32_t>({1, -2, 3})}};
  auto a = Decode(no_nulls, DataType::Int32(), 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Fixed<int32_t>(DataType::Int32(), {1, -2, 3}));

  // Values keep garbage under nulls.
  Page some{SomeNulls(0, Flat(32, 1)), {Bits({true, false, true}), Bytes<int32_t>({1, 77, 3})}};
  a = Decode(some, DataType::Int32(), 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Fixed<int32_t>(DataType::Int32(), {1, 0, 3}, {true, false, true}));
  EXPECT_EQ((*a)->null_count, 1);

  Page all{AllNulls(), {}};
  a = Decode(all, DataType::Utf8(), 4);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->null_count, 4);

  Page bools{SomeNulls(0, Flat(1, 1)), {Bits({true, true, false, true}), Bits({1, 0, 0, 1})}};
  a = Decode(bools, DataType::Bool(), 4);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto want = arrow::MakeBoolArray({true, false, false, true}, {true, true, false, true});
  ASSERT_TRUE(want.ok());
  ExpectEqual(*a, *want);
}

TEST(Decode20, FixedSizeListWithItemNulls) {
  pb::ArrayEncoding fsl;
  fsl.mutable_fixed_size_list()->set_dimension(2);
  *fsl.mutable_fixed_size_list()->mutable_items() = SomeNulls(1, Flat(32, 2));
  Page page{SomeNulls(0, fsl),
            {Bits({true, false, true}), Bits({true, true, false, false, true, false}),
             Bytes<float>({1, 2, 0, 0, 5, 0})}};
  const DataType type = DataType::FixedSizeList(arrow::Field("item", DataType::Float32()), 2);
  auto a = Decode(page, type, 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ArrayPtr items = Fixed<float>(DataType::Float32(), {1, 2, 0, 0, 5, 0},
                                {true, true, false, false, true, false});
  auto want = arrow::MakeFixedSizeListArray(type, 3, items, {true, false, true});
  ASSERT_TRUE(want.ok());
  ExpectEqual(*a, *want);
}

TEST(Decode20, BinaryWithNullAdjustment) {
  // "ab", null, "", "xyz": cumulative ends 2, 2, 2, 5; the null row carries +6 (= bytes + 1).
  Page page{Binary(0, 1, 6), {Bytes<uint64_t>({2, 8, 2, 5}), "abxyz"}};
  for (const DataType& type : {DataType::Utf8(), DataType::LargeUtf8(), DataType::Binary()}) {
    SCOPED_TRACE(type.ToString());
    auto a = Decode(page, type, 4);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ExpectEqual(*a, Strings(type, {"ab", "", "", "xyz"}, {true, false, true, true}));
  }
  // A null string may still own bytes (Arrow allows it): "a", null "bc", "d".
  Page owning{Binary(0, 1, 5), {Bytes<uint64_t>({1, 3 + 5, 4}), "abcd"}};
  auto a = Decode(owning, DataType::Utf8(), 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), {"a", "", "d"}, {true, false, true}));
  // All rows empty: no bytes needed at all.
  Page empty{Binary(0, 1, 1), {Bytes<uint64_t>({0, 0}), ""}};
  a = Decode(empty, DataType::Utf8(), 2);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), {"", ""}));
}

TEST(Decode20, StringDictionaryIsOneBased) {
  // Lance's automatic dictionary: u8 indices, 0 = null, k = item k-1.
  pb::ArrayEncoding e = Dictionary(NoNulls(Flat(8, 0)), Binary(1, 2, 4), 2);
  Page page{e, {Bytes<uint8_t>({1, 0, 2, 1}), Bytes<uint64_t>({1, 3}), "xyy"}};
  auto a = Decode(page, DataType::Utf8(), 4);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), {"x", "", "yy", "x"}, {true, false, true, true}));

  Page bad{e, {Bytes<uint8_t>({1, 3}), Bytes<uint64_t>({1, 3}), "xyy"}};  // item 2 of 2
  auto b = Decode(bad, DataType::Utf8(), 2);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(IsCorruption(b.status())) << b.status().ToString();
}

TEST(Decode20, ArrowDictionaryIsZeroBased) {
  // Arrow dictionary columns: indices of the key width, 0-based; a null item reads as null.
  pb::ArrayEncoding e = Dictionary(NoNulls(Flat(32, 0)), Binary(1, 2, 3), 3);
  Page page{e, {Bytes<int32_t>({2, 0, 1, 2}), Bytes<uint64_t>({1, 1 + 3, 2}), "ab"}};
  LeafDecodeOptions20 options;
  options.dictionary_index = arrow::TypeId::kInt32;
  auto a = Decode(page, DataType::Utf8(), 4, options);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), {"b", "a", "", "b"}, {true, true, false, true}));

  Page negative{e, {Bytes<int32_t>({-1}), Bytes<uint64_t>({1, 4, 2}), "ab"}};
  auto b = Decode(negative, DataType::Utf8(), 1, options);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(IsCorruption(b.status())) << b.status().ToString();
}

TEST(Decode20, CompressedFlat) {
  std::vector<int64_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i % 7) - 3;
  const std::string raw = Bytes(values);
  const ArrayPtr want = Fixed<int64_t>(DataType::Int64(), values);
  const std::string zstd = Compressed(codecs::GeneralCodec::kZstd, raw);
  const std::string lz4 = Compressed(codecs::GeneralCodec::kLz4, raw);
  struct Case {
    const char* name;
    std::string scheme, bytes;
  };
  // zstd units come with a u64 length prefix, or bare (the prefix stripped).
  for (const Case& c : {Case{"zstd", "zstd", zstd}, Case{"bare zstd", "zstd", zstd.substr(8)},
                        Case{"lz4", "lz4", lz4}}) {
    SCOPED_TRACE(c.name);
    Page page{NoNulls(Flat(64, 0, c.scheme)), {c.bytes}};
    auto a = Decode(page, DataType::Int64(), values.size());
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ExpectEqual(*a, want);
    // Truncated units, or units that decompress to other sizes than the values need.
    Page truncated{page.encoding, {c.bytes.substr(0, c.bytes.size() / 2)}};
    auto t = Decode(truncated, DataType::Int64(), values.size());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(IsCorruption(t.status())) << t.status().ToString();
    auto wrong = Decode(page, DataType::Int64(), values.size() - 1);
    ASSERT_FALSE(wrong.ok());
    EXPECT_TRUE(IsCorruption(wrong.status())) << wrong.status().ToString();
  }
  // Compressed string bytes (lance-encoding:compression on a string field).
  pb::ArrayEncoding binary = Binary(0, 1, 12);
  *binary.mutable_binary()->mutable_bytes() = Flat(8, 1, "zstd");
  Page strings{binary,
               {Bytes<uint64_t>({5, 11}), Compressed(codecs::GeneralCodec::kZstd, "hello world")}};
  auto s = Decode(strings, DataType::Utf8(), 2);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectEqual(*s, Strings(DataType::Utf8(), {"hello", " world"}));

  Page unknown{NoNulls(Flat(64, 0, "brotli")), {raw}};
  auto u = Decode(unknown, DataType::Int64(), values.size());
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), StatusCode::kUnsupported) << u.status().ToString();
}

TEST(Decode20, LegacyEncodings) {
  // Bitpacked: 3 bits per value, LSB first, sign-extended.
  pb::ArrayEncoding bitpacked;
  auto* bp = bitpacked.mutable_bitpacked();
  bp->set_compressed_bits_per_value(3);
  bp->set_uncompressed_bits_per_value(16);
  bp->mutable_buffer()->set_index(0);
  bp->set_signed_(true);
  const std::vector<int16_t> small = {1, -1, 3, -4, 0};
  std::string packed(2, '\0');
  for (size_t i = 0; i < small.size(); ++i) {
    for (int b = 0; b < 3; ++b) {
      if ((small[i] >> b) & 1) packed[(i * 3 + b) / 8] |= static_cast<char>(1 << ((i * 3 + b) % 8));
    }
  }
  auto a = Decode(Page{bitpacked, {packed}}, DataType::Int16(), small.size());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Fixed<int16_t>(DataType::Int16(), small));

  // BitpackedForNonNeg: FastLanes blocks of 1024 at a fixed width.
  std::vector<uint32_t> values(1500);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * 37 % 1000);
  std::vector<uint32_t> padded = values;
  padded.resize(2048, 0);
  std::vector<uint32_t> words(2 * codecs::FastLanesPackedWords<uint32_t>(10));
  codecs::Pack<uint32_t>(padded.data(), 10, words.data());
  codecs::Pack<uint32_t>(padded.data() + 1024, 10,
                         words.data() + codecs::FastLanesPackedWords<uint32_t>(10));
  pb::ArrayEncoding fastlanes;
  auto* fl = fastlanes.mutable_bitpacked_for_non_neg();
  fl->set_compressed_bits_per_value(10);
  fl->set_uncompressed_bits_per_value(32);
  fl->mutable_buffer()->set_index(0);
  a = Decode(Page{fastlanes, {Bytes(words)}}, DataType::UInt32(), values.size());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Fixed<uint32_t>(DataType::UInt32(), values));
  auto short_buffer =
      Decode(Page{fastlanes, {Bytes(words).substr(0, 100)}}, DataType::UInt32(), values.size());
  ASSERT_FALSE(short_buffer.ok());
  EXPECT_TRUE(IsCorruption(short_buffer.status()));

  // FixedSizeBinary: strings of one width.
  pb::ArrayEncoding fsb;
  *fsb.mutable_fixed_size_binary()->mutable_bytes() = Flat(24, 0);
  fsb.mutable_fixed_size_binary()->set_byte_width(3);
  a = Decode(Page{fsb, {"abcdefghi"}}, DataType::Utf8(), 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), {"abc", "def", "ghi"}));

  // Fsst over Binary.
  const std::vector<std::string> text = {"hello hello", "", "world hello", "hellohello"};
  std::vector<std::string_view> views(text.begin(), text.end());
  codecs::FsstEncoder encoder = codecs::FsstEncoder::Train(views);
  std::string compressed;
  std::vector<uint64_t> ends;
  for (const std::string& t : text) {
    std::vector<uint8_t> out(codecs::FsstEncoder::MaxCompressedSize(t.size()));
    size_t n =
        encoder.CompressString({reinterpret_cast<const uint8_t*>(t.data()), t.size()}, out.data());
    compressed.append(reinterpret_cast<const char*>(out.data()), n);
    ends.push_back(compressed.size());
  }
  pb::ArrayEncoding fsst;
  *fsst.mutable_fsst()->mutable_binary() = Binary(0, 1, compressed.size() + 1);
  const auto table = encoder.SerializeTable();
  fsst.mutable_fsst()->set_symbol_table(std::string(table.begin(), table.end()));
  a = Decode(Page{fsst, {Bytes(ends), compressed}}, DataType::Utf8(), text.size());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ExpectEqual(*a, Strings(DataType::Utf8(), text));
}

TEST(Decode20, PackedStruct) {
  pb::ArrayEncoding e;
  e.mutable_packed_struct()->mutable_buffer()->set_index(0);
  // Rows of {int32 a, int16 b}.
  std::string rows;
  for (int i = 0; i < 3; ++i) {
    int32_t a = i * 10;
    int16_t b = static_cast<int16_t>(-i);
    rows.append(reinterpret_cast<const char*>(&a), 4);
    rows.append(reinterpret_cast<const char*>(&b), 2);
  }
  const DataType type = DataType::Struct(
      {arrow::Field("a", DataType::Int32()), arrow::Field("b", DataType::Int16())});
  auto got = Decode(Page{e, {rows}}, type, 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto want = arrow::MakeStructArray(type, 3,
                                     {Fixed<int32_t>(DataType::Int32(), {0, 10, 20}),
                                      Fixed<int16_t>(DataType::Int16(), {0, -1, -2})});
  ASSERT_TRUE(want.ok());
  ExpectEqual(*got, *want);
}

TEST(Decode20, ListOffsetsWithNullsAndEmpties) {
  // [a b], null, [], [c], null holding [d] (Arrow allows items under a null list):
  // ends 2, 2+6, 2, 3, 4+6 with adjustment 6 (items + 2).
  pb::ArrayEncoding e = ListOffsets(0, 6, 4);
  std::vector<std::string> buffers = {Bytes<uint64_t>({2, 8, 2, 3, 10})};
  std::vector<std::string_view> views(buffers.begin(), buffers.end());
  auto page = DecodeListOffsets20(e.list(), views, 5, arrow::MemoryPool::Default());
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->ends, (std::vector<uint64_t>{2, 2, 2, 3, 4}));
  EXPECT_EQ(page->valid, (std::vector<uint8_t>{1, 0, 1, 1, 0}));
  EXPECT_EQ(page->num_items, 4u);

  for (auto [offsets, adjustment, items] :
       {std::tuple<std::vector<uint64_t>, uint64_t, uint64_t>{{3, 2}, 6, 4},  // goes backwards
        {{2, 3}, 0, 3},                                                       // adjustment 0
        {{2, 5}, 6, 4}}) {                                                    // beyond num_items
    pb::ArrayEncoding bad = ListOffsets(0, adjustment, items);
    std::vector<std::string> b = {Bytes(offsets)};
    std::vector<std::string_view> v(b.begin(), b.end());
    auto r = DecodeListOffsets20(bad.list(), v, offsets.size(), arrow::MemoryPool::Default());
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(IsCorruption(r.status())) << r.status().ToString();
  }
}

TEST(Decode20, CorruptPagesAreCorruption) {
  struct Case {
    const char* name;
    Page page;
    DataType type;
    uint64_t rows;
  };
  const std::vector<Case> cases = {
      {"buffer index past the page",
       {NoNulls(Flat(32, 3)), {Bytes<int32_t>({1})}},
       DataType::Int32(),
       1},
      {"short values", {NoNulls(Flat(32, 0)), {Bytes<int32_t>({1})}}, DataType::Int32(), 2},
      {"short validity",
       {SomeNulls(0, Flat(32, 1)), {"", Bytes<int32_t>({1, 2})}},
       DataType::Int32(),
       2},
      {"width disagrees with the type",
       {NoNulls(Flat(16, 0)), {Bytes<int32_t>({1})}},
       DataType::Int32(),
       1},
      {"strings going backwards",
       {Binary(0, 1, 9), {Bytes<uint64_t>({3, 1}), "abc"}},
       DataType::Utf8(),
       2},
      {"strings past their bytes",
       {Binary(0, 1, 99), {Bytes<uint64_t>({3, 50}), "abc"}},
       DataType::Utf8(),
       2},
      {"an all-null page of 2^50 rows", {AllNulls(), {}}, DataType::Int64(), 1ull << 50},
      {"no encoding", {pb::ArrayEncoding(), {}}, DataType::Int32(), 1},
      {"a struct header as values", {SimpleStruct(), {}}, DataType::Int32(), 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Decode(c.page, c.type, c.rows);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(IsCorruption(r.status())) << r.status().ToString();
  }
  pb::ArrayEncoding rle;
  rle.mutable_rle()->set_bits_per_value(32);
  auto r = Decode(Page{rle, {}}, DataType::Int32(), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << r.status().ToString();
}

// Random damage to valid pages (their encodings and their bytes) must give errors, not crashes.
TEST(Decode20, DamagedPagesNeverCrash) {
  google::protobuf::LogSilencer quiet;  // damaged strings make protobuf log
  LeafDecodeOptions20 dict_options;
  dict_options.dictionary_index = arrow::TypeId::kInt32;
  struct Seed {
    Page page;
    DataType type;
    uint64_t rows;
    LeafDecodeOptions20 options;
  };
  const std::vector<Seed> seeds = {
      {{SomeNulls(0, Flat(32, 1)), {Bits({true, false, true}), Bytes<int32_t>({1, 7, 3})}},
       DataType::Int32(),
       3,
       {}},
      {{Binary(0, 1, 6), {Bytes<uint64_t>({2, 8, 2, 5}), "abxyz"}}, DataType::Utf8(), 4, {}},
      {{Dictionary(NoNulls(Flat(8, 0)), Binary(1, 2, 4), 2),
        {Bytes<uint8_t>({1, 0, 2, 1}), Bytes<uint64_t>({1, 3}), "xyy"}},
       DataType::Utf8(),
       4,
       {}},
      {{Dictionary(NoNulls(Flat(32, 0)), Binary(1, 2, 3), 3),
        {Bytes<int32_t>({2, 0, 1}), Bytes<uint64_t>({1, 4, 2}), "ab"}},
       DataType::Utf8(),
       3,
       dict_options},
      {{NoNulls(Flat(64, 0, "zstd")),
        {Compressed(codecs::GeneralCodec::kZstd, Bytes<int64_t>({1, 2, 3, 4}))}},
       DataType::Int64(),
       4,
       {}},
      {{NoNulls(Flat(64, 0, "lz4")),
        {Compressed(codecs::GeneralCodec::kLz4, Bytes<int64_t>({1, 2, 3, 4}))}},
       DataType::Int64(),
       4,
       {}},
  };
  std::mt19937_64 rng(20260501);
  int failures = 0, runs = 0;
  for (const Seed& seed : seeds) {
    for (int round = 0; round < 1000; ++round) {
      Page page = seed.page;
      std::string encoding = page.encoding.SerializeAsString();
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        const bool in_encoding = rng() % 2 == 0 || page.buffers.empty();
        std::string& target = in_encoding ? encoding : page.buffers[rng() % page.buffers.size()];
        if (target.empty()) continue;
        target[rng() % target.size()] = static_cast<char>(rng());
      }
      if (!page.encoding.ParseFromString(encoding)) continue;
      ++runs;
      auto r = Decode(page, seed.type, seed.rows, seed.options);
      if (!r.ok()) ++failures;
    }
  }
  EXPECT_GT(runs, 2000);
  EXPECT_GT(failures, 0);
}

// ---- Whole files ----

struct TestColumn {
  std::vector<std::pair<Page, uint64_t>> pages;  // page, rows
};

lance::file::Field LanceField(const std::string& name, int32_t id, int32_t parent,
                              const std::string& type, bool nullable = true) {
  lance::file::Field f;
  f.set_name(name);
  f.set_id(id);
  f.set_parent_id(parent);
  f.set_logical_type(type);
  f.set_nullable(nullable);
  return f;
}

std::string EncodingAny(const std::string& type_url, const std::string& value) {
  lance::file::v2::AnyBytes any;
  any.set_type_url(type_url);
  any.set_value(value);
  lance::file::v2::Encoding encoding;
  encoding.mutable_direct()->set_encoding(any.SerializeAsString());
  return encoding.SerializeAsString();
}

void Pad64(std::string* out) { out->resize((out->size() + 63) / 64 * 64, '\0'); }

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// A 2.0 file (footer 0.3) as lance lays it out: page buffers, the schema (global buffer 0),
// column metadata, the CMO and GBO tables, the footer.
std::string BuildFile20(const std::vector<lance::file::Field>& fields, uint64_t rows,
                        const std::vector<TestColumn>& columns) {
  std::string file;
  std::vector<std::string> metadata;
  for (const TestColumn& column : columns) {
    lance::file::v2::ColumnMetadata meta;
    meta.mutable_encoding()->ParseFromString(
        EncodingAny("/lance.encodings.ColumnEncoding", pb::ColumnEncoding().SerializeAsString()));
    for (const auto& [page, page_rows] : column.pages) {
      auto* p = meta.add_pages();
      for (const std::string& b : page.buffers) {
        Pad64(&file);
        p->add_buffer_offsets(file.size());
        p->add_buffer_sizes(b.size());
        file += b;
      }
      p->set_length(page_rows);
      p->mutable_encoding()->ParseFromString(
          EncodingAny("/lance.encodings.ArrayEncoding", page.encoding.SerializeAsString()));
    }
    metadata.push_back(meta.SerializeAsString());
  }
  Pad64(&file);
  lance::file::FileDescriptor descriptor;
  for (const auto& f : fields) *descriptor.mutable_schema()->add_fields() = f;
  descriptor.set_length(rows);
  const uint64_t schema_at = file.size();
  file += descriptor.SerializeAsString();
  const uint64_t schema_size = file.size() - schema_at;
  const uint64_t column_meta_start = file.size();
  std::vector<std::pair<uint64_t, uint64_t>> cmo;
  for (const std::string& m : metadata) {
    cmo.push_back({file.size(), m.size()});
    file += m;
  }
  const uint64_t cmo_at = file.size();
  for (auto [at, size] : cmo) {
    Put(&file, at);
    Put(&file, size);
  }
  const uint64_t gbo_at = file.size();
  Put(&file, schema_at);
  Put(&file, schema_size);
  Put(&file, column_meta_start);
  Put(&file, cmo_at);
  Put(&file, gbo_at);
  Put<uint32_t>(&file, 1);
  Put<uint32_t>(&file, static_cast<uint32_t>(columns.size()));
  Put<uint16_t>(&file, 0);
  Put<uint16_t>(&file, 3);
  file += "LANC";
  return file;
}

// id: int64; l: list<int32>; s: struct<a: int32, b: string>. Six rows:
//   id  l              s
//   0   [1, 2]         {10, "x"}
//   1   null           {null, null}
//   2   []             {12, ""}
//   3   [3]            {13, "zz"}
//   4   [4, null, 6]   {null, "w"}
//   5   null           {15, null}
// id has pages of 3+3 rows; l's offsets pages hold rows 0-3 and 4-5, its items pages 2+4+1
// items, the first offsets page owning one item no list references (99).
std::string SampleFile() {
  std::vector<lance::file::Field> fields = {
      LanceField("id", 0, -1, "int64", false), LanceField("l", 1, -1, "list"),
      LanceField("item", 2, 1, "int32"),       LanceField("s", 3, -1, "struct"),
      LanceField("a", 4, 3, "int32"),          LanceField("b", 5, 3, "string")};
  std::vector<TestColumn> columns(6);
  columns[0].pages = {{{NoNulls(Flat(64, 0)), {Bytes<int64_t>({0, 1, 2})}}, 3},
                      {{NoNulls(Flat(64, 0)), {Bytes<int64_t>({3, 4, 5})}}, 3}};
  // Offsets page 1: ends 2, null, 2, 3 over 4 items (one unreferenced); adjustment 5.
  // Offsets page 2: ends 3, null over 3 items; adjustment 4.
  columns[1].pages = {{{ListOffsets(0, 5, 4), {Bytes<uint64_t>({2, 2 + 5, 2, 3})}}, 4},
                      {{ListOffsets(0, 4, 3), {Bytes<uint64_t>({3, 3 + 4})}}, 2}};
  columns[2].pages = {{{NoNulls(Flat(32, 0)), {Bytes<int32_t>({1, 2})}}, 2},
                      {{SomeNulls(0, Flat(32, 1)),
                        {Bits({true, true, true, false}), Bytes<int32_t>({3, 99, 4, 0})}},
                       4},
                      {{NoNulls(Flat(32, 0)), {Bytes<int32_t>({6})}}, 1}};
  columns[3].pages = {{{SimpleStruct(), {}}, 6}};
  columns[4].pages = {
      {{SomeNulls(0, Flat(32, 1)),
        {Bits({true, false, true, true, false, true}), Bytes<int32_t>({10, 0, 12, 13, 0, 15})}},
       6}};
  // b: "x", null, "", "zz" | "w", null (two pages).
  columns[5].pages = {{{Binary(0, 1, 4), {Bytes<uint64_t>({1, 1 + 4, 1, 3}), "xzz"}}, 4},
                      {{Binary(0, 1, 2), {Bytes<uint64_t>({1, 1 + 2}), "w"}}, 2}};
  return BuildFile20(fields, 6, columns);
}

struct Expected {
  ArrayPtr id, l, s;
};

Expected SampleRows() {
  Expected e;
  e.id = Fixed<int64_t>(DataType::Int64(), {0, 1, 2, 3, 4, 5});
  const DataType list = DataType::List(arrow::Field("item", DataType::Int32()));
  ArrayPtr items =
      Fixed<int32_t>(DataType::Int32(), {1, 2, 3, 4, 0, 6}, {true, true, true, true, false, true});
  auto l = arrow::MakeListArray(list, {0, 2, 2, 2, 3, 6, 6}, items,
                                {true, false, true, true, true, false});
  EXPECT_TRUE(l.ok());
  e.l = *l;
  const DataType st =
      DataType::Struct({arrow::Field("a", DataType::Int32()), arrow::Field("b", DataType::Utf8())});
  auto s = arrow::MakeStructArray(st, 6,
                                  {Fixed<int32_t>(DataType::Int32(), {10, 0, 12, 13, 0, 15},
                                                  {true, false, true, true, false, true}),
                                   Strings(DataType::Utf8(), {"x", "", "", "zz", "w", ""},
                                           {true, false, true, true, true, false})});
  EXPECT_TRUE(s.ok());
  e.s = *s;
  return e;
}

struct Opened {
  std::shared_ptr<MemoryObjectStore> store;
  std::unique_ptr<LanceFileReader> reader;
};

Opened OpenFile(const std::string& bytes) {
  Opened o;
  o.store = MemoryObjectStore::Create();
  EXPECT_TRUE(o.store->Put("f.lance", bytes).ok());
  auto reader = LanceFileReader::Open(o.store, "f.lance");
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (reader.ok()) o.reader = std::move(reader).value();
  return o;
}

// Every batch of a read, each column joined.
Result<std::vector<ArrayPtr>> ReadColumns(const LanceFileReader& reader, const ReadRequest& r,
                                          int* batches = nullptr) {
  QV_ASSIGN_OR_RETURN(auto stream, reader.Read(r));
  std::vector<std::vector<ArrayPtr>> parts(stream->schema()->fields.size());
  int count = 0;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    ++count;
    if (static_cast<uint32_t>(batch->length) > r.batch_rows) {
      return Status::Internal("a batch larger than batch_rows");
    }
    for (size_t c = 0; c < parts.size(); ++c) parts[c].push_back(batch->columns[c]);
  }
  if (batches != nullptr) *batches = count;
  std::vector<ArrayPtr> out;
  for (auto& p : parts) {
    if (p.empty()) return Status::Internal("no batches");
    QV_ASSIGN_OR_RETURN(auto joined, arrow::Concatenate(p));
    out.push_back(joined);
  }
  return out;
}

ArrayPtr Rows(const ArrayPtr& a, const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  std::vector<ArrayPtr> parts;
  for (auto [b, e] : ranges) {
    parts.push_back(arrow::Slice(a, static_cast<int64_t>(b), static_cast<int64_t>(e - b)));
  }
  auto joined = arrow::Concatenate(parts);
  EXPECT_TRUE(joined.ok());
  return *joined;
}

TEST(Reader20, ReadsListsAndStructsAcrossPages) {
  Opened o = OpenFile(SampleFile());
  ASSERT_NE(o.reader, nullptr);
  EXPECT_EQ(o.reader->version(), FileVersion::kV2_0);
  const Expected want = SampleRows();
  for (uint32_t batch_rows : {1u, 2u, 4u, 6u, 100u}) {
    SCOPED_TRACE("batch_rows " + std::to_string(batch_rows));
    ReadRequest r;
    r.batch_rows = batch_rows;
    int batches = 0;
    auto got = ReadColumns(*o.reader, r, &batches);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(batches, static_cast<int>((6 + batch_rows - 1) / batch_rows));
    ExpectEqual((*got)[0], want.id);
    ExpectEqual((*got)[1], want.l);
    ExpectEqual((*got)[2], want.s);
  }
}

TEST(Reader20, ProjectionsAndRowRanges) {
  Opened o = OpenFile(SampleFile());
  ASSERT_NE(o.reader, nullptr);
  const Expected want = SampleRows();
  const std::vector<std::vector<std::pair<uint64_t, uint64_t>>> range_sets = {
      {{1, 2}, {4, 6}}, {{3, 4}}, {{0, 1}, {2, 3}, {5, 6}}, {{4, 6}}, {{0, 6}}, {{2, 2}, {3, 5}}};
  for (const auto& ranges : range_sets) {
    for (uint32_t batch_rows : {1u, 3u}) {
      SCOPED_TRACE(fmt::format("ranges from {} batch {}", ranges[0].first, batch_rows));
      ReadRequest r;
      r.batch_rows = batch_rows;
      r.row_ranges = ranges;
      r.field_ids = {3, 1};  // s, then l: output follows the request
      auto got = ReadColumns(*o.reader, r);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectEqual((*got)[0], Rows(want.s, ranges));
      ExpectEqual((*got)[1], Rows(want.l, ranges));
    }
  }
  ReadRequest bad;
  bad.field_ids = {2};  // not top-level
  auto r = o.reader->Read(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
}

// Early 2.0 files stored strings as list<u8>: an offsets column, then a bytes column.
TEST(Reader20, StringsAsListsOfBytes) {
  const std::vector<lance::file::Field> fields = {LanceField("s", 0, -1, "string")};
  TestColumn offsets, bytes;
  // "ab", null, "", "cde" over 5 bytes (adjustment 6); bytes pages of 3 + 2.
  offsets.pages = {{{ListOffsets(0, 6, 5), {Bytes<uint64_t>({2, 2 + 6, 2, 5})}}, 4}};
  bytes.pages = {{{NoNulls(Flat(8, 0)), {"abc"}}, 3}, {{NoNulls(Flat(8, 0)), {"de"}}, 2}};
  Opened o = OpenFile(BuildFile20(fields, 4, {offsets, bytes}));
  ASSERT_NE(o.reader, nullptr);
  for (uint32_t batch_rows : {1u, 4u}) {
    ReadRequest r;
    r.batch_rows = batch_rows;
    auto got = ReadColumns(*o.reader, r);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectEqual((*got)[0],
                Strings(DataType::Utf8(), {"ab", "", "", "cde"}, {true, false, true, true}));
  }
}

// Reads every batch; the first error, if any. `opened` counts files that open.
Status Drain(const std::string& file, int* opened = nullptr) {
  auto store = MemoryObjectStore::Create();
  QV_RETURN_IF_ERROR(store->Put("f.lance", file).status());
  QV_ASSIGN_OR_RETURN(auto reader, LanceFileReader::Open(store, "f.lance"));
  if (opened != nullptr) ++*opened;
  ReadRequest r;
  r.batch_rows = 4;
  QV_ASSIGN_OR_RETURN(auto stream, reader->Read(r));
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) return Status::OK();
  }
}

TEST(Reader20, InconsistentFilesAreCorruption) {
  const std::vector<lance::file::Field> list_field = {LanceField("l", 1, -1, "list"),
                                                      LanceField("item", 2, 1, "int32")};
  TestColumn offsets, items, struct_header;
  offsets.pages = {{{ListOffsets(0, 4, 3), {Bytes<uint64_t>({2, 3})}}, 2}};
  items.pages = {{{NoNulls(Flat(32, 0)), {Bytes<int32_t>({1, 2})}}, 2}};  // one item short
  struct_header.pages = {{{SimpleStruct(), {}}, 2}};
  struct Case {
    const char* name;
    std::string file;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"items column too short", BuildFile20(list_field, 2, {offsets, items}), "fewer rows"},
      {"a column missing", BuildFile20(list_field, 2, {offsets}), "needs column 1"},
      {"a column too many", BuildFile20(list_field, 2, {offsets, items, items}), "columns"},
      {"values in an offsets column", BuildFile20(list_field, 2, {items, items}),
       "list offsets column"},
      {"a struct header as items", BuildFile20(list_field, 2, {offsets, struct_header}), "struct"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = Drain(c.file);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(IsCorruption(s)) << s.ToString();
    EXPECT_NE(s.ToString().find(c.says), std::string::npos) << s.ToString();
  }
}

// Random damage anywhere in a whole file: errors, never crashes.
TEST(Reader20, DamagedFilesNeverCrash) {
  google::protobuf::LogSilencer quiet;  // damaged strings make protobuf log
  const std::string good = SampleFile();
  std::mt19937_64 rng(7);
  int errors = 0, opened = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string file = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) file[rng() % file.size()] = static_cast<char>(rng());
    if (!Drain(file, &opened).ok()) ++errors;
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(opened, 1000);  // most damage must reach the page decoders, not just the footer
}

}  // namespace
}  // namespace quiver::format
