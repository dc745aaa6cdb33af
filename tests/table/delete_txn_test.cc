// The Delete transaction quiver commits (table/delete_rows.h): applying it to a manifest and
// checking it against concurrent commits (lance-table-format.md §3.3).
#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "table/apply.h"
#include "table/conflicts.h"

namespace quiver::table {
namespace {

using lance::table::Transaction;

Transaction DeleteTouching(std::vector<uint64_t> updated, std::vector<uint64_t> removed) {
  Transaction t;
  for (uint64_t id : updated) {
    auto* f = t.mutable_delete_()->add_updated_fragments();
    f->set_id(id);
    f->set_physical_rows(10);
    f->mutable_deletion_file()->set_num_deleted_rows(1);
  }
  for (uint64_t id : removed) t.mutable_delete_()->add_deleted_fragment_ids(id);
  return t;
}

TEST(DeleteTransaction, ReplacesUpdatedAndDropsRemovedFragments) {
  auto manifest = std::make_shared<lance::table::Manifest>();
  for (uint64_t id : {0, 1, 2}) {
    auto* f = manifest->add_fragments();
    f->set_id(id);
    f->set_physical_rows(10);
  }
  format::ManifestFile latest;
  latest.manifest = manifest;
  auto applied = ApplyTransaction(
      DeleteTouching({2}, {0}), latest,
      [](uint64_t) -> Result<format::ManifestFile> { return Status::Internal("not needed"); });
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  const auto& m = *applied->manifest;
  ASSERT_EQ(m.fragments_size(), 2);
  EXPECT_EQ(m.fragments(0).id(), 1u);
  EXPECT_FALSE(m.fragments(0).has_deletion_file());
  EXPECT_EQ(m.fragments(1).id(), 2u);
  EXPECT_TRUE(m.fragments(1).has_deletion_file());
  EXPECT_EQ(m.reader_feature_flags() & 1, 1u);  // deletion files

  auto missing = ApplyTransaction(
      DeleteTouching({7}, {}), latest,
      [](uint64_t) -> Result<format::ManifestFile> { return Status::Internal("not needed"); });
  EXPECT_FALSE(missing.ok());
}

TEST(DeleteTransaction, ConflictsOnlyWithTheSameFragmentsOrReplacedTables) {
  const Transaction mine = DeleteTouching({1}, {2});
  EXPECT_TRUE(CheckConflict(mine, DeleteTouching({3}, {4}), 5).ok());
  Status same = CheckConflict(mine, DeleteTouching({2}, {}), 5);
  EXPECT_EQ(same.code(), StatusCode::kConcurrentModification);
  EXPECT_TRUE(same.retryable());
  Transaction update;
  update.mutable_update()->add_removed_fragment_ids(1);
  EXPECT_TRUE(CheckConflict(mine, update, 5).retryable());
  Transaction append;
  append.mutable_append()->add_fragments()->set_id(9);
  EXPECT_TRUE(CheckConflict(mine, append, 5).ok());
  Transaction overwrite;
  overwrite.mutable_overwrite();
  Status replaced = CheckConflict(mine, overwrite, 5);
  EXPECT_EQ(replaced.code(), StatusCode::kConcurrentModification);
  EXPECT_FALSE(replaced.retryable());
  Transaction rewrite;
  rewrite.mutable_rewrite();
  EXPECT_TRUE(CheckConflict(mine, rewrite, 5).retryable());
}

// Lance 12's nullability barrier: a Project or Merge without preserves_nullability (every
// writer before Lance 12) conflicts, retryably and in either order, with a write that supplies
// values; with it, the usual rules apply (an append passes a projection).
TEST(ConflictRules, ProjectionsWithoutTheNullabilityAssertionStopConcurrentValueWrites) {
  Transaction append;
  append.mutable_append()->add_fragments()->set_id(9);
  Transaction update;
  update.mutable_update()->add_removed_fragment_ids(1);
  for (bool preserves : {false, true}) {
    Transaction project;
    project.mutable_project()->set_preserves_nullability(preserves);
    Transaction merge;
    merge.mutable_merge()->set_preserves_nullability(preserves);
    for (const Transaction* schema_change : {&project, &merge}) {
      Status after = CheckConflict(append, *schema_change, 5);  // my append rebases on it
      EXPECT_EQ(after.ok(), preserves) << after.ToString();
      if (!preserves) {
        EXPECT_TRUE(after.retryable());
      }
    }
    Status mine = CheckConflict(project, append, 5);  // my projection rebases on an append
    EXPECT_EQ(mine.ok(), preserves) << mine.ToString();
    EXPECT_EQ(CheckConflict(project, update, 5).ok(), preserves);
    // A delete supplies no values: never stopped by the barrier.
    EXPECT_TRUE(CheckConflict(DeleteTouching({1}, {}), project, 5).ok());
  }
}

}  // namespace
}  // namespace quiver::table
