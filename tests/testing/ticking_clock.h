// Test support: a clock that moves 1 ms every time it is read, so that a deadline of n ms
// passes after about n reads (deadline tests without sleeps or real time).
// Thread-safety: safe to read from any thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/clock.h"

namespace quiver::testing {

class TickingClock final : public Clock {
 public:
  explicit TickingClock(int64_t start_nanos = 0) : now_(start_nanos) {}
  int64_t NowNanos() const override { return Tick(); }
  int64_t MonotonicNanos() const override { return Tick(); }
  void SleepFor(Duration) override {}

 private:
  int64_t Tick() const { return now_.fetch_add(1'000'000) + 1'000'000; }
  mutable std::atomic<int64_t> now_;
};

}  // namespace quiver::testing
