// The ObjectStore conformance suite (single process): every backend and decorator stack must
// pass all of it. The multi-process half is conformance_process_test.cc.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/key.h"
#include "store_test_util.h"

namespace quiver::testing {
namespace {

class ConformanceTest : public ::testing::TestWithParam<StackSpec> {
 protected:
  void SetUp() override { store_ = GetParam().make(dir_.path(), nullptr); }

  std::string MustGet(const std::string& key) {
    auto got = store_->Get(key);
    EXPECT_TRUE(got.ok()) << key << ": " << got.status().ToString();
    return got.ok() ? got->data : std::string();
  }

  // ReadAt into a fresh buffer of `length` bytes; the bytes read, or the error.
  Result<std::string> ReadAt(const std::string& key, uint64_t offset, size_t length) {
    std::string buffer(length, '\xee');
    QV_RETURN_IF_ERROR(store_->ReadAt(key, offset, std::as_writable_bytes(std::span(buffer))));
    return buffer;
  }

  // Opens a writer that must open.
  std::unique_ptr<ObjectWriter> MustOpenWriter(const std::string& key,
                                               const PutOptions& options = {}) {
    auto writer = store_->OpenWriter(key, options);
    EXPECT_TRUE(writer.ok()) << key << ": " << writer.status().ToString();
    return writer.ok() ? std::move(*writer) : nullptr;
  }

  std::vector<std::string> AllKeys(const std::string& prefix = "") {
    auto all = store_->ListAll(prefix);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::string> keys;
    if (all.ok()) {
      for (const ObjectMeta& m : *all) keys.push_back(m.key);
    }
    return keys;
  }

  TempDir dir_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_P(ConformanceTest, PutGetRoundTripsBinaryAndEmptyObjects) {
  std::string binary("a\0b\xff\n\x01", 6);
  ASSERT_TRUE(store_->Put("bin/obj", binary).ok());
  ASSERT_TRUE(store_->Put("empty", "").ok());
  EXPECT_EQ(MustGet("bin/obj"), binary);
  EXPECT_EQ(MustGet("empty"), "");
  auto meta = store_->Head("bin/obj");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->key, "bin/obj");
  EXPECT_EQ(meta->size, 6u);
  EXPECT_FALSE(meta->etag.empty());
  EXPECT_GT(meta->last_modified_nanos, 0);
}

TEST_P(ConformanceTest, PutReturnsTheMetadataThatHeadAndGetReport) {
  auto put = store_->Put("k", "hello");
  ASSERT_TRUE(put.ok());
  auto head = store_->Head("k");
  auto get = store_->Get("k");
  ASSERT_TRUE(head.ok() && get.ok());
  EXPECT_EQ(put->etag, head->etag);
  EXPECT_EQ(put->etag, get->meta.etag);
  EXPECT_EQ(put->size, 5u);
  EXPECT_EQ(head->last_modified_nanos, put->last_modified_nanos);
}

TEST_P(ConformanceTest, EveryReplacementChangesTheEtagEvenWithIdenticalBytes) {
  std::set<std::string> etags;
  for (int i = 0; i < 50; ++i) {
    auto put = store_->Put("same", "identical bytes");
    ASSERT_TRUE(put.ok());
    etags.insert(put->etag);
  }
  EXPECT_EQ(etags.size(), 50u);
}

TEST_P(ConformanceTest, MissingObjectsAreNotFound) {
  EXPECT_TRUE(store_->Get("nope").status().IsNotFound());
  EXPECT_TRUE(store_->Head("nope").status().IsNotFound());
  EXPECT_TRUE(store_->Get("no/such/dir/key").status().IsNotFound());
  ASSERT_TRUE(store_->Put("dir/child", "x").ok());
  EXPECT_TRUE(store_->Get("dir").status().IsNotFound()) << "a prefix is not an object";
  EXPECT_TRUE(store_->Head("dir").status().IsNotFound());
}

TEST_P(ConformanceTest, ByteRanges) {
  ASSERT_TRUE(store_->Put("r", "0123456789").ok());
  auto get = [&](uint64_t off, std::optional<uint64_t> len) {
    return store_->Get("r", ByteRange{off, len});
  };
  EXPECT_EQ(get(2, 3)->data, "234");
  EXPECT_EQ(get(7, std::nullopt)->data, "789");
  EXPECT_EQ(get(8, 100)->data, "89") << "a length past the end is clipped";
  EXPECT_EQ(get(10, 1)->data, "") << "a range starting at the end is empty";
  EXPECT_EQ(get(0, 0)->data, "");
  EXPECT_EQ(get(3, 2)->meta.size, 10u) << "metadata describes the whole object";
  EXPECT_TRUE(get(11, 1).status().IsInvalidInput());
}

TEST_P(ConformanceTest, ReadAtFillsTheBufferWithExactlyTheRequestedBytes) {
  std::string binary("0123456789");
  binary[5] = '\0';
  ASSERT_TRUE(store_->Put("r/obj", binary).ok());
  EXPECT_EQ(*ReadAt("r/obj", 0, 3), binary.substr(0, 3)) << "start";
  EXPECT_EQ(*ReadAt("r/obj", 4, 3), binary.substr(4, 3)) << "middle, across a NUL byte";
  EXPECT_EQ(*ReadAt("r/obj", 7, 3), binary.substr(7, 3)) << "up to the end";
  EXPECT_EQ(*ReadAt("r/obj", 0, 10), binary) << "all of it";
  EXPECT_EQ(*ReadAt("r/obj", 5, 0), "") << "zero bytes inside";
  EXPECT_EQ(*ReadAt("r/obj", 10, 0), "") << "zero bytes at the end";
  ASSERT_TRUE(store_->Put("r/empty", "").ok());
  EXPECT_EQ(*ReadAt("r/empty", 0, 0), "");
}

TEST_P(ConformanceTest, ReadAtPastTheEndIsInvalidInputNamingKeyOffsetAndSize) {
  ASSERT_TRUE(store_->Put("r/obj", "0123456789").ok());
  for (auto [offset, length] : std::vector<std::pair<uint64_t, size_t>>{
           {8, 3}, {0, 11}, {10, 1}, {11, 0}, {UINT64_MAX, 1}, {UINT64_MAX - 2, 5}}) {
    SCOPED_TRACE(::testing::Message() << "offset " << offset << " length " << length);
    auto read = ReadAt("r/obj", offset, length);
    ASSERT_FALSE(read.ok());
    EXPECT_TRUE(read.status().IsInvalidInput()) << read.status().ToString();
    const std::string& message = read.status().message();
    for (const std::string& part :
         {std::string("r/obj"), std::to_string(offset), std::string("10")}) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' in: " << message;
    }
  }
  ASSERT_TRUE(store_->Put("r/empty", "").ok());
  EXPECT_TRUE(ReadAt("r/empty", 0, 1).status().IsInvalidInput());
}

TEST_P(ConformanceTest, ReadAtOfAMissingKeyOrAPrefixIsNotFound) {
  EXPECT_TRUE(ReadAt("nope", 0, 0).status().IsNotFound());
  EXPECT_TRUE(ReadAt("no/such/dir/key", 0, 4).status().IsNotFound());
  ASSERT_TRUE(store_->Put("dir/child", "x").ok());
  EXPECT_TRUE(ReadAt("dir", 0, 0).status().IsNotFound()) << "a prefix is not an object";
}

TEST_P(ConformanceTest, ReadAtAgreesWithRangedGetsOfALargeObject) {
  std::mt19937 rng(7);
  std::string data(3 << 20, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  ASSERT_TRUE(store_->Put("big/random", data).ok());
  std::uniform_int_distribution<uint64_t> pick(0, data.size());
  for (int i = 0; i < 40; ++i) {
    uint64_t a = pick(rng);
    uint64_t b = pick(rng);
    if (a > b) std::swap(a, b);
    auto read = ReadAt("big/random", a, b - a);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_TRUE(*read == data.substr(a, b - a)) << "[" << a << ", " << b << ")";
  }
}

TEST_P(ConformanceTest, WriterPublishesTheConcatenationOfItsAppends) {
  auto writer = MustOpenWriter("w/obj");
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->key(), "w/obj");
  std::string expected;
  for (std::string part : {std::string("abc"), std::string(), std::string("d\0e", 3),
                           std::string(70000, 'x'), std::string("tail")}) {
    ASSERT_TRUE(writer->Append(part).ok());
    expected += part;
    EXPECT_EQ(writer->bytes_written(), expected.size());
  }
  auto meta = writer->Finish();
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->key, "w/obj");
  EXPECT_EQ(meta->size, expected.size());
  EXPECT_TRUE(MustGet("w/obj") == expected);
  auto head = store_->Head("w/obj");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->etag, meta->etag);
  EXPECT_EQ(head->last_modified_nanos, meta->last_modified_nanos);
  // Closed after Finish; destroying it now changes nothing.
  EXPECT_TRUE(writer->Append("more").IsInvalidInput());
  EXPECT_TRUE(writer->Finish().status().IsInvalidInput());
  writer.reset();
  EXPECT_TRUE(MustGet("w/obj") == expected);
}

TEST_P(ConformanceTest, WriterWithNoAppendsPublishesAnEmptyObject) {
  auto writer = MustOpenWriter("w/empty", PutOptions::CreateOnly());
  ASSERT_NE(writer, nullptr);
  auto meta = writer->Finish();
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->size, 0u);
  EXPECT_EQ(MustGet("w/empty"), "");
}

TEST_P(ConformanceTest, NothingIsVisibleBeforeFinish) {
  ASSERT_TRUE(store_->Put("w/replaced", "old").ok());
  auto fresh = MustOpenWriter("w/fresh");
  auto replacing = MustOpenWriter("w/replaced");
  ASSERT_TRUE(fresh && replacing);
  ASSERT_TRUE(fresh->Append("new bytes").ok());
  ASSERT_TRUE(replacing->Append("new bytes").ok());
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"w/replaced"});
  EXPECT_TRUE(store_->Get("w/fresh").status().IsNotFound());
  EXPECT_TRUE(store_->Head("w/fresh").status().IsNotFound());
  EXPECT_TRUE(ReadAt("w/fresh", 0, 0).status().IsNotFound());
  EXPECT_EQ(MustGet("w/replaced"), "old");
  ASSERT_TRUE(fresh->Finish().ok());
  ASSERT_TRUE(replacing->Finish().ok());
  EXPECT_EQ(AllKeys(), (std::vector<std::string>{"w/fresh", "w/replaced"}));
  EXPECT_EQ(MustGet("w/fresh"), "new bytes");
  EXPECT_EQ(MustGet("w/replaced"), "new bytes");
}

TEST_P(ConformanceTest, AbortedAndDestroyedWritersLeaveNothing) {
  ASSERT_TRUE(store_->Put("w/kept", "old").ok());
  {
    auto writer = MustOpenWriter("w/aborted");
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->Append("doomed").ok());
    writer->Abort();
    writer->Abort();  // idempotent
    EXPECT_TRUE(writer->Append("x").IsInvalidInput());
    EXPECT_TRUE(writer->Finish().status().IsInvalidInput());
  }
  {
    auto writer = MustOpenWriter("w/dropped");
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->Append(std::string(100000, 'd')).ok());
  }  // destroyed unfinished
  {
    auto writer = MustOpenWriter("w/kept");
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->Append("new").ok());
  }  // destroyed unfinished: the old object stays
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"w/kept"});
  EXPECT_EQ(MustGet("w/kept"), "old");
  EXPECT_TRUE(store_->Get("w/aborted").status().IsNotFound());
  EXPECT_TRUE(store_->Get("w/dropped").status().IsNotFound());
}

TEST_P(ConformanceTest, WriterCreateOnlyNeverOverwrites) {
  ASSERT_TRUE(store_->Put("w/c", "original").ok());
  auto late = MustOpenWriter("w/c", PutOptions::CreateOnly());
  ASSERT_NE(late, nullptr);
  ASSERT_TRUE(late->Append("intruder").ok());
  auto finished = late->Finish();
  EXPECT_TRUE(finished.status().IsAlreadyExists()) << finished.status().ToString();
  EXPECT_EQ(MustGet("w/c"), "original");
  EXPECT_TRUE(late->Finish().status().IsInvalidInput()) << "a failed Finish closes the writer";

  // Two writers racing for a new key: the first to finish wins, whatever the open order.
  auto first = MustOpenWriter("w/race", PutOptions::CreateOnly());
  auto second = MustOpenWriter("w/race", PutOptions::CreateOnly());
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(first->Append("first").ok());
  ASSERT_TRUE(second->Append("second").ok());
  ASSERT_TRUE(second->Finish().ok());
  EXPECT_TRUE(first->Finish().status().IsAlreadyExists());
  EXPECT_EQ(MustGet("w/race"), "second");
  EXPECT_EQ(AllKeys(), (std::vector<std::string>{"w/c", "w/race"}));
}

TEST_P(ConformanceTest, WriterIfMatchReplacesOnlyTheExpectedVersion) {
  auto v1 = store_->Put("w/m", "v1");
  ASSERT_TRUE(v1.ok());
  auto stale = MustOpenWriter("w/m", PutOptions::IfMatch(v1->etag));
  auto current = MustOpenWriter("w/m", PutOptions::IfMatch(v1->etag));
  ASSERT_TRUE(stale && current);
  ASSERT_TRUE(current->Append("v2").ok());
  auto v2 = current->Finish();
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_NE(v2->etag, v1->etag);
  ASSERT_TRUE(stale->Append("v3").ok());
  auto lost = stale->Finish();
  EXPECT_TRUE(lost.status().IsConflict()) << lost.status().ToString();
  EXPECT_TRUE(lost.status().retryable());
  EXPECT_EQ(MustGet("w/m"), "v2");
  auto missing = MustOpenWriter("w/absent", PutOptions::IfMatch(v2->etag));
  ASSERT_NE(missing, nullptr);
  EXPECT_TRUE(missing->Finish().status().IsConflict());
  EXPECT_TRUE(store_->Get("w/absent").status().IsNotFound());
  EXPECT_TRUE(store_->OpenWriter("w/m", PutOptions::IfMatch("")).status().IsInvalidInput());
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"w/m"});
}

TEST_P(ConformanceTest, WriterStreamsA20MiBObjectIn1MiBAppends) {
  constexpr size_t kChunk = 1 << 20;
  constexpr int kChunks = 20;
  auto chunk = [](int i) {
    std::string c(kChunk, '\0');
    for (size_t j = 0; j < kChunk; j += 8) {
      uint64_t v = (uint64_t{static_cast<unsigned>(i)} << 32) | j;
      std::memcpy(c.data() + j, &v, 8);
    }
    return c;
  };
  auto writer = MustOpenWriter("w/big", PutOptions::CreateOnly());
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < kChunks; ++i) ASSERT_TRUE(writer->Append(chunk(i)).ok()) << i;
  EXPECT_EQ(writer->bytes_written(), kChunk * kChunks);
  auto meta = writer->Finish();
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->size, kChunk * kChunks);
  EXPECT_EQ(store_->Head("w/big")->size, kChunk * kChunks);
  for (int i : {0, 7, kChunks - 1}) {
    auto read = ReadAt("w/big", uint64_t{kChunk} * i, kChunk);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_TRUE(*read == chunk(i)) << "chunk " << i;
  }
  // A read straddling two appends.
  auto straddle = ReadAt("w/big", kChunk * 3 - 16, 32);
  ASSERT_TRUE(straddle.ok());
  EXPECT_TRUE(*straddle == chunk(2).substr(kChunk - 16) + chunk(3).substr(0, 16));
}

TEST_P(ConformanceTest, CreateOnlyCreatesOnceAndNeverOverwrites) {
  ASSERT_TRUE(store_->Put("c", "first", PutOptions::CreateOnly()).ok());
  auto again = store_->Put("c", "second", PutOptions::CreateOnly());
  EXPECT_TRUE(again.status().IsAlreadyExists()) << again.status().ToString();
  EXPECT_EQ(again.status().code(), StatusCode::kConcurrentModification);
  EXPECT_EQ(MustGet("c"), "first");
}

TEST_P(ConformanceTest, IfMatchReplacesOnlyTheExpectedVersion) {
  auto v1 = store_->Put("m", "v1");
  ASSERT_TRUE(v1.ok());
  auto v2 = store_->Put("m", "v2", PutOptions::IfMatch(v1->etag));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_NE(v2->etag, v1->etag);
  auto stale = store_->Put("m", "v3", PutOptions::IfMatch(v1->etag));
  EXPECT_TRUE(stale.status().IsConflict()) << stale.status().ToString();
  EXPECT_TRUE(stale.status().retryable());
  EXPECT_EQ(MustGet("m"), "v2");
  auto missing = store_->Put("absent", "x", PutOptions::IfMatch(v2->etag));
  EXPECT_TRUE(missing.status().IsConflict());
  EXPECT_TRUE(store_->Get("absent").status().IsNotFound());
  EXPECT_TRUE(store_->Put("m", "x", PutOptions::IfMatch("")).status().IsInvalidInput());
  EXPECT_EQ(MustGet("m"), "v2");
}

TEST_P(ConformanceTest, DeleteIsIdempotent) {
  ASSERT_TRUE(store_->Put("d/x", "1").ok());
  EXPECT_TRUE(store_->Delete("d/x").ok());
  EXPECT_TRUE(store_->Get("d/x").status().IsNotFound());
  EXPECT_TRUE(store_->Delete("d/x").ok());
  EXPECT_TRUE(store_->Delete("never/was").ok());
  // A deleted key can be created again, and a stale etag does not match the new object.
  auto a = store_->Put("d/y", "same");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(store_->Delete("d/y").ok());
  auto b = store_->Put("d/y", "same", PutOptions::CreateOnly());
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(store_->Put("d/y", "z", PutOptions::IfMatch(a->etag)).status().IsConflict());
}

TEST_P(ConformanceTest, CopyDuplicatesBytesIndependently) {
  ASSERT_TRUE(store_->Put("src", "payload").ok());
  ASSERT_TRUE(store_->Copy("src", "copies/dst").ok());
  ASSERT_TRUE(store_->Put("src", "changed").ok());
  EXPECT_EQ(MustGet("copies/dst"), "payload");
  ASSERT_TRUE(store_->Copy("src", "copies/dst").ok()) << "copy overwrites";
  EXPECT_EQ(MustGet("copies/dst"), "changed");
  EXPECT_TRUE(store_->Copy("missing", "x").IsNotFound());
  EXPECT_TRUE(store_->Get("x").status().IsNotFound());
}

TEST_P(ConformanceTest, ListIsByteWiseOrderedAcrossDirectories) {
  // '-' (0x2d) sorts before '/' (0x2f), '0' (0x30) after: a directory walk must not emit "a/b"
  // before "a-c".
  std::vector<std::string> keys = {"a/b", "a-c", "a0", "a/a/z", "b", "a/b0", "A", "a/b-x/y"};
  for (const std::string& k : keys) ASSERT_TRUE(store_->Put(k, k).ok()) << k;
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(AllKeys(), keys);
}

TEST_P(ConformanceTest, ListPrefixStartAfterAndLimit) {
  for (std::string k : {"t/ns1/a", "t/ns1/b", "t/ns10/a", "t/ns2/a", "t/x", "u/a"}) {
    ASSERT_TRUE(store_->Put(k, "x").ok());
  }
  EXPECT_EQ(AllKeys("t/ns1/"), (std::vector<std::string>{"t/ns1/a", "t/ns1/b"}));
  EXPECT_EQ(AllKeys("t/ns1"), (std::vector<std::string>{"t/ns1/a", "t/ns1/b", "t/ns10/a"}))
      << "a prefix need not end at a '/'";
  EXPECT_EQ(AllKeys("t/nope"), std::vector<std::string>{});
  EXPECT_EQ(AllKeys("zzz/"), std::vector<std::string>{});

  ListOptions options;
  options.prefix = "t/";
  options.start_after = "t/ns10/a";
  options.limit = 1;
  auto page = store_->List(options);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "t/ns2/a");
  EXPECT_TRUE(page->truncated);
  options.start_after = "t/ns2/a";
  options.limit = 5;
  page = store_->List(options);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "t/x");
  EXPECT_FALSE(page->truncated);
  // A start_after before the prefix starts at the prefix; one past everything lists nothing.
  options.start_after = "a";
  EXPECT_EQ(store_->List(options)->objects.size(), 5u);
  options.start_after = "t/zzz";
  EXPECT_TRUE(store_->List(options)->objects.empty());
  // Entries report their metadata.
  auto meta = store_->List(ListOptions{"u/", "", 10});
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->objects.size(), 1u);
  EXPECT_EQ(meta->objects[0].size, 1u);
  EXPECT_EQ(meta->objects[0].etag, store_->Head("u/a")->etag);
}

TEST_P(ConformanceTest, ListRejectsBadLimits) {
  EXPECT_TRUE(store_->List(ListOptions{"", "", 0}).status().IsInvalidInput());
  EXPECT_TRUE(store_->List(ListOptions{"", "", kMaxListLimit + 1}).status().IsInvalidInput());
  EXPECT_TRUE(store_->List(ListOptions{"../", "", 10}).status().IsInvalidInput());
}

TEST_P(ConformanceTest, BadKeysAreInvalidInputAndTouchNothing) {
  const std::vector<std::string> bad = {"",
                                        "/abs",
                                        "a/../b",
                                        "..",
                                        "../escape",
                                        "a/./b",
                                        ".",
                                        "a//b",
                                        "trailing/",
                                        std::string("nul\0byte", 8),
                                        std::string(1025, 'k'),
                                        std::string(256, 's') + "/x",
                                        std::string(kReservedSegment) + "/x"};
  ASSERT_TRUE(store_->Put("good", "x").ok());
  for (const std::string& key : bad) {
    SCOPED_TRACE(::testing::Message() << "key '" << key.substr(0, 40) << "'");
    EXPECT_TRUE(store_->Put(key, "x").status().IsInvalidInput());
    EXPECT_TRUE(store_->Put(key, "x", PutOptions::CreateOnly()).status().IsInvalidInput());
    EXPECT_TRUE(store_->Get(key).status().IsInvalidInput());
    EXPECT_TRUE(store_->Head(key).status().IsInvalidInput());
    EXPECT_TRUE(store_->Delete(key).IsInvalidInput());
    EXPECT_TRUE(store_->Copy("good", key).IsInvalidInput());
    EXPECT_TRUE(store_->Copy(key, "copy").IsInvalidInput());
    EXPECT_TRUE(ReadAt(key, 0, 0).status().IsInvalidInput());
    EXPECT_TRUE(store_->OpenWriter(key).status().IsInvalidInput());
    EXPECT_TRUE(store_->OpenWriter(key, PutOptions::CreateOnly()).status().IsInvalidInput());
  }
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"good"});
}

TEST_P(ConformanceTest, SweepOnAQuietStoreRemovesNothing) {
  ASSERT_TRUE(store_->Put("a", "1").ok());
  auto report = store_->Sweep(Duration(0));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->files_removed, 0u);
  EXPECT_EQ(MustGet("a"), "1");
}

TEST_P(ConformanceTest, PaginationOver10000KeysReturnsEachKeyOnceInOrder) {
  std::vector<std::string> expected;
  for (int i = 0; i < 10000; ++i) {
    // A mix of depths so that pages cross directory boundaries.
    std::string key = i % 3 == 0   ? "p/k" + std::to_string(i)
                      : i % 3 == 1 ? "p/d" + std::to_string(i % 17) + "/k" + std::to_string(i)
                                   : "p/d" + std::to_string(i % 5) + "-x/k" + std::to_string(i);
    expected.push_back(key);
    ASSERT_TRUE(store_->Put(key, "").ok()) << key;
  }
  ASSERT_TRUE(store_->Put("o/outside", "").ok());
  std::sort(expected.begin(), expected.end());
  std::mt19937 rng(20261129);
  std::uniform_int_distribution<size_t> limit(1, 700);
  std::vector<std::string> seen;
  ListOptions options;
  options.prefix = "p/";
  while (true) {
    options.limit = limit(rng);
    auto page = store_->List(options);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ASSERT_LE(page->objects.size(), options.limit);
    for (const ObjectMeta& m : page->objects) seen.push_back(m.key);
    if (!page->truncated) break;
    ASSERT_EQ(page->objects.size(), options.limit) << "a truncated page is a full page";
    options.start_after = seen.back();
  }
  EXPECT_EQ(seen, expected);
}

TEST_P(ConformanceTest, EightThreadsRaceCreateOnlyOnOneKeyFor500Rounds) {
  // Each round all threads race to create the same key; thread 0 then checks the stored bytes
  // against the single winner and deletes the key for the next round.
  constexpr int kThreads = 8;
  constexpr int kRounds = 500;
  std::barrier sync(kThreads);
  std::vector<std::atomic<int>> wins(kRounds);
  std::vector<std::atomic<int>> winner(kRounds);
  std::atomic<int> unexpected{0};
  std::atomic<int> wrong_bytes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        sync.arrive_and_wait();
        auto put = store_->Put("race/key", fmt::format("writer-{}-round-{}", t, r),
                               PutOptions::CreateOnly());
        if (put.ok()) {
          wins[r].fetch_add(1);
          winner[r].store(t);
        } else if (!put.status().IsAlreadyExists()) {
          unexpected.fetch_add(1);
        }
        sync.arrive_and_wait();
        if (t == 0) {
          auto got = store_->Get("race/key");
          if (!got.ok() || got->data != fmt::format("writer-{}-round-{}", winner[r].load(), r)) {
            wrong_bytes.fetch_add(1);
          }
          if (!store_->Delete("race/key").ok()) unexpected.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(wrong_bytes.load(), 0) << "the stored bytes must be the winner's";
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_EQ(wins[r].load(), 1) << "round " << r << " must have exactly one winner";
  }
}

TEST_P(ConformanceTest, EightThreadsIncrementACounterWithIfMatch) {
  constexpr int kThreads = 8;
  constexpr int kIncrements = 200;
  ASSERT_TRUE(store_->Put("counter", "0").ok());
  std::atomic<int> unexpected{0};
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kIncrements;) {
        auto got = store_->Get("counter");
        if (!got.ok()) {
          unexpected.fetch_add(1);
          return;
        }
        std::string next = std::to_string(std::stoi(got->data) + 1);
        auto put = store_->Put("counter", next, PutOptions::IfMatch(got->meta.etag));
        if (put.ok()) {
          ++done;
        } else if (put.status().IsConflict()) {
          conflicts.fetch_add(1);
        } else {
          unexpected.fetch_add(1);
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(MustGet("counter"), std::to_string(kThreads * kIncrements));
  RecordProperty("conflicts", conflicts.load());
}

TEST_P(ConformanceTest, ReadersNeverSeeAPartialObject) {
  // One writer replaces a large object with distinct complete payloads; readers racing it must
  // always see one of them whole.
  constexpr int kVersions = 40;
  auto payload = [](int v) { return std::string(256 * 1024, static_cast<char>('a' + v % 26)); };
  ASSERT_TRUE(store_->Put("big", payload(0)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto got = store_->Get("big");
        if (!got.ok() || got->data.size() != 256 * 1024 ||
            got->data.find_first_not_of(got->data[0]) != std::string::npos) {
          torn.fetch_add(1);
        }
      }
    });
  }
  for (int v = 1; v < kVersions; ++v) ASSERT_TRUE(store_->Put("big", payload(v)).ok());
  stop.store(true);
  for (auto& th : readers) th.join();
  EXPECT_EQ(torn.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Stacks, ConformanceTest, ::testing::ValuesIn(AllStacks()),
                         [](const ::testing::TestParamInfo<StackSpec>& param_info) {
                           return param_info.param.name;
                         });

}  // namespace
}  // namespace quiver::testing
