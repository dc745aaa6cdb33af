// Clock: the one source of time for quiver code, injectable so that tests never sleep.
//
// SystemClock reads the real clocks; ManualClock is advanced by hand and makes SleepFor
// return immediately after advancing its own time (so time-based behaviour is deterministic).
// Thread-safety: both implementations are safe to call from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace quiver {

using Duration = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time in nanoseconds since the Unix epoch.
  virtual int64_t NowNanos() const = 0;
  // A monotonic reading in nanoseconds (arbitrary origin), for measuring intervals.
  virtual int64_t MonotonicNanos() const = 0;
  // Blocks the caller for `d` (ManualClock: advances its time by `d` and returns at once).
  virtual void SleepFor(Duration d) = 0;

  int64_t NowMillis() const { return NowNanos() / 1'000'000; }

  // The process-wide real clock.
  static Clock* Real();
};

class SystemClock final : public Clock {
 public:
  int64_t NowNanos() const override;
  int64_t MonotonicNanos() const override;
  void SleepFor(Duration d) override;
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_nanos = 1'700'000'000'000'000'000) : now_(start_nanos) {}
  int64_t NowNanos() const override { return now_.load(); }
  int64_t MonotonicNanos() const override { return now_.load(); }
  void SleepFor(Duration d) override { Advance(d); }
  void Advance(Duration d) { now_.fetch_add(d.count()); }
  void Set(int64_t nanos) { now_.store(nanos); }

 private:
  std::atomic<int64_t> now_;
};

// When work must be done by, on a clock's monotonic time (tests inject their clock). A copyable
// value; `clock` must outlive it.
struct Deadline {
  const Clock* clock = nullptr;
  int64_t at_monotonic_nanos = 0;
  Duration budget{0};  // what it was set from (error messages name it)

  static Deadline After(const Clock* clock, Duration budget) {
    return Deadline{clock, clock->MonotonicNanos() + budget.count(), budget};
  }
  bool Expired() const { return clock != nullptr && clock->MonotonicNanos() >= at_monotonic_nanos; }
};

// "2026-11-29T06:55:30.123Z" (UTC, millisecond precision).
std::string FormatIso8601Millis(int64_t unix_nanos);
// "2026-11-29T06:55:30.123456789Z" (RFC 3339 UTC, nanosecond precision, as Lance writes it).
std::string FormatRfc3339Nanos(int64_t unix_nanos);

}  // namespace quiver
