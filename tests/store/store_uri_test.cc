#include "store/store_uri.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "store/local_store.h"
#include "store_test_util.h"

namespace quiver {
namespace {

using testing::TempDir;

TEST(StoreUriTest, ParsesPathsFileAndMemoryUris) {
  auto plain = ParseStoreUri("./quiver-data");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->scheme, StoreScheme::kLocal);
  EXPECT_EQ(plain->path, "./quiver-data");
  auto abs = ParseStoreUri("/var/lib/quiver");
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(abs->path, "/var/lib/quiver");
  auto file = ParseStoreUri("file:///data/my%20lake");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->scheme, StoreScheme::kLocal);
  EXPECT_EQ(file->path, "/data/my lake");
  auto localhost = ParseStoreUri("file://localhost/data");
  ASSERT_TRUE(localhost.ok());
  EXPECT_EQ(localhost->path, "/data");
  auto memory = ParseStoreUri("memory://unit");
  ASSERT_TRUE(memory.ok());
  EXPECT_EQ(memory->scheme, StoreScheme::kMemory);
  EXPECT_EQ(memory->path, "unit");
}

TEST(StoreUriTest, RejectsUnknownSchemesAndMalformedUris) {
  auto s3 = ParseStoreUri("s3://bucket/prefix");
  ASSERT_TRUE(s3.status().IsInvalidInput());
  EXPECT_NE(s3.status().message().find("unsupported storage scheme 's3'"), std::string::npos);
  EXPECT_NE(s3.status().message().find("file:///abs/path"), std::string::npos);
  for (const char* bad : {"", "gs://b", "file://remotehost/x", "file:relative", "file://",
                          "memory://", "memory://a/b", "file:///bad%2", "file:///nul%00"}) {
    EXPECT_TRUE(ParseStoreUri(bad).status().IsInvalidInput()) << bad;
  }
}

TEST(StoreUriTest, OpensLocalStoresFromPathsAndFileUris) {
  TempDir dir;
  auto by_path = OpenStore(dir.path() + "/data");
  ASSERT_TRUE(by_path.ok()) << by_path.status().ToString();
  ASSERT_TRUE((*by_path)->Put("k", "v").ok());
  auto by_uri = OpenStore("file://" + dir.path() + "/data");
  ASSERT_TRUE(by_uri.ok());
  EXPECT_EQ((*by_uri)->Get("k")->data, "v");
  EXPECT_EQ((*by_uri)->Describe(), "local:" + dir.path() + "/data");
  EXPECT_EQ((*by_uri)->ExternalPath(""), dir.path() + "/data");
  EXPECT_EQ((*by_uri)->ExternalPath("a/b"), dir.path() + "/data/a/b");
}

TEST(StoreUriTest, RelativePathsResolveAgainstTheWorkingDirectory) {
  TempDir dir;
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  auto store = OpenStore("rel/data");
  ASSERT_EQ(::chdir(old_cwd), 0);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), "local:" + dir.path() + "/rel/data");
}

TEST(StoreUriTest, CreateIfMissingFalseRefusesAMissingRoot) {
  TempDir dir;
  OpenStoreOptions options;
  options.create_if_missing = false;
  auto store = OpenStore(dir.path() + "/absent", options);
  EXPECT_TRUE(store.status().IsInvalidInput());
  EXPECT_NE(::access((dir.path() + "/absent").c_str(), F_OK), 0) << "nothing was created";
}

TEST(StoreUriTest, NamedMemoryStoresAreSharedWithinTheProcess) {
  auto a = OpenStore("memory://shared-uri-test");
  auto b = OpenStore("memory://shared-uri-test");
  auto other = OpenStore("memory://other-uri-test");
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  ASSERT_TRUE((*a)->Put("k", "v").ok());
  EXPECT_EQ((*b)->Get("k")->data, "v");
  EXPECT_TRUE((*other)->Get("k").status().IsNotFound());
}

// Every spelling of one directory is one canonical location (so that comparing canonical
// locations is comparing places), and "inside" goes by whole segments.
TEST(StoreUriTest, EverySpellingOfADirectoryHasOneCanonicalLocation) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir.path() + "/base").c_str(), 0755), 0);
  ASSERT_EQ(::symlink((dir.path() + "/base").c_str(), (dir.path() + "/link").c_str()), 0);
  const std::string want = "file://" + dir.path() + "/base";
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  auto relative = CanonicalLocation("base");
  auto dotted = CanonicalLocation("./x/../base/");
  ASSERT_EQ(::chdir(old_cwd), 0);
  ASSERT_TRUE(relative.ok()) << relative.status().ToString();
  EXPECT_EQ(*relative, want);
  EXPECT_EQ(*dotted, want);
  for (const std::string& spelling :
       {dir.path() + "/base", dir.path() + "/base/", dir.path() + "//base//",
        dir.path() + "/base/./", dir.path() + "/base/sub/..", "file://" + dir.path() + "/base",
        "file://" + dir.path() + "/base/", "file://localhost" + dir.path() + "/base",
        "file://" + dir.path() + "/b%61se", dir.path() + "/link",
        "file://" + dir.path() + "/link/"}) {
    auto canonical = CanonicalLocation(spelling);
    ASSERT_TRUE(canonical.ok()) << spelling << ": " << canonical.status().ToString();
    EXPECT_EQ(*canonical, want) << spelling;
  }
  // The part that does not exist yet is normalised lexically, below the resolved part.
  EXPECT_EQ(*CanonicalLocation(dir.path() + "/link/new//a/../b/"), want + "/new/b");
  EXPECT_EQ(*CanonicalLocation("memory://m"), "memory://m");
  EXPECT_EQ(*CanonicalLocation("s3://bucket//a/b/"), "s3://bucket/a/b");
  EXPECT_EQ(*CanonicalLocation("s3://bucket"), "s3://bucket");
  EXPECT_TRUE(CanonicalLocation("gs://b/x").status().IsInvalidInput());
  EXPECT_EQ(JoinLocation(want, "t/"), want + "/t");
  EXPECT_EQ(JoinLocation("file:///", "t"), "file:///t");
}

TEST(StoreUriTest, InsideMeansWholeSegments) {
  EXPECT_TRUE(LocationWithin("file:///a/b", "file:///a"));
  EXPECT_TRUE(LocationWithin("file:///a", "file:///a"));
  EXPECT_TRUE(LocationWithin("file:///a", "file:///"));
  EXPECT_FALSE(LocationWithin("file:///ab", "file:///a"));
  EXPECT_FALSE(LocationWithin("file:///a", "file:///a/b"));
  EXPECT_FALSE(LocationWithin("memory://a/b", "file:///a"));
  EXPECT_TRUE(LocationsOverlap("file:///a", "file:///a/b/c"));
  EXPECT_TRUE(LocationsOverlap("file:///a/b/c", "file:///a"));
  EXPECT_FALSE(LocationsOverlap("file:///a/b-c", "file:///a/b"));
}

}  // namespace
}  // namespace quiver
