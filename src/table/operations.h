// Metadata-only commits on a Lance dataset (main or a branch), each one transaction through the
// commit protocol (commit.h): restore a version, update schema / field metadata, drop columns,
// rename columns or relax their nullability. None of them reads or writes data files.
//
// Field paths are dot-separated ("address.city"); a top-level name needs no dots.
// Thread-safety: reentrant; concurrent commits are arbitrated by the commit protocol.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/object_store.h"
#include "table/commit.h"

namespace quiver::table {

// Which dataset to commit to: `root` is the dataset's root store; `branch` absent = main.
struct CommitTarget {
  std::shared_ptr<ObjectStore> root;
  std::optional<std::string> branch;
};

// Key -> new value, or nullopt to delete the key.
using MetadataUpdates = std::map<std::string, std::optional<std::string>>;

// A new version whose content is `version`'s (TableVersionNotFound if it does not exist).
Result<CommitResult> RestoreVersion(const CommitTarget& target, uint64_t version,
                                    const CommitOptions& options = {});

// Merges `updates` into the schema metadata (`replace`: the map becomes exactly the non-null
// updates).
Result<CommitResult> UpdateSchemaMetadata(const CommitTarget& target,
                                          const MetadataUpdates& updates, bool replace = false,
                                          const CommitOptions& options = {});

// The same for one field's metadata (TableColumnNotFound for an unknown path).
Result<CommitResult> UpdateFieldMetadata(const CommitTarget& target, const std::string& path,
                                         const MetadataUpdates& updates, bool replace = false,
                                         const CommitOptions& options = {});

// Removes the fields (and their children) from the schema; data files whose every field is gone
// leave the manifest. TableColumnNotFound for an unknown path, InvalidInput for dropping every
// column or an indexed one.
Result<CommitResult> DropColumns(const CommitTarget& target, const std::vector<std::string>& paths,
                                 const CommitOptions& options = {});

struct ColumnAlteration {
  std::string path;
  std::optional<std::string> rename;  // new name (same parent)
  std::optional<bool> nullable;       // only true (relaxing) is supported without a data scan
};

Result<CommitResult> AlterColumns(const CommitTarget& target,
                                  const std::vector<ColumnAlteration>& alterations,
                                  const CommitOptions& options = {});

// Removes every segment of the index `name` from the manifest (Lance's drop_index: a CreateIndex
// transaction with only removed_indices; the index files stay until cleanup).
// TableIndexNotFound (6) when no index has that name.
Result<CommitResult> DropIndex(const CommitTarget& target, const std::string& name,
                               const CommitOptions& options = {});

}  // namespace quiver::table
