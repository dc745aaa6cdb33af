// Logger: a small structured logger. One line per event: a level, a message and key=value
// fields, written either as readable text or as JSON Lines (one JSON object per line).
//
//   QV_LOG_INFO("table committed", {{"table", name}, {"version", 7}});
//
// text:  2026-11-29T06:55:30.123Z INFO  table committed table=users version=7
// json:  {"ts":"2026-11-29T06:55:30.123Z","level":"info","msg":"table committed",
//         "table":"users","version":7}
//
// Thread-safety: every method may be called from any thread; lines are never interleaved.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace quiver {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };
enum class LogFormat { kText, kJson };

Result<LogLevel> ParseLogLevel(std::string_view s);    // debug|info|warn|error|off
Result<LogFormat> ParseLogFormat(std::string_view s);  // text|json
std::string_view LogLevelName(LogLevel level);

// One key=value field. Values keep their type so that JSON output stays typed.
struct LogField {
  using Value = std::variant<std::string, int64_t, uint64_t, double, bool>;
  LogField(std::string_view k, std::string_view v) : key(k), value(std::string(v)) {}
  LogField(std::string_view k, const std::string& v) : key(k), value(v) {}
  LogField(std::string_view k, const char* v) : key(k), value(std::string(v)) {}
  LogField(std::string_view k, bool v) : key(k), value(v) {}
  LogField(std::string_view k, double v) : key(k), value(v) {}
  template <typename I,
            typename = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  LogField(std::string_view k, I v) : key(k) {
    if constexpr (std::is_signed_v<I>) {
      value = static_cast<int64_t>(v);
    } else {
      value = static_cast<uint64_t>(v);
    }
  }
  std::string key;
  Value value;
};

class Logger {
 public:
  using Sink = std::function<void(std::string_view line)>;  // receives the line without '\n'

  // Writes to stderr at level info in text format, timestamps from Clock::Real().
  Logger();

  // The process-wide logger used by the QV_LOG_* macros.
  static Logger& Default();

  void SetLevel(LogLevel level);
  void SetFormat(LogFormat format);
  void SetSink(Sink sink);            // nullptr restores stderr
  void SetClock(const Clock* clock);  // nullptr restores Clock::Real()

  bool Enabled(LogLevel level) const;
  void Log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields = {});

  // Formats without writing (exposed for tests and for callers that batch lines).
  std::string Format(LogLevel level, std::string_view message,
                     std::initializer_list<LogField> fields) const;

 private:
  mutable Mutex mu_;
  LogLevel level_ GUARDED_BY(mu_) = LogLevel::kInfo;
  LogFormat format_ GUARDED_BY(mu_) = LogFormat::kText;
  Sink sink_ GUARDED_BY(mu_);
  const Clock* clock_ GUARDED_BY(mu_) = nullptr;
};

}  // namespace quiver

#define QV_LOG(level, ...)                                             \
  do {                                                                 \
    ::quiver::Logger& _qv_logger = ::quiver::Logger::Default();        \
    if (_qv_logger.Enabled(level)) _qv_logger.Log(level, __VA_ARGS__); \
  } while (false)
#define QV_LOG_DEBUG(...) QV_LOG(::quiver::LogLevel::kDebug, __VA_ARGS__)
#define QV_LOG_INFO(...) QV_LOG(::quiver::LogLevel::kInfo, __VA_ARGS__)
#define QV_LOG_WARN(...) QV_LOG(::quiver::LogLevel::kWarn, __VA_ARGS__)
#define QV_LOG_ERROR(...) QV_LOG(::quiver::LogLevel::kError, __VA_ARGS__)
