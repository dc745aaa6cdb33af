// Object keys: what a valid key is, checked identically by every backend and decorator.
//
// A key is a relative '/'-separated path: 1..1024 bytes, no NUL, no leading or trailing '/',
// no empty segment ("a//b"), no "." or ".." segment, segments of at most 255 bytes, and a first
// segment other than the reserved ".qv-store" (the local backend's temp/lock area).
// A list prefix follows the same rules except that it may be empty and may end with '/'.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "common/status.h"

namespace quiver {

inline constexpr size_t kMaxKeyBytes = 1024;
inline constexpr size_t kMaxSegmentBytes = 255;
inline constexpr std::string_view kReservedSegment = ".qv-store";
// Inside the reserved area: where local puts stage their bytes before publishing them.
inline constexpr std::string_view kTempSubdir = "tmp";

Status ValidateKey(std::string_view key);
Status ValidateListPrefix(std::string_view prefix);
// Validates a start_after bound: any string without NUL up to kMaxKeyBytes.
Status ValidateStartAfter(std::string_view start_after);

}  // namespace quiver
