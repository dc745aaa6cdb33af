// Test support: writes a small synthetic Lance dataset (manifest level only: the data files it
// names do not exist) so that catalog and server tests have real versions to list, describe,
// tag, branch and restore.
// Thread-safety: plain functions.
#pragma once

#include <string>

#include "common/result.h"
#include "store/object_store.h"

namespace quiver::testing {

// Version 1 under `<dir>/_versions/` (V2 naming): fields id (int64) and name (string), two
// fragments of 100 rows each, schema metadata {"a": "1"}, an Overwrite transaction; with
// `with_index`, a BTREE index "id_idx" on id (two segments).
Status WriteSyntheticDataset(ObjectStore& store, const std::string& dir, bool with_index = false);

// Stages what a managed-versioning writer would: a copy of version `version - 1`'s manifest,
// renumbered to `version` with an UpdateConfig transaction, at `<dir>/<staging_key>`. Returns
// the staged file's size.
Result<uint64_t> StageNextManifest(ObjectStore& store, const std::string& dir, uint64_t version,
                                   const std::string& staging_key);

}  // namespace quiver::testing
