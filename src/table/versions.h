// Versions of a Lance dataset: resolving the latest one, locating a given one, listing them all
// (lance-table-format.md §1.1-1.3). Works on a store rooted at the dataset (or branch) root.
//
// Latest = the first valid V2 name of the first `_versions/` listing page (V2 names sort newest
// first), so opening the latest version costs one LIST page and one GET; a V1 dataset needs the
// whole listing (max). Mixing V1 and V2 names in one directory is refused, as Lance does.
// Thread-safety: functions are reentrant; the store must be thread-safe (all are).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"
#include "store/object_store.h"

namespace lance::table {
class Manifest;
}

namespace quiver::table {

struct VersionRef {
  uint64_t version = 0;
  format::ManifestNaming naming = format::ManifestNaming::kV2;
  std::string path;  // "_versions/<name>"
  uint64_t size = 0;
  std::string etag;
};

// The latest non-detached version; TableNotFound if `_versions/` holds no manifest.
Result<VersionRef> ResolveLatestVersion(ObjectStore& store);
// Every non-detached version, oldest first.
Result<std::vector<VersionRef>> ListVersionRefs(ObjectStore& store);

// A manifest's commit time in nanoseconds since the epoch (0 when absent).
int64_t ManifestTimestampNanos(const lance::table::Manifest& manifest);

// Writes `{"version":N}` to <root>_versions/latest_version_hint.json, as Lance does after a
// commit. Best effort: a stale hint only costs readers a listing, so failures are only logged.
void WriteVersionHint(ObjectStore& store, uint64_t version, std::string_view root = "");

// One page of versions with their commit times (each manifest is read for its timestamp).
struct VersionInfo {
  VersionRef ref;  // number, naming, manifest path, size, etag
  int64_t timestamp_millis = 0;
};
struct VersionListOptions {
  bool descending = false;        // newest first
  std::optional<uint64_t> after;  // page token: continue after this version number
  size_t limit = 1000;            // 1..kMaxListLimit
};
struct VersionPage {
  std::vector<VersionInfo> versions;
  std::optional<uint64_t> next;  // the page token for the next page, absent on the last page
};
Result<VersionPage> ListVersions(ObjectStore& store, const VersionListOptions& options = {});

// Reads and decodes the manifest of `version` (V2 name first, then V1); TableVersionNotFound if
// neither exists.
struct LoadedManifest {
  VersionRef ref;
  format::ManifestFile file;
};
Result<LoadedManifest> LoadVersion(ObjectStore& store, uint64_t version);
Result<LoadedManifest> LoadManifest(ObjectStore& store, const VersionRef& ref);

}  // namespace quiver::table
