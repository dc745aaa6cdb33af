// Deleting rows by row address, committed as a Lance Delete transaction
// (lance-table-format.md §3.3, §4.1).
//
// For each fragment that loses rows, the new deletion vector is the union of the fragment's
// current one and the new rows (deletion files are cumulative). It is written as a new file
// `_deletions/{fragment}-{read_version}-{random id}` (`.arrow` up to 5,000 rows, `.bin` above, as
// Lance does) and the fragment is updated to name it. A fragment whose every row ends up deleted
// leaves the manifest instead. Replaced deletion files stay until cleanup removes them.
//
// Thread-safety: reentrant. A concurrent delete or update of the same fragment makes the later
// commit fail with a retryable ConcurrentModification (quiver does not merge deletion vectors
// while rebasing, as Rust does); deletes of different fragments commit side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "format/lance_proto.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/operations.h"

namespace quiver::table {

// Deletes the rows at `row_addresses` (fragment id << 32 | row offset, as Scan's `_rowaddr`;
// already deleted rows and repeats are fine). `predicate` is recorded in the transaction (Lance
// puts the SQL filter there). As for Take: InvalidInput for an offset past its fragment's physical
// rows; InvalidInput with subcode NotFound (Status::IsNotFound) for an address in a fragment the
// version does not have.
// What removing `row_addresses` from version `ds` changes, with the new deletion files already
// written: the fragments that keep rows (naming their new deletion file) and the ids of those left
// without any. Errors as DeleteRows'. Shared with updates (update_rows.h).
struct DeletionEdits {
  std::vector<lance::table::DataFragment> updated;
  std::vector<uint64_t> removed;
};
Result<DeletionEdits> WriteDeletions(const Dataset& ds, const std::vector<uint64_t>& row_addresses);

// The same on a version already open: the deletion is committed with `read` as its read version,
// so that a commit since (an update that moved some of these rows, say) is checked against it.
Result<CommitResult> DeleteRowsOf(const Dataset& read, const std::vector<uint64_t>& row_addresses,
                                  const std::string& predicate = "",
                                  const CommitOptions& options = {});

Result<CommitResult> DeleteRows(const CommitTarget& target,
                                const std::vector<uint64_t>& row_addresses,
                                const std::string& predicate = "",
                                const CommitOptions& options = {});

}  // namespace quiver::table
