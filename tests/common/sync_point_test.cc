#include "common/sync_point.h"

#include <atomic>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace quiver {
namespace {

// Instrumented code: reaches two points, recording how far it got.
Status TwoStepProtocol(SyncPoints* sp, std::vector<std::string>* progress) {
  progress->push_back("start");
  QV_SYNC_POINT(sp, "proto.before_write");
  progress->push_back("written");
  QV_SYNC_POINT(sp, "proto.before_publish");
  progress->push_back("published");
  return Status::OK();
}

TEST(SyncPointsTest, ReachWithoutCallbackIsOkAndCounts) {
  SyncPoints sp;
  EXPECT_EQ(sp.HitCount("p"), 0u);
  EXPECT_TRUE(sp.Reach("p").ok());
  EXPECT_TRUE(sp.Reach("p").ok());
  EXPECT_TRUE(sp.Reach("q").ok());
  EXPECT_EQ(sp.HitCount("p"), 2u);
  EXPECT_EQ(sp.HitCount("q"), 1u);
  EXPECT_EQ(sp.HitCount("r"), 0u);
}

TEST(SyncPointsTest, CallbackStatusIsReturned) {
  SyncPoints sp;
  std::vector<std::string> seen;
  sp.Set("p", [&seen](std::string_view point) {
    seen.emplace_back(point);
    return Status::IOError("injected crash");
  });
  Status s = sp.Reach("p");
  EXPECT_EQ(s, Status::IOError("injected crash"));
  EXPECT_EQ(seen, std::vector<std::string>{"p"});
  EXPECT_EQ(sp.HitCount("p"), 1u);
  // Other points are unaffected.
  EXPECT_TRUE(sp.Reach("other").ok());
  EXPECT_EQ(seen.size(), 1u);
}

TEST(SyncPointsTest, CallbackReturningOkLetsCodeContinue) {
  SyncPoints sp;
  int calls = 0;
  sp.Set("proto.before_write", [&calls](std::string_view) {
    ++calls;
    return Status::OK();
  });
  std::vector<std::string> progress;
  EXPECT_TRUE(TwoStepProtocol(&sp, &progress).ok());
  EXPECT_EQ(progress, (std::vector<std::string>{"start", "written", "published"}));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sp.HitCount("proto.before_write"), 1u);
  EXPECT_EQ(sp.HitCount("proto.before_publish"), 1u);
}

TEST(SyncPointsTest, MacroReturnsEarlyOnError) {
  SyncPoints sp;
  sp.Set("proto.before_publish", [](std::string_view) {
    return Status(StatusCode::kInternal, "crash", Subcode::kInjected);
  });
  std::vector<std::string> progress;
  Status s = TwoStepProtocol(&sp, &progress);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.subcode(), Subcode::kInjected);
  EXPECT_EQ(s.message(), "crash");
  EXPECT_EQ(progress, (std::vector<std::string>{"start", "written"}));
}

TEST(SyncPointsTest, MacroWithNullRegistryIsANoOp) {
  std::vector<std::string> progress;
  EXPECT_TRUE(TwoStepProtocol(nullptr, &progress).ok());
  EXPECT_EQ(progress.size(), 3u);
}

TEST(SyncPointsTest, SetReplacesCallback) {
  SyncPoints sp;
  sp.Set("p", [](std::string_view) { return Status::Internal("first"); });
  sp.Set("p", [](std::string_view) { return Status::Internal("second"); });
  EXPECT_EQ(sp.Reach("p").message(), "second");
}

TEST(SyncPointsTest, Clear) {
  SyncPoints sp;
  sp.Set("a", [](std::string_view) { return Status::Internal("a"); });
  sp.Set("b", [](std::string_view) { return Status::Internal("b"); });
  sp.Clear("a");
  EXPECT_TRUE(sp.Reach("a").ok());
  EXPECT_FALSE(sp.Reach("b").ok());
  sp.Clear("never-set");  // harmless
  // Hit counts survive clearing a callback.
  EXPECT_EQ(sp.HitCount("a"), 1u);
  EXPECT_EQ(sp.HitCount("b"), 1u);
}

TEST(SyncPointsTest, ClearAll) {
  SyncPoints sp;
  sp.Set("a", [](std::string_view) { return Status::Internal("a"); });
  sp.Set("b", [](std::string_view) { return Status::Internal("b"); });
  sp.ClearAll();
  EXPECT_TRUE(sp.Reach("a").ok());
  EXPECT_TRUE(sp.Reach("b").ok());
}

TEST(SyncPointsTest, CallbackMayUseTheRegistry) {
  // Callbacks run outside the registry's lock, so they may call back into it.
  SyncPoints sp;
  sp.Set("outer", [&sp](std::string_view) {
    sp.Clear("outer");
    return sp.Reach("inner");
  });
  sp.Set("inner", [](std::string_view) { return Status::Internal("from inner"); });
  EXPECT_EQ(sp.Reach("outer").message(), "from inner");
  EXPECT_EQ(sp.HitCount("inner"), 1u);
  EXPECT_TRUE(sp.Reach("outer").ok());  // cleared by its own callback
}

TEST(SyncPointsTest, ConcurrentHitsAreCounted) {
  SyncPoints sp;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 1'000;
  std::atomic<int> calls{0};
  sp.Set("p", [&calls](std::string_view) {
    calls.fetch_add(1);
    return Status::OK();
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sp] {
      for (int i = 0; i < kPerThread; ++i) EXPECT_TRUE(sp.Reach("p").ok());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(sp.HitCount("p"), uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(calls.load(), kThreads * kPerThread);
}

TEST(GateTest, OpenGateDoesNotBlock) {
  Gate gate;
  gate.Open();
  gate.Arrive();
  gate.Arrive();
  EXPECT_EQ(gate.arrivals(), 2);
  gate.WaitForArrivals(2);
  gate.WaitForArrivals(0);
}

TEST(GateTest, HoldsThreadsUntilOpened) {
  Gate gate;
  constexpr int kThreads = 3;
  std::atomic<int> passed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&gate, &passed] {
      gate.Arrive();
      passed.fetch_add(1);
    });
  }
  gate.WaitForArrivals(kThreads);
  EXPECT_EQ(gate.arrivals(), kThreads);
  // All three have arrived and none has got past the closed gate.
  EXPECT_EQ(passed.load(), 0);
  gate.Open();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(passed.load(), kThreads);
  EXPECT_EQ(gate.arrivals(), kThreads);
}

TEST(GateTest, AsCallbackHoldsInstrumentedCode) {
  SyncPoints sp;
  Gate gate;
  sp.Set("proto.before_publish", gate.AsCallback());
  constexpr int kThreads = 3;
  std::vector<std::vector<std::string>> progress(kThreads);
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sp, &progress, &results, t] {
      results[static_cast<size_t>(t)] = TwoStepProtocol(&sp, &progress[static_cast<size_t>(t)]);
    });
  }
  gate.WaitForArrivals(kThreads);
  // Every thread is held at the point: it has written but not published. Each thread's vector is
  // only touched by that thread, which is blocked inside the gate (its writes happened before its
  // arrival, which WaitForArrivals synchronises with).
  for (const auto& p : progress) {
    EXPECT_EQ(p, (std::vector<std::string>{"start", "written"}));
  }
  EXPECT_EQ(sp.HitCount("proto.before_publish"), uint64_t{kThreads});
  gate.Open();
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(results[static_cast<size_t>(t)].ok());
    EXPECT_EQ(progress[static_cast<size_t>(t)],
              (std::vector<std::string>{"start", "written", "published"}));
  }
}

}  // namespace
}  // namespace quiver
