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

namespace {

// "YYYY-MM-DDTHH:MM:SS.<fraction>Z" with `digits` fractional digits (3 or 9), rounding down.
std::string FormatUtc(int64_t unix_nanos, int digits) {
  const int64_t unit = digits == 3 ? 1'000'000 : 1;
  // Round down to whole units before splitting, so that times before 1970 format correctly.
  int64_t units = unix_nanos / unit;
  if (unix_nanos % unit < 0) --units;
  const int64_t per_second = 1'000'000'000 / unit;
  int64_t secs = units / per_second;
  int64_t fraction = units % per_second;
  if (fraction < 0) {
    fraction += per_second;
    secs -= 1;
  }
  time_t t = static_cast<time_t>(secs);
  tm utc;
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:0{}}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction,
                     digits);
}

}  // namespace

std::string FormatIso8601Millis(int64_t unix_nanos) { return FormatUtc(unix_nanos, 3); }

std::string FormatRfc3339Nanos(int64_t unix_nanos) { return FormatUtc(unix_nanos, 9); }

}  // namespace quiver
