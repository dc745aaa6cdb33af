#include "common/clock.h"

#include <ctime>
#include <thread>

#include <fmt/format.h>

namespace quiver {

Clock* Clock::Real() {
  static SystemClock* clock = new SystemClock();
  return clock;
}

int64_t SystemClock::NowNanos() const {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

int64_t SystemClock::MonotonicNanos() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void SystemClock::SleepFor(Duration d) {
  if (d.count() > 0) std::this_thread::sleep_for(d);
}

std::string FormatIso8601Millis(int64_t unix_nanos) {
  // Floor (not truncate) to whole milliseconds, so instants before the epoch stay before it.
  int64_t total_millis = unix_nanos / 1'000'000;
  if (unix_nanos % 1'000'000 < 0) total_millis -= 1;
  int64_t secs = total_millis / 1000;
  int64_t millis = total_millis % 1000;
  if (millis < 0) {
    millis += 1000;
    secs -= 1;
  }
  time_t t = static_cast<time_t>(secs);
  tm utc;
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

}  // namespace quiver
