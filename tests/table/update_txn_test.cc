// The Update transaction quiver commits (table/update_rows.h): applying it to a manifest (rows
// moved out of updated fragments, new fragments added, indices on modified fields pruned) and
// checking it against concurrent commits as a Delete is (lance-table-format.md §3.3).
#include <gtest/gtest.h>

#include "format/fragment_bitmap.h"
#include "format/lance_proto.h"
#include "table/apply.h"
#include "table/conflicts.h"

namespace quiver::table {
namespace {

using lance::table::Transaction;

format::ManifestFile ThreeFragmentsTwoIndices() {
  auto manifest = std::make_shared<lance::table::Manifest>();
  for (uint64_t id : {0, 1, 2}) {
    auto* f = manifest->add_fragments();
    f->set_id(id);
    f->set_physical_rows(10);
  }
  manifest->set_max_fragment_id(2);
  auto indices = std::make_shared<lance::table::IndexSection>();
  for (int field : {0, 1}) {
    auto* index = indices->add_indices();
    index->set_name("idx" + std::to_string(field));
    index->add_fields(field);
    index->set_fragment_bitmap(format::MakeFragmentBitmap({0, 1, 2}));
  }
  format::ManifestFile latest;
  latest.manifest = manifest;
  latest.index_section = indices;
  return latest;
}

Transaction UpdateOf(uint64_t updated, uint64_t removed, uint32_t field) {
  Transaction t;
  auto* u = t.mutable_update();
  auto* f = u->add_updated_fragments();
  f->set_id(updated);
  f->set_physical_rows(10);
  f->mutable_deletion_file()->set_num_deleted_rows(3);
  u->add_removed_fragment_ids(removed);
  auto* added = u->add_new_fragments();
  added->set_physical_rows(13);
  u->add_fields_modified(field);
  return t;
}

TEST(UpdateTransaction, MovesRowsAndPrunesIndicesOnModifiedFields) {
  auto applied = ApplyTransaction(
      UpdateOf(1, 2, 0), ThreeFragmentsTwoIndices(),
      [](uint64_t) -> Result<format::ManifestFile> { return Status::Internal("not needed"); });
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  const auto& m = *applied->manifest;
  ASSERT_EQ(m.fragments_size(), 3);
  EXPECT_EQ(m.fragments(0).id(), 0u);
  EXPECT_EQ(m.fragments(1).id(), 1u);
  EXPECT_TRUE(m.fragments(1).has_deletion_file());
  EXPECT_EQ(m.fragments(2).id(), 3u) << "the new fragment gets the next id";
  EXPECT_EQ(m.fragments(2).physical_rows(), 13u);
  EXPECT_EQ(m.max_fragment_id(), 3u);
  ASSERT_NE(applied->index_section, nullptr);
  const auto& indices = applied->index_section->indices();
  ASSERT_EQ(indices.size(), 2);
  // idx0 is on the modified field: it no longer claims fragments 1 (rows moved) and 2 (gone).
  EXPECT_EQ(*format::FragmentBitmapIds(indices[0].fragment_bitmap()), std::vector<uint32_t>{0});
  // idx1 is on a field the update left alone: the rows it indexes in 1 are still there.
  EXPECT_EQ(*format::FragmentBitmapIds(indices[1].fragment_bitmap()),
            (std::vector<uint32_t>{0, 1, 2}));
}

TEST(UpdateTransaction, RefusesWhatItCannotApply) {
  auto loader = [](uint64_t) -> Result<format::ManifestFile> {
    return Status::Internal("not needed");
  };
  Transaction columns = UpdateOf(1, 2, 0);
  columns.mutable_update()->set_update_mode(Transaction::REWRITE_COLUMNS);
  auto refused = ApplyTransaction(columns, ThreeFragmentsTwoIndices(), loader);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  // A fragment the latest version does not have.
  EXPECT_FALSE(ApplyTransaction(UpdateOf(7, 2, 0), ThreeFragmentsTwoIndices(), loader).ok());
  // A stored bitmap that is not one.
  format::ManifestFile bad = ThreeFragmentsTwoIndices();
  auto indices = std::make_shared<lance::table::IndexSection>(*bad.index_section);
  indices->mutable_indices(0)->set_fragment_bitmap("not a bitmap");
  bad.index_section = indices;
  auto corrupt = ApplyTransaction(UpdateOf(1, 2, 0), bad, loader);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().subcode(), Subcode::kCorruption);
}

TEST(UpdateTransaction, ConflictsAsADeleteDoes) {
  const Transaction mine = UpdateOf(1, 2, 0);
  EXPECT_TRUE(CheckConflict(mine, UpdateOf(3, 4, 0), 5).ok());
  Status same = CheckConflict(mine, UpdateOf(2, 5, 1), 5);
  EXPECT_EQ(same.code(), StatusCode::kConcurrentModification);
  EXPECT_TRUE(same.retryable());
  Transaction append;
  append.mutable_append()->add_fragments()->set_physical_rows(1);
  EXPECT_TRUE(CheckConflict(mine, append, 5).ok());
  Transaction overwrite;
  overwrite.mutable_overwrite();
  Status replaced = CheckConflict(mine, overwrite, 5);
  EXPECT_EQ(replaced.code(), StatusCode::kConcurrentModification);
  EXPECT_FALSE(replaced.retryable());
}

}  // namespace
}  // namespace quiver::table
