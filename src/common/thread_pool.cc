#include "common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

namespace quiver {

ThreadPool::ThreadPool(size_t threads) {
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

ThreadPool* ThreadPool::Cpu() {
  // Leaked on purpose: workers must outlive every static that might still submit work at exit.
  static ThreadPool* pool = new ThreadPool(
      std::max<size_t>(1, static_cast<size_t>(std::thread::hardware_concurrency())) - 1);
  return pool;
}

void ThreadPool::Submit(std::function<void()> job) {
  {
    MutexLock lock(&mu_);
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> job;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) mu_.Await(cv_);
      if (queue_.empty()) return;  // stopping, and drained
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

Status ThreadPool::ParallelFor(size_t n, const std::function<Status(size_t)>& task) {
  if (n == 0) return Status::OK();
  if (n == 1 || workers_.empty()) {
    for (size_t i = 0; i < n; ++i) QV_RETURN_IF_ERROR(task(i));
    return Status::OK();
  }
  // Shared with the helpers, which may still be queued after the caller returns (they then find
  // no task left and touch nothing but this block).
  struct Shared {
    std::atomic<size_t> next{0};
    Mutex mu;
    size_t done GUARDED_BY(mu) = 0;
    std::condition_variable cv;
    std::vector<Status> results;
    const std::function<Status(size_t)>* task = nullptr;
    size_t n = 0;
  };
  auto shared = std::make_shared<Shared>();
  shared->results.resize(n);
  shared->task = &task;
  shared->n = n;
  auto drain = [](Shared& s) {
    size_t ran = 0;
    for (size_t i = s.next.fetch_add(1); i < s.n; i = s.next.fetch_add(1)) {
      s.results[i] = (*s.task)(i);
      ++ran;
    }
    if (ran > 0) {
      MutexLock lock(&s.mu);
      s.done += ran;
      if (s.done == s.n) s.cv.notify_all();
    }
  };
  const size_t helpers = std::min(workers_.size(), n - 1);
  for (size_t h = 0; h < helpers; ++h) Submit([shared, drain] { drain(*shared); });
  drain(*shared);
  {
    MutexLock lock(&shared->mu);
    while (shared->done != shared->n) shared->mu.Await(shared->cv);
  }
  for (Status& s : shared->results) {
    if (!s.ok()) return std::move(s);
  }
  return Status::OK();
}

}  // namespace quiver
