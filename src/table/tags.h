// Writing tags the way Lance 8.0 does (lance-table-format.md §5.1): `_refs/tags/<name>.json` at
// the dataset root, pretty-printed camelCase JSON, created only if absent, replaced only if
// unchanged since it was read.
//
//   {
//     "branch": null,
//     "version": 2,
//     "createdAt": "2026-11-29T06:18:36.098648930Z",
//     "updatedAt": "2026-11-29T06:18:36.098648930Z",
//     "manifestSize": 790,
//     "metadata": {}
//   }
//
// Thread-safety: functions are reentrant; concurrent writers are arbitrated by the store's
// conditional puts (one CreateOnly winner; IfMatch losers get ConcurrentModification).
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

// Lance's rules: non-empty; ASCII letters, digits, '.', '-', '_' only; no leading/trailing '.';
// no ".."; not ending in ".lock". InvalidInput otherwise.
Status ValidateTagName(std::string_view name);

struct TagTarget {
  uint64_t version = 0;
  std::optional<std::string> branch;  // absent = main
};

// TableTagAlreadyExists (9) if the tag exists; TableVersionNotFound (11) / TableBranchNotFound
// (22) if the target does not. `clock` stamps createdAt/updatedAt (Clock::Real() when null).
Result<TagInfo> CreateTag(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                          const TagTarget& target, const Clock* clock = nullptr);
// Moves an existing tag (TableTagNotFound if absent); keeps createdAt and metadata.
// ConcurrentModification if the tag changed while this ran.
Result<TagInfo> UpdateTag(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                          const TagTarget& target, const Clock* clock = nullptr);
// TableTagNotFound if absent.
Status DeleteTag(const std::shared_ptr<ObjectStore>& root, const std::string& name);

}  // namespace quiver::table
