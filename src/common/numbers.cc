#include "common/numbers.h"

#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace quiver {

namespace {

// The text as an error message quotes it: bounded, so that a megabyte argument does not become
// a megabyte message.
std::string Quoted(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return fmt::format("'{}'", text);
  return fmt::format("'{}...'", text.substr(0, kMax));
}

template <typename T>
Result<T> ParseInteger(std::string_view text, T min, T max) {
  T value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return Status::InvalidInput(fmt::format("{} is not an integer", Quoted(text)));
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return Status::InvalidInput(fmt::format("{} is out of range ({}..{})", Quoted(text), min, max));
  }
  return value;
}

std::string DescribeDuration(Duration d) {
  using std::chrono::duration_cast;
  if (d % std::chrono::hours(24) == Duration::zero()) {
    return fmt::format("{}d", duration_cast<std::chrono::hours>(d).count() / 24);
  }
  if (d % std::chrono::seconds(1) == Duration::zero()) {
    return fmt::format("{}s", duration_cast<std::chrono::seconds>(d).count());
  }
  return fmt::format("{}ns", d.count());
}

}  // namespace

Result<int64_t> ParseInt64(std::string_view text, int64_t min, int64_t max) {
  return ParseInteger<int64_t>(text, min, max);
}

Result<uint64_t> ParseUint64(std::string_view text, uint64_t min, uint64_t max) {
  return ParseInteger<uint64_t>(text, min, max);
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

Result<Duration> CheckedDuration(int64_t count, Duration unit, Duration max) {
  if (count < 0) return Status::InvalidInput(fmt::format("{} is negative", count));
  std::optional<int64_t> nanos = CheckedMul(count, unit.count());
  if (!nanos || *nanos > max.count()) {
    return Status::InvalidInput(fmt::format("longer than {}", DescribeDuration(max)));
  }
  return Duration(*nanos);
}

Result<Duration> DurationFromSeconds(double seconds, Duration max) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return Status::InvalidInput(fmt::format("{} is not a number of seconds >= 0", seconds));
  }
  // Compared as doubles first: converting a double beyond int64 to an integer is undefined.
  if (seconds > std::chrono::duration<double>(max).count()) {
    return Status::InvalidInput(
        fmt::format("{}s is longer than {}", seconds, DescribeDuration(max)));
  }
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

Result<Duration> ParseDuration(std::string_view text, Duration max) {
  auto bad = [&] {
    return Status::InvalidInput(
        fmt::format("{} is not a duration like 7d, 12h, 30m, 45s or 500ms", Quoted(text)));
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return bad();
  std::string_view suffix = text.substr(digits);
  Duration unit = Duration::zero();
  if (suffix == "d") {
    unit = std::chrono::hours(24);
  } else if (suffix == "h") {
    unit = std::chrono::hours(1);
  } else if (suffix == "m") {
    unit = std::chrono::minutes(1);
  } else if (suffix == "s" || suffix.empty()) {
    unit = std::chrono::seconds(1);
  } else if (suffix == "ms") {
    unit = std::chrono::milliseconds(1);
  } else {
    return bad();
  }
  auto n = ParseInteger<int64_t>(text.substr(0, digits), 0, std::numeric_limits<int64_t>::max());
  auto d = n.ok() ? CheckedDuration(*n, unit, max) : Result<Duration>(n.status());
  if (!d.ok()) {
    return Status::InvalidInput(
        fmt::format("{} is longer than {}", Quoted(text), DescribeDuration(max)));
  }
  return d;
}

}  // namespace quiver
