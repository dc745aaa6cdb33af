// Behaviour specific to each decorator (the conformance suite checks that stacks of them still
// honour the ObjectStore contract).
#include <thread>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "store/counting_store.h"
#include "store/fault_store.h"
#include "store/key.h"
#include "store/latency_store.h"
#include "store/local_store.h"
#include "store/memory_store.h"
#include "store/prefix_store.h"
#include "store/store_wrapper.h"
#include "store_test_util.h"

namespace quiver {
namespace {

using testing::CountFiles;
using testing::TempDir;

// A decorator written the way the StoreWrapper header says: one hook overridden, every call
// forwarded by the base. Here: a read-only view that refuses every request that writes.
class ReadOnlyView final : public StoreWrapper {
 public:
  explicit ReadOnlyView(std::shared_ptr<ObjectStore> target)
      : StoreWrapper(std::move(target), "read-only") {}
  std::vector<std::pair<StoreOp, bool>> seen;  // (op, ok) as AfterRequest saw them

 protected:
  Status BeforeRequest(StoreOp op, const PutOptions*) override {
    bool writes = op == StoreOp::kPut || op == StoreOp::kDelete || op == StoreOp::kCopy ||
                  op == StoreOp::kSweep;
    return writes ? Status::InvalidInput("read-only") : Status::OK();
  }
  void AfterRequest(StoreOp op, const PutOptions*, const Status& status) override {
    seen.emplace_back(op, status.ok());
  }
};

TEST(StoreWrapperTest, AHookSeesEveryRequestAndARefusalForwardsNothing) {
  auto inner = MemoryObjectStore::Create();
  ASSERT_TRUE(inner->Put("a", "1").ok());
  ReadOnlyView view(inner);
  EXPECT_EQ(view.Get("a")->data, "1");
  EXPECT_EQ(view.Head("a")->size, 1u);
  EXPECT_EQ(view.ListAll("")->size(), 1u);
  EXPECT_TRUE(view.Put("b", "2").status().IsInvalidInput());
  EXPECT_TRUE(view.Delete("a").IsInvalidInput());
  EXPECT_TRUE(view.Copy("a", "c").IsInvalidInput());
  // A writer opens (nothing is written yet), and its Finish is the put that is refused; the
  // inner writer's data is discarded.
  auto writer = view.OpenWriter("d");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append("xyz").ok());
  EXPECT_TRUE((*writer)->Finish().status().IsInvalidInput());
  // A writer the inner store refuses to open is reported as a failed put.
  EXPECT_FALSE(view.OpenWriter("../bad").ok());
  EXPECT_EQ(inner->ListAll("")->size(), 1u) << "nothing reached the inner store";
  EXPECT_TRUE(inner->Head("a").ok());
  std::vector<std::pair<StoreOp, bool>> want = {{StoreOp::kGet, true},     {StoreOp::kHead, true},
                                                {StoreOp::kList, true},    {StoreOp::kPut, false},
                                                {StoreOp::kDelete, false}, {StoreOp::kCopy, false},
                                                {StoreOp::kPut, false},    {StoreOp::kPut, false}};
  EXPECT_EQ(view.seen, want);
  EXPECT_EQ(view.Describe(), "read-only+memory:");
  EXPECT_EQ(view.ExternalPath("a"), inner->ExternalPath("a"));
}

TEST(PrefixStoreTest, MapsKeysIntoASubtreeAndBack) {
  auto inner = MemoryObjectStore::Create();
  auto store = PrefixStore::Make(inner, "proj/wh");
  ASSERT_TRUE(store.ok());
  auto put = (*store)->Put("ns/t.json", "x");
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->key, "ns/t.json");
  EXPECT_EQ(inner->Get("proj/wh/ns/t.json")->data, "x");
  ASSERT_TRUE(inner->Put("proj/other", "not mine").ok());
  ASSERT_TRUE(inner->Put("proj/wh0", "sibling, not below the prefix").ok());
  auto all = (*store)->ListAll("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].key, "ns/t.json");
  EXPECT_EQ((*store)->Get("ns/t.json")->meta.key, "ns/t.json");
  EXPECT_EQ((*store)->Head("ns/t.json")->key, "ns/t.json");
  EXPECT_TRUE((*store)->Get("../other").status().IsInvalidInput()) << "cannot climb out";
  EXPECT_EQ((*store)->Describe(), "prefix(proj/wh/)+memory:");
  EXPECT_EQ((*store)->ExternalPath(""), "memory:/proj/wh");
  EXPECT_EQ((*store)->ExternalPath("ns/t.json"), "memory:/proj/wh/ns/t.json");
}

TEST(PrefixStoreTest, ReadAtAndWritersWorkInsideTheSubtree) {
  auto inner = MemoryObjectStore::Create();
  auto store = PrefixStore::Make(inner, "proj/wh");
  ASSERT_TRUE(store.ok());
  auto writer = (*store)->OpenWriter("ns/data.lance", PutOptions::CreateOnly());
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->key(), "ns/data.lance");
  ASSERT_TRUE((*writer)->Append("0123").ok());
  ASSERT_TRUE((*writer)->Append("4567").ok());
  EXPECT_TRUE(inner->ListAll("")->empty());
  auto meta = (*writer)->Finish();
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->key, "ns/data.lance") << "the prefix is stripped";
  EXPECT_EQ(inner->Get("proj/wh/ns/data.lance")->data, "01234567");
  std::string buffer(3, '\0');
  ASSERT_TRUE((*store)->ReadAt("ns/data.lance", 2, std::as_writable_bytes(std::span(buffer))).ok());
  EXPECT_EQ(buffer, "234");
  EXPECT_TRUE((*store)->OpenWriter("../escape").status().IsInvalidInput());
  EXPECT_TRUE((*store)->ReadAt("../escape", 0, {}).IsInvalidInput());
}

TEST(PrefixStoreTest, RejectsABadPrefix) {
  auto inner = MemoryObjectStore::Create();
  EXPECT_TRUE(PrefixStore::Make(inner, "").status().IsInvalidInput());
  EXPECT_TRUE(PrefixStore::Make(inner, "a/../b").status().IsInvalidInput());
  EXPECT_TRUE(PrefixStore::Make(inner, "a/").status().IsInvalidInput());
  EXPECT_TRUE(PrefixStore::Make(nullptr, "a").status().IsInvalidInput());
}

TEST(CountingStoreTest, CountsCallsPerKindModeAndFailure) {
  auto store = std::make_shared<CountingStore>(MemoryObjectStore::Create());
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Put("b", "1", PutOptions::CreateOnly()).ok());
  EXPECT_FALSE(store->Put("b", "2", PutOptions::CreateOnly()).ok());
  EXPECT_FALSE(store->Put("a", "2", PutOptions::IfMatch("stale")).ok());
  StoreCounts before = store->Snapshot();
  EXPECT_TRUE(store->Get("a").ok());
  EXPECT_FALSE(store->Get("missing").ok());
  EXPECT_TRUE(store->Head("a").ok());
  EXPECT_TRUE(store->List(ListOptions{}).ok());
  EXPECT_TRUE(store->Delete("a").ok());
  EXPECT_TRUE(store->Copy("b", "c").ok());
  EXPECT_TRUE(store->Sweep(Duration(0)).ok());
  StoreCounts after = store->Snapshot();

  EXPECT_EQ(before.Calls(StoreOp::kPut), 4u);
  EXPECT_EQ(before.Errors(StoreOp::kPut), 2u);
  EXPECT_EQ(before.Puts(PutMode::kOverwrite), 1u);
  EXPECT_EQ(before.Puts(PutMode::kCreateOnly), 2u);
  EXPECT_EQ(before.Puts(PutMode::kIfMatch), 1u);
  StoreCounts delta = after.Since(before);
  EXPECT_EQ(delta.Calls(StoreOp::kGet), 2u);
  EXPECT_EQ(delta.Errors(StoreOp::kGet), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kHead), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kList), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kDelete), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kCopy), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kSweep), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kPut), 0u);
  EXPECT_EQ(delta.TotalCalls(), 7u);
  EXPECT_NE(after.ToString().find("put=4(overwrite=1 create_only=2 if_match=1)[2 failed]"),
            std::string::npos)
      << after.ToString();
  store->Reset();
  EXPECT_EQ(store->Snapshot().TotalCalls(), 0u);
}

TEST(CountingStoreTest, CountsReadAtAndAFinishedWriterAsOnePut) {
  auto store = std::make_shared<CountingStore>(MemoryObjectStore::Create());
  ASSERT_TRUE(store->Put("a", "0123").ok());
  StoreCounts before = store->Snapshot();
  std::byte buffer[2];
  EXPECT_TRUE(store->ReadAt("a", 1, buffer).ok());
  EXPECT_FALSE(store->ReadAt("a", 3, buffer).ok());
  EXPECT_FALSE(store->ReadAt("missing", 0, buffer).ok());
  {
    auto writer = store->OpenWriter("w", PutOptions::CreateOnly());
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE((*writer)->Append("x").ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  {
    auto lost = store->OpenWriter("w", PutOptions::CreateOnly());
    ASSERT_TRUE(lost.ok());
    EXPECT_TRUE((*lost)->Finish().status().IsAlreadyExists());
  }
  {
    auto aborted = store->OpenWriter("v");
    ASSERT_TRUE(aborted.ok());
    ASSERT_TRUE((*aborted)->Append("x").ok());
    (*aborted)->Abort();
    auto dropped = store->OpenWriter("v");
    ASSERT_TRUE(dropped.ok());
  }
  EXPECT_FALSE(store->OpenWriter("bad//key").ok());
  StoreCounts delta = store->Snapshot().Since(before);
  EXPECT_EQ(delta.Calls(StoreOp::kReadAt), 3u);
  EXPECT_EQ(delta.Errors(StoreOp::kReadAt), 2u);
  EXPECT_EQ(delta.Calls(StoreOp::kPut), 3u) << "two Finishes and one failed OpenWriter";
  EXPECT_EQ(delta.Errors(StoreOp::kPut), 2u);
  EXPECT_EQ(delta.Puts(PutMode::kCreateOnly), 2u);
  EXPECT_EQ(delta.Puts(PutMode::kOverwrite), 1u);
  EXPECT_EQ(delta.Calls(StoreOp::kGet), 0u) << "ReadAt is its own kind";
  EXPECT_EQ(delta.TotalCalls(), 6u) << "appends and abandoned writers count nothing";
  EXPECT_NE(delta.ToString().find("read_at=3[2 failed]"), std::string::npos) << delta.ToString();
  EXPECT_EQ(delta.bytes_read, 2u) << "only the ReadAt that succeeded";
}

TEST(CountingStoreTest, SumsTheBytesGetsAndReadAtsReturn) {
  auto store = std::make_shared<CountingStore>(MemoryObjectStore::Create());
  ASSERT_TRUE(store->Put("a", "0123456789").ok());
  StoreCounts before = store->Snapshot();
  ASSERT_TRUE(store->Get("a").ok());                   // 10
  ASSERT_TRUE(store->Get("a", ByteRange{2, 3}).ok());  // 3
  EXPECT_FALSE(store->Get("missing").ok());            // 0
  std::byte buffer[4];
  ASSERT_TRUE(store->ReadAt("a", 6, buffer).ok());  // 4
  EXPECT_EQ(store->Snapshot().Since(before).bytes_read, 17u);
  store->Reset();
  EXPECT_EQ(store->Snapshot().bytes_read, 0u);
}

TEST(FaultInjectingStoreTest, FailNthFailsExactlyThatCallWithoutTouchingTheStore) {
  auto inner = MemoryObjectStore::Create();
  FaultInjectingStore store(inner);
  store.FailNth(StoreOp::kPut, 2, Status::IOError("disk on fire", /*retryable=*/true));
  EXPECT_TRUE(store.Put("a", "1").ok());
  Status second = store.Put("b", "2").status();
  EXPECT_TRUE(second.IsIOError());
  EXPECT_TRUE(second.retryable());
  EXPECT_EQ(second.message(), "disk on fire");
  EXPECT_TRUE(inner->Get("b").status().IsNotFound()) << "a failed call never reaches the store";
  EXPECT_TRUE(store.Put("c", "3").ok()) << "the rule is spent";
  EXPECT_TRUE(store.Get("a").ok()) << "other kinds are not affected";
  EXPECT_EQ(store.fired(), 1u);
}

TEST(FaultInjectingStoreTest, FailAlwaysUntilCleared) {
  FaultInjectingStore store(MemoryObjectStore::Create());
  store.FailAlways(StoreOp::kList, Status::ServiceUnavailable("throttled"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(store.List(ListOptions{}).status().code(), StatusCode::kServiceUnavailable);
  }
  store.Clear();
  EXPECT_TRUE(store.List(ListOptions{}).ok());
  EXPECT_EQ(store.fired(), 3u);
}

TEST(FaultInjectingStoreTest, PauseHoldsACallAtAGateUntilOpened) {
  auto inner = MemoryObjectStore::Create();
  FaultInjectingStore store(inner);
  Gate gate;
  store.PauseNth(StoreOp::kPut, 1, &gate);
  std::thread writer([&] { EXPECT_TRUE(store.Put("held", "x").ok()); });
  gate.WaitForArrivals(1);
  EXPECT_TRUE(inner->Get("held").status().IsNotFound()) << "still held before the store";
  gate.Open();
  writer.join();
  EXPECT_EQ(inner->Get("held")->data, "x");
}

TEST(FaultInjectingStoreTest, CrashBeforePublishLeavesTheOldObjectAndASweepableTemp) {
  TempDir dir;
  SyncPoints points;
  LocalStoreOptions options;
  options.sync_points = &points;
  auto local = LocalObjectStore::Open(dir.path(), options);
  ASSERT_TRUE(local.ok());
  FaultInjectingStore store(*local, &points);
  ASSERT_TRUE(store.Put("k", "old").ok());
  ASSERT_TRUE(store.CrashNthPutBeforePublish(1).ok());
  Status crashed = store.Put("k", "new").status();
  EXPECT_EQ(crashed.subcode(), Subcode::kInjected) << crashed.ToString();
  EXPECT_EQ(store.Get("k")->data, "old");
  const std::string tmp = dir.path() + "/" + std::string(kReservedSegment) + "/tmp";
  EXPECT_EQ(CountFiles(tmp), 1) << "the crashed writer's temp file is left behind";
  EXPECT_EQ(store.ListAll("")->size(), 1u) << "and it is not listed";
  EXPECT_TRUE(store.Put("k", "newer").ok()) << "the rule is spent; other puts publish";
  auto swept = store.Sweep(Duration(0));
  ASSERT_TRUE(swept.ok());
  EXPECT_EQ(swept->files_removed, 1u);
  EXPECT_EQ(swept->bytes_removed, 3u);
  EXPECT_EQ(CountFiles(tmp), 0);
  EXPECT_EQ(store.Get("k")->data, "newer");
}

TEST(FaultInjectingStoreTest, CrashInjectionNeedsTheBackendsSyncPoints) {
  FaultInjectingStore store(MemoryObjectStore::Create());
  EXPECT_TRUE(store.CrashNthPutBeforePublish(1).IsInvalidInput());
}

TEST(FaultInjectingStoreTest, CrashOnMemoryBackendPublishesNothing) {
  SyncPoints points;
  MemoryStoreOptions options;
  options.sync_points = &points;
  auto inner = MemoryObjectStore::Create(options);
  FaultInjectingStore store(inner, &points);
  ASSERT_TRUE(store.CrashNthPutBeforePublish(1).ok());
  EXPECT_EQ(store.Put("k", "v").status().subcode(), Subcode::kInjected);
  EXPECT_TRUE(inner->Get("k").status().IsNotFound());
}

TEST(FaultInjectingStoreTest, ReadAtFailuresAreInjectedAsKReadAt) {
  auto inner = MemoryObjectStore::Create();
  ASSERT_TRUE(inner->Put("a", "0123").ok());
  FaultInjectingStore store(inner);
  store.FailNth(StoreOp::kReadAt, 2, Status::IOError("bad sector"));
  std::byte buffer[2];
  EXPECT_TRUE(store.ReadAt("a", 0, buffer).ok());
  EXPECT_TRUE(store.ReadAt("a", 0, buffer).IsIOError());
  EXPECT_TRUE(store.ReadAt("a", 0, buffer).ok());
  EXPECT_TRUE(store.Get("a").ok()) << "gets are another kind";
}

TEST(LatencyStoreTest, ReadAtWaitsItsOwnDelayAndAWriterOnePutDelay) {
  ManualClock clock(0);
  LatencyStore store(MemoryObjectStore::Create(), &clock);
  store.SetDelay(StoreOp::kPut, std::chrono::milliseconds(20));
  store.SetDelay(StoreOp::kReadAt, std::chrono::milliseconds(2));
  auto writer = store.OpenWriter("a");
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*writer)->Append("x").ok());
  EXPECT_EQ(clock.NowNanos(), 0) << "appends are not round trips";
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ(clock.NowNanos(), 20'000'000);
  std::byte buffer[3];
  ASSERT_TRUE(store.ReadAt("a", 0, buffer).ok());
  EXPECT_EQ(clock.NowNanos(), 22'000'000);
}

TEST(LatencyStoreTest, DelaysEachKindThroughTheInjectedClock) {
  ManualClock clock(0);
  LatencyStore store(MemoryObjectStore::Create(), &clock);
  store.SetDelay(StoreOp::kPut, std::chrono::milliseconds(20));
  store.SetDelay(StoreOp::kGet, std::chrono::milliseconds(3));
  ASSERT_TRUE(store.Put("a", "1").ok());
  EXPECT_EQ(clock.NowNanos(), 20'000'000);
  ASSERT_TRUE(store.Get("a").ok());
  EXPECT_EQ(clock.NowNanos(), 23'000'000);
  ASSERT_TRUE(store.Head("a").ok());
  EXPECT_EQ(clock.NowNanos(), 23'000'000) << "no delay set for head";
  store.SetAllDelays(std::chrono::milliseconds(1));
  ASSERT_TRUE(store.List(ListOptions{}).ok());
  EXPECT_EQ(clock.NowNanos(), 24'000'000);
}

}  // namespace
}  // namespace quiver
