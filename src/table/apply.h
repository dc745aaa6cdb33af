// Turning the latest manifest into the next one by applying a transaction (Rust's
// build_manifest, lance-table-format.md §2.8), for the operations quiver commits: Restore,
// UpdateConfig, Project, ReserveFragments, CreateIndex (removal only), Delete, Update (rewriting
// rows), and Append and Overwrite (apply_data.h). The rest (Merge, Rewrite, column-rewriting
// updates, new indices) arrive with merge-insert, compaction and index building, and are
// Unsupported here.
//
// The result carries everything the previous manifest had (fragments, max_fragment_id,
// next_row_id, config, table metadata, base paths, branch, unknown fields) except what the
// operation changes; version, timestamp, writer version and feature flags are the caller's
// (see commit.h).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"
#include "format/manifest_file.h"

namespace quiver::table {

// Loads a version's manifest file (Restore needs the target's).
using VersionLoader = std::function<Result<format::ManifestFile>(uint64_t version)>;

struct AppliedManifest {
  std::shared_ptr<lance::table::Manifest> manifest;
  std::shared_ptr<lance::table::IndexSection> index_section;  // may be null: no indices
};

Result<AppliedManifest> ApplyTransaction(const lance::table::Transaction& txn,
                                         const format::ManifestFile& latest,
                                         const VersionLoader& load_version);

// Marks `manifest` as version `version`, committed now by quiver with `transaction_file`
// (name inside _transactions/; "" for none).
void StampManifest(lance::table::Manifest& manifest, uint64_t version, int64_t now_nanos,
                   const std::string& transaction_file);

// Recomputes both feature-flag words from the manifest's content, as Rust does on every
// commit (deletion files, stable row ids, config, base paths).
void RecomputeFeatureFlags(lance::table::Manifest& manifest);

}  // namespace quiver::table
