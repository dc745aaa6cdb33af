// The local backend never follows a symbolic link below its root (docs/store.md, "Links"): a
// link planted inside a tree (a table's `_versions/` pointing at another table's, a file
// pointing out of the root) is not an object, is not listed or descended into, is never
// written through, and a delete never removes what it points at.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "process_util.h"
#include "store/internal/posix_io.h"
#include "store/local_store.h"
#include "store_test_util.h"

namespace quiver {
namespace {

using testing::TempDir;

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "<missing>";
  std::string out(4096, '\0');
  ssize_t n = ::read(fd, out.data(), out.size());
  ::close(fd);
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

std::vector<std::string> Keys(ObjectStore& store, const std::string& prefix) {
  std::vector<std::string> out;
  auto all = store.ListAll(prefix);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (all.ok()) {
    for (const ObjectMeta& m : *all) out.push_back(m.key);
  }
  return out;
}

// A root with table "t" whose `_versions` is a link to a directory elsewhere (another table's,
// or anything on disk) and whose `data/f` is a link to a file elsewhere.
// Parameters: the listing cache on or off, and openat2 or the O_NOFOLLOW walk (older kernels).
class LocalLinksTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  void SetUp() override {
    store_internal::UseOpenat2ForTesting(std::get<1>(GetParam()));
    ASSERT_EQ(::mkdir((other_.path() + "/_versions").c_str(), 0755), 0);
    ASSERT_TRUE(testing::WriteFile(other_.path() + "/_versions/1.manifest", "theirs"));
    ASSERT_TRUE(testing::WriteFile(other_.path() + "/secret", "secret"));
    LocalStoreOptions options;
    options.cache_listings = std::get<0>(GetParam());
    auto opened = LocalObjectStore::Open(root_.path(), options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = *opened;
    ASSERT_TRUE(store_->Put("t/data/own", "mine").ok());
    ASSERT_EQ(
        ::symlink((other_.path() + "/_versions").c_str(), (root_.path() + "/t/_versions").c_str()),
        0);
    ASSERT_EQ(::symlink((other_.path() + "/secret").c_str(), (root_.path() + "/t/data/f").c_str()),
              0);
  }

  void TearDown() override { store_internal::UseOpenat2ForTesting(true); }

  TempDir root_;
  TempDir other_;
  std::shared_ptr<LocalObjectStore> store_;
};
INSTANTIATE_TEST_SUITE_P(CacheAndOpen, LocalLinksTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<bool, bool>>& p) {
                           return std::string(std::get<0>(p.param) ? "cached" : "uncached") +
                                  (std::get<1>(p.param) ? "_openat2" : "_walk");
                         });

TEST_P(LocalLinksTest, ALinkIsNotAnObjectAndNothingBehindItIsRead) {
  EXPECT_TRUE(store_->Get("t/data/f").status().IsNotFound());
  EXPECT_TRUE(store_->Head("t/data/f").status().IsNotFound());
  EXPECT_TRUE(store_->Get("t/_versions/1.manifest").status().IsNotFound());
  EXPECT_TRUE(store_->Head("t/_versions/1.manifest").status().IsNotFound());
  std::byte buffer[2];
  EXPECT_TRUE(store_->ReadAt("t/_versions/1.manifest", 0, buffer).IsNotFound());
  EXPECT_TRUE(store_->ReadAt("t/data/f", 0, buffer).IsNotFound());
  EXPECT_TRUE(store_->Copy("t/data/f", "copy").IsNotFound());
  EXPECT_EQ(store_->Get("t/data/own")->data, "mine");
}

TEST_P(LocalLinksTest, ListingsNeitherReportNorDescendIntoLinks) {
  EXPECT_EQ(Keys(*store_, ""), (std::vector<std::string>{"t/data/own"}));
  EXPECT_EQ(Keys(*store_, "t/"), (std::vector<std::string>{"t/data/own"}));
  // A listing that starts inside the link (how a table's versions are found) sees nothing.
  EXPECT_TRUE(Keys(*store_, "t/_versions/").empty());
  EXPECT_TRUE(Keys(*store_, "t/_versions/1").empty());
  // A link to the root itself does not make the tree appear twice.
  ASSERT_EQ(::symlink(root_.path().c_str(), (root_.path() + "/again").c_str()), 0);
  EXPECT_TRUE(Keys(*store_, "again/").empty());
  EXPECT_EQ(Keys(*store_, ""), (std::vector<std::string>{"t/data/own"}));
}

TEST_P(LocalLinksTest, WritesNeverGoThroughALink) {
  for (PutOptions mode : {PutOptions::Overwrite(), PutOptions::CreateOnly()}) {
    EXPECT_TRUE(store_->Put("t/_versions/2.manifest", "forged", mode).status().IsInvalidInput());
    EXPECT_TRUE(store_->Put("t/_versions/1.manifest", "forged", mode).status().IsInvalidInput());
  }
  EXPECT_TRUE(store_->Put("t/data/f", "forged").status().IsInvalidInput());
  auto writer = store_->OpenWriter("t/_versions/3.manifest");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append("forged").ok());
  EXPECT_TRUE((*writer)->Finish().status().IsInvalidInput());
  EXPECT_FALSE(Exists(other_.path() + "/_versions/2.manifest"));
  EXPECT_FALSE(Exists(other_.path() + "/_versions/3.manifest"));
  EXPECT_EQ(ReadFile(other_.path() + "/_versions/1.manifest"), "theirs");
  EXPECT_EQ(ReadFile(other_.path() + "/secret"), "secret");
}

TEST_P(LocalLinksTest, DeletesNeverRemoveWhatALinkPointsAt) {
  // What a drop does: delete every listed key, and (as a careless caller might) the keys it
  // knows from elsewhere.
  for (const std::string& key : Keys(*store_, "t/")) EXPECT_TRUE(store_->Delete(key).ok()) << key;
  EXPECT_TRUE(store_->Delete("t/_versions/1.manifest").ok());
  EXPECT_TRUE(store_->Delete("t/data/f").ok());
  EXPECT_EQ(ReadFile(other_.path() + "/_versions/1.manifest"), "theirs");
  EXPECT_EQ(ReadFile(other_.path() + "/secret"), "secret");
  EXPECT_FALSE(Exists(root_.path() + "/t/data/own"));
}

}  // namespace
}  // namespace quiver
