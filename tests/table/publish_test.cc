#include "table/publish.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "store/memory_store.h"
#include "table/dataset.h"

namespace quiver::table {
namespace {

std::string ManifestBytes(uint64_t version, bool with_txn = true, uint64_t writer_flags = 0) {
  lance::table::Manifest m;
  m.set_version(version);
  m.set_writer_feature_flags(writer_flags);
  lance::table::Transaction txn;
  txn.set_read_version(version - 1);
  txn.mutable_append();
  return format::EncodeManifestFile(m, with_txn ? &txn : nullptr, nullptr);
}

class PublishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_
                    ->Put("_versions/" + format::ManifestFileName(1, format::ManifestNaming::kV2),
                          ManifestBytes(1))
                    .ok());
  }
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create();
};

TEST_F(PublishTest, PublishesAtTheFinalNameAndRemovesTheStagingObject) {
  ASSERT_TRUE(store_->Put("_staging/v2.manifest", ManifestBytes(2)).ok());
  auto ref = PublishStagedManifest(*store_, StagedManifest{"_staging/v2.manifest", 2});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref->path, "_versions/" + format::ManifestFileName(2, format::ManifestNaming::kV2));
  EXPECT_TRUE(store_->Get("_staging/v2.manifest").status().IsNotFound());
  EXPECT_EQ((*Dataset::Open(store_))->version(), 2u);
  EXPECT_EQ(store_->Get("_versions/latest_version_hint.json")->data, R"({"version":2})");
}

TEST_F(PublishTest, RefusesWhatCannotBecomeTheNextVersion) {
  ASSERT_TRUE(store_->Put("s/taken", ManifestBytes(1)).ok());
  EXPECT_EQ(PublishStagedManifest(*store_, StagedManifest{"s/taken", 1}).status().code(),
            StatusCode::kConcurrentModification);
  ASSERT_TRUE(store_->Put("s/gap", ManifestBytes(5)).ok());
  EXPECT_TRUE(PublishStagedManifest(*store_, StagedManifest{"s/gap", 5}).status().IsInvalidInput());
  ASSERT_TRUE(store_->Put("s/mislabelled", ManifestBytes(3)).ok());
  EXPECT_TRUE(
      PublishStagedManifest(*store_, StagedManifest{"s/mislabelled", 2}).status().IsInvalidInput());
  ASSERT_TRUE(store_->Put("s/no-txn", ManifestBytes(2, /*with_txn=*/false)).ok());
  EXPECT_TRUE(
      PublishStagedManifest(*store_, StagedManifest{"s/no-txn", 2}).status().IsInvalidInput());
  ASSERT_TRUE(store_->Put("s/future", ManifestBytes(2, true, /*writer_flags=*/64)).ok());
  EXPECT_EQ(PublishStagedManifest(*store_, StagedManifest{"s/future", 2}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_TRUE(
      PublishStagedManifest(*store_, StagedManifest{"s/missing", 2}).status().IsInvalidInput());
  ASSERT_TRUE(store_->Put("s/garbage", "not a manifest at all").ok());
  EXPECT_EQ(PublishStagedManifest(*store_, StagedManifest{"s/garbage", 2}).status().subcode(),
            Subcode::kCorruption);
  auto good = store_->Put("s/good", ManifestBytes(2));
  ASSERT_TRUE(good.ok());
  StagedManifest wrong_size{"s/good", 2, std::nullopt, good->size + 1, std::nullopt};
  EXPECT_TRUE(PublishStagedManifest(*store_, wrong_size).status().IsInvalidInput());
  StagedManifest wrong_etag{"s/good", 2, std::nullopt, std::nullopt, "other"};
  EXPECT_EQ(PublishStagedManifest(*store_, wrong_etag).status().code(),
            StatusCode::kConcurrentModification);
  EXPECT_EQ((*Dataset::Open(store_))->version(), 1u) << "nothing was published";
}

TEST_F(PublishTest, FollowsTheDatasetsNamingScheme) {
  auto v1 = MemoryObjectStore::Create();
  ASSERT_TRUE(v1->Put("_versions/1.manifest", ManifestBytes(1)).ok());
  ASSERT_TRUE(v1->Put("s", ManifestBytes(2)).ok());
  auto ref = PublishStagedManifest(*v1, StagedManifest{"s", 2});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref->path, "_versions/2.manifest");
}

TEST_F(PublishTest, ConcurrentPublishersOfOneVersionHaveOneWinner) {
  constexpr int kWriters = 8;
  for (int i = 0; i < kWriters; ++i) {
    ASSERT_TRUE(store_->Put("s/" + std::to_string(i), ManifestBytes(2)).ok());
  }
  std::atomic<int> wins{0};
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto r = PublishStagedManifest(*store_, StagedManifest{"s/" + std::to_string(i), 2});
      if (r.ok()) {
        wins.fetch_add(1);
      } else if (r.status().code() == StatusCode::kConcurrentModification) {
        conflicts.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(conflicts.load(), kWriters - 1);
}

}  // namespace
}  // namespace quiver::table
