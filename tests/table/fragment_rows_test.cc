// Row-range arithmetic of table/fragment_rows.h: offset/limit slicing, batch cuts, coalesced
// reads and the selection of kept rows from reader batches.
#include "table/fragment_rows.h"

#include <gtest/gtest.h>

namespace quiver::table {
namespace {

format::SchemaField Field(int32_t id, std::string name, std::string type,
                          std::vector<format::SchemaField> children = {}) {
  format::SchemaField f;
  f.id = id;
  f.name = std::move(name);
  f.logical_type = std::move(type);
  f.children = std::move(children);
  return f;
}

TEST(FragmentRows, CheckFileTypesComparesEveryKnownFieldId) {
  format::Schema manifest;
  manifest.fields = {Field(0, "id", "int64"),
                     Field(1, "s", "struct", {Field(2, "a", "string"), Field(3, "b", "float")})};
  format::Schema file = manifest;
  EXPECT_TRUE(CheckFileTypes(manifest, file, "f.lance").ok());
  // A field the manifest dropped since may stay in old files.
  file.fields.push_back(Field(9, "gone", "binary"));
  EXPECT_TRUE(CheckFileTypes(manifest, file, "f.lance").ok());
  // A nested member of another type is caught, naming the file and the field.
  file.fields[1].children[1].logical_type = "double";
  Status s = CheckFileTypes(manifest, file, "f.lance");
  ASSERT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("f.lance"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("field 3 ('b') is double in the file but float"), std::string::npos)
      << s.message();
}

TEST(FragmentRows, SliceRowsSkipsAndTakesKeptRows) {
  const RowRanges kept = {{0, 3}, {5, 10}, {12, 13}};
  EXPECT_EQ(CountRows(kept), 9u);
  EXPECT_EQ(SliceRows(kept, 0, UINT64_MAX), kept);
  EXPECT_EQ(SliceRows(kept, 2, 2), (RowRanges{{2, 3}, {5, 6}}));
  EXPECT_EQ(SliceRows(kept, 3, UINT64_MAX), (RowRanges{{5, 10}, {12, 13}}));
  EXPECT_EQ(SliceRows(kept, 8, 5), (RowRanges{{12, 13}}));
  EXPECT_EQ(SliceRows(kept, 9, 5), RowRanges{});
  EXPECT_EQ(SliceRows(kept, 0, 0), RowRanges{});
}

TEST(FragmentRows, SplitEveryCutsAtBatchBoundaries) {
  EXPECT_EQ(SplitEvery({{0, 3}, {5, 10}}, 4), (RowRanges{{0, 3}, {5, 6}, {6, 10}}));
  EXPECT_EQ(SplitEvery({{0, 10}}, 4), (RowRanges{{0, 4}, {4, 8}, {8, 10}}));
  EXPECT_EQ(SplitEvery({{0, 4}, {6, 8}}, 4), (RowRanges{{0, 4}, {6, 8}}));
}

TEST(FragmentRows, CoalesceReadsMergesSmallGapsWithinABatch) {
  // Batches of 4 kept rows: {0,1} {3,4} | {6,7} {20,22}.
  const RowRanges kept = SplitEvery({{0, 2}, {3, 5}, {6, 8}, {20, 22}}, 4);
  EXPECT_EQ(CoalesceReads(kept, 2, 4), (RowRanges{{0, 5}, {6, 8}, {20, 22}}));
  EXPECT_EQ(CoalesceReads(kept, 100, 4), (RowRanges{{0, 5}, {6, 22}}));
  EXPECT_EQ(CoalesceReads(kept, 0, 4), kept);
}

TEST(FragmentRows, RowSelectorKeepsOnlyKeptRows) {
  auto kept = std::make_shared<const RowRanges>(RowRanges{{0, 2}, {3, 5}, {9, 10}});
  auto reads = std::make_shared<const RowRanges>(RowRanges{{0, 5}, {9, 10}});
  RowSelector selector(reads, kept);
  using Slices = std::vector<std::pair<int64_t, int64_t>>;
  auto first = selector.Next(4);  // rows 0..3 of the read [0, 5)
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, (Slices{{0, 2}, {3, 1}}));
  auto second = selector.Next(1);  // row 4
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, (Slices{{0, 1}}));
  auto third = selector.Next(1);  // row 9
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, (Slices{{0, 1}}));
  EXPECT_FALSE(selector.Next(1).ok());  // past the reads
}

TEST(FragmentRows, RowRangeCursorGivesRowAddresses) {
  RowRangeCursor cursor(std::make_shared<const RowRanges>(RowRanges{{1, 3}, {7, 9}}));
  std::vector<uint64_t> out;
  cursor.Take(3, uint64_t{5} << 32, &out);
  cursor.Take(1, uint64_t{5} << 32, &out);
  const uint64_t f = uint64_t{5} << 32;
  EXPECT_EQ(out, (std::vector<uint64_t>{f | 1, f | 2, f | 7, f | 8}));
}

}  // namespace
}  // namespace quiver::table
