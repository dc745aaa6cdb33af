// Checked numbers: the one way quiver reads an integer or a duration that a person or a client
// typed (config settings, CLI arguments, query parameters, page tokens), and the overflow-checked
// arithmetic that turns such a number into a time.
//
// std::stoll and friends throw on overflow (and a throw out of a CLI callback terminates the
// process); casts and chrono conversions wrap silently. These parse with std::from_chars, accept
// nothing but the digits (an optional '-' for signed values; no '+', no spaces, no trailing
// text), and answer InvalidInput "'<text>' is out of range (<min>..<max>)" instead. Messages
// quote the text (bounded) but not what it is for: callers add that (Status::WithContext).
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"

namespace quiver {

Result<int64_t> ParseInt64(std::string_view text, int64_t min = std::numeric_limits<int64_t>::min(),
                           int64_t max = std::numeric_limits<int64_t>::max());
Result<uint64_t> ParseUint64(std::string_view text, uint64_t min = 0,
                             uint64_t max = std::numeric_limits<uint64_t>::max());

// The longest duration quiver takes anywhere (an age, a timeout, an expiry): 100 years, well
// inside what a Duration (int64 nanoseconds, ±292 years) and every clock sum can hold.
inline constexpr Duration kMaxDuration = std::chrono::hours(24 * 36525);

// "7d", "12h", "30m", "45s", "500ms", or bare digits (seconds), at most `max`.
Result<Duration> ParseDuration(std::string_view text, Duration max = kMaxDuration);

// `count` units of `unit` (e.g. seconds given by a client), if 0 <= result <= max; InvalidInput
// otherwise (never a wrapped value).
Result<Duration> CheckedDuration(int64_t count, Duration unit, Duration max = kMaxDuration);
// `seconds` (a CLI's fractional seconds), if it is finite and 0 <= seconds <= max.
Result<Duration> DurationFromSeconds(double seconds, Duration max = kMaxDuration);

// a + b and a * b, or nullopt where the exact result does not fit.
std::optional<int64_t> CheckedAdd(int64_t a, int64_t b);
std::optional<int64_t> CheckedMul(int64_t a, int64_t b);

}  // namespace quiver
