// Deletion files (src/format/deletion.h): both formats round trip through the memory store at
// the sizes around Lance's 5,000-row switch and at 1M rows; unordered `.arrow` values; 3B30
// bitmaps; and malformed files (truncated, flipped, structurally wrong) are Corruption, never a
// crash.
#include "format/deletion.h"

#include <algorithm>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "arrow/ipc/writer.h"
#include "format/lance_proto.h"
#include "store/memory_store.h"

namespace quiver::format {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

// `n` distinct offsets: a dense run, a sparse tail and scattered values, so that bitmaps get
// array and bitset containers.
std::vector<uint32_t> Offsets(size_t n) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; out.size() < n && i < n / 2; ++i) out.push_back(i);       // dense
  for (uint32_t i = 0; out.size() < n; ++i) out.push_back(n + 7 + 3 * i);        // sparse
  std::shuffle(out.begin(), out.end(), std::mt19937(static_cast<uint32_t>(n)));  // any order
  return out;
}

// The bytes of a portable Roaring bitmap, from little-endian u16/u32 pieces.
class Bytes {
 public:
  Bytes& U16(uint16_t v) {
    s_.append(reinterpret_cast<const char*>(&v), 2);
    return *this;
  }
  Bytes& U32(uint32_t v) {
    s_.append(reinterpret_cast<const char*>(&v), 4);
    return *this;
  }
  Bytes& U8(uint8_t v) {
    s_.push_back(static_cast<char>(v));
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

TEST(DeletionFile, KeyLooksLikeLances) {
  EXPECT_EQ(DeletionFileKey(0, 1, 16150656860123226405ULL, DeletionFileType::kArrowArray),
            "_deletions/0-1-16150656860123226405.arrow");
  EXPECT_EQ(DeletionFileKey(12, 4, 7, DeletionFileType::kBitmap), "_deletions/12-4-7.bin");
}

class DeletionRoundTrip : public ::testing::TestWithParam<std::tuple<size_t, DeletionFileType>> {};

TEST_P(DeletionRoundTrip, ThroughTheMemoryStore) {
  const auto [n, type] = GetParam();
  const std::vector<uint32_t> offsets = Offsets(n);
  const DeletionVector dv = DeletionVector::FromOffsets(offsets);
  ASSERT_EQ(dv.size(), n);
  const uint64_t physical = 4 * n + 10;
  auto store = MemoryObjectStore::Create();

  auto file = WriteDeletionFile(*store, 3, 9, dv, type);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(static_cast<int>(file->file_type()), static_cast<int>(type));
  EXPECT_EQ(file->read_version(), 9u);
  EXPECT_EQ(file->num_deleted_rows(), n);
  EXPECT_FALSE(file->has_base_id());
  auto listed = store->ListAll("_deletions/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, DeletionFileKey(3, 9, file->id(), type));

  auto back = ReadDeletionFile(*store, 3, *file, physical);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), n);
  EXPECT_TRUE(*back == dv);
  std::vector<uint32_t> sorted = offsets;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(back->ToVector(), sorted);
  std::vector<uint32_t> walked;
  back->ForEach([&](uint32_t v) { walked.push_back(v); });
  EXPECT_EQ(walked, sorted);
  for (uint32_t probe : {0u, 1u, static_cast<uint32_t>(n), static_cast<uint32_t>(n + 7),
                         static_cast<uint32_t>(n + 8)}) {
    EXPECT_EQ(back->Contains(probe), std::binary_search(sorted.begin(), sorted.end(), probe))
        << probe;
  }
  // The kept rows are exactly the complement.
  uint64_t kept = 0;
  uint64_t prev_end = 0;
  for (const auto& [b, e] : back->SelectedRanges(physical)) {
    ASSERT_LT(b, e);
    ASSERT_TRUE(prev_end == 0 || b > prev_end);  // disjoint, never adjacent
    prev_end = e;
    kept += e - b;
    if (b > 0) {
      EXPECT_TRUE(back->Contains(static_cast<uint32_t>(b - 1)));
    }
    if (e < physical) {
      EXPECT_TRUE(back->Contains(static_cast<uint32_t>(e)));
    }
  }
  EXPECT_EQ(kept, physical - n);
}

INSTANTIATE_TEST_SUITE_P(SizesAndFormats, DeletionRoundTrip,
                         ::testing::Combine(::testing::Values(size_t{0}, size_t{1}, size_t{5000},
                                                              size_t{5001}, size_t{1'000'000}),
                                            ::testing::Values(DeletionFileType::kArrowArray,
                                                              DeletionFileType::kBitmap)),
                         [](const ::testing::TestParamInfo<DeletionRoundTrip::ParamType>& p) {
                           return std::to_string(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) == DeletionFileType::kBitmap ? "_bin"
                                                                                     : "_arrow");
                         });

TEST(DeletionFile, TypeFollowsLancesThreshold) {
  auto store = MemoryObjectStore::Create();
  for (size_t n : {size_t{0}, size_t{1}, size_t{5000}, size_t{5001}}) {
    auto file = WriteDeletionFile(*store, 0, 1, DeletionVector::FromOffsets(Offsets(n)));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ(file->file_type(), n <= 5000 ? lance::table::DeletionFile::ARROW_ARRAY
                                           : lance::table::DeletionFile::BITMAP)
        << n;
  }
}

TEST(DeletionFile, ArrowIsZstdCompressedAndBitmapIs3A30) {
  const DeletionVector dv = DeletionVector::FromOffsets(Offsets(6000));
  auto arrow = EncodeDeletionFile(dv, DeletionFileType::kArrowArray);
  ASSERT_TRUE(arrow.ok());
  EXPECT_EQ(arrow->substr(0, 6), "ARROW1");
  EXPECT_NE(arrow->find("\x28\xB5\x2F\xFD"), std::string::npos);  // a zstd frame
  auto bin = EncodeDeletionFile(dv, DeletionFileType::kBitmap);
  ASSERT_TRUE(bin.ok());
  EXPECT_EQ(bin->substr(0, 4), std::string("\x3A\x30\x00\x00", 4));
}

TEST(DeletionFile, UnorderedArrowValuesAreASet) {
  auto schema = std::make_shared<const arrow::Schema>(
      arrow::Schema{{arrow::Field("row_id", arrow::DataType::UInt32(), false)}, {}});
  auto column =
      arrow::MakeFixedArray(arrow::DataType::UInt32(), std::vector<uint32_t>{9, 3, 700, 0, 42, 3});
  ASSERT_TRUE(column.ok());
  arrow::RecordBatch batch{schema, 6, {*column}};
  auto bytes = arrow::ipc::WriteFileToString(schema, {batch});  // uncompressed is fine too
  ASSERT_TRUE(bytes.ok());
  auto dv = DecodeDeletionFile(*bytes, DeletionFileType::kArrowArray, "x.arrow", 701);
  ASSERT_TRUE(dv.ok()) << dv.status().ToString();
  EXPECT_EQ(dv->ToVector(), (std::vector<uint32_t>{0, 3, 9, 42, 700}));
  // With fewer physical rows, row 700 cannot be deleted.
  auto small = DecodeDeletionFile(*bytes, DeletionFileType::kArrowArray, "x.arrow", 700);
  EXPECT_EQ(small.status().subcode(), Subcode::kCorruption) << small.status().ToString();
  EXPECT_NE(small.status().message().find("x.arrow"), std::string::npos);
}

// Arrow files that are valid IPC but not deletion files.
TEST(DeletionFile, ArrowSchemaAndBatchCountAreChecked) {
  auto file_with = [](arrow::Field field, int batches, std::vector<bool> valid = {}) {
    auto schema = std::make_shared<const arrow::Schema>(arrow::Schema{{field}, {}});
    auto column = arrow::MakeFixedArray(field.type, std::vector<uint32_t>{1, 2}, valid);
    std::vector<arrow::RecordBatch> all(static_cast<size_t>(batches),
                                        arrow::RecordBatch{schema, 2, {*column}});
    return *arrow::ipc::WriteFileToString(schema, all);
  };
  const arrow::DataType u32 = arrow::DataType::UInt32();
  struct Case {
    std::string name;
    std::string bytes;
  };
  arrow::Field with_metadata("row_id", u32, false);
  with_metadata.metadata = {{"k", "v"}};
  std::vector<Case> cases = {
      {"nullable", file_with(arrow::Field("row_id", u32, true), 1)},
      {"renamed", file_with(arrow::Field("rowid", u32, false), 1)},
      {"int32", file_with(arrow::Field("row_id", arrow::DataType::Int32(), false), 1)},
      {"metadata", file_with(with_metadata, 1)},
      {"no batch", file_with(arrow::Field("row_id", u32, false), 0)},
      {"two batches", file_with(arrow::Field("row_id", u32, false), 2)},
      {"nulls", file_with(arrow::Field("row_id", u32, true), 1, {true, false})},
  };
  for (const Case& c : cases) {
    auto dv = DecodeDeletionFile(c.bytes, DeletionFileType::kArrowArray, "d.arrow");
    EXPECT_EQ(dv.status().subcode(), Subcode::kCorruption) << c.name;
  }
}

TEST(DeletionFile, CountMustMatchTheManifest) {
  auto store = MemoryObjectStore::Create();
  auto file = WriteDeletionFile(*store, 5, 2, DeletionVector::FromOffsets({1, 2, 3}));
  ASSERT_TRUE(file.ok());
  file->set_num_deleted_rows(4);
  auto dv = ReadDeletionFile(*store, 5, *file);
  EXPECT_EQ(dv.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(
      dv.status().message().find(DeletionFileKey(5, 2, file->id(), DeletionFileType::kArrowArray)),
      std::string::npos)
      << dv.status().ToString();
  file->set_num_deleted_rows(0);  // unknown: not checked
  EXPECT_TRUE(ReadDeletionFile(*store, 5, *file).ok());
  file->set_id(file->id() + 1);
  EXPECT_TRUE(ReadDeletionFile(*store, 5, *file).status().IsNotFound());
}

TEST(DeletionFile, RunContainerBitmaps3B30AreRead) {
  // One container (key 0) with one run 10..109; fewer than 4 containers: no offsets.
  Bytes b;
  b.U32(0x0000303B).U8(0x01).U16(0).U16(99).U16(1).U16(10).U16(99);
  auto dv = DecodeDeletionFile(b.str(), DeletionFileType::kBitmap, "r.bin", 1000);
  ASSERT_TRUE(dv.ok()) << dv.status().ToString();
  EXPECT_EQ(dv->size(), 100u);
  EXPECT_TRUE(dv->Contains(10));
  EXPECT_TRUE(dv->Contains(109));
  EXPECT_FALSE(dv->Contains(110));
  EXPECT_EQ(dv->SelectedRanges(1000), (Ranges{{0, 10}, {110, 1000}}));
  // Written again without runs, as Rust's roaring does.
  auto again = EncodeDeletionFile(*dv, DeletionFileType::kBitmap);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->substr(0, 2), "\x3A\x30");
  auto back = DecodeDeletionFile(*again, DeletionFileType::kBitmap, "r.bin");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == *dv);
}

TEST(DeletionFile, MalformedBitmapsAreCorruption) {
  auto header = [](uint32_t n) {
    Bytes b;
    b.U32(12346).U32(n);
    return b;
  };
  std::vector<std::pair<std::string, std::string>> cases;
  {
    Bytes b = header(1);
    b.U16(0).U16(2).U32(16).U16(5).U16(3).U16(9);  // array 5, 3, 9: not increasing
    cases.push_back({"unsorted array", b.str()});
  }
  {
    Bytes b = header(1);
    b.U16(0).U16(1).U32(16).U16(5).U16(5);
    cases.push_back({"duplicate in array", b.str()});
  }
  {
    Bytes b = header(2);
    b.U16(1).U16(0).U16(0).U16(0).U32(24).U32(26).U16(1).U16(1);
    cases.push_back({"keys decreasing", b.str()});
  }
  {
    Bytes b = header(1);
    b.U16(0).U16(0).U32(16).U16(1);
    cases.push_back({"trailing byte", b.str() + "x"});
  }
  {
    Bytes b = header(1);
    b.U16(0).U16(0).U32(17).U16(1);
    cases.push_back({"wrong offset", b.str()});
  }
  {
    Bytes b = header(1);
    b.U16(0).U16(5000).U32(16);  // bitset claiming 5001 values, all zero bits
    cases.push_back({"bitset cardinality", b.str() + std::string(8192, '\0')});
  }
  {
    Bytes b;
    b.U32(0x0000303B).U8(0x01).U16(0).U16(19).U16(2).U16(10).U16(9).U16(15).U16(9);
    cases.push_back({"overlapping runs", b.str()});
  }
  {
    Bytes b;
    b.U32(0x0000303B).U8(0x01).U16(0).U16(9).U16(1).U16(0xFFFA).U16(9);
    cases.push_back({"run past 0xFFFF", b.str()});
  }
  {
    Bytes b;
    b.U32(0x0000303B).U8(0x01).U16(0).U16(0).U16(0);
    cases.push_back({"no runs", b.str()});
  }
  cases.push_back({"bad cookie", std::string("\x3C\x30\x00\x00\x00\x00\x00\x00", 8)});
  cases.push_back({"empty", ""});
  cases.push_back({"too many containers", header(70000).str()});
  for (const auto& [name, bytes] : cases) {
    auto dv = DecodeDeletionFile(bytes, DeletionFileType::kBitmap, "m.bin");
    EXPECT_EQ(dv.status().subcode(), Subcode::kCorruption)
        << name << ": " << dv.status().ToString();
  }
  // Rows past the fragment's end.
  Bytes ok = header(1);
  ok.U16(1).U16(0).U32(16).U16(3);  // the value 65539
  EXPECT_TRUE(DecodeDeletionFile(ok.str(), DeletionFileType::kBitmap, "m.bin", 65540).ok());
  EXPECT_EQ(
      DecodeDeletionFile(ok.str(), DeletionFileType::kBitmap, "m.bin", 65539).status().subcode(),
      Subcode::kCorruption);
}

// Every truncation of a valid file, and byte flips, are Corruption or (for a flip that still
// makes a valid file) a set of rows: never a crash.
TEST(DeletionFile, TruncatedAndFlippedFilesNeverCrash) {
  const DeletionVector dv = DeletionVector::FromOffsets(Offsets(6000));
  for (DeletionFileType type : {DeletionFileType::kArrowArray, DeletionFileType::kBitmap}) {
    auto bytes = EncodeDeletionFile(dv, type);
    ASSERT_TRUE(bytes.ok());
    const size_t step = std::max<size_t>(1, bytes->size() / 2000);
    for (size_t len = 0; len < bytes->size(); len += step) {
      auto got = DecodeDeletionFile(bytes->substr(0, len), type, "t", 100000);
      EXPECT_EQ(got.status().subcode(), Subcode::kCorruption) << len;
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; ++i) {
      std::string flipped = *bytes;
      flipped[rng() % flipped.size()] ^= static_cast<char>(1 + rng() % 255);
      auto got = DecodeDeletionFile(flipped, type, "t", 100000);
      if (!got.ok()) {
        EXPECT_EQ(got.status().subcode(), Subcode::kCorruption);
      }
    }
  }
}

TEST(DeletionVector, SelectedRanges) {
  EXPECT_EQ(DeletionVector().SelectedRanges(5), (Ranges{{0, 5}}));
  EXPECT_EQ(DeletionVector().SelectedRanges(0), Ranges{});
  EXPECT_EQ(DeletionVector::FromOffsets({0}).SelectedRanges(5), (Ranges{{1, 5}}));
  EXPECT_EQ(DeletionVector::FromOffsets({4}).SelectedRanges(5), (Ranges{{0, 4}}));
  EXPECT_EQ(DeletionVector::FromOffsets({4, 2, 3}).SelectedRanges(8), (Ranges{{0, 2}, {5, 8}}));
  EXPECT_EQ(DeletionVector::FromOffsets({0, 1, 2}).SelectedRanges(3), Ranges{});
  EXPECT_EQ(DeletionVector::FromOffsets({1, 9}).SelectedRanges(5), (Ranges{{0, 1}, {2, 5}}));
}

TEST(DeletionVector, UnionAcrossForms) {
  std::vector<uint32_t> big;
  for (uint32_t i = 0; i < 6000; ++i) big.push_back(2 * i);
  const DeletionVector a = DeletionVector::FromOffsets(big);  // a bitmap
  const DeletionVector b = DeletionVector::FromOffsets({1, 2, 3, 20001});
  EXPECT_TRUE(a.is_bitmap());
  EXPECT_FALSE(b.is_bitmap());
  const DeletionVector u = DeletionVector::Union(a, b);
  EXPECT_EQ(u.size(), 6000u + 3);  // 2 was in both
  EXPECT_TRUE(u.Contains(20001));
  EXPECT_TRUE(u.Contains(3));
  EXPECT_FALSE(u.Contains(5));
  EXPECT_TRUE(DeletionVector::Union(b, DeletionVector()) == b);
  EXPECT_EQ(DeletionVector::Union(b, DeletionVector::FromOffsets({7})).ToVector(),
            (std::vector<uint32_t>{1, 2, 3, 7, 20001}));
}

}  // namespace
}  // namespace quiver::format
