// Names of manifest files in a dataset's `_versions/` directory (lance-table-format.md §1.1).
//
//   V1        {v}.manifest                       decimal, unpadded
//   V2        {u64::MAX - v}.manifest            20 digits, zero-padded: newest sorts first
//   detached  d{v}.manifest                      v has the top bit set; never "latest"
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace quiver::format {

enum class ManifestNaming { kV1, kV2 };

inline constexpr std::string_view kVersionsDir = "_versions";
inline constexpr std::string_view kManifestSuffix = ".manifest";
inline constexpr std::string_view kVersionHintFile = "latest_version_hint.json";
inline constexpr std::string_view kTransactionsDir = "_transactions";
// The directories of a dataset (or branch) root that hold its own files.
inline constexpr std::string_view kDatasetDirs[] = {"data/", "_deletions/", "_indices/",
                                                    "_transactions/", "_versions/"};

// "18446744073709551614.manifest" for version 1 under V2, "1.manifest" under V1.
std::string ManifestFileName(uint64_t version, ManifestNaming naming);

struct ParsedManifestName {
  uint64_t version = 0;
  ManifestNaming naming = ManifestNaming::kV2;
  bool detached = false;
};

// Parses a file name (not a path). nullopt for anything that is not a manifest name: temp files
// (`….manifest#1`, `….manifest-<uuid>`, `.tmp…`), the hint file, garbage.
std::optional<ParsedManifestName> ParseManifestName(std::string_view file_name);

std::string_view ManifestNamingName(ManifestNaming naming);  // "V1" / "V2"

}  // namespace quiver::format
