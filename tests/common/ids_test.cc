#include "common/ids.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace quiver {
namespace {

constexpr std::string_view kCrockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

bool IsCrockford(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return kCrockford.find(c) != std::string_view::npos; });
}

// ULIDs made in one process never go backwards, whatever clock they come from, so a test that
// wants its ManualClock's time encoded verbatim must use a time no earlier than any ULID made
// before it. Each call returns a fresh instant, later than the previous one and than the real
// clock (year 2128), well inside the 48-bit timestamp range.
int64_t FreshFutureMillis() {
  static std::atomic<int64_t> next{5'000'000'000'000};
  return next.fetch_add(1'000'000);
}

TEST(UlidTest, ShapeAndAlphabet) {
  std::string id = NewUlid();
  EXPECT_EQ(id.size(), 26u);
  EXPECT_TRUE(IsCrockford(id)) << id;
  // The first character carries only 3 bits.
  EXPECT_LE(id[0], '7') << id;
}

TEST(UlidTest, TimestampRoundTripsWithManualClock) {
  int64_t millis = FreshFutureMillis();
  ManualClock clock(millis * 1'000'000 + 999'999);  // sub-millisecond part is dropped
  std::string id = NewUlid(&clock);
  ASSERT_EQ(id.size(), 26u);
  EXPECT_TRUE(IsCrockford(id)) << id;
  Result<int64_t> ts = UlidTimestampMillis(id);
  ASSERT_TRUE(ts.ok()) << ts.status().ToString();
  EXPECT_EQ(*ts, millis);

  clock.Advance(std::chrono::milliseconds(42));
  Result<int64_t> later = UlidTimestampMillis(NewUlid(&clock));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(*later, millis + 42);
}

TEST(UlidTest, EncodesKnownTimestamp) {
  // The first 10 characters are the big-endian base32 timestamp.
  int64_t millis = FreshFutureMillis();
  ManualClock clock(millis * 1'000'000);
  std::string id = NewUlid(&clock);
  std::string expected(10, '0');
  uint64_t v = static_cast<uint64_t>(millis);
  for (int i = 9; i >= 0; --i) {
    expected[static_cast<size_t>(i)] = kCrockford[v & 31];
    v >>= 5;
  }
  EXPECT_EQ(id.substr(0, 10), expected);
}

TEST(UlidTest, SameInstantIsStrictlyIncreasingAndUnique) {
  ManualClock clock(FreshFutureMillis() * 1'000'000);
  constexpr int kCount = 10'000;
  std::vector<std::string> ids;
  ids.reserve(kCount);
  for (int i = 0; i < kCount; ++i) ids.push_back(NewUlid(&clock));
  for (size_t i = 1; i < ids.size(); ++i) {
    ASSERT_LT(ids[i - 1], ids[i]) << "at " << i;
  }
  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
  // All from the same millisecond.
  EXPECT_EQ(*UlidTimestampMillis(ids.front()), *UlidTimestampMillis(ids.back()));
}

TEST(UlidTest, ClockGoingBackwardsStillIncreases) {
  int64_t millis = FreshFutureMillis();
  ManualClock clock(millis * 1'000'000);
  std::string first = NewUlid(&clock);
  clock.Set((millis - 10) * 1'000'000);
  std::string second = NewUlid(&clock);
  EXPECT_LT(first, second);
}

TEST(UlidTest, IncreasingAcrossThreads) {
  ManualClock clock(FreshFutureMillis() * 1'000'000);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2'500;
  std::vector<std::vector<std::string>> per_thread(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&clock, &out = per_thread[static_cast<size_t>(t)]] {
      for (int i = 0; i < kPerThread; ++i) out.push_back(NewUlid(&clock));
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& ids : per_thread) {
    for (size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]);
    all.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(all.size(), size_t{kThreads} * kPerThread);
}

TEST(UlidTest, DifferentMillisecondsSortByTime) {
  int64_t millis = FreshFutureMillis();
  ManualClock clock(millis * 1'000'000);
  std::string a = NewUlid(&clock);
  clock.Advance(std::chrono::milliseconds(1));
  std::string b = NewUlid(&clock);
  EXPECT_LT(a, b);
  EXPECT_EQ(*UlidTimestampMillis(b) - *UlidTimestampMillis(a), 1);
}

TEST(UlidTimestampMillisTest, KnownValues) {
  Result<int64_t> zero = UlidTimestampMillis("00000000000000000000000000");
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, 0);
  Result<int64_t> max = UlidTimestampMillis("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(*max, (int64_t{1} << 48) - 1);
  // Example from the ULID spec.
  Result<int64_t> spec = UlidTimestampMillis("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(*spec, 1'469'922'850'259);
  // Crockford base32 is case-insensitive.
  Result<int64_t> lower = UlidTimestampMillis("01arz3ndektsv4rrffq69g5fav");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(*lower, 1'469'922'850'259);
}

TEST(UlidTimestampMillisTest, RejectsBadInput) {
  for (std::string_view bad : {
           std::string_view(""),
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FA"),    // 25 chars
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FAVX"),  // 27 chars
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FAU"),   // U is not Crockford
           std::string_view("01ARZ3NDEITSV4RRFFQ69G5FAV"),   // I in the time part
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FA-"),   // punctuation in random part
           std::string_view("01ARZ3NDEK TSV4RRFFQ69G5FA"),   // space
           std::string_view("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"),   // timestamp beyond 48 bits
       }) {
    Result<int64_t> r = UlidTimestampMillis(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    EXPECT_TRUE(r.status().IsInvalidInput()) << bad;
  }
}

TEST(UuidTest, CanonicalVersion4Variant1) {
  for (int i = 0; i < 100; ++i) {
    std::string id = NewUuidV4();
    ASSERT_EQ(id.size(), 36u) << id;
    EXPECT_TRUE(IsCanonicalUuid(id)) << id;
    EXPECT_EQ(id[8], '-');
    EXPECT_EQ(id[13], '-');
    EXPECT_EQ(id[18], '-');
    EXPECT_EQ(id[23], '-');
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string_view("89ab").find(id[19]), std::string_view::npos) << id;
    for (size_t j = 0; j < id.size(); ++j) {
      if (j == 8 || j == 13 || j == 18 || j == 23) continue;
      EXPECT_NE(std::string_view("0123456789abcdef").find(id[j]), std::string_view::npos)
          << "upper-case or non-hex in " << id;
    }
  }
}

TEST(UuidTest, TenThousandUnique) {
  std::set<std::string> ids;
  for (int i = 0; i < 10'000; ++i) ids.insert(NewUuidV4());
  EXPECT_EQ(ids.size(), 10'000u);
}

TEST(UuidTest, IsCanonicalUuidAccepts) {
  EXPECT_TRUE(IsCanonicalUuid("123e4567-e89b-12d3-a456-426614174000"));  // v1
  EXPECT_TRUE(IsCanonicalUuid("00000000-0000-0000-0000-000000000000"));
  EXPECT_TRUE(IsCanonicalUuid("ffffffff-ffff-4fff-bfff-ffffffffffff"));
  EXPECT_TRUE(IsCanonicalUuid("123E4567-E89B-12D3-A456-426614174000"));  // upper-case hex
}

TEST(UuidTest, IsCanonicalUuidRejects) {
  EXPECT_FALSE(IsCanonicalUuid(""));
  EXPECT_FALSE(IsCanonicalUuid("123e4567e89b12d3a456426614174000"));        // no dashes
  EXPECT_FALSE(IsCanonicalUuid("{123e4567-e89b-12d3-a456-426614174000}"));  // braces
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a456-42661417400"));     // short
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a456-4266141740000"));   // long
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a456-42661417400g"));    // non-hex
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a4564-26614174000"));    // dash moved
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a456_426614174000"));    // wrong separator
  EXPECT_FALSE(IsCanonicalUuid("123e4567-e89b-12d3-a456-42661417400-"));
}

TEST(RandomTest, HexLengthAndAlphabet) {
  EXPECT_EQ(RandomHex(0), "");
  for (size_t n : {size_t{1}, size_t{8}, size_t{16}, size_t{33}}) {
    std::string h = RandomHex(n);
    EXPECT_EQ(h.size(), 2 * n);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
  }
  // 128 random bits twice in a row are different.
  EXPECT_NE(RandomHex(16), RandomHex(16));
}

TEST(RandomTest, RandomBytesFillsBuffer) {
  // Chance that 64 random bytes are all zero is 2^-512.
  std::vector<unsigned char> buf(64, 0);
  RandomBytes(buf.data(), buf.size());
  EXPECT_TRUE(std::any_of(buf.begin(), buf.end(), [](unsigned char b) { return b != 0; }));
  RandomBytes(buf.data(), 0);  // no-op
}

}  // namespace
}  // namespace quiver
