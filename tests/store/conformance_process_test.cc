// The multi-process half of the conformance suite: separate processes sharing one root race
// CreateOnly and IfMatch. Runs for every stack whose backend is shared across processes (local);
// a memory store lives inside one process, so there is nothing to share.
#include <pthread.h>
#include <sys/mman.h>

#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "process_util.h"
#include "store_test_util.h"

namespace quiver::testing {
namespace {

class ProcessConformanceTest : public ::testing::TestWithParam<StackSpec> {
 protected:
  TempDir root_;
  TempDir results_;
};

// Exit codes of the children.
constexpr int kOk = 0;
constexpr int kUnexpectedStatus = 2;
constexpr int kSetupFailed = 3;

// Shared between the forked children: a process-shared barrier and per-round results.
struct RaceBoard {
  static constexpr int kRounds = 500;
  pthread_barrier_t barrier;
  int wins[kRounds];
  int winner[kRounds];
  int wrong_bytes;
};

TEST_P(ProcessConformanceTest, EightProcessesRaceCreateOnlyOnOneKeyFor500Rounds) {
  // Each round all processes race to create the same key; process 0 then checks the stored bytes
  // against the single winner and deletes the key for the next round.
  constexpr int kProcesses = 8;
  constexpr int kRounds = RaceBoard::kRounds;
  const StackSpec spec = GetParam();
  void* mem =
      ::mmap(nullptr, sizeof(RaceBoard), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* board = new (mem) RaceBoard{};
  pthread_barrierattr_t attr;
  pthread_barrierattr_init(&attr);
  pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  ASSERT_EQ(pthread_barrier_init(&board->barrier, &attr, kProcesses), 0);
  pthread_barrierattr_destroy(&attr);

  std::vector<int> codes = RunInChildren(kProcesses, [&](int i) {
    std::shared_ptr<ObjectStore> store;
    try {
      store = spec.make(root_.path(), nullptr);
    } catch (...) {
      // Keep the others from waiting forever: pass every barrier, then report.
      for (int r = 0; r < 2 * kRounds; ++r) pthread_barrier_wait(&board->barrier);
      return kSetupFailed;
    }
    int code = kOk;
    for (int r = 0; r < kRounds; ++r) {
      pthread_barrier_wait(&board->barrier);
      auto put = store->Put("race/key", fmt::format("process-{}-round-{}", i, r),
                            PutOptions::CreateOnly());
      if (put.ok()) {
        __atomic_fetch_add(&board->wins[r], 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&board->winner[r], i, __ATOMIC_SEQ_CST);
      } else if (!put.status().IsAlreadyExists()) {
        code = kUnexpectedStatus;
      }
      pthread_barrier_wait(&board->barrier);
      if (i == 0) {
        auto got = store->Get("race/key");
        int w = __atomic_load_n(&board->winner[r], __ATOMIC_SEQ_CST);
        if (!got.ok() || got->data != fmt::format("process-{}-round-{}", w, r)) {
          __atomic_fetch_add(&board->wrong_bytes, 1, __ATOMIC_SEQ_CST);
        }
        if (!store->Delete("race/key").ok()) code = kUnexpectedStatus;
      }
    }
    return code;
  });
  for (int i = 0; i < kProcesses; ++i) EXPECT_EQ(codes[i], kOk) << "child " << i;
  EXPECT_EQ(board->wrong_bytes, 0) << "the stored bytes must be the winner's";
  for (int r = 0; r < kRounds; ++r) {
    EXPECT_EQ(board->wins[r], 1) << "round " << r << " must have exactly one winner";
  }
  pthread_barrier_destroy(&board->barrier);
  ::munmap(mem, sizeof(RaceBoard));
}

TEST_P(ProcessConformanceTest, EightProcessesIncrementACounterWithIfMatch) {
  constexpr int kProcesses = 8;
  constexpr int kIncrements = 200;
  const StackSpec spec = GetParam();
  {
    auto store = spec.make(root_.path(), nullptr);
    ASSERT_TRUE(store->Put("counter", "0").ok());
  }
  std::vector<int> codes = RunInChildren(kProcesses, [&](int i) {
    std::shared_ptr<ObjectStore> store;
    try {
      store = spec.make(root_.path(), nullptr);
    } catch (...) {
      return kSetupFailed;
    }
    int conflicts = 0;
    for (int done = 0; done < kIncrements;) {
      auto got = store->Get("counter");
      if (!got.ok()) return kUnexpectedStatus;
      std::string next = std::to_string(std::stoi(got->data) + 1);
      auto put = store->Put("counter", next, PutOptions::IfMatch(got->meta.etag));
      if (put.ok()) {
        ++done;
      } else if (put.status().IsConflict()) {
        ++conflicts;
      } else {
        return kUnexpectedStatus;
      }
    }
    return WriteFile(results_.path() + "/" + std::to_string(i), std::to_string(conflicts))
               ? kOk
               : kSetupFailed;
  });
  for (int i = 0; i < kProcesses; ++i) ASSERT_EQ(codes[i], kOk) << "child " << i;
  auto store = spec.make(root_.path(), nullptr);
  auto got = store->Get("counter");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->data, std::to_string(kProcesses * kIncrements)) << "an update was lost";
  int conflicts = 0;
  for (int i = 0; i < kProcesses; ++i) {
    conflicts += std::stoi(ReadFileOrEmpty(results_.path() + "/" + std::to_string(i)));
  }
  RecordProperty("conflicts", conflicts);
}

INSTANTIATE_TEST_SUITE_P(SharedStacks, ProcessConformanceTest,
                         ::testing::ValuesIn(ProcessSharedStacks()),
                         [](const ::testing::TestParamInfo<StackSpec>& param_info) {
                           return param_info.param.name;
                         });

}  // namespace
}  // namespace quiver::testing
