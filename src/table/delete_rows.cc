#include "table/delete_rows.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "format/deletion.h"
#include "format/lance_proto.h"
#include "table/dataset.h"
#include "table/fragment_rows.h"

namespace quiver::table {

Result<CommitResult> DeleteRows(const CommitTarget& target,
                                const std::vector<uint64_t>& row_addresses,
                                const std::string& predicate, const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(
      auto ds, Dataset::Open(target.root, OpenOptions{std::nullopt, std::nullopt, target.branch}));
  std::map<uint64_t, std::vector<uint32_t>> by_fragment;
  for (uint64_t address : row_addresses) {
    by_fragment[address >> 32].push_back(static_cast<uint32_t>(address));
  }
  lance::table::Transaction txn;
  auto* del = txn.mutable_delete_();
  del->set_predicate(predicate);
  for (const auto& fragment : ds->manifest().fragments()) {
    auto it = by_fragment.find(fragment.id());
    if (it == by_fragment.end()) continue;
    const uint32_t max_offset = *std::max_element(it->second.begin(), it->second.end());
    if (max_offset >= fragment.physical_rows()) {
      return Status::InvalidInput(fmt::format("fragment {} has {} rows, no row {}", fragment.id(),
                                              fragment.physical_rows(), max_offset));
    }
    format::DeletionVector added = format::DeletionVector::FromOffsets(std::move(it->second));
    by_fragment.erase(it);
    QV_ASSIGN_OR_RETURN(format::DeletionVector existing, FragmentDeletions(*ds, fragment));
    format::DeletionVector merged = format::DeletionVector::Union(existing, added);
    if (merged.size() == existing.size()) continue;  // nothing new in this fragment
    if (merged.size() >= fragment.physical_rows()) {
      del->add_deleted_fragment_ids(fragment.id());
      continue;
    }
    QV_ASSIGN_OR_RETURN(
        lance::table::DeletionFile file,
        format::WriteDeletionFile(*ds->store(), fragment.id(), ds->version(), merged));
    auto* updated = del->add_updated_fragments();
    *updated = fragment;
    *updated->mutable_deletion_file() = std::move(file);
  }
  if (!by_fragment.empty()) {
    return Status::InvalidInput(
        fmt::format("row address {} names fragment {}, which version {} does not have",
                    by_fragment.begin()->first << 32, by_fragment.begin()->first, ds->version()));
  }
  txn.set_read_version(ds->version());
  return CommitTransaction(*ds->store(), std::move(txn), options);
}

}  // namespace quiver::table
