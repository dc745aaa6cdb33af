// ThreadPool::ParallelFor: every task runs exactly once, the first error by index wins, it
// finishes without workers, nested calls do not deadlock, and many callers can share a pool.
#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace quiver {
namespace {

TEST(ThreadPool, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> runs(1000);
  std::mutex mu;
  std::set<std::thread::id> threads;
  ASSERT_TRUE(pool.ParallelFor(runs.size(),
                               [&](size_t i) {
                                 runs[i].fetch_add(1);
                                 std::lock_guard<std::mutex> lock(mu);
                                 threads.insert(std::this_thread::get_id());
                                 return Status::OK();
                               })
                  .ok());
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 4u);  // three workers and the caller
}

TEST(ThreadPool, ReturnsTheFirstErrorByIndexAfterAllTasksRan) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  Status s = pool.ParallelFor(50, [&](size_t i) {
    ran.fetch_add(1);
    if (i == 31) return Status::Corruption("thirty-one");
    if (i == 7) return Status::InvalidInput("seven");
    return Status::OK();
  });
  EXPECT_TRUE(s.IsInvalidInput()) << s.ToString();
  EXPECT_EQ(ran.load(), 50);
}

TEST(ThreadPool, WithoutWorkersTheCallerRunsEverything) {
  ThreadPool pool(0);
  std::vector<int> order;
  ASSERT_TRUE(pool.ParallelFor(5,
                               [&](size_t i) {
                                 order.push_back(static_cast<int>(i));
                                 return Status::OK();
                               })
                  .ok());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(pool.ParallelFor(0, [](size_t) { return Status::Internal("never"); }).ok());
}

TEST(ThreadPool, NestedCallsFromTasksFinish) {
  ThreadPool pool(1);  // one worker: a nested wait on it would deadlock without caller help
  std::atomic<int> leaves{0};
  ASSERT_TRUE(pool.ParallelFor(8,
                               [&](size_t) {
                                 return pool.ParallelFor(8, [&](size_t) {
                                   leaves.fetch_add(1);
                                   return Status::OK();
                                 });
                               })
                  .ok());
  EXPECT_EQ(leaves.load(), 64);
}

TEST(ThreadPool, ManyCallersShareOnePool) {
  ThreadPool* pool = ThreadPool::Cpu();
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        EXPECT_TRUE(pool->ParallelFor(10,
                                      [&](size_t) {
                                        total.fetch_add(1);
                                        return Status::OK();
                                      })
                        .ok());
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 4 * 50 * 10);
}

}  // namespace
}  // namespace quiver
