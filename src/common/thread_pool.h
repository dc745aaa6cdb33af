// ThreadPool: a fixed set of worker threads for CPU work, and ParallelFor, which spreads n
// independent tasks over the pool *and* the calling thread.
//
// ParallelFor never waits on a task it could run itself: the caller takes tasks from the same
// counter as the workers, so it finishes even if every worker is busy (or the pool has none),
// and nested ParallelFor calls from inside a task cannot deadlock. Workers that arrive after the
// tasks are all taken simply return.
//
// Thread-safety: every method may be called from any thread. The destructor joins the workers
// after they drain the queue; ParallelFor must not be called on a pool being destroyed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"

namespace quiver {

class ThreadPool {
 public:
  // `threads` workers (0 is allowed: ParallelFor then runs everything on the caller).
  explicit ThreadPool(size_t threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  // The process-wide pool for decoding and other CPU work: one worker per core beyond the
  // first (the caller of ParallelFor is the other).
  static ThreadPool* Cpu();

  size_t threads() const { return workers_.size(); }

  // Runs task(0) .. task(n - 1), each exactly once, on the workers and the calling thread, and
  // returns when all have finished: the first non-OK status by index, or OK.
  Status ParallelFor(size_t n, const std::function<Status(size_t)>& task);

 private:
  void Submit(std::function<void()> job);
  void WorkerLoop();

  Mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace quiver
