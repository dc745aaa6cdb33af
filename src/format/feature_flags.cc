#include "format/feature_flags.h"

#include <fmt/format.h>

namespace quiver::format {

std::string FeatureFlagNames(uint64_t flags) {
  static constexpr const char* kNames[] = {"deletion_files", "stable_row_ids",
                                           "use_v2_format",  "table_config",
                                           "base_paths",     "disable_transaction_file"};
  if (flags == 0) return "none";
  std::string out;
  for (int bit = 0; bit < 64; ++bit) {
    if ((flags & (uint64_t{1} << bit)) == 0) continue;
    if (!out.empty()) out += '|';
    out += bit < 6 ? kNames[bit] : fmt::format("bit{}", uint64_t{1} << bit);
  }
  return out;
}

namespace {

Status CheckFlags(uint64_t flags, const std::string& what, const char* side) {
  uint64_t unknown = flags & ~kKnownFlags;
  if (unknown == 0) return Status::OK();
  return Status::Unsupported(fmt::format(
      "{} needs Lance features this version of quiver does not support ({} feature flags {}: {}); "
      "it was written by a newer Lance",
      what, side, unknown, FeatureFlagNames(unknown)));
}

}  // namespace

Status CheckReaderFlags(uint64_t flags, const std::string& what) {
  return CheckFlags(flags, what, "reader");
}

Status CheckWriterFlags(uint64_t flags, const std::string& what) {
  return CheckFlags(flags, what, "writer");
}

}  // namespace quiver::format
