// Removing old versions of a Lance dataset and the files only they reference, with the
// semantics of Lance's cleanup_old_versions (lance-table-format.md §6.1).
//
// A version is old when it is older than `older_than` (by its commit timestamp) and/or not among
// the `retain_versions` newest. Never removed: the latest version, a version a tag points at
// (or, by default, the whole cleanup is refused naming the tags), and a version a branch was
// forked from. Files referenced by any kept version (data files, deletion files, index
// directories, transaction files) stay; files referenced only by removed versions are deleted;
// files no manifest ever referenced (a crashed or in-flight writer's) are deleted only when older
// than `unverified_min_age` or when `delete_unverified` is set. As in Lance, only files last
// modified before the earliest kept version was committed are considered at all (a newer file may
// belong to a writer building on a kept version), so a dataset copied without its modification
// times loses only old manifests until its files age past that point. `_refs/`, `.lance-reserved`,
// `tree/` (branches), and anything outside data/, _deletions/, _indices/, _transactions/,
// _versions/ are never touched, nor files below data/ subdirectories (blob sidecars).
//
// Every manifest is read before anything is deleted; an unreadable one aborts with nothing
// deleted. Files go before the manifests that referenced them, so an interrupted cleanup leaves
// only verified garbage for the next run.
// Thread-safety: reentrant. Running it while writers commit is safe: their new files are
// unverified and young, and the versions they build on are newer than any old version.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver::table {

struct CleanupPolicy {
  std::optional<Duration> older_than;       // versions committed longer ago than this
  std::optional<uint64_t> retain_versions;  // keep at least the newest N (N >= 1)
  bool error_if_tagged_old_versions = true;
  bool delete_unverified = false;
  Duration unverified_min_age = std::chrono::hours(24 * 7);
  bool dry_run = false;
};

struct CleanupReport {
  uint64_t versions_removed = 0;
  uint64_t files_removed = 0;  // every object deleted, manifests included
  uint64_t bytes_removed = 0;
  std::vector<uint64_t> removed_versions;
  std::vector<std::string> removed_files;  // keys relative to the dataset (branch) root
};

// `root` is the dataset's root store; `branch` absent = main. InvalidInput when the policy
// selects nothing (neither older_than nor retain_versions); InvalidTableState (19) when old
// versions are tagged and error_if_tagged_old_versions is set.
Result<CleanupReport> CleanupOldVersions(const std::shared_ptr<ObjectStore>& root,
                                         const std::optional<std::string>& branch,
                                         const CleanupPolicy& policy, const Clock* clock = nullptr);

}  // namespace quiver::table
