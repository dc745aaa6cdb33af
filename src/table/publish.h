// Publishing a manifest a writer staged itself (managed versioning: the catalog is the commit
// authority, design.md §4). The writer wrote data files and a complete manifest at a staging key
// and asks for it to become version N: it is checked (decodes, says version N, carries a
// transaction, no unknown writer flags, size/etag as announced, N is the next version), copied to
// the version's final name with create-only (a taken name is ConcurrentModification, code 14),
// and the staging object is removed.
// Thread-safety: reentrant; concurrent publishers of one version get exactly one winner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "format/manifest_names.h"
#include "store/object_store.h"
#include "table/versions.h"

namespace quiver::table {

struct StagedManifest {
  std::string key;  // relative to the dataset (branch) root
  uint64_t version = 0;
  std::optional<format::ManifestNaming> naming;  // default: the dataset's own (V2 when new)
  std::optional<uint64_t> size;                  // checked when given
  std::optional<std::string> etag;               // checked when given
};

Result<VersionRef> PublishStagedManifest(ObjectStore& store, const StagedManifest& staged);

}  // namespace quiver::table
