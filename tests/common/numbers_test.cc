#include "common/numbers.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace quiver {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

bool Contains(const Status& s, std::string_view needle) {
  return s.message().find(needle) != std::string::npos;
}

TEST(ParseIntegerTest, AcceptsDigitsWithinRange) {
  EXPECT_EQ(*ParseInt64("0"), 0);
  EXPECT_EQ(*ParseInt64("-42"), -42);
  EXPECT_EQ(*ParseInt64("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*ParseInt64("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*ParseUint64("18446744073709551615"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(*ParseUint64("65535", 0, 65535), 65535u);
  EXPECT_EQ(*ParseInt64("5", 5, 5), 5);
}

TEST(ParseIntegerTest, RejectsWhatIsNotJustDigits) {
  for (const char* bad : {"", " 1", "1 ", "+1", "1k", "0x10", "1.0", "1e3", "--1", "-"}) {
    auto v = ParseInt64(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_TRUE(v.status().IsInvalidInput());
    EXPECT_TRUE(Contains(v.status(), "is not an integer")) << v.status().message();
  }
  EXPECT_FALSE(ParseUint64("-1").ok());
}

TEST(ParseIntegerTest, OverflowIsAnErrorNotAThrowOrAWrap) {
  for (const char* big : {"9223372036854775808", "99999999999999999999", "-9223372036854775809"}) {
    auto v = ParseInt64(big);
    ASSERT_FALSE(v.ok()) << big;
    EXPECT_TRUE(Contains(v.status(), "out of range")) << v.status().message();
  }
  auto u = ParseUint64("18446744073709551616");
  ASSERT_FALSE(u.ok());
  EXPECT_TRUE(Contains(u.status(), "out of range")) << u.status().message();
  auto narrow = ParseUint64("4294967296", 1, std::numeric_limits<uint32_t>::max());
  ASSERT_FALSE(narrow.ok());
  EXPECT_TRUE(Contains(narrow.status(), "(1..4294967295)")) << narrow.status().message();
  EXPECT_FALSE(ParseInt64("0", 1, 10).ok());
  // A long text is quoted bounded.
  auto huge = ParseUint64(std::string(100'000, '9'));
  ASSERT_FALSE(huge.ok());
  EXPECT_LT(huge.status().message().size(), 200u);
}

TEST(ParseDurationTest, Units) {
  EXPECT_EQ(*ParseDuration("7d"), hours(24 * 7));
  EXPECT_EQ(*ParseDuration("12h"), hours(12));
  EXPECT_EQ(*ParseDuration("30m"), std::chrono::minutes(30));
  EXPECT_EQ(*ParseDuration("45s"), seconds(45));
  EXPECT_EQ(*ParseDuration("45"), seconds(45));
  EXPECT_EQ(*ParseDuration("0"), Duration::zero());
  EXPECT_EQ(*ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(*ParseDuration("36525d"), kMaxDuration);
  for (const char* bad : {"", "d", "7w", "-1d", "7 d", "1.5h", "7dd", "s7"}) {
    auto v = ParseDuration(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_TRUE(Contains(v.status(), "is not a duration")) << v.status().message();
  }
}

// `quiver table cleanup --older-than 99999999999999999999d` used to end the process (stoll).
TEST(ParseDurationTest, OverflowIsAnError) {
  for (const char* big : {"99999999999999999999d", "36526d", "9223372036854775807s",
                          "9223372036854775807ms", "99999999999999999999"}) {
    auto v = ParseDuration(big);
    ASSERT_FALSE(v.ok()) << big;
    EXPECT_TRUE(v.status().IsInvalidInput());
    EXPECT_TRUE(Contains(v.status(), "is longer than 36525d")) << v.status().message();
  }
  EXPECT_FALSE(ParseDuration("2h", hours(1)).ok());
}

TEST(CheckedArithmeticTest, Overflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(CheckedAdd(1, 2), 3);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(-kMax - 1, -1), std::nullopt);
  EXPECT_EQ(CheckedMul(3, -4), -12);
  EXPECT_EQ(CheckedMul(kMax / 1000 + 1, 1000), std::nullopt);
  EXPECT_EQ(*CheckedDuration(90, seconds(1)), seconds(90));
  EXPECT_FALSE(CheckedDuration(-1, seconds(1)).ok());
  EXPECT_FALSE(CheckedDuration(kMax / 1000, seconds(1)).ok());
  EXPECT_FALSE(CheckedDuration(kMax, milliseconds(1)).ok());
}

TEST(CheckedArithmeticTest, DurationFromSeconds) {
  EXPECT_EQ(*DurationFromSeconds(1.5), milliseconds(1500));
  EXPECT_EQ(*DurationFromSeconds(0), Duration::zero());
  for (double bad : {-1.0, 1e300, std::nan(""), std::numeric_limits<double>::infinity()}) {
    auto v = DurationFromSeconds(bad);
    EXPECT_FALSE(v.ok()) << bad;
    EXPECT_TRUE(v.status().IsInvalidInput());
  }
}

}  // namespace
}  // namespace quiver
