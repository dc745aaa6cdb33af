// Tags and branches of a Lance dataset, as Lance 8.0 stores them (lance-table-format.md §5):
// `_refs/tags/<name>.json` and `_refs/branches/<name, '/' as %2F>.json` at the dataset root, in
// camelCase JSON. This file reads them; unknown keys are ignored, optional ones may be absent.
// Thread-safety: functions are reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "store/object_store.h"

namespace quiver::table {

struct TagInfo {
  uint64_t version = 0;
  std::optional<std::string> branch;  // absent = main
  uint64_t manifest_size = 0;
  std::optional<std::string> created_at;  // RFC 3339 as written
  std::optional<std::string> updated_at;
};

struct BranchInfo {
  std::optional<std::string> parent_branch;  // absent = forked from main
  uint64_t parent_version = 0;
  int64_t create_at = 0;  // unix seconds
  uint64_t manifest_size = 0;
};

// Tag and branch names are at most this many bytes (a branch's as stored in its ref file name,
// '/' as %2F), so that their keys fit the store's limits under any table location. A create
// refuses a longer name (InvalidInput naming the limit, never a storage key); every lookup,
// update or delete answers it as a missing tag or branch.
inline constexpr size_t kMaxRefNameBytes = 200;
// InvalidInput when `name` (a `what`: "tag" or "branch") is longer than kMaxRefNameBytes.
Status CheckRefNameLength(std::string_view name, std::string_view what);
// A store error from reading the ref file of `what` ("tag" or "branch") `name`, as callers
// answer it: NotFound, or InvalidInput (a key the store cannot hold, so a name over the limit:
// no such ref), becomes TableTagNotFound / TableBranchNotFound ("tag 'x' does not exist"); any
// other error passes through. REQUIRES: !read.ok().
Status RefReadError(const Status& read, std::string_view what, std::string_view name);

inline constexpr std::string_view kTagsDir = "_refs/tags/";
inline constexpr std::string_view kBranchesDir = "_refs/branches/";

Result<TagInfo> ParseTagJson(std::string_view json, const std::string& what);
Result<BranchInfo> ParseBranchJson(std::string_view json, const std::string& what);

// `root` is the dataset's root store (never a branch's tree/).
Result<std::map<std::string, TagInfo>> ListTags(ObjectStore& root);
Result<TagInfo> GetTag(ObjectStore& root, const std::string& name);  // TableTagNotFound
// "_refs/tags/<name>.json".
std::string TagKey(std::string_view name);
// "_refs/branches/<name, '/' as %2F>.json".
std::string BranchRefKey(std::string_view name);
Result<std::map<std::string, BranchInfo>> ListBranches(ObjectStore& root);
Result<BranchInfo> GetBranch(ObjectStore& root, const std::string& name);  // TableBranchNotFound

// A branch's file name part: '/' -> "%2F" (and '%' -> "%25" so the mapping is reversible).
std::string EncodeBranchFileName(std::string_view branch);
std::string DecodeBranchFileName(std::string_view file_stem);
// "tree/<branch>" (branch names with '/' become nested directories, as in Lance).
std::string BranchRootKey(std::string_view branch);
// A view of `root` rooted at the branch's tree/<branch>/ (TableBranchNotFound if the branch has
// no ref file or its name cannot be a key).
Result<std::shared_ptr<ObjectStore>> OpenBranchStore(const std::shared_ptr<ObjectStore>& root,
                                                     const std::string& branch);

}  // namespace quiver::table
