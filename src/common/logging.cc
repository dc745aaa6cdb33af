#include "common/logging.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace quiver {
namespace {

// Text values are quoted only when they would otherwise be ambiguous.
bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void AppendTextValue(std::string& out, const LogField::Value& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          // JSON string escaping is a fine, unambiguous quoting for text logs too.
          out += NeedsQuotes(x) ? nlohmann::json(x).dump(-1, ' ', false,
                                                         nlohmann::json::error_handler_t::replace)
                                : x;
        } else if constexpr (std::is_same_v<T, bool>) {
          out += x ? "true" : "false";
        } else {
          out += fmt::format("{}", x);
        }
      },
      v);
}

nlohmann::json JsonValue(const LogField::Value& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(x)) return fmt::format("{}", x);  // JSON has no NaN/Inf
        }
        return x;
      },
      v);
}

// One event is one line: control characters in a text-format message or key are escaped.
std::string EscapeControl(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Result<LogLevel> ParseLogLevel(std::string_view s) {
  if (s == "debug") return LogLevel::kDebug;
  if (s == "info") return LogLevel::kInfo;
  if (s == "warn" || s == "warning") return LogLevel::kWarn;
  if (s == "error") return LogLevel::kError;
  if (s == "off") return LogLevel::kOff;
  return Status::InvalidInput(
      fmt::format("unknown log level '{}' (expected debug, info, warn, error or off)", s));
}

Result<LogFormat> ParseLogFormat(std::string_view s) {
  if (s == "text") return LogFormat::kText;
  if (s == "json") return LogFormat::kJson;
  return Status::InvalidInput(fmt::format("unknown log format '{}' (expected text or json)", s));
}

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "unknown";
}

Logger::Logger() = default;

Logger& Logger::Default() {
  static Logger* logger = new Logger();
  return *logger;
}

void Logger::SetLevel(LogLevel level) {
  MutexLock lock(&mu_);
  level_ = level;
}
void Logger::SetFormat(LogFormat format) {
  MutexLock lock(&mu_);
  format_ = format;
}
void Logger::SetSink(Sink sink) {
  MutexLock lock(&mu_);
  sink_ = std::move(sink);
}
void Logger::SetClock(const Clock* clock) {
  MutexLock lock(&mu_);
  clock_ = clock;
}

bool Logger::Enabled(LogLevel level) const {
  MutexLock lock(&mu_);
  return level != LogLevel::kOff && level >= level_;
}

std::string Logger::Format(LogLevel level, std::string_view message,
                           std::initializer_list<LogField> fields) const {
  LogFormat format;
  const Clock* clock;
  {
    MutexLock lock(&mu_);
    format = format_;
    clock = clock_ != nullptr ? clock_ : Clock::Real();
  }
  std::string ts = FormatIso8601Millis(clock->NowNanos());
  if (format == LogFormat::kJson) {
    nlohmann::ordered_json j;
    j["ts"] = ts;
    j["level"] = LogLevelName(level);
    j["msg"] = message;
    for (const LogField& f : fields) {
      nlohmann::json v = JsonValue(f.value);
      // Reserved keys keep their meaning; a clashing field is renamed rather than dropped.
      std::string key = (f.key == "ts" || f.key == "level" || f.key == "msg") ? "_" + f.key : f.key;
      j[key] = v;
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string level_name(LogLevelName(level));
  for (char& c : level_name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format("{} {:<5} {}", ts, level_name, EscapeControl(message));
  for (const LogField& f : fields) {
    out += ' ';
    out += EscapeControl(f.key);
    out += '=';
    AppendTextValue(out, f.value);
  }
  return out;
}

void Logger::Log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields) {
  if (!Enabled(level)) return;
  std::string line = Format(level, message, fields);
  MutexLock lock(&mu_);
  if (sink_) {
    sink_(line);
  } else {
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
}

}  // namespace quiver
