#include "common/clock.h"

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace quiver {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(ManualClockTest, StartsWhereTold) {
  ManualClock clock(123'456'789);
  EXPECT_EQ(clock.NowNanos(), 123'456'789);
  EXPECT_EQ(clock.MonotonicNanos(), 123'456'789);
  EXPECT_EQ(clock.NowMillis(), 123);
}

TEST(ManualClockTest, DefaultStart) {
  ManualClock clock;
  EXPECT_EQ(clock.NowNanos(), 1'700'000'000'000'000'000);
  EXPECT_EQ(clock.NowMillis(), 1'700'000'000'000);
}

TEST(ManualClockTest, Advance) {
  ManualClock clock(0);
  clock.Advance(milliseconds(5));
  EXPECT_EQ(clock.NowNanos(), 5'000'000);
  clock.Advance(nanoseconds(1));
  EXPECT_EQ(clock.NowNanos(), 5'000'001);
  EXPECT_EQ(clock.MonotonicNanos(), 5'000'001);
  clock.Advance(seconds(2));
  EXPECT_EQ(clock.NowNanos(), 2'005'000'001);
  EXPECT_EQ(clock.NowMillis(), 2005);
}

TEST(ManualClockTest, SleepForAdvancesAndReturns) {
  ManualClock clock(1'000);
  Clock& as_clock = clock;
  // An hour of "sleep" must return at once; the test would time out otherwise.
  as_clock.SleepFor(std::chrono::hours(1));
  EXPECT_EQ(clock.NowNanos(), 1'000 + int64_t{3600} * 1'000'000'000);
  as_clock.SleepFor(nanoseconds(0));
  EXPECT_EQ(clock.NowNanos(), 1'000 + int64_t{3600} * 1'000'000'000);
}

TEST(ManualClockTest, Set) {
  ManualClock clock(10);
  clock.Set(1'234'567'890'123);
  EXPECT_EQ(clock.NowNanos(), 1'234'567'890'123);
  EXPECT_EQ(clock.MonotonicNanos(), 1'234'567'890'123);
  clock.Set(5);  // may go backwards: it is a test clock
  EXPECT_EQ(clock.NowNanos(), 5);
}

TEST(ManualClockTest, ConcurrentAdvancesAreNotLost) {
  ManualClock clock(0);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&clock] {
      for (int i = 0; i < kPerThread; ++i) clock.Advance(nanoseconds(1));
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(clock.NowNanos(), int64_t{kThreads} * kPerThread);
}

TEST(SystemClockTest, MonotonicIsNonDecreasing) {
  SystemClock clock;
  int64_t prev = clock.MonotonicNanos();
  for (int i = 0; i < 10'000; ++i) {
    int64_t now = clock.MonotonicNanos();
    ASSERT_GE(now, prev);
    prev = now;
  }
}

TEST(SystemClockTest, WallClockIsPlausible) {
  SystemClock clock;
  // After 2023-11-14 and before 2100-01-01.
  EXPECT_GT(clock.NowNanos(), int64_t{1'700'000'000} * 1'000'000'000);
  EXPECT_LT(clock.NowNanos(), int64_t{4'102'444'800} * 1'000'000'000);
  EXPECT_EQ(clock.NowMillis() / 1000, clock.NowNanos() / 1'000'000'000);
}

TEST(SystemClockTest, RealIsASingleSystemClock) {
  Clock* real = Clock::Real();
  ASSERT_NE(real, nullptr);
  EXPECT_EQ(real, Clock::Real());
  EXPECT_NE(dynamic_cast<SystemClock*>(real), nullptr);
}

TEST(FormatIso8601MillisTest, Epoch) {
  EXPECT_EQ(FormatIso8601Millis(0), "1970-01-01T00:00:00.000Z");
}

TEST(FormatIso8601MillisTest, KnownInstants) {
  EXPECT_EQ(FormatIso8601Millis(1'700'000'000'123'456'789), "2023-11-14T22:13:20.123Z");
  // Sub-millisecond parts are truncated, not rounded.
  EXPECT_EQ(FormatIso8601Millis(999'999), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso8601Millis(1'999'999), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(FormatIso8601Millis(int64_t{86'399'999} * 1'000'000), "1970-01-01T23:59:59.999Z");
  // A leap day.
  EXPECT_EQ(FormatIso8601Millis(int64_t{951'782'400} * 1'000'000'000 + 7'000'000),
            "2000-02-29T00:00:00.007Z");
  // 2038-01-19T03:14:08Z, past 32-bit time_t.
  EXPECT_EQ(FormatIso8601Millis(int64_t{2'147'483'648} * 1'000'000'000),
            "2038-01-19T03:14:08.000Z");
}

TEST(FormatIso8601MillisTest, BeforeEpochFloors) {
  EXPECT_EQ(FormatIso8601Millis(-1'000'000), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIso8601Millis(-1'000'000'000), "1969-12-31T23:59:59.000Z");
  // One nanosecond before the epoch is still in 1969.
  EXPECT_EQ(FormatIso8601Millis(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIso8601Millis(-1'500'000), "1969-12-31T23:59:59.998Z");
}

TEST(FormatIso8601MillisTest, ManualClockDrivesFormatting) {
  ManualClock clock(0);
  clock.Advance(milliseconds(1'500));
  EXPECT_EQ(FormatIso8601Millis(clock.NowNanos()), "1970-01-01T00:00:01.500Z");
}

}  // namespace
}  // namespace quiver
