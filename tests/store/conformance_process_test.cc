// The multi-process half of the conformance suite: separate processes sharing one root race
// CreateOnly and IfMatch. Runs for every stack whose backend is shared across processes (local);
// a memory store lives inside one process, so there is nothing to share.
#include <sstream>
#include <string>
#include <vector>

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

TEST_P(ProcessConformanceTest, EightProcessesRaceCreateOnlyFor500Rounds) {
  constexpr int kProcesses = 8;
  constexpr int kRounds = 500;
  const StackSpec spec = GetParam();
  std::vector<int> codes = RunInChildren(kProcesses, [&](int i) {
    std::shared_ptr<ObjectStore> store;
    try {
      store = spec.make(root_.path(), nullptr);
    } catch (...) {
      return kSetupFailed;
    }
    std::string wins;
    for (int r = 0; r < kRounds; ++r) {
      auto put = store->Put("race/" + std::to_string(r), "process-" + std::to_string(i),
                            PutOptions::CreateOnly());
      if (put.ok()) {
        wins += std::to_string(r) + "\n";
      } else if (!put.status().IsAlreadyExists()) {
        return kUnexpectedStatus;
      }
    }
    return WriteFile(results_.path() + "/" + std::to_string(i), wins) ? kOk : kSetupFailed;
  });
  for (int i = 0; i < kProcesses; ++i) ASSERT_EQ(codes[i], kOk) << "child " << i;

  std::vector<int> winner(kRounds, -1);
  for (int i = 0; i < kProcesses; ++i) {
    std::istringstream in(ReadFileOrEmpty(results_.path() + "/" + std::to_string(i)));
    int r;
    while (in >> r) {
      ASSERT_GE(r, 0);
      ASSERT_LT(r, kRounds);
      EXPECT_EQ(winner[r], -1) << "round " << r << " has two winners";
      winner[r] = i;
    }
  }
  auto store = spec.make(root_.path(), nullptr);
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_NE(winner[r], -1) << "round " << r << " has no winner";
    auto got = store->Get("race/" + std::to_string(r));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->data, "process-" + std::to_string(winner[r])) << "round " << r;
  }
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
