#include "store/key.h"

#include <fmt/format.h>

namespace quiver {
namespace {

// Checks the segments of `path` (which must not start with '/'); `allow_trailing_slash` permits
// one empty last segment.
Status ValidateSegments(std::string_view what, std::string_view path, bool allow_trailing_slash) {
  if (path.size() > kMaxKeyBytes) {
    return Status::InvalidInput(fmt::format("{} is {} bytes long; at most {} are allowed", what,
                                            path.size(), kMaxKeyBytes));
  }
  if (path.find('\0') != std::string_view::npos) {
    return Status::InvalidInput(fmt::format("{} contains a NUL byte", what));
  }
  if (!path.empty() && path.front() == '/') {
    return Status::InvalidInput(
        fmt::format("{} '{}' starts with '/': keys are relative to the store root", what, path));
  }
  size_t start = 0;
  bool first = true;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t end = slash == std::string_view::npos ? path.size() : slash;
    std::string_view segment = path.substr(start, end - start);
    bool last = slash == std::string_view::npos;
    if (segment.empty() && !(last && allow_trailing_slash && !path.empty())) {
      if (path.empty()) return Status::InvalidInput(fmt::format("{} is empty", what));
      return Status::InvalidInput(fmt::format("{} '{}' has an empty segment", what, path));
    }
    if (segment == "." || segment == "..") {
      return Status::InvalidInput(fmt::format(
          "{} '{}' has a '{}' segment; keys cannot leave their root", what, path, segment));
    }
    if (segment.size() > kMaxSegmentBytes) {
      return Status::InvalidInput(
          fmt::format("{} '{}' has a segment longer than {} bytes", what, path, kMaxSegmentBytes));
    }
    if (first && segment == kReservedSegment) {
      return Status::InvalidInput(
          fmt::format("{} '{}' is inside the reserved '{}/' area", what, path, kReservedSegment));
    }
    first = false;
    if (last) break;
    start = slash + 1;
  }
  return Status::OK();
}

}  // namespace

Status ValidateKey(std::string_view key) {
  if (key.empty()) return Status::InvalidInput("object key is empty");
  return ValidateSegments("object key", key, /*allow_trailing_slash=*/false);
}

Status ValidateListPrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  return ValidateSegments("list prefix", prefix, /*allow_trailing_slash=*/true);
}

Status ValidateStartAfter(std::string_view start_after) {
  if (start_after.size() > kMaxKeyBytes) {
    return Status::InvalidInput("list start_after is longer than a key can be");
  }
  if (start_after.find('\0') != std::string_view::npos) {
    return Status::InvalidInput("list start_after contains a NUL byte");
  }
  return Status::OK();
}

}  // namespace quiver
