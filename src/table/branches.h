// Creating and deleting branches the way Lance 8.0 does (lance-table-format.md §5.2-5.3).
//
// A branch `b` forked from version v of main (or of branch p) is a shallow clone: its first
// manifest, at tree/b/_versions/, has version v, names the source root as a base path (an
// absolute path, as Lance writes it), points every inherited file at that base, and carries a
// Clone transaction. Only then is `_refs/branches/b.json` written. No data is copied.
// Deleting a branch removes its ref, then its own files under tree/b/ (never another branch's
// nested tree); it is refused while a branch is forked from it or a tag points into it.
// Thread-safety: reentrant; two creators of one name are arbitrated by create-only puts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "store/object_store.h"
#include "table/refs.h"

namespace quiver::table {

// Lance's rules: non-empty; no leading/trailing '/', no "//", no "..", no '\'; each segment only
// ASCII letters, digits, '.', '-', '_'; not ending in ".lock"; not "main".
Status ValidateBranchName(std::string_view name);

struct BranchSource {
  std::optional<std::string> branch;  // absent = main
  std::optional<uint64_t> version;    // absent = the source's latest
};

// TableBranchAlreadyExists (23), TableBranchNotFound (22) for a missing source branch,
// TableVersionNotFound (11) for a missing source version.
Result<BranchInfo> CreateBranch(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                                const BranchSource& source, const Clock* clock = nullptr);

// TableBranchNotFound if absent; InvalidTableState (19) while branches fork from it or tags
// point into it.
Status DeleteBranch(const std::shared_ptr<ObjectStore>& root, const std::string& name);

}  // namespace quiver::table
