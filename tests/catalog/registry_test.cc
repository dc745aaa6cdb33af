#include "catalog/registry.h"

#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "store/fault_store.h"
#include "store/memory_store.h"

namespace quiver::catalog {
namespace {

// While the storage is full, events appended without waiting are kept for a later write; more
// than a batch of them (256) must not keep the queue from draining: a waiting append then
// answers (here: storage full) instead of waiting forever on a writer that retries the kept
// events alone, and once there is room everything is written, in order.
TEST(RegistryTest, KeptEventsNeverStarveTheQueueOnAFullDisk) {
  auto memory = MemoryObjectStore::Create();
  auto faults = std::make_shared<FaultInjectingStore>(memory);
  auto registry = Registry::Open(faults);
  ASSERT_TRUE(registry.ok()) << registry.status().ToString();
  faults->FailAlways(StoreOp::kPut, StatusFromErrno(ENOSPC, "writing"));
  for (int i = 0; i < 300; ++i) (*registry)->AppendLogAsync({{"action", "kept"}, {"n", i}});
  (*registry)->FlushLog();
  auto waited = (*registry)->AppendLog({{"action", "waited"}});
  EXPECT_TRUE(waited.status().IsStorageFull()) << waited.status().ToString();
  faults->Clear();
  auto after = (*registry)->AppendLog({{"action", "after"}});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  auto events = (*registry)->ReadLog(0, 1000);
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->size(), 301u);  // the 300 kept ones, then "after"
  for (int i = 0; i < 300; ++i) EXPECT_EQ((*events)[i].value("n", -1), i);
  EXPECT_EQ(events->back().value("action", ""), "after");
}

TEST(RegistryTest, StampsAnEmptyRootAndRefusesAnUnknownFormat) {
  auto store = MemoryObjectStore::Create();
  ASSERT_TRUE(Registry::Open(store).ok());
  auto stamp = store->Get("_quiver/format.json");
  ASSERT_TRUE(stamp.ok());
  EXPECT_NE(stamp->data.find("\"format\": 2"), std::string::npos);
  ASSERT_TRUE(Registry::Open(store).ok());  // reopening reads the same stamp

  auto other = MemoryObjectStore::Create();
  ASSERT_TRUE(other->Put("_quiver/format.json", R"({"format": 1})").ok());
  auto refused = Registry::Open(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("format 1"), std::string::npos);

  auto garbage = MemoryObjectStore::Create();
  ASSERT_TRUE(garbage->Put("_quiver/format.json", "not json").ok());
  EXPECT_FALSE(Registry::Open(garbage).ok());
}

// Records from storage: a format stamp nested past the JSON bound or repeating a key is refused,
// and a change-log key whose 20 digits exceed 2^64 is Corruption (it used to wrap into a bogus
// generation).
TEST(RegistryTest, HostileStampsAndLogKeysAreCorruption) {
  auto deep = MemoryObjectStore::Create();
  ASSERT_TRUE(deep->Put("_quiver/format.json", R"({"format": 2, "x": )" +
                                                   std::string(100'000, '[') +
                                                   std::string(100'000, ']') + "}")
                  .ok());
  EXPECT_EQ(Registry::Open(deep).status().subcode(), Subcode::kCorruption);
  auto twice = MemoryObjectStore::Create();
  ASSERT_TRUE(twice->Put("_quiver/format.json", R"({"format": 2, "format": 1})").ok());
  EXPECT_EQ(Registry::Open(twice).status().subcode(), Subcode::kCorruption);

  auto store = MemoryObjectStore::Create();
  auto registry = Registry::Open(store);
  ASSERT_TRUE(registry.ok());
  // Sorts first (the newest batch), as an inverted sequence number of 99999999999999999999.
  ASSERT_TRUE(store
                  ->Put("_quiver/log/0000000000000000/99999999999999999999.json",
                        R"({"first": 1, "events": [{"seq": 1}]})")
                  .ok());
  auto generation = (*registry)->Generation();
  ASSERT_FALSE(generation.ok()) << *generation;
  EXPECT_EQ(generation.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(generation.status().message().find("bad change-log key"), std::string::npos)
      << generation.status().ToString();
}

TEST(RegistryTest, KeysNestByNamespaceAndListDirectChildrenOnly) {
  EXPECT_EQ(Registry::RecordKey(RecordKind::kNamespace, {"a"}), "_quiver/ns/@61.json");
  EXPECT_EQ(Registry::RecordKey(RecordKind::kNamespace, {"a", "b"}), "_quiver/ns/61/@62.json");
  EXPECT_EQ(Registry::RecordKey(RecordKind::kTable, {"a", "t"}), "_quiver/tables/61/@74.json");
  auto store = MemoryObjectStore::Create();
  auto registry = *Registry::Open(store);
  for (const ObjectId& id :
       std::vector<ObjectId>{{"b"}, {"a"}, {"a", "x"}, {"a", "x", "deep"}, {"c"}}) {
    ASSERT_TRUE(registry->Create(RecordKind::kNamespace, id, {{"id", id}}).ok());
  }
  auto root = registry->ListChildren(RecordKind::kNamespace, {}, "", 0);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->names, (std::vector<std::string>{"a", "b", "c"}));
  auto page = registry->ListChildren(RecordKind::kNamespace, {}, "a", 1);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->names, (std::vector<std::string>{"b"}));
  EXPECT_TRUE(page->truncated);
  auto children = registry->ListChildren(RecordKind::kNamespace, {"a"}, "", 0);
  EXPECT_EQ(children->names, (std::vector<std::string>{"x"}));
  auto all = registry->ListDescendants(RecordKind::kNamespace, {"a"});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  EXPECT_TRUE(*registry->HasDescendants(RecordKind::kNamespace, {"a", "x"}));
  EXPECT_FALSE(*registry->HasDescendants(RecordKind::kNamespace, {"b"}));
}

TEST(RegistryTest, WritesAreConditional) {
  auto registry = *Registry::Open(MemoryObjectStore::Create());
  auto etag = registry->Create(RecordKind::kTable, {"t"}, {{"v", 1}});
  ASSERT_TRUE(etag.ok());
  EXPECT_TRUE(registry->Create(RecordKind::kTable, {"t"}, {{"v", 2}}).status().IsAlreadyExists());
  auto replaced = registry->Replace(RecordKind::kTable, {"t"}, {{"v", 3}}, *etag);
  ASSERT_TRUE(replaced.ok());
  EXPECT_TRUE(
      registry->Replace(RecordKind::kTable, {"t"}, {{"v", 4}}, *etag).status().IsConflict());
  EXPECT_TRUE(registry->Delete(RecordKind::kTable, {"t"}, *etag).IsConflict());
  EXPECT_EQ(registry->Get(RecordKind::kTable, {"t"})->body["v"], 3);
  EXPECT_TRUE(registry->Delete(RecordKind::kTable, {"t"}, *replaced).ok());
  EXPECT_TRUE(registry->Get(RecordKind::kTable, {"t"}).status().IsNotFound());
}

TEST(RegistryTest, ChangeLogSequenceIsTheGeneration) {
  auto store = MemoryObjectStore::Create();
  auto registry = *Registry::Open(store);
  EXPECT_EQ(*registry->Generation(), 0u);
  for (int i = 1; i <= 5; ++i) {
    auto seq = registry->AppendLog({{"action", "test"}, {"i", i}});
    ASSERT_TRUE(seq.ok());
    EXPECT_EQ(*seq, static_cast<uint64_t>(i));
  }
  // A second registry over the same root (another process) continues the sequence.
  auto second = *Registry::Open(store);
  EXPECT_EQ(*second->AppendLog({{"action", "other"}}), 6u);
  EXPECT_EQ(*registry->AppendLog({{"action", "again"}}), 7u);
  EXPECT_EQ(*registry->Generation(), 7u);
  auto events = registry->ReadLog(2, 3);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0]["seq"], 3);
  EXPECT_EQ((*events)[2]["seq"], 5);
  EXPECT_EQ(registry->ReadLog(7, 10)->size(), 0u);
  EXPECT_EQ(registry->ReadLog(0, 100)->size(), 7u);
}

// Appends racing in one process (group commit) and across registries (other processes) get
// unique, contiguous sequence numbers, and the log reads back in sequence order.
TEST(RegistryTest, ConcurrentAppendsGetContiguousSequenceNumbers) {
  auto store = MemoryObjectStore::Create();
  auto a = *Registry::Open(store);
  auto b = *Registry::Open(store);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 50;
  std::vector<std::vector<uint64_t>> seqs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Registry& r = t % 2 == 0 ? *a : *b;
      for (int i = 0; i < kPerThread; ++i) {
        auto seq = r.AppendLog({{"thread", t}, {"i", i}});
        ASSERT_TRUE(seq.ok()) << seq.status().ToString();
        seqs[t].push_back(*seq);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> all;
  for (int t = 0; t < kThreads; ++t) {
    for (size_t i = 1; i < seqs[t].size(); ++i) EXPECT_LT(seqs[t][i - 1], seqs[t][i]);
    all.insert(seqs[t].begin(), seqs[t].end());
  }
  ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(*all.begin(), 1u);
  EXPECT_EQ(*all.rbegin(), static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(*a->Generation(), static_cast<uint64_t>(kThreads * kPerThread));
  auto events = a->ReadLog(0, 100000);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), all.size());
  for (size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i]["seq"], i + 1);
  auto middle = a->ReadLog(123, 10);
  ASSERT_EQ(middle->size(), 10u);
  EXPECT_EQ((*middle)[0]["seq"], 124);
}

}  // namespace
}  // namespace quiver::catalog
