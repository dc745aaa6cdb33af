// Rewriting rows as Lance's Update does (update mode REWRITE_ROWS, lance-table-format.md §3.2):
// the new rows are written as new fragments in the table's file format, the rows they replace
// leave their fragments through deletion vectors (a fragment left without rows leaves the
// manifest), and one Update transaction names all three with the field ids whose values changed
// (`fields_modified`). Indices on a modified field forget the fragments whose rows moved
// (apply.cc), so they never answer a stale value; indices on other fields keep covering what
// stayed.
//
// `replacements` yields the new rows in the table's Arrow schema with one more, last column
// `_rowaddr` (uint64): the address in `read` of the row each one replaces, or kInsertedRow for a
// row that replaces none (merge-insert's inserts). The stream is consumed once, in order, while
// the files are written (never all in memory). UpdateRowsOptions::deletions are rows that leave
// without a replacement (merge-insert's not-matched-by-source deletes). Nothing changed: no
// commit, unless UpdateRowsOptions::commit_unchanged (Lance's merge_insert commits a version
// whatever it found). If the commit fails with a known outcome, the new data files are deleted.
//
// On a table with stable row ids a moved row keeps what Lance's update keeps (observed with
// LanceDB 0.31 and 0.39): its id and its created-at version, carried into the new fragment's
// sequences, with the committed version as its last-updated version; inserted rows are written
// into fragments of their own and get new ids at commit, as appended rows do.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol (an
// Update conflicts as a Delete does, conflicts.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/commit.h"
#include "table/dataset.h"

namespace quiver::table {

inline constexpr uint64_t kInsertedRow = ~uint64_t{0};

struct UpdateRowsOptions {
  std::vector<uint64_t> deletions;  // addresses in `read` of rows deleted without a replacement
  bool commit_unchanged = false;
};

struct UpdateRowsResult {
  std::optional<CommitResult> commit;  // none when nothing changed (and no commit was asked for)
  uint64_t rows = 0;                   // rows written
};

Result<UpdateRowsResult> UpdateRows(const Dataset& read, arrow::BatchStream& replacements,
                                    const std::vector<int32_t>& fields_modified,
                                    const CommitOptions& options = {},
                                    const UpdateRowsOptions& rows_options = {});

}  // namespace quiver::table
