#include "table/tags.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"
#include "store/memory_store.h"
#include "table/refs.h"

namespace quiver::table {
namespace {

class TagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (uint64_t v = 1; v <= 3; ++v) {
      lance::table::Manifest m;
      m.set_version(v);
      std::string bytes = format::EncodeManifestFile(m, nullptr, nullptr);
      ASSERT_TRUE(
          store_
              ->Put("_versions/" + format::ManifestFileName(v, format::ManifestNaming::kV2), bytes)
              .ok());
      sizes_.push_back(bytes.size());
    }
  }

  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create();
  std::vector<uint64_t> sizes_;
  ManualClock clock_{1'795'932'875'816'927'431};
};

TEST_F(TagsTest, CreateWritesLancesJsonExactly) {
  auto tag = CreateTag(store_, "v2", TagTarget{2, std::nullopt}, &clock_);
  ASSERT_TRUE(tag.ok()) << tag.status().ToString();
  EXPECT_EQ(store_->Get("_refs/tags/v2.json")->data,
            "{\n"
            "  \"branch\": null,\n"
            "  \"version\": 2,\n"
            "  \"createdAt\": \"2026-11-29T06:14:35.816927431Z\",\n"
            "  \"updatedAt\": \"2026-11-29T06:14:35.816927431Z\",\n"
            "  \"manifestSize\": " +
                std::to_string(sizes_[1]) +
                ",\n"
                "  \"metadata\": {}\n"
                "}");
  auto read = GetTag(*store_, "v2");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->version, 2u);
  EXPECT_EQ(read->manifest_size, sizes_[1]);
}

TEST_F(TagsTest, CreateRefusesDuplicatesMissingVersionsAndBadNames) {
  ASSERT_TRUE(CreateTag(store_, "t", TagTarget{1, std::nullopt}).ok());
  EXPECT_EQ(CreateTag(store_, "t", TagTarget{2, std::nullopt}).status().code(),
            StatusCode::kTableTagAlreadyExists);
  EXPECT_EQ(GetTag(*store_, "t")->version, 1u) << "the loser changed nothing";
  EXPECT_EQ(CreateTag(store_, "u", TagTarget{9, std::nullopt}).status().code(),
            StatusCode::kTableVersionNotFound);
  EXPECT_EQ(CreateTag(store_, "u", TagTarget{1, "nobranch"}).status().code(),
            StatusCode::kTableBranchNotFound);
  for (const char* bad : {"", "a/b", ".x", "x.", "a..b", "x.lock", "sp ace", "ü"}) {
    EXPECT_TRUE(ValidateTagName(bad).IsInvalidInput()) << bad;
  }
  for (const char* good : {"v1", "release-2026.11_29", "A.b"}) {
    EXPECT_TRUE(ValidateTagName(good).ok()) << good;
  }
  EXPECT_EQ(store_->ListAll("_refs/tags/")->size(), 1u);
}

TEST_F(TagsTest, UpdateMovesTheTagAndKeepsCreatedAtAndMetadata) {
  ASSERT_TRUE(CreateTag(store_, "t", TagTarget{1, std::nullopt}, &clock_).ok());
  std::string with_metadata = store_->Get("_refs/tags/t.json")->data;
  with_metadata.replace(with_metadata.find("\"metadata\": {}"), 14,
                        "\"metadata\": {\"owner\": \"ml\"}");
  ASSERT_TRUE(store_->Put("_refs/tags/t.json", with_metadata).ok());
  clock_.Advance(std::chrono::seconds(5));
  auto moved = UpdateTag(store_, "t", TagTarget{3, std::nullopt}, &clock_);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  auto read = GetTag(*store_, "t");
  EXPECT_EQ(read->version, 3u);
  EXPECT_EQ(*read->created_at, "2026-11-29T06:14:35.816927431Z");
  EXPECT_EQ(*read->updated_at, "2026-11-29T06:14:40.816927431Z");
  EXPECT_NE(store_->Get("_refs/tags/t.json")->data.find("\"owner\": \"ml\""), std::string::npos);
  EXPECT_EQ(UpdateTag(store_, "missing", TagTarget{1, std::nullopt}).status().code(),
            StatusCode::kTableTagNotFound);
}

TEST_F(TagsTest, DeleteRemovesOnlyTheTag) {
  ASSERT_TRUE(CreateTag(store_, "t", TagTarget{1, std::nullopt}).ok());
  EXPECT_TRUE(DeleteTag(store_, "t").ok());
  EXPECT_EQ(DeleteTag(store_, "t").code(), StatusCode::kTableTagNotFound);
  EXPECT_EQ(GetTag(*store_, "t").status().code(), StatusCode::kTableTagNotFound);
  EXPECT_EQ(store_->ListAll("_versions/")->size(), 3u);
}

TEST_F(TagsTest, ConcurrentCreatesHaveExactlyOneWinner) {
  constexpr int kThreads = 8;
  std::atomic<int> wins{0};
  std::atomic<int> already{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto r = CreateTag(store_, "race", TagTarget{static_cast<uint64_t>(1 + i % 3), std::nullopt});
      if (r.ok()) {
        wins.fetch_add(1);
      } else if (r.status().code() == StatusCode::kTableTagAlreadyExists) {
        already.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(already.load(), kThreads - 1);
}

TEST(Rfc3339Test, NanosecondsAndNegativeTimes) {
  EXPECT_EQ(FormatRfc3339Nanos(0), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(FormatRfc3339Nanos(-1), "1969-12-31T23:59:59.999999999Z");
}

// A name over the limit: a create refuses it naming the limit (never a storage key); every other
// call answers it as a missing tag (a store under a long table location would refuse its key).
TEST_F(TagsTest, TooLongNamesAreRefusedAtCreateAndMissingElsewhere) {
  const std::string too_long(kMaxRefNameBytes + 1, 't');
  auto created = CreateTag(store_, too_long, TagTarget{1, std::nullopt});
  EXPECT_TRUE(created.status().IsInvalidInput());
  EXPECT_NE(created.status().message().find("at most 200"), std::string::npos)
      << created.status().ToString();
  EXPECT_EQ(created.status().message().find("_refs"), std::string::npos);
  const std::string unstorable(300, 'u');  // its key's segment is over the store's 255 bytes
  EXPECT_TRUE(CreateTag(store_, unstorable, TagTarget{1, std::nullopt}).status().IsInvalidInput());
  EXPECT_EQ(
      CreateTag(store_, unstorable, TagTarget{1, std::nullopt}).status().message().find("_refs"),
      std::string::npos);
  EXPECT_EQ(GetTag(*store_, unstorable).status().code(), StatusCode::kTableTagNotFound);
  EXPECT_EQ(UpdateTag(store_, unstorable, TagTarget{2, std::nullopt}).status().code(),
            StatusCode::kTableTagNotFound);
  EXPECT_EQ(DeleteTag(store_, unstorable).code(), StatusCode::kTableTagNotFound);
  EXPECT_TRUE(store_->ListAll("_refs/")->empty());
}

}  // namespace
}  // namespace quiver::table
