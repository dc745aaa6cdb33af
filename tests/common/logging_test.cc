#include "common/logging.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace quiver {
namespace {

using nlohmann::json;

constexpr int64_t kNow = 1'700'000'000'123'456'789;
constexpr std::string_view kNowText = "2023-11-14T22:13:20.123Z";

// A logger writing into `lines` with a fixed clock.
class LoggingTest : public ::testing::Test {
 protected:
  LoggingTest() : clock_(kNow) {
    logger_.SetClock(&clock_);
    logger_.SetSink([this](std::string_view line) { lines_.emplace_back(line); });
  }

  json ParseOnly() {
    EXPECT_EQ(lines_.size(), 1u);
    if (lines_.size() != 1) return json();
    return json::parse(lines_[0]);
  }

  ManualClock clock_;
  Logger logger_;
  std::vector<std::string> lines_;
};

TEST_F(LoggingTest, TextLine) {
  logger_.Log(LogLevel::kInfo, "table committed", {{"table", "users"}, {"version", 7}});
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0], std::string(kNowText) + " INFO  table committed table=users version=7");
}

TEST_F(LoggingTest, TextEscapesControlCharactersSoOneEventIsOneLine) {
  logger_.Log(LogLevel::kInfo, "line one\nline two\r\t\x01", {{"bad\nkey", "v"}});
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0].find('\n'), std::string::npos);
  EXPECT_EQ(lines_[0], std::string(kNowText) + " INFO  line one\\nline two\\r\\t\\x01 bad\\nkey=v");
}

TEST_F(LoggingTest, TextLevelsArePaddedUpperCase) {
  logger_.SetLevel(LogLevel::kDebug);
  logger_.Log(LogLevel::kDebug, "d");
  logger_.Log(LogLevel::kWarn, "w");
  logger_.Log(LogLevel::kError, "e");
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_EQ(lines_[0], std::string(kNowText) + " DEBUG d");
  EXPECT_EQ(lines_[1], std::string(kNowText) + " WARN  w");
  EXPECT_EQ(lines_[2], std::string(kNowText) + " ERROR e");
}

TEST_F(LoggingTest, TextValueTypesAndQuoting) {
  logger_.Log(LogLevel::kInfo, "m",
              {{"plain", "abc"},
               {"spaced", "a b"},
               {"quote", "say \"hi\""},
               {"empty", ""},
               {"eq", "k=v"},
               {"nl", "x\ny"},
               {"neg", -3},
               {"big", uint64_t{18'446'744'073'709'551'615u}},
               {"yes", true},
               {"no", false},
               {"half", 0.5}});
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0], std::string(kNowText) +
                           " INFO  m plain=abc spaced=\"a b\" quote=\"say \\\"hi\\\"\" empty=\"\" "
                           "eq=\"k=v\" nl=\"x\\ny\" neg=-3 big=18446744073709551615 yes=true "
                           "no=false half=0.5");
  EXPECT_EQ(lines_[0].find('\n'), std::string::npos);
}

TEST_F(LoggingTest, TimestampFollowsClock) {
  logger_.Log(LogLevel::kInfo, "a");
  clock_.Advance(std::chrono::milliseconds(1'001));
  logger_.Log(LogLevel::kInfo, "b");
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(lines_[0].substr(0, 24), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(lines_[1].substr(0, 24), "2023-11-14T22:13:21.124Z");
}

TEST_F(LoggingTest, DebugHiddenAtInfo) {
  EXPECT_FALSE(logger_.Enabled(LogLevel::kDebug));
  EXPECT_TRUE(logger_.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(logger_.Enabled(LogLevel::kWarn));
  EXPECT_TRUE(logger_.Enabled(LogLevel::kError));
  logger_.Log(LogLevel::kDebug, "hidden");
  logger_.Log(LogLevel::kInfo, "shown");
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_NE(lines_[0].find("shown"), std::string::npos);
}

TEST_F(LoggingTest, WarnLevelHidesInfo) {
  logger_.SetLevel(LogLevel::kWarn);
  logger_.Log(LogLevel::kDebug, "d");
  logger_.Log(LogLevel::kInfo, "i");
  logger_.Log(LogLevel::kWarn, "w");
  logger_.Log(LogLevel::kError, "e");
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_NE(lines_[0].find(" w"), std::string::npos);
  EXPECT_NE(lines_[1].find(" e"), std::string::npos);
}

TEST_F(LoggingTest, OffHidesEverything) {
  logger_.SetLevel(LogLevel::kOff);
  for (LogLevel l :
       {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError, LogLevel::kOff}) {
    EXPECT_FALSE(logger_.Enabled(l));
    logger_.Log(l, "x");
  }
  EXPECT_TRUE(lines_.empty());
}

TEST_F(LoggingTest, OffIsNotALevelToLogAt) {
  logger_.SetLevel(LogLevel::kDebug);
  EXPECT_FALSE(logger_.Enabled(LogLevel::kOff));
  logger_.Log(LogLevel::kOff, "x");
  EXPECT_TRUE(lines_.empty());
}

TEST_F(LoggingTest, JsonBasics) {
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kWarn, "table committed", {{"table", "users"}, {"version", 7}});
  ASSERT_EQ(lines_.size(), 1u);
  // ts, level and msg come first.
  EXPECT_EQ(lines_[0].rfind(R"({"ts":")", 0), 0u) << lines_[0];
  json j = ParseOnly();
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["ts"], kNowText);
  EXPECT_EQ(j["level"], "warn");
  EXPECT_EQ(j["msg"], "table committed");
  EXPECT_EQ(j["table"], "users");
  ASSERT_TRUE(j["version"].is_number_integer());
  EXPECT_EQ(j["version"].get<int64_t>(), 7);
  EXPECT_EQ(j.size(), 5u);
}

TEST_F(LoggingTest, JsonFieldsKeepTheirTypes) {
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kInfo, "m",
              {{"i", -42},
               {"u", uint64_t{18'446'744'073'709'551'615u}},
               {"sz", size_t{3}},
               {"b", true},
               {"f", false},
               {"d", 2.5},
               {"s", "7"}});
  json j = ParseOnly();
  ASSERT_TRUE(j["i"].is_number_integer());
  EXPECT_EQ(j["i"].get<int64_t>(), -42);
  ASSERT_TRUE(j["u"].is_number_unsigned());
  EXPECT_EQ(j["u"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE(j["sz"].is_number_integer());
  EXPECT_EQ(j["sz"].get<int64_t>(), 3);
  ASSERT_TRUE(j["b"].is_boolean());
  EXPECT_TRUE(j["b"].get<bool>());
  ASSERT_TRUE(j["f"].is_boolean());
  EXPECT_FALSE(j["f"].get<bool>());
  ASSERT_TRUE(j["d"].is_number_float());
  EXPECT_DOUBLE_EQ(j["d"].get<double>(), 2.5);
  ASSERT_TRUE(j["s"].is_string());  // a string that looks like a number stays a string
  EXPECT_EQ(j["s"], "7");
}

TEST_F(LoggingTest, JsonEscapesStrings) {
  logger_.SetFormat(LogFormat::kJson);
  const std::string tricky = "say \"hi\"\nthen\tleave \\ now";
  logger_.Log(LogLevel::kInfo, "line one\nline \"two\"", {{"v", tricky}});
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0].find('\n'), std::string::npos) << "raw newline in a JSON line";
  json j = ParseOnly();
  EXPECT_EQ(j["msg"], "line one\nline \"two\"");
  EXPECT_EQ(j["v"], tricky);
}

TEST_F(LoggingTest, JsonNonFiniteDoubleIsStillValidJson) {
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kInfo, "m", {{"inf", std::numeric_limits<double>::infinity()}});
  json j = ParseOnly();
  EXPECT_TRUE(j["inf"].is_string());
}

TEST_F(LoggingTest, JsonInvalidUtf8IsReplacedNotThrown) {
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kInfo, "bad \xff byte", {{"v", "\xc3"}});
  json j = ParseOnly();
  EXPECT_TRUE(j["msg"].is_string());
}

TEST_F(LoggingTest, JsonReservedKeysAreRenamed) {
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kError, "real message",
              {{"msg", "field message"}, {"ts", 1}, {"level", "fake"}});
  json j = ParseOnly();
  EXPECT_EQ(j["msg"], "real message");
  EXPECT_EQ(j["_msg"], "field message");
  EXPECT_EQ(j["ts"], kNowText);
  EXPECT_EQ(j["_ts"], 1);
  EXPECT_EQ(j["level"], "error");
  EXPECT_EQ(j["_level"], "fake");
}

TEST_F(LoggingTest, FormatDoesNotWrite) {
  std::string line = logger_.Format(LogLevel::kInfo, "m", {{"k", 1}});
  EXPECT_EQ(line, std::string(kNowText) + " INFO  m k=1");
  EXPECT_TRUE(lines_.empty());
  logger_.SetFormat(LogFormat::kJson);
  json j = json::parse(logger_.Format(LogLevel::kDebug, "m", {}));
  EXPECT_EQ(j["level"], "debug");
}

TEST_F(LoggingTest, SwitchingFormatAffectsLaterLines) {
  logger_.Log(LogLevel::kInfo, "a");
  logger_.SetFormat(LogFormat::kJson);
  logger_.Log(LogLevel::kInfo, "b");
  logger_.SetFormat(LogFormat::kText);
  logger_.Log(LogLevel::kInfo, "c");
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_NE(lines_[0][0], '{');
  EXPECT_EQ(json::parse(lines_[1])["msg"], "b");
  EXPECT_NE(lines_[2][0], '{');
}

TEST_F(LoggingTest, ConcurrentLoggingWritesWholeLines) {
  logger_.SetFormat(LogFormat::kJson);
  // The sink appends byte by byte with no lock of its own: only the logger's serialisation keeps
  // lines whole (and TSan would flag a race).
  std::string out;
  logger_.SetSink([&out](std::string_view line) {
    for (char c : line) out.push_back(c);
    out.push_back('\n');
  });
  constexpr int kThreads = 4;
  constexpr int kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        logger_.Log(
            LogLevel::kInfo, "concurrent message with some length to it",
            {{"thread", t}, {"i", i}, {"pad", std::string(64, static_cast<char>('a' + t))}});
      }
    });
  }
  for (std::thread& th : threads) th.join();

  std::vector<std::vector<bool>> seen(kThreads, std::vector<bool>(kPerThread, false));
  size_t count = 0;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "output does not end in a newline";
    std::string line = out.substr(start, end - start);
    start = end + 1;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << "torn line: " << line;
    int t = j["thread"].get<int>();
    int i = j["i"].get<int>();
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, kPerThread);
    EXPECT_EQ(j["pad"], std::string(64, static_cast<char>('a' + t)));
    EXPECT_FALSE(seen[static_cast<size_t>(t)][static_cast<size_t>(i)]) << "duplicate " << line;
    seen[static_cast<size_t>(t)][static_cast<size_t>(i)] = true;
    ++count;
  }
  EXPECT_EQ(count, size_t{kThreads} * kPerThread);
}

TEST(LogLevelTest, ParseLogLevel) {
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("info"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("warning"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
  EXPECT_EQ(*ParseLogLevel("off"), LogLevel::kOff);
}

TEST(LogLevelTest, ParseLogLevelErrors) {
  for (std::string_view bad : {"", "verbose", "INFO", " info", "trace"}) {
    Result<LogLevel> r = ParseLogLevel(bad);
    ASSERT_FALSE(r.ok()) << "accepted '" << bad << "'";
    EXPECT_TRUE(r.status().IsInvalidInput());
    EXPECT_NE(r.status().message().find("'" + std::string(bad) + "'"), std::string::npos)
        << r.status().message();
  }
}

TEST(LogLevelTest, Names) {
  EXPECT_EQ(LogLevelName(LogLevel::kDebug), "debug");
  EXPECT_EQ(LogLevelName(LogLevel::kInfo), "info");
  EXPECT_EQ(LogLevelName(LogLevel::kWarn), "warn");
  EXPECT_EQ(LogLevelName(LogLevel::kError), "error");
  EXPECT_EQ(LogLevelName(LogLevel::kOff), "off");
  // Names round-trip through the parser.
  for (LogLevel l :
       {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError, LogLevel::kOff}) {
    EXPECT_EQ(*ParseLogLevel(LogLevelName(l)), l);
  }
}

TEST(LogFormatTest, ParseLogFormat) {
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  for (std::string_view bad : {"", "JSON", "yaml", "jsonl"}) {
    Result<LogFormat> r = ParseLogFormat(bad);
    ASSERT_FALSE(r.ok()) << "accepted '" << bad << "'";
    EXPECT_TRUE(r.status().IsInvalidInput());
    EXPECT_NE(r.status().message().find("'" + std::string(bad) + "'"), std::string::npos);
  }
}

TEST(DefaultLoggerTest, MacrosUseDefaultLogger) {
  Logger& logger = Logger::Default();
  EXPECT_EQ(&logger, &Logger::Default());
  ManualClock clock(kNow);
  std::vector<std::string> lines;
  logger.SetClock(&clock);
  logger.SetSink([&lines](std::string_view line) { lines.emplace_back(line); });
  logger.SetLevel(LogLevel::kInfo);
  logger.SetFormat(LogFormat::kText);

  int evaluated = 0;
  auto count = [&evaluated] { return ++evaluated; };
  QV_LOG_DEBUG("not shown", {{"n", count()}});
  QV_LOG_INFO("shown", {{"n", count()}});
  QV_LOG_WARN("warned");
  QV_LOG_ERROR("failed", {{"why", "x"}});

  logger.SetSink(nullptr);
  logger.SetClock(nullptr);

  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], std::string(kNowText) + " INFO  shown n=1");
  EXPECT_EQ(lines[1], std::string(kNowText) + " WARN  warned");
  EXPECT_EQ(lines[2], std::string(kNowText) + " ERROR failed why=x");
  // Fields of a disabled line are not even evaluated.
  EXPECT_EQ(evaluated, 1);
}

}  // namespace
}  // namespace quiver
