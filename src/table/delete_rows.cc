#include "table/delete_rows.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "format/deletion.h"
#include "format/lance_proto.h"
#include "table/dataset.h"
#include "table/fragment_rows.h"

namespace quiver::table {

Result<DeletionEdits> WriteDeletions(const Dataset& ds,
                                     const std::vector<uint64_t>& row_addresses) {
  std::map<uint64_t, std::vector<uint32_t>> by_fragment;
  for (uint64_t address : row_addresses) {
    by_fragment[RowAddress::Fragment(address)].push_back(RowAddress::Offset(address));
  }
  DeletionEdits edits;
  for (const auto& fragment : ds.manifest().fragments()) {
    auto it = by_fragment.find(fragment.id());
    if (it == by_fragment.end()) continue;
    const uint32_t max_offset = *std::max_element(it->second.begin(), it->second.end());
    if (max_offset >= fragment.physical_rows()) {
      return Status::InvalidInput(
          fmt::format("row address {}: row offset {} is past fragment {}'s {} rows",
                      RowAddress::Make(fragment.id(), max_offset), max_offset, fragment.id(),
                      fragment.physical_rows()));
    }
    format::DeletionVector added = format::DeletionVector::FromOffsets(std::move(it->second));
    by_fragment.erase(it);
    QV_ASSIGN_OR_RETURN(format::DeletionVector existing, FragmentDeletions(ds, fragment));
    format::DeletionVector merged = format::DeletionVector::Union(existing, added);
    if (merged.size() == existing.size()) continue;  // nothing new in this fragment
    if (merged.size() >= fragment.physical_rows()) {
      edits.removed.push_back(fragment.id());
      continue;
    }
    QV_ASSIGN_OR_RETURN(
        lance::table::DeletionFile file,
        format::WriteDeletionFile(*ds.store(), fragment.id(), ds.version(), merged));
    lance::table::DataFragment updated = fragment;
    *updated.mutable_deletion_file() = std::move(file);
    edits.updated.push_back(std::move(updated));
  }
  if (!by_fragment.empty()) {
    // As Take reports it: the request names a row the version does not have.
    const auto& [fragment_id, offsets] = *by_fragment.begin();
    return RowNotFound(
        fmt::format("row address {}: fragment {} is not in version {} (removed, or never written)",
                    RowAddress::Make(fragment_id, offsets.front()), fragment_id, ds.version()));
  }
  return edits;
}

Result<CommitResult> DeleteRows(const CommitTarget& target,
                                const std::vector<uint64_t>& row_addresses,
                                const std::string& predicate, const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(
      auto ds, Dataset::Open(target.root, OpenOptions{std::nullopt, std::nullopt, target.branch}));
  return DeleteRowsOf(*ds, row_addresses, predicate, options);
}

Result<CommitResult> DeleteRowsOf(const Dataset& read, const std::vector<uint64_t>& row_addresses,
                                  const std::string& predicate, const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(DeletionEdits edits, WriteDeletions(read, row_addresses));
  lance::table::Transaction txn;
  auto* del = txn.mutable_delete_();
  del->set_predicate(predicate);
  for (auto& f : edits.updated) *del->add_updated_fragments() = std::move(f);
  for (uint64_t id : edits.removed) del->add_deleted_fragment_ids(id);
  txn.set_read_version(read.version());
  return CommitTransaction(*read.store(), std::move(txn), options);
}

}  // namespace quiver::table
