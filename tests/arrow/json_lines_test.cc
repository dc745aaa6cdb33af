// Tests for arrow/json_lines.h: every rendering rule (integers around ±2^53, floats, escaping,
// base64, dates and timestamps before 1970 and in far years, time zone kinds, decimal scales,
// nesting with nulls at every level) and WriteJsonLines itself.
#include "arrow/json_lines.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/base64.h"
#include "must.h"

namespace quiver::arrow {
namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

using testing::Must;

// The JSON of each row of a one-column array.
template <typename T>
std::vector<std::string> JsonOf(const DataType& type, std::vector<T> values,
                                std::vector<bool> valid = {}) {
  auto a = Must(MakeFixedArray<T>(type, values, valid));
  EXPECT_TRUE(Validate(*a).ok());
  std::vector<std::string> out;
  for (int64_t i = 0; i < a->length; ++i) out.push_back(ValueToJson(*a, i));
  return out;
}

std::vector<std::string> JsonOf(const ArrayPtr& a) {
  EXPECT_TRUE(Validate(*a).ok()) << Validate(*a).ToString();
  std::vector<std::string> out;
  for (int64_t i = 0; i < a->length; ++i) out.push_back(ValueToJson(*a, i));
  return out;
}

using JsonTexts = std::vector<std::string>;

ArrayPtr Utf8(std::vector<std::string> v, std::vector<bool> valid = {}) {
  return Must(MakeBinaryArray(DataType::Utf8(), v, valid));
}
ArrayPtr Int32s(std::vector<int32_t> v, std::vector<bool> valid = {}) {
  return Must(MakeFixedArray<int32_t>(DataType::Int32(), v, valid));
}

std::string Decimal(Int128 v, int32_t scale) {
  return FormatDecimal128(std::string_view(reinterpret_cast<const char*>(&v), sizeof(v)), scale);
}

Int128 ParseInt128(const std::string& digits) {
  Int128 v = 0;
  bool negative = digits[0] == '-';
  for (char c : digits.substr(negative ? 1 : 0)) v = v * 10 + (c - '0');
  return negative ? -v : v;
}

constexpr int64_t k2p53 = int64_t{1} << 53;

// ---------------------------------------------------------------- integers, bools, nulls

TEST(JsonLines, SmallIntegersAreNumbers) {
  EXPECT_EQ(JsonOf<int8_t>(DataType::Int8(), {-128, 0, 127}), (JsonTexts{"-128", "0", "127"}));
  EXPECT_EQ(JsonOf<uint8_t>(DataType::UInt8(), {0, 255}), (JsonTexts{"0", "255"}));
  EXPECT_EQ(JsonOf<int16_t>(DataType::Int16(), {-32768, 32767}), (JsonTexts{"-32768", "32767"}));
  EXPECT_EQ(JsonOf<uint16_t>(DataType::UInt16(), {65535}), (JsonTexts{"65535"}));
  EXPECT_EQ(
      JsonOf<int32_t>(DataType::Int32(), {std::numeric_limits<int32_t>::min(), 7}, {true, false}),
      (JsonTexts{"-2147483648", "null"}));
  EXPECT_EQ(JsonOf<uint32_t>(DataType::UInt32(), {4294967295u}), (JsonTexts{"4294967295"}));
}

TEST(JsonLines, SixtyFourBitIntegersBeyond2To53AreStrings) {
  EXPECT_EQ(JsonOf<int64_t>(DataType::Int64(), {0, k2p53 - 1, k2p53, k2p53 + 1, -k2p53, -k2p53 - 1,
                                                std::numeric_limits<int64_t>::max(),
                                                std::numeric_limits<int64_t>::min()}),
            (JsonTexts{"0", "9007199254740991", "9007199254740992", "\"9007199254740993\"",
                       "-9007199254740992", "\"-9007199254740993\"", "\"9223372036854775807\"",
                       "\"-9223372036854775808\""}));
  EXPECT_EQ(
      JsonOf<uint64_t>(
          DataType::UInt64(),
          {0, uint64_t{k2p53}, uint64_t{k2p53} + 1, std::numeric_limits<uint64_t>::max()},
          {true, true, true, true}),
      (JsonTexts{"0", "9007199254740992", "\"9007199254740993\"", "\"18446744073709551615\""}));
}

TEST(JsonLines, BoolsAndNulls) {
  EXPECT_EQ(JsonOf(Must(MakeBoolArray({true, false, true}, {true, true, false}))),
            (JsonTexts{"true", "false", "null"}));
  EXPECT_EQ(JsonOf(Must(MakeNullArray(DataType::Null(), 2))), (JsonTexts{"null", "null"}));
}

// ---------------------------------------------------------------- floats

TEST(JsonLines, DoublesUseShortestDigitsInEcmaScriptLayout) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1.0), "1");
  EXPECT_EQ(FormatDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatDouble(100), "100");
  EXPECT_EQ(FormatDouble(123.456), "123.456");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDouble(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(FormatDouble(1e20), "100000000000000000000");
  EXPECT_EQ(FormatDouble(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(FormatDouble(1e21), "1e+21");
  EXPECT_EQ(FormatDouble(1.5e21), "1.5e+21");
  EXPECT_EQ(FormatDouble(0.000001), "0.000001");
  EXPECT_EQ(FormatDouble(0.0000012345), "0.0000012345");
  EXPECT_EQ(FormatDouble(1e-7), "1e-7");
  EXPECT_EQ(FormatDouble(-1.5e-7), "-1.5e-7");
  EXPECT_EQ(FormatDouble(5e-324), "5e-324");
  EXPECT_EQ(FormatDouble(DBL_MAX), "1.7976931348623157e+308");
  EXPECT_EQ(FormatDouble(-0.0), "-0");
  EXPECT_EQ(FormatDouble(0.0), "0");
}

TEST(JsonLines, FloatsUseTheirOwnPrecision) {
  EXPECT_EQ(FormatFloat(0.1f), "0.1");  // not 0.10000000149011612
  EXPECT_EQ(FormatFloat(3.14159f), "3.14159");
  EXPECT_EQ(FormatFloat(16777216.0f), "16777216");
  EXPECT_EQ(FormatFloat(FLT_MAX), "3.4028235e+38");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(FormatFloat(-0.0f), "-0");
}

TEST(JsonLines, NonFiniteFloatsAreStrings) {
  EXPECT_EQ(JsonOf<double>(DataType::Float64(), {NAN, INFINITY, -INFINITY, 1.5, 0},
                           {true, true, true, true, false}),
            (JsonTexts{"\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "1.5", "null"}));
  EXPECT_EQ(JsonOf<float>(DataType::Float32(), {-NAN, INFINITY, -INFINITY, 0.1f, -0.0f}),
            (JsonTexts{"\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "0.1", "-0"}));
}

TEST(JsonLines, HalfFloatsWidenToFloat) {
  EXPECT_EQ(JsonOf<uint16_t>(DataType::Float16(), {0x3C00, 0xC000, 0x3555, 0x7BFF, 0x0001, 0x8000,
                                                   0x7E00, 0x7C00, 0xFC00}),
            (JsonTexts{"1", "-2", "0.33325195", "65504", "5.9604645e-8", "-0", "\"NaN\"",
                       "\"Infinity\"", "\"-Infinity\""}));
}

// ---------------------------------------------------------------- strings and binary

TEST(JsonLines, StringsAreEscaped) {
  const std::string raw = std::string("a\"b\\c\nd\te") + '\x01' + "f\x1f\x7f" +
                          "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e" + "\b\f\r/" + std::string(1, '\0');
  const std::string json =
      "\"a\\\"b\\\\c\\nd\\te\\u0001f\\u001f\x7f"
      "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\\b\\f\\r/\\u0000\"";
  EXPECT_EQ(JsonOf(Utf8({raw, "", "x"}, {true, true, false})), (JsonTexts{json, "\"\"", "null"}));
  EXPECT_EQ(JsonOf(Must(MakeBinaryArray(DataType::LargeUtf8(), {raw}))), (JsonTexts{json}));
}

TEST(JsonLines, InvalidUtf8BecomesReplacementCharacters) {
  // Only reachable with unvalidated data or field names; the output must stay valid JSON.
  std::string out;
  AppendJsonString(
      "a\xff"
      "b\xc0\xaf"
      "c\xed\xa0\x80"
      "d\xe2\x82",
      &out);
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(out,
            "\"a" + fffd + "b" + fffd + fffd + "c" + fffd + fffd + fffd + "d" + fffd + fffd + "\"");
}

TEST(JsonLines, BinaryIsPaddedBase64) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("\xfb\xff"), "+/8=");  // the standard alphabet, not base64url
  const std::vector<std::string> values = {"", "f", "foobar", std::string("\0\xfb\xff", 3)};
  const JsonTexts expected = {"\"\"", "\"Zg==\"", "\"Zm9vYmFy\"", "\"APv/\""};
  EXPECT_EQ(JsonOf(Must(MakeBinaryArray(DataType::Binary(), values))), expected);
  EXPECT_EQ(JsonOf(Must(MakeBinaryArray(DataType::LargeBinary(), values))), expected);
  EXPECT_EQ(JsonOf(Must(MakeBinaryArray(DataType::FixedSizeBinary(3),
                                        {"foo", std::string("\xfb\xff\x00", 3)}, {true, true}))),
            (JsonTexts{"\"Zm9v\"", "\"+/8A\""}));
  EXPECT_EQ(
      JsonOf(Must(MakeBinaryArray(DataType::FixedSizeBinary(2), {"ab", "cd"}, {false, true}))),
      (JsonTexts{"null", "\"Y2Q=\""}));
}

// ---------------------------------------------------------------- dates and timestamps

// An independent day counter: walk the proleptic Gregorian calendar one day at a time.
struct Calendar {
  int64_t y = 1970;
  int m = 1, d = 1;
  static bool Leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
  int MonthDays() const {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && Leap(y) ? 29 : kDays[m - 1];
  }
  void Next() {
    if (++d <= MonthDays()) return;
    d = 1;
    if (++m > 12) {
      m = 1;
      ++y;
    }
  }
  void Prev() {
    if (--d > 0) return;
    if (--m == 0) {
      m = 12;
      --y;
    }
    d = MonthDays();
  }
  std::string ToString() const {
    char buf[40];
    if (y >= 0 && y <= 9999) {
      std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(y), m, d);
    } else {
      std::snprintf(buf, sizeof(buf), "%c%06lld-%02d-%02d", y < 0 ? '-' : '+',
                    static_cast<long long>(y < 0 ? -y : y), m, d);
    }
    return buf;
  }
};

TEST(JsonLines, DatesMatchADayByDayCalendar) {
  // Forwards to year 10001 and backwards to year -2, checking a sample of days plus every
  // month's first and last days (where an off-by-one would show).
  Calendar up;
  for (int64_t day = 0; day <= 2933262; ++day, up.Next()) {
    if (day % 17 == 0 || up.d <= 1 || up.d >= 28) {
      ASSERT_EQ(FormatDate(day), up.ToString()) << day;
    }
  }
  Calendar down;
  for (int64_t day = 0; day >= -720624; --day, down.Prev()) {
    if (day % 17 == 0 || down.d <= 1 || down.d >= 28) {
      ASSERT_EQ(FormatDate(day), down.ToString()) << day;
    }
  }
}

TEST(JsonLines, DateAnchors) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(-165), "1969-07-20");
  EXPECT_EQ(FormatDate(-25567), "1900-01-01");
  EXPECT_EQ(FormatDate(11016), "2000-02-29");
  EXPECT_EQ(FormatDate(-141427), "1582-10-15");
  EXPECT_EQ(FormatDate(-719162), "0001-01-01");
  EXPECT_EQ(FormatDate(-719528), "0000-01-01");  // year 0 = 1 BC, a leap year
  EXPECT_EQ(FormatDate(-719469), "0000-02-29");
  EXPECT_EQ(FormatDate(-719529), "-000001-12-31");
  EXPECT_EQ(FormatDate(2932896), "9999-12-31");
  EXPECT_EQ(FormatDate(2932897), "+010000-01-01");
  // The ends of date32: 2^31 days is about 5.9 million years.
  EXPECT_EQ(FormatDate(std::numeric_limits<int32_t>::max()), "+5881580-07-11");
  EXPECT_EQ(FormatDate(std::numeric_limits<int32_t>::min()), "-5877641-06-23");
  EXPECT_EQ(JsonOf<int32_t>(DataType::Date32(), {0, -1, 1}, {true, true, false}),
            (JsonTexts{"\"1970-01-01\"", "\"1969-12-31\"", "null"}));
}

TEST(JsonLines, Date64IsAUtcInstantWithMilliseconds) {
  EXPECT_EQ(JsonOf<int64_t>(DataType::Date64(), {0, -1, 951782400000, -62167219200000, 86400000},
                            {true, true, true, true, false}),
            (JsonTexts{"\"1970-01-01T00:00:00.000Z\"", "\"1969-12-31T23:59:59.999Z\"",
                       "\"2000-02-29T00:00:00.000Z\"", "\"0000-01-01T00:00:00.000Z\"", "null"}));
}

TEST(JsonLines, TimestampUnitsSetTheFraction) {
  EXPECT_EQ(FormatTimestamp(1614834367, TimeUnit::kSecond, "UTC"), "2021-03-04T05:06:07Z");
  EXPECT_EQ(FormatTimestamp(1614834367123, TimeUnit::kMilli, "UTC"), "2021-03-04T05:06:07.123Z");
  EXPECT_EQ(FormatTimestamp(1614834367123456, TimeUnit::kMicro, "UTC"),
            "2021-03-04T05:06:07.123456Z");
  EXPECT_EQ(FormatTimestamp(1614834367123456789, TimeUnit::kNano, "UTC"),
            "2021-03-04T05:06:07.123456789Z");
  EXPECT_EQ(FormatTimestamp(5, TimeUnit::kMilli, "UTC"), "1970-01-01T00:00:00.005Z");
  EXPECT_EQ(FormatTimestamp(5, TimeUnit::kNano, ""), "1970-01-01T00:00:00.000000005");
}

TEST(JsonLines, TimestampsBefore1970) {
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kSecond, "UTC"), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatTimestamp(-1500, TimeUnit::kMilli, "UTC"), "1969-12-31T23:59:58.500Z");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kMicro, ""), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kNano, ""), "1969-12-31T23:59:59.999999999");
  EXPECT_EQ(FormatTimestamp(-14182940, TimeUnit::kSecond, "UTC"), "1969-07-20T20:17:40Z");
  EXPECT_EQ(FormatTimestamp(-62135596800, TimeUnit::kSecond, "UTC"), "0001-01-01T00:00:00Z");
  EXPECT_EQ(FormatTimestamp(-62167219201, TimeUnit::kSecond, "UTC"), "-000001-12-31T23:59:59Z");
}

TEST(JsonLines, TimestampExtremes) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(FormatTimestamp(max, TimeUnit::kNano, "UTC"), "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(FormatTimestamp(min, TimeUnit::kNano, "UTC"), "1677-09-21T00:12:43.145224192Z");
  EXPECT_EQ(FormatTimestamp(max, TimeUnit::kSecond, "UTC"), "+292277026596-12-04T15:30:07Z");
  EXPECT_EQ(FormatTimestamp(min, TimeUnit::kSecond, "UTC"), "-292277022657-01-27T08:29:52Z");
  // An offset applied at the ends of int64 carries into the day instead of overflowing.
  EXPECT_EQ(FormatTimestamp(max, TimeUnit::kSecond, "+14:00"),
            "+292277026596-12-05T05:30:07+14:00");
  EXPECT_EQ(FormatTimestamp(min, TimeUnit::kSecond, "-12:00"),
            "-292277022657-01-26T20:29:52-12:00");
}

TEST(JsonLines, TimestampTimeZoneKinds) {
  const int64_t t = 1614834367;  // 2021-03-04T05:06:07Z
  // Naive: the stored wall time, no suffix.
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, ""), "2021-03-04T05:06:07");
  // UTC and its spellings.
  for (const char* utc :
       {"UTC", "Etc/UTC", "Z", "GMT", "Etc/GMT", "+00:00", "-00:00", "+0000", "+00"}) {
    EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, utc), "2021-03-04T05:06:07Z") << utc;
  }
  // Fixed offsets: local time plus the offset, normalized to ±HH:MM.
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "+05:30"), "2021-03-04T10:36:07+05:30");
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "+0530"), "2021-03-04T10:36:07+05:30");
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "+05"), "2021-03-04T10:06:07+05:00");
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "-08:00"), "2021-03-03T21:06:07-08:00");
  EXPECT_EQ(FormatTimestamp(0, TimeUnit::kMilli, "-01:00"), "1969-12-31T23:00:00.000-01:00");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kNano, "+23:59"), "1970-01-01T23:58:59.999999999+23:59");
  // Named zones other than UTC: the instant in UTC (no tz database).
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "America/New_York"), "2021-03-04T05:06:07Z");
  EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, "Asia/Kolkata"), "2021-03-04T05:06:07Z");
  // Malformed offsets are not guessed at: UTC as well.
  for (const char* odd : {"+25:00", "+05:60", "+5:30", "+05:3", "-", "+05:30:00"}) {
    EXPECT_EQ(FormatTimestamp(t, TimeUnit::kSecond, odd), "2021-03-04T05:06:07Z") << odd;
  }
  EXPECT_EQ(JsonOf<int64_t>(DataType::Timestamp(TimeUnit::kMicro, "+05:30"), {0, 0}, {true, false}),
            (JsonTexts{"\"1970-01-01T05:30:00.000000+05:30\"", "null"}));
}

// ---------------------------------------------------------------- decimals

TEST(JsonLines, DecimalsKeepExactlyScaleDigits) {
  EXPECT_EQ(Decimal(123, 0), "123");
  EXPECT_EQ(Decimal(-123450, 3), "-123.450");
  EXPECT_EQ(Decimal(123450, 3), "123.450");
  EXPECT_EQ(Decimal(5, 2), "0.05");
  EXPECT_EQ(Decimal(-5, 2), "-0.05");
  EXPECT_EQ(Decimal(100, 2), "1.00");
  EXPECT_EQ(Decimal(0, 0), "0");
  EXPECT_EQ(Decimal(0, 2), "0.00");
  EXPECT_EQ(Decimal(12, -2), "1200");
  EXPECT_EQ(Decimal(-12, -3), "-12000");
  EXPECT_EQ(Decimal(0, -2), "0");
  const std::string nines(38, '9');
  EXPECT_EQ(Decimal(ParseInt128(nines), 0), nines);
  EXPECT_EQ(Decimal(ParseInt128("-" + nines), 0), "-" + nines);
  EXPECT_EQ(Decimal(ParseInt128(nines), 38), "0." + nines);
  EXPECT_EQ(Decimal(ParseInt128("-" + nines), 10),
            "-" + nines.substr(0, 28) + "." + nines.substr(28));
  EXPECT_EQ(Decimal(1, 38), "0." + std::string(37, '0') + "1");
  // The ends of the 128-bit range, beyond decimal128(38)'s but still representable.
  const auto max = static_cast<Int128>(~UInt128{0} >> 1);
  EXPECT_EQ(Decimal(max, 0), "170141183460469231731687303715884105727");
  EXPECT_EQ(Decimal(-max - 1, 0), "-170141183460469231731687303715884105728");
  EXPECT_EQ(Decimal(-max - 1, 5), "-1701411834604692317316873037158841.05728");
  EXPECT_EQ(JsonOf<Int128>(DataType::Decimal128(38, 9), {-123450, 0}, {true, false}),
            (JsonTexts{"\"-0.000123450\"", "null"}));
}

// ---------------------------------------------------------------- nested types

TEST(JsonLines, ListsOfStructsWithNullsAtEveryLevel) {
  // list<struct<a: int32, b: list<utf8>>>:
  //   row 0: null list; row 1: empty list;
  //   row 2: [null struct, {a: null, b: null}, {a: 1, b: []}, {a: 2, b: ["x", null, "y\"z"]}]
  const DataType b_type = DataType::List(Field("item", DataType::Utf8()));
  const DataType st = DataType::Struct({Field("a", DataType::Int32()), Field("b", b_type)});
  const DataType type = DataType::List(Field("item", st));
  auto strings = Utf8({"x", "", "y\"z"}, {true, false, true});
  auto b = Must(MakeListArray(b_type, {0, 0, 0, 0, 3}, strings, {true, false, true, true}));
  auto a = Int32s({0, 0, 1, 2}, {true, false, true, true});
  auto s = Must(MakeStructArray(st, 4, {a, b}, {false, true, true, true}));
  auto list = Must(MakeListArray(type, {0, 0, 0, 4}, s, {false, true, true}));
  EXPECT_EQ(JsonOf(list), (JsonTexts{"null", "[]",
                                     "[null,{\"a\":null,\"b\":null},{\"a\":1,\"b\":[]},"
                                     "{\"a\":2,\"b\":[\"x\",null,\"y\\\"z\"]}]"}));
  // The same through slices: rows 1..2, and a struct sliced to its last two rows.
  EXPECT_EQ(JsonOf(Slice(list, 1, 2))[1], JsonOf(list)[2]);
  EXPECT_EQ(JsonOf(Slice(s, 2, 2)),
            (JsonTexts{"{\"a\":1,\"b\":[]}", "{\"a\":2,\"b\":[\"x\",null,\"y\\\"z\"]}"}));
}

// A map is its entries: duplicate and non-string keys survive, which a JSON object would lose.
TEST(JsonLines, MapsAreArraysOfKeyValueObjects) {
  const DataType entries_type =
      DataType::Struct({Field("key", DataType::Int32(), false), Field("value", DataType::Utf8())});
  const DataType type = DataType::Map(Field("entries", entries_type, false));
  auto entries = Must(MakeStructArray(
      entries_type, 3, {Int32s({7, 7, -1}), Utf8({"a", "", "b"}, {true, false, true})}));
  auto maps = Must(MakeListArray(type, {0, 0, 0, 2, 3}, entries, {false, true, true, true}));
  EXPECT_EQ(JsonOf(maps),
            (JsonTexts{"null", "[]", "[{\"key\":7,\"value\":\"a\"},{\"key\":7,\"value\":null}]",
                       "[{\"key\":-1,\"value\":\"b\"}]"}));
  EXPECT_EQ(JsonOf(Slice(maps, 3, 1))[0], JsonOf(maps)[3]);
}

TEST(JsonLines, OtherListKindsStructsAndDictionaries) {
  const Field item("item", DataType::Int32());
  auto items = Int32s({1, 2, 3, 4, 5, 6}, {true, true, true, false, true, true});
  EXPECT_EQ(JsonOf(Must(MakeListArray(DataType::LargeList(item), {0, 2, 6}, items))),
            (JsonTexts{"[1,2]", "[3,null,5,6]"}));
  auto fsl =
      Must(MakeFixedSizeListArray(DataType::FixedSizeList(item, 3), 2, items, {true, false}));
  EXPECT_EQ(JsonOf(fsl), (JsonTexts{"[1,2,3]", "null"}));
  auto fsl2 = Must(MakeFixedSizeListArray(DataType::FixedSizeList(item, 2), 3, items));
  EXPECT_EQ(JsonOf(Slice(fsl2, 1, 2)), (JsonTexts{"[3,null]", "[5,6]"}));
  // Member names are escaped keys; an empty struct is {}.
  const DataType st =
      DataType::Struct({Field("we\"ird", DataType::Bool()), Field("", DataType::Null())});
  auto s = Must(MakeStructArray(
      st, 2, {Must(MakeBoolArray({true, false})), Must(MakeNullArray(DataType::Null(), 2))}));
  EXPECT_EQ(JsonOf(s),
            (JsonTexts{"{\"we\\\"ird\":true,\"\":null}", "{\"we\\\"ird\":false,\"\":null}"}));
  EXPECT_EQ(JsonOf(Must(MakeStructArray(DataType::Struct({}), 1, {}))), (JsonTexts{"{}"}));
  // Dictionaries render the selected value; a null index and a null value are both null.
  const DataType dict_type = DataType::Dictionary(TypeId::kUInt8, DataType::Utf8());
  auto dict = Must(MakeDictionaryArray(
      dict_type,
      Must(MakeFixedArray<uint8_t>(DataType::UInt8(), {1, 0, 2, 1}, {true, true, true, false})),
      Utf8({"red", "blue", ""}, {true, true, false})));
  EXPECT_EQ(JsonOf(dict), (JsonTexts{"\"blue\"", "\"red\"", "null", "null"}));
  const DataType dec_dict = DataType::Dictionary(TypeId::kInt16, DataType::Decimal128(5, 2));
  auto dd =
      Must(MakeDictionaryArray(dec_dict, Must(MakeFixedArray<int16_t>(DataType::Int16(), {0})),
                               Must(MakeFixedArray<Int128>(DataType::Decimal128(5, 2), {-1}))));
  EXPECT_EQ(JsonOf(dd), (JsonTexts{"\"-0.01\""}));
}

TEST(JsonLines, NullArraysOfNestedTypes) {
  const DataType type =
      DataType::Struct({Field("l", DataType::List(Field("item", DataType::Int32()))),
                        Field("d", DataType::Dictionary(TypeId::kInt32, DataType::Utf8()))});
  EXPECT_EQ(JsonOf(Must(MakeNullArray(type, 2))), (JsonTexts{"null", "null"}));
}

// ---------------------------------------------------------------- WriteJsonLines

std::shared_ptr<Schema> MakeSchema(std::vector<Field> fields) {
  auto schema = std::make_shared<Schema>();
  schema->fields = std::move(fields);
  return schema;
}

TEST(WriteJsonLines, OneObjectPerRowInSchemaOrder) {
  auto schema = MakeSchema({Field("id", DataType::Int64(), false), Field("name", DataType::Utf8()),
                            Field("a\"key\n", DataType::Float64()),
                            Field("ts", DataType::Timestamp(TimeUnit::kMilli, "UTC"))});
  RecordBatch batch{schema,
                    3,
                    {Must(MakeFixedArray<int64_t>(DataType::Int64(), {1, k2p53 + 1, -3})),
                     Utf8({"alice", "bob", ""}, {true, false, true}),
                     Must(MakeFixedArray<double>(DataType::Float64(), {0.5, NAN, -0.0})),
                     Must(MakeFixedArray<int64_t>(schema->fields[3].type, {0, -1, 1000}))}};
  std::string out = "previous\n";
  ASSERT_TRUE(WriteJsonLines(batch, &out).ok());
  EXPECT_EQ(
      out,
      "previous\n"
      "{\"id\":1,\"name\":\"alice\",\"a\\\"key\\n\":0.5,\"ts\":\"1970-01-01T00:00:00.000Z\"}\n"
      "{\"id\":\"9007199254740993\",\"name\":null,\"a\\\"key\\n\":\"NaN\","
      "\"ts\":\"1969-12-31T23:59:59.999Z\"}\n"
      "{\"id\":-3,\"name\":\"\",\"a\\\"key\\n\":-0,\"ts\":\"1970-01-01T00:00:01.000Z\"}\n");
}

TEST(WriteJsonLines, SlicedColumnsAndNestedTopLevelValues) {
  const DataType st = DataType::Struct({Field("x", DataType::Int32())});
  auto schema =
      MakeSchema({Field("s", st), Field("n", DataType::Null()), Field("d", DataType::Date32())});
  auto s = Must(MakeStructArray(st, 4, {Int32s({1, 2, 3, 4})}, {true, true, false, true}));
  auto dates = Must(MakeFixedArray<int32_t>(DataType::Date32(), {0, 1, 2, 3}));
  RecordBatch batch{
      schema, 2, {Slice(s, 2, 2), Must(MakeNullArray(DataType::Null(), 2)), Slice(dates, 2, 2)}};
  std::string out;
  ASSERT_TRUE(WriteJsonLines(batch, &out).ok());
  EXPECT_EQ(out,
            "{\"s\":null,\"n\":null,\"d\":\"1970-01-03\"}\n"
            "{\"s\":{\"x\":4},\"n\":null,\"d\":\"1970-01-04\"}\n");
}

TEST(WriteJsonLines, EmptyBatchesWriteNothing) {
  auto schema = MakeSchema({Field("a", DataType::Int32())});
  RecordBatch batch{schema, 0, {Int32s({})}};
  std::string out;
  ASSERT_TRUE(WriteJsonLines(batch, &out).ok());
  EXPECT_EQ(out, "");
  RecordBatch no_columns{MakeSchema({}), 2, {}};
  ASSERT_TRUE(WriteJsonLines(no_columns, &out).ok());
  EXPECT_EQ(out, "{}\n{}\n");
}

TEST(WriteJsonLines, RefusesBatchesThatDoNotFitTheirSchema) {
  auto schema = MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  std::string out = "keep";
  RecordBatch missing{schema, 1, {Int32s({1})}};
  Status s = WriteJsonLines(missing, &out);
  EXPECT_TRUE(s.IsInvalidInput()) << s.ToString();
  EXPECT_NE(s.message().find("1 columns for 2 fields"), std::string::npos) << s.message();
  RecordBatch short_column{schema, 2, {Int32s({1, 2}), Utf8({"x"})}};
  s = WriteJsonLines(short_column, &out);
  EXPECT_NE(s.message().find("column b has 1 rows, the batch 2"), std::string::npos) << s.message();
  RecordBatch wrong_type{schema, 1, {Int32s({1}), Int32s({2})}};
  s = WriteJsonLines(wrong_type, &out);
  EXPECT_NE(s.message().find("column b is int32, the schema says utf8"), std::string::npos)
      << s.message();
  RecordBatch no_schema{nullptr, 0, {}};
  EXPECT_TRUE(WriteJsonLines(no_schema, &out).IsInvalidInput());
  EXPECT_EQ(out, "keep");
}

}  // namespace
}  // namespace quiver::arrow
