#include "format/manifest_names.h"

#include <charconv>
#include <limits>

#include <fmt/format.h>

namespace quiver::format {

std::string ManifestFileName(uint64_t version, ManifestNaming naming) {
  if (naming == ManifestNaming::kV1) return fmt::format("{}{}", version, kManifestSuffix);
  return fmt::format("{:020}{}", std::numeric_limits<uint64_t>::max() - version, kManifestSuffix);
}

std::optional<ParsedManifestName> ParseManifestName(std::string_view name) {
  if (name.size() <= kManifestSuffix.size() ||
      name.substr(name.size() - kManifestSuffix.size()) != kManifestSuffix) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(0, name.size() - kManifestSuffix.size());
  bool detached = false;
  if (!digits.empty() && digits.front() == 'd') {
    detached = true;
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  ParsedManifestName parsed;
  if (detached) {
    if ((value & (uint64_t{1} << 63)) == 0) return std::nullopt;
    parsed.version = value;
    parsed.detached = true;
    parsed.naming = ManifestNaming::kV2;
    return parsed;
  }
  // A V2 name is exactly 29 characters (20 digits); anything else is V1.
  if (name.size() == 20 + kManifestSuffix.size()) {
    parsed.version = std::numeric_limits<uint64_t>::max() - value;
    parsed.naming = ManifestNaming::kV2;
  } else {
    if (digits.size() > 1 && digits.front() == '0') return std::nullopt;  // not how V1 writes
    parsed.version = value;
    parsed.naming = ManifestNaming::kV1;
  }
  return parsed;
}

std::string_view ManifestNamingName(ManifestNaming naming) {
  return naming == ManifestNaming::kV1 ? "V1" : "V2";
}

}  // namespace quiver::format
