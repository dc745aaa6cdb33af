#include "table/cleanup.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "table/refs.h"
#include "table/stats.h"
#include "table/versions.h"

namespace quiver::table {
namespace {

struct VersionState {
  LoadedManifest loaded;
  bool keep = false;
};

// The files a manifest references inside its own root (base_id set = another root's file).
void CollectReferenced(const LoadedManifest& loaded, std::set<std::string>& files,
                       std::set<std::string>& index_dirs) {
  const auto& m = *loaded.file.manifest;
  for (const auto& fragment : m.fragments()) {
    for (const auto& file : fragment.files()) {
      if (!file.has_base_id()) files.insert("data/" + file.path());
    }
    if (fragment.has_deletion_file() && !fragment.deletion_file().has_base_id()) {
      const auto& d = fragment.deletion_file();
      files.insert(
          fmt::format("_deletions/{}-{}-{}.{}", fragment.id(), d.read_version(), d.id(),
                      d.file_type() == lance::table::DeletionFile::BITMAP ? "bin" : "arrow"));
    }
  }
  if (!m.transaction_file().empty()) {
    files.insert(std::string(format::kTransactionsDir) + "/" + m.transaction_file());
  }
  if (loaded.file.index_section) {
    for (const auto& index : loaded.file.index_section->indices()) {
      if (!index.has_base_id()) {
        index_dirs.insert("_indices/" + FormatUuidBytes(index.uuid().uuid()) + "/");
      }
    }
  }
}

// Whether a listed key is one cleanup may consider at all, and which group it belongs to.
bool IsCandidate(const std::string& key) {
  auto under = [&key](std::string_view dir) { return key.rfind(dir, 0) == 0; };
  if (under("data/")) {
    std::string_view rest = std::string_view(key).substr(5);
    return rest.find('/') == std::string_view::npos && rest.size() > 6 &&
           rest.substr(rest.size() - 6) == ".lance";
  }
  return under("_deletions/") || under("_indices/") || under("_transactions/") ||
         under(std::string(format::kVersionsDir) + "/");
}

std::string IndexDirOf(const std::string& key) {
  size_t slash = key.find('/', 9);  // after "_indices/"
  return slash == std::string::npos ? key : key.substr(0, slash + 1);
}

// Phase 1: every manifest of the branch, by version.
Result<std::map<uint64_t, VersionState>> ReadVersions(ObjectStore& store) {
  QV_ASSIGN_OR_RETURN(std::vector<VersionRef> refs, ListVersionRefs(store));
  if (refs.empty()) return Status(StatusCode::kTableNotFound, "no Lance manifest in _versions/");
  std::map<uint64_t, VersionState> versions;
  for (const VersionRef& ref : refs) {
    QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(store, ref));
    versions[ref.version] = VersionState{std::move(loaded), false};
  }
  return versions;
}

// Phase 1: which versions stay (sets VersionState::keep). InvalidTableState when old versions are
// tagged and the policy says so.
Status DecideKept(ObjectStore& root, const std::optional<std::string>& branch,
                  const CleanupPolicy& policy, int64_t now,
                  std::map<uint64_t, VersionState>& versions) {
  const uint64_t latest = versions.rbegin()->first;
  std::optional<uint64_t> before_version;
  if (policy.retain_versions && versions.size() > *policy.retain_versions) {
    before_version =
        std::next(versions.begin(),
                  static_cast<std::ptrdiff_t>(versions.size() - *policy.retain_versions))
            ->first;
  }
  QV_ASSIGN_OR_RETURN(auto tags, ListTags(root));
  QV_ASSIGN_OR_RETURN(auto branches, ListBranches(root));
  std::map<uint64_t, std::vector<std::string>> tagged;
  for (const auto& [name, tag] : tags) {
    if (tag.branch == branch) tagged[tag.version].push_back(name);
  }
  std::set<uint64_t> forked_from;
  for (const auto& [name, b] : branches) {
    if (b.parent_branch == branch) forked_from.insert(b.parent_version);
  }
  std::vector<std::string> tagged_old;
  for (auto& [version, state] : versions) {
    const int64_t committed = ManifestTimestampNanos(*state.loaded.file.manifest);
    bool old = true;
    if (policy.older_than) old = old && committed < now - policy.older_than->count();
    if (policy.retain_versions) old = old && before_version && version < *before_version;
    if (version == latest) old = false;
    if (old && tagged.count(version) != 0) {
      for (const std::string& t : tagged[version]) tagged_old.push_back(t);
      old = false;
    }
    if (old && forked_from.count(version) != 0) old = false;
    state.keep = !old;
  }
  if (!tagged_old.empty() && policy.error_if_tagged_old_versions) {
    std::sort(tagged_old.begin(), tagged_old.end());
    return Status(StatusCode::kInvalidTableState,
                  fmt::format("{} tagged version(s) would be cleaned up; delete the tag(s) {} or "
                              "allow tagged versions to stay (error_if_tagged_old_versions=false)",
                              tagged_old.size(), fmt::join(tagged_old, ", ")));
  }
  return Status::OK();
}

// Phase 2: the files every kept version needs, and the ones only removed versions referenced.
struct References {
  std::set<std::string> kept_files, kept_index_dirs;
  std::set<std::string> verified_files, verified_index_dirs;  // referenced by removed versions
  // Like Lance, only files last modified before the earliest kept version was committed are
  // candidates: anything newer may belong to a writer building on a kept version right now.
  int64_t earliest_kept = std::numeric_limits<int64_t>::max();
};

References CollectReferences(const std::map<uint64_t, VersionState>& versions) {
  References refs;
  for (const auto& [version, state] : versions) {
    if (state.keep) {
      CollectReferenced(state.loaded, refs.kept_files, refs.kept_index_dirs);
      refs.earliest_kept =
          std::min(refs.earliest_kept, ManifestTimestampNanos(*state.loaded.file.manifest));
    } else {
      CollectReferenced(state.loaded, refs.verified_files, refs.verified_index_dirs);
    }
  }
  return refs;
}

// Phase 3: walks the dataset tree and picks what goes: manifests of removed versions, files only
// they referenced, and unverified files old enough (or all of them, with delete_unverified).
struct Doomed {
  std::vector<ObjectMeta> files;
  std::vector<ObjectMeta> manifests;
};

// Whether `meta`, listed under `prefix` (not _versions/), goes.
bool DoomedFile(const ObjectMeta& meta, std::string_view prefix, const References& refs,
                const CleanupPolicy& policy, int64_t now) {
  const std::string& key = meta.key;
  if (meta.last_modified_nanos >= refs.earliest_kept) return false;
  if (prefix == "_indices/") {
    std::string dir = IndexDirOf(key);
    if (refs.kept_index_dirs.count(dir) != 0) return false;
    if (refs.verified_index_dirs.count(dir) != 0) return true;
  } else {
    if (refs.kept_files.count(key) != 0) return false;
    if (refs.verified_files.count(key) != 0) return true;
  }
  // Never referenced by any manifest we read.
  return policy.delete_unverified ||
         meta.last_modified_nanos < now - policy.unverified_min_age.count();
}

Result<Doomed> PickDoomed(ObjectStore& store, const std::map<uint64_t, VersionState>& versions,
                          const References& refs, const CleanupPolicy& policy, int64_t now) {
  Doomed doomed;
  for (std::string_view prefix : format::kDatasetDirs) {
    QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listed, store.ListAll(prefix));
    for (ObjectMeta& meta : listed) {
      const std::string& key = meta.key;
      if (!IsCandidate(key)) continue;
      if (prefix != "_versions/") {
        if (DoomedFile(meta, prefix, refs, policy, now)) doomed.files.push_back(meta);
        continue;
      }
      std::string name = key.substr(prefix.size());
      auto parsed = format::ParseManifestName(name);
      if (parsed && !parsed->detached) {
        auto it = versions.find(parsed->version);
        if (it != versions.end() && !it->second.keep) doomed.manifests.push_back(meta);
        continue;
      }
      if (name == format::kVersionHintFile || (parsed && parsed->detached)) continue;
      if (meta.last_modified_nanos >= refs.earliest_kept) continue;
      // Anything else in _versions/ is a crashed writer's staging file: unverified.
      const bool aged = meta.last_modified_nanos < now - policy.unverified_min_age.count();
      if (policy.delete_unverified || aged) doomed.files.push_back(meta);
    }
  }
  return doomed;
}

// Phase 4: files first, then the manifests that referenced them.
Status DeleteDoomed(ObjectStore& store, const Doomed& doomed, bool dry_run, CleanupReport* report) {
  for (const auto* group : {&doomed.files, &doomed.manifests}) {
    for (const ObjectMeta& meta : *group) {
      if (!dry_run) QV_RETURN_IF_ERROR(store.Delete(meta.key));
      ++report->files_removed;
      report->bytes_removed += meta.size;
      report->removed_files.push_back(meta.key);
    }
  }
  return Status::OK();
}

}  // namespace

Result<CleanupReport> CleanupOldVersions(const std::shared_ptr<ObjectStore>& root,
                                         const std::optional<std::string>& branch,
                                         const CleanupPolicy& policy, const Clock* clock) {
  if (!policy.older_than && !policy.retain_versions) {
    return Status::InvalidInput("a cleanup needs older_than and/or retain_versions");
  }
  if (policy.retain_versions && *policy.retain_versions == 0) {
    return Status::InvalidInput("retain_versions must be at least 1 (the latest is always kept)");
  }
  if (clock == nullptr) clock = Clock::Real();
  std::shared_ptr<ObjectStore> store = root;
  if (branch) {
    QV_ASSIGN_OR_RETURN(store, OpenBranchStore(root, *branch));
  }
  QV_ASSIGN_OR_RETURN(auto versions, ReadVersions(*store));
  const int64_t now = clock->NowNanos();
  QV_RETURN_IF_ERROR(DecideKept(*root, branch, policy, now, versions));
  const References refs = CollectReferences(versions);
  QV_ASSIGN_OR_RETURN(Doomed doomed, PickDoomed(*store, versions, refs, policy, now));
  CleanupReport report;
  QV_RETURN_IF_ERROR(DeleteDoomed(*store, doomed, policy.dry_run, &report));
  for (const auto& [version, state] : versions) {
    if (!state.keep) report.removed_versions.push_back(version);
  }
  report.versions_removed = report.removed_versions.size();
  return report;
}

}  // namespace quiver::table
