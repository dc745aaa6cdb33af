// Deleting the rows a SQL predicate selects (DeleteFromTable, `quiver table delete`): the rows of
// the target's latest version where the predicate is TRUE are found by a scan of the predicate's
// columns (with `_rowaddr`), and removed by one Delete transaction (table/delete_rows.h:
// deletion files as Lance writes them, fully deleted fragments dropped), whose predicate is the
// SQL text, as Lance records it.
//
// A delete that selects no row commits nothing and answers the version it read. A concurrent
// delete of the same fragments, or a compaction that rewrote them, makes the commit fail
// retryably; the delete then reads the new latest version and tries again (a bounded number of
// times), so the rows it removes are always those that match in the version it commits on.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "table/commit.h"
#include "table/operations.h"

namespace quiver::query {

struct DeleteWhereResult {
  uint64_t version = 0;  // the version committed (or read, when nothing matched)
  uint64_t rows_deleted = 0;
};

// InvalidInput for an empty or bad predicate (before anything is read).
Result<DeleteWhereResult> DeleteWhere(const table::CommitTarget& target,
                                      const std::string& predicate,
                                      const table::CommitOptions& options = {});

}  // namespace quiver::query
