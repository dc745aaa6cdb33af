// Cleanup over a synthetic dataset whose times are all controlled: versions 1-5 committed at
// seconds 1-5, each adding one data file; version 5 overwrites (it references only its own
// file). Parity with Lance's own cleanup is checked by tests/interop/check_cleanup.mjs.
#include "table/cleanup.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"
#include "store/memory_store.h"

namespace quiver::table {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

class CleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (uint64_t v = 1; v <= 5; ++v) {
      clock_.Set(static_cast<int64_t>(v) * kSecond);
      ASSERT_TRUE(store_->Put(DataFile(v), "data").ok());
      ASSERT_TRUE(store_->Put("_transactions/t" + std::to_string(v) + ".txn", "txn").ok());
      lance::table::Manifest m;
      m.set_version(v);
      m.mutable_timestamp()->set_seconds(static_cast<int64_t>(v));
      m.set_transaction_file("t" + std::to_string(v) + ".txn");
      for (uint64_t f = (v == 5 ? 5 : 1); f <= v; ++f) {
        auto* frag = m.add_fragments();
        frag->set_id(f);
        frag->add_files()->set_path("f" + std::to_string(f) + ".lance");
      }
      ASSERT_TRUE(store_
                      ->Put("_versions/" + format::ManifestFileName(v, format::ManifestNaming::kV2),
                            format::EncodeManifestFile(m, nullptr, nullptr))
                      .ok());
    }
    ASSERT_TRUE(store_->Put(".lance-reserved", "").ok());
    ASSERT_TRUE(store_->Put("data/f1/blob.blob", "sidecar").ok());
    clock_.Set(30 * 24 * 3600 * kSecond);  // "now" is a month later
  }

  static std::string DataFile(uint64_t v) { return "data/f" + std::to_string(v) + ".lance"; }

  std::vector<std::string> Keys() {
    std::vector<std::string> keys;
    auto all = store_->ListAll("");
    for (const ObjectMeta& m : *all) keys.push_back(m.key);
    return keys;
  }

  bool Has(const std::string& key) { return store_->Head(key).ok(); }

  ManualClock clock_{0};
  std::shared_ptr<MemoryObjectStore> store_ =
      MemoryObjectStore::Create(MemoryStoreOptions{&clock_});
};

TEST_F(CleanupTest, RetainOneRemovesOldVersionsAndTheFilesOnlyTheyUsed) {
  CleanupPolicy policy;
  policy.retain_versions = 1;
  auto report = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->versions_removed, 4u);
  EXPECT_EQ(report->removed_versions, (std::vector<uint64_t>{1, 2, 3, 4}));
  // 4 manifests + 4 data files + 4 transaction files.
  EXPECT_EQ(report->files_removed, 12u);
  EXPECT_GT(report->bytes_removed, 4u * 4 + 4u * 3) << "data + transaction files + manifests";
  EXPECT_TRUE(Has(DataFile(5)));
  EXPECT_TRUE(Has("_transactions/t5.txn"));
  for (uint64_t v = 1; v <= 4; ++v) EXPECT_FALSE(Has(DataFile(v))) << v;
  EXPECT_TRUE(Has(".lance-reserved")) << "never touched";
  EXPECT_TRUE(Has("data/f1/blob.blob")) << "blob sidecars are never touched";
  EXPECT_EQ(store_->ListAll("_versions/")->size(), 1u);
}

TEST_F(CleanupTest, OlderThanKeepsRecentVersions) {
  CleanupPolicy policy;
  // "now" minus (a month - 3.5 s): versions 1-3 are older.
  policy.older_than = Duration(30 * 24 * 3600 * kSecond - 3 * kSecond - kSecond / 2);
  auto report = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->removed_versions, (std::vector<uint64_t>{1, 2, 3}));
  // Versions 4 (kept) still uses f1-f4, so only manifests and transaction files go.
  for (uint64_t v = 1; v <= 5; ++v) EXPECT_TRUE(Has(DataFile(v))) << v;
  EXPECT_FALSE(Has("_transactions/t1.txn"));
  EXPECT_TRUE(Has("_transactions/t4.txn"));
}

TEST_F(CleanupTest, TaggedOldVersionsRefuseOrStay) {
  ASSERT_TRUE(store_->Put("_refs/tags/keep.json", R"({"version":2,"manifestSize":1})").ok());
  CleanupPolicy policy;
  policy.retain_versions = 1;
  auto refused = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidTableState);
  EXPECT_NE(refused.status().message().find("keep"), std::string::npos);
  EXPECT_EQ(store_->ListAll("_versions/")->size(), 5u) << "a refused cleanup deletes nothing";
  policy.error_if_tagged_old_versions = false;
  auto kept = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->removed_versions, (std::vector<uint64_t>{1, 3, 4}));
  EXPECT_TRUE(Has(DataFile(1)) && Has(DataFile(2))) << "the tagged version's files stay";
  // Files written after the earliest kept version (the tagged one) are not candidates at all.
  EXPECT_TRUE(Has(DataFile(3)));
  EXPECT_FALSE(Has("_versions/" + format::ManifestFileName(3, format::ManifestNaming::kV2)));
  EXPECT_TRUE(Has("_refs/tags/keep.json"));
}

TEST_F(CleanupTest, VersionsABranchWasForkedFromStay) {
  ASSERT_TRUE(store_
                  ->Put("_refs/branches/dev.json",
                        R"({"parentBranch":null,"parentVersion":3,"createAt":1,"manifestSize":1})")
                  .ok());
  ASSERT_TRUE(store_->Put("tree/dev/data/x.lance", "branch data").ok());
  CleanupPolicy policy;
  policy.retain_versions = 1;
  auto report = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->removed_versions, (std::vector<uint64_t>{1, 2, 4}));
  EXPECT_TRUE(Has(DataFile(3)));
  EXPECT_TRUE(Has("tree/dev/data/x.lance")) << "a branch's tree is not main's to clean";
}

TEST_F(CleanupTest, NeverReferencedFilesGoOnlyWhenOldOrAskedFor) {
  clock_.Set(4 * kSecond + kSecond / 2);  // before version 5, the one kept
  ASSERT_TRUE(store_->Put("data/orphan.lance", "x").ok());
  clock_.Set(5 * kSecond + 24 * 3600 * kSecond);  // the next day
  ASSERT_TRUE(store_->Put("data/after-kept.lance", "x").ok());
  clock_.Set(5 * kSecond + 3 * 24 * 3600 * kSecond);  // three days after version 5
  CleanupPolicy policy;
  policy.retain_versions = 1;
  ASSERT_TRUE(CleanupOldVersions(store_, std::nullopt, policy, &clock_).ok());
  EXPECT_TRUE(Has("data/orphan.lance")) << "unverified and younger than a week";
  clock_.Advance(std::chrono::hours(24 * 5));
  ASSERT_TRUE(CleanupOldVersions(store_, std::nullopt, policy, &clock_).ok());
  EXPECT_FALSE(Has("data/orphan.lance")) << "unverified and older than a week";
  EXPECT_TRUE(Has("data/after-kept.lance")) << "newer than the earliest kept version";
  ASSERT_TRUE(store_->Delete("data/after-kept.lance").ok());
  clock_.Set(4 * kSecond + kSecond / 2);
  ASSERT_TRUE(store_->Put("data/orphan2.lance", "x").ok());
  clock_.Set(5 * kSecond + 3 * 24 * 3600 * kSecond);
  policy.delete_unverified = true;
  ASSERT_TRUE(CleanupOldVersions(store_, std::nullopt, policy, &clock_).ok());
  EXPECT_FALSE(Has("data/orphan2.lance")) << "delete_unverified needs no age";
}

TEST_F(CleanupTest, DryRunReportsAndDeletesNothing) {
  std::vector<std::string> before = Keys();
  CleanupPolicy policy;
  policy.retain_versions = 1;
  policy.dry_run = true;
  auto report = CleanupOldVersions(store_, std::nullopt, policy, &clock_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->versions_removed, 4u);
  EXPECT_EQ(report->files_removed, 12u);
  EXPECT_EQ(Keys(), before);
}

TEST_F(CleanupTest, APolicyMustSelectSomething) {
  EXPECT_TRUE(
      CleanupOldVersions(store_, std::nullopt, CleanupPolicy{}, &clock_).status().IsInvalidInput());
  CleanupPolicy zero;
  zero.retain_versions = 0;
  EXPECT_TRUE(CleanupOldVersions(store_, std::nullopt, zero, &clock_).status().IsInvalidInput());
  CleanupPolicy ok;
  ok.retain_versions = 1;
  EXPECT_EQ(CleanupOldVersions(store_, "nope", ok, &clock_).status().code(),
            StatusCode::kTableBranchNotFound);
}

}  // namespace
}  // namespace quiver::table
