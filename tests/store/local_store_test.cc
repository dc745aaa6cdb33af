// Behaviour specific to the local (POSIX directory) backend.
#include "store/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/clock.h"
#include "process_util.h"
#include "store/key.h"
#include "store_test_util.h"

namespace quiver {
namespace {

using testing::CountFiles;
using testing::TempDir;

std::shared_ptr<LocalObjectStore> MustOpen(const std::string& dir, LocalStoreOptions o = {}) {
  auto store = LocalObjectStore::Open(dir, o);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

TEST(LocalStoreTest, KeysAreFilesUnderTheRoot) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_TRUE(store->Put("a/b/c.json", "{}").ok());
  struct stat st;
  ASSERT_EQ(::stat((dir.path() + "/a/b/c.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 2);
  EXPECT_EQ(store->root(), dir.path());
}

TEST(LocalStoreTest, FilesWrittenByOthersAreReadableAndListed) {
  // Lance and other tools write into the same tree: their files are objects too.
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_EQ(::mkdir((dir.path() + "/ds").c_str(), 0755), 0);
  int fd = ::open((dir.path() + "/ds/external").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "abc", 3), 3);
  ::close(fd);
  EXPECT_EQ(store->Get("ds/external")->data, "abc");
  ASSERT_EQ(store->ListAll("")->size(), 1u);
}

TEST(LocalStoreTest, ReadingChangesNothingOnDisk) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  EXPECT_TRUE(store->Get("k").status().IsNotFound());
  EXPECT_TRUE(store->ListAll("")->empty());
  EXPECT_EQ(store->Sweep(Duration(0))->files_removed, 0u);
  EXPECT_EQ(CountFiles(dir.path()), 0) << "no reserved area until the first write";
}

TEST(LocalStoreTest, TheReservedAreaIsNeverListed) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_TRUE(store->Put("k", "v").ok());
  struct stat st;
  ASSERT_EQ(::stat((dir.path() + "/.qv-store/tmp").c_str(), &st), 0);
  ASSERT_EQ(::stat((dir.path() + "/.qv-store/locks").c_str(), &st), 0);
  auto all = store->ListAll("");
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].key, "k");
  EXPECT_EQ(CountFiles(dir.path() + "/.qv-store/tmp"), 0) << "successful puts leave no temp";
}

TEST(LocalStoreTest, AnObjectCannotAlsoBeAPrefix) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_TRUE(store->Put("a/b", "x").ok());
  EXPECT_TRUE(store->Put("a", "y").status().IsInvalidInput());
  EXPECT_TRUE(store->Put("a", "y", PutOptions::CreateOnly()).status().IsInvalidInput());
  ASSERT_TRUE(store->Put("f", "x").ok());
  EXPECT_TRUE(store->Put("f/g", "y").status().IsInvalidInput());
  EXPECT_EQ(store->Get("a/b")->data, "x");
  EXPECT_EQ(store->Get("f")->data, "x");
  EXPECT_EQ(CountFiles(dir.path() + "/.qv-store/tmp"), 0) << "failed puts clean up";
}

TEST(LocalStoreTest, EtagsNeverRepeatAcrossDeleteAndRecreate) {
  // Freed inode numbers are reused at once and coarse mtimes can tie; the etag must still
  // change, or an IfMatch holding an old etag would overwrite a different object.
  TempDir dir;
  auto store = MustOpen(dir.path());
  std::set<std::string> etags;
  for (int i = 0; i < 200; ++i) {
    auto put = store->Put("k", "same size", i % 2 ? PutOptions::CreateOnly() : PutOptions{});
    ASSERT_TRUE(put.ok());
    EXPECT_TRUE(etags.insert(put->etag).second) << "etag repeated: " << put->etag;
    ASSERT_TRUE(store->Delete("k").ok());
  }
}

TEST(LocalStoreTest, MtimeStampsAreStrictlyIncreasingEvenWhenTheClockStandsStill) {
  TempDir dir;
  ManualClock frozen(1'800'000'000'000'000'000);  // in the future, and never advancing
  LocalStoreOptions options;
  options.clock = &frozen;
  auto store = MustOpen(dir.path(), options);
  int64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    auto put = store->Put("k", "v");
    ASSERT_TRUE(put.ok());
    EXPECT_GT(put->last_modified_nanos, last);
    EXPECT_GE(put->last_modified_nanos, frozen.NowNanos());
    last = put->last_modified_nanos;
  }
}

TEST(LocalStoreTest, OpenRejectsAFileAsRoot) {
  TempDir dir;
  std::string file = dir.path() + "/file";
  int fd = ::open(file.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_TRUE(LocalObjectStore::Open(file).status().IsInvalidInput());
  EXPECT_TRUE(LocalObjectStore::Open("").status().IsInvalidInput());
}

TEST(LocalStoreTest, SweepKeepsYoungTempFiles) {
  TempDir dir;
  ManualClock clock;
  clock.Set(SystemClock().NowNanos());
  LocalStoreOptions options;
  options.clock = &clock;
  auto store = MustOpen(dir.path(), options);
  ASSERT_TRUE(store->Put("seed", "x").ok());  // creates the reserved area
  std::string tmp = fmt::format("{}/{}/{}/leftover", dir.path(), kReservedSegment, kTempSubdir);
  int fd = ::open(tmp.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "12345", 5), 5);
  ::close(fd);
  auto young = store->Sweep(std::chrono::hours(1));
  ASSERT_TRUE(young.ok());
  EXPECT_EQ(young->files_removed, 0u) << "a live writer's temp file must survive";
  clock.Advance(std::chrono::hours(2));
  auto old = store->Sweep(std::chrono::hours(1));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->files_removed, 1u);
  EXPECT_EQ(old->bytes_removed, 5u);
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

TEST(LocalStoreDurabilityTest, NonDurablePutsKeepTheirSemantics) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  auto first = store->Put("m/marker", "", PutOptions::CreateOnly().NotDurable());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(
      store->Put("m/marker", "", PutOptions::CreateOnly().NotDurable()).status().IsAlreadyExists());
  auto replaced = store->Put("m/marker", "v2", PutOptions::IfMatch(first->etag).NotDurable());
  ASSERT_TRUE(replaced.ok());
  EXPECT_NE(replaced->etag, first->etag);
  EXPECT_EQ(store->Get("m/marker")->data, "v2");
}

// Pages of a listing over nested directories, including empty ones (which hold no keys) and
// directories far larger than a page, equal the matching slice of all keys in byte order, for
// every start_after and limit.
class LocalStoreListTest : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(CachedAndNot, LocalStoreListTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "cached" : "uncached";
                         });

// Writes by other processes (here: plain file calls) show up in the very next listing, with or
// without the inotify-kept listing cache.
TEST_P(LocalStoreListTest, ChangesMadeOutsideTheStoreAreListedAtOnce) {
  TempDir dir;
  LocalStoreOptions o;
  o.cache_listings = GetParam();
  auto store = MustOpen(dir.path(), o);
  ASSERT_TRUE(store->Put("d/a", "1").ok());
  auto keys = [&] {
    std::vector<std::string> out;
    auto all = store->ListAll("d/");
    EXPECT_TRUE(all.ok());
    if (all.ok()) {
      for (const ObjectMeta& m : *all) out.push_back(m.key);
    }
    return out;
  };
  EXPECT_EQ(keys(), (std::vector<std::string>{"d/a"}));
  for (int i = 0; i < 50; ++i) {
    std::string name = "b" + std::to_string(i);
    int fd = ::open((dir.path() + "/d/" + name).c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
    auto listed = keys();
    EXPECT_NE(std::find(listed.begin(), listed.end(), "d/" + name), listed.end()) << i;
    ASSERT_EQ(::unlink((dir.path() + "/d/" + name).c_str()), 0);
    listed = keys();
    EXPECT_EQ(std::find(listed.begin(), listed.end(), "d/" + name), listed.end()) << i;
  }
  ASSERT_EQ(::mkdir((dir.path() + "/d/sub").c_str(), 0755), 0);
  ASSERT_EQ(::rename((dir.path() + "/d/a").c_str(), (dir.path() + "/d/sub/a").c_str()), 0);
  EXPECT_EQ(keys(), (std::vector<std::string>{"d/sub/a"}));
}

TEST_P(LocalStoreListTest, PagesMatchTheSortedKeysWithEmptyAndLargeDirectories) {
  TempDir dir;
  LocalStoreOptions o;
  o.cache_listings = GetParam();
  auto store = MustOpen(dir.path(), o);
  std::mt19937 rng(42);
  std::vector<std::string> keys;
  const char* parts[] = {"a", "a-b", "a.b", "ab", "b", "@61", "@6162", "z"};
  for (int i = 0; i < 300; ++i) {
    std::string key;
    int depth = 1 + static_cast<int>(rng() % 3);
    for (int d = 0; d < depth; ++d) {
      if (d > 0) key += "/";
      key += parts[rng() % 8];
      if (d + 1 == depth) key += std::to_string(rng() % 40);
    }
    if (store->Put(key, "x").ok()) keys.push_back(key);
  }
  for (const char* empty : {"/a/empty", "/a-b/e1", "/a-b/e1/e2", "/zz_empty", "/ab/0empty"}) {
    ::mkdir((dir.path() + empty).c_str(), 0755);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::string> afters = {"", "a", "a/", "a-b/e1", "ab", "b/", "zz", "~"};
  for (int i = 0; i < 40; ++i) afters.push_back(keys[rng() % keys.size()]);
  for (const std::string& after : afters) {
    for (size_t limit : {1, 2, 3, 7, 50, 1000}) {
      ListOptions options;
      options.start_after = after;
      options.limit = limit;
      auto page = store->List(options);
      ASSERT_TRUE(page.ok());
      auto first = std::upper_bound(keys.begin(), keys.end(), after);
      std::vector<std::string> expected(first, first + std::min<size_t>(limit, keys.end() - first));
      std::vector<std::string> got;
      for (const ObjectMeta& m : page->objects) got.push_back(m.key);
      EXPECT_EQ(got, expected) << "after='" << after << "' limit=" << limit;
      EXPECT_EQ(page->truncated, static_cast<size_t>(keys.end() - first) > limit)
          << "after='" << after << "' limit=" << limit;
    }
  }
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

// Many writers of one directory share directory fsyncs: every put still returns only when a
// fsync that started after it finished, and all of them are listed afterwards.
TEST(LocalStoreDurabilityTest, ConcurrentPutsIntoOneDirectoryAllLand) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  constexpr int kThreads = 8;
  constexpr int kPerThread = 100;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto put = store->Put("shared/" + std::to_string(t) + "-" + std::to_string(i), "x",
                              PutOptions::CreateOnly());
        if (!put.ok()) failures.fetch_add(1);
        if (i % 10 == 0 &&
            !store->Delete("shared/" + std::to_string(t) + "-" + std::to_string(i)).ok()) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto all = store->ListAll("shared/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), static_cast<size_t>(kThreads * kPerThread * 9 / 10));
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

std::string TempDirOf(const TempDir& dir) {
  return fmt::format("{}/{}/{}", dir.path(), kReservedSegment, kTempSubdir);
}

TEST(LocalStoreWriterTest, AppendsStreamToTheTempFileInsteadOfBuffering) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  auto writer = store->OpenWriter("data/file.lance");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::string tmp = TempDirOf(dir);
  ASSERT_EQ(CountFiles(tmp), 1);
  DIR* d = ::opendir(tmp.c_str());
  ASSERT_NE(d, nullptr);
  std::string temp_path;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') temp_path = tmp + "/" + e->d_name;
  }
  ::closedir(d);
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE((*writer)->Append(std::string(256 * 1024, 'a')).ok());
    struct stat st;
    ASSERT_EQ(::stat(temp_path.c_str(), &st), 0);
    EXPECT_EQ(static_cast<uint64_t>(st.st_size), (*writer)->bytes_written())
        << "every append is on disk at once";
  }
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ(CountFiles(tmp), 0);
  EXPECT_EQ(store->Head("data/file.lance")->size, 1u << 20);
}

TEST(LocalStoreWriterTest, WritersLeaveNoTempFilesBehind) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  auto old = store->Put("k", "old");
  ASSERT_TRUE(old.ok());
  auto write = [&](const PutOptions& options, bool finish) {
    auto writer = store->OpenWriter("k", options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    if (!writer.ok()) return Status::Internal("no writer");
    EXPECT_TRUE((*writer)->Append("bytes").ok());
    return finish ? (*writer)->Finish().status() : Status::OK();
  };
  EXPECT_TRUE(write(PutOptions::CreateOnly(), true).IsAlreadyExists());
  EXPECT_TRUE(write(PutOptions::IfMatch("stale"), true).IsConflict());
  EXPECT_TRUE(write(PutOptions::Overwrite(), false).ok());  // destroyed unfinished
  EXPECT_EQ(CountFiles(TempDirOf(dir)), 0);
  EXPECT_EQ(store->Get("k")->data, "old");
  EXPECT_EQ(store->Head("k")->etag, old->etag);
  EXPECT_TRUE(write(PutOptions::IfMatch(old->etag).NotDurable(), true).ok());
  EXPECT_EQ(store->Get("k")->data, "bytes");
  EXPECT_EQ(CountFiles(TempDirOf(dir)), 0);
  // A writer whose key cannot be an object fails at Finish and cleans up too.
  ASSERT_TRUE(store->Put("a/b", "x").ok());
  auto prefix = store->OpenWriter("a");
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE((*prefix)->Finish().status().IsInvalidInput());
  EXPECT_EQ(CountFiles(TempDirOf(dir)), 0);
}

TEST(LocalStoreWriterTest, AnAbandonedWritersTempFileIsNeverListedAndIsSwept) {
  TempDir dir;
  // The writer's process dies mid-write: no destructor, no Abort.
  std::vector<int> codes = testing::RunInChildren(1, [&](int) {
    auto store = LocalObjectStore::Open(dir.path());
    if (!store.ok()) ::_exit(2);
    auto writer = (*store)->OpenWriter("ds/data/abandoned.lance", PutOptions::CreateOnly());
    if (!writer.ok()) ::_exit(3);
    for (int i = 0; i < 4; ++i) {
      if (!(*writer)->Append(std::string(256 * 1024, 'z')).ok()) ::_exit(4);
    }
    ::_exit(0);
    return 0;
  });
  ASSERT_EQ(codes, std::vector<int>{0});
  auto store = MustOpen(dir.path());
  EXPECT_EQ(CountFiles(TempDirOf(dir)), 1) << "the abandoned writer's temp file is left";
  EXPECT_TRUE(store->ListAll("")->empty()) << "and it is not listed";
  EXPECT_TRUE(store->Get("ds/data/abandoned.lance").status().IsNotFound());
  EXPECT_EQ(store->Sweep(std::chrono::hours(1))->files_removed, 0u) << "too young";
  auto swept = store->Sweep(Duration(0));
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_EQ(swept->files_removed, 1u);
  EXPECT_EQ(swept->bytes_removed, 1u << 20);
  EXPECT_EQ(CountFiles(TempDirOf(dir)), 0);
}

TEST(LocalStoreWriterTest, ALiveWritersTempFileSurvivesSweepByAgeButFailsCleanlyIfSwept) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  for (PutMode mode : {PutMode::kOverwrite, PutMode::kCreateOnly}) {
    SCOPED_TRACE(PutModeName(mode));
    auto writer = store->OpenWriter("k", PutOptions{mode, {}});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append("first").ok());
    EXPECT_EQ(store->Sweep(std::chrono::minutes(10))->files_removed, 0u);
    ASSERT_TRUE((*writer)->Append(" second").ok());
    // min_age 0 while a writer is active is the misuse Sweep's contract warns about: the writer
    // loses its temp file, and Finish must then fail and publish nothing.
    EXPECT_EQ(store->Sweep(Duration(0))->files_removed, 1u);
    auto finished = (*writer)->Finish();
    EXPECT_TRUE(finished.status().IsIOError()) << finished.status().ToString();
    EXPECT_TRUE(store->Get("k").status().IsNotFound());
    EXPECT_TRUE(store->ListAll("")->empty());
  }
  auto writer = store->OpenWriter("k");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append("kept").ok());
  EXPECT_EQ(store->Sweep(std::chrono::minutes(10))->files_removed, 0u);
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ(store->Get("k")->data, "kept");
}

TEST(LocalStoreReadAtTest, ReadsFilesWrittenByOthersIntoTheCallersBuffer) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_EQ(::mkdir((dir.path() + "/ds").c_str(), 0755), 0);
  ASSERT_TRUE(testing::WriteFile(dir.path() + "/ds/external", "abcdefgh"));
  alignas(64) std::byte buffer[4];
  ASSERT_TRUE(store->ReadAt("ds/external", 2, buffer).ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer), 4), "cdef");
  EXPECT_TRUE(store->ReadAt("ds/external", 6, buffer).IsInvalidInput());
  EXPECT_TRUE(store->ReadAt("ds", 0, std::span<std::byte>()).IsNotFound());
}

}  // namespace
}  // namespace quiver
