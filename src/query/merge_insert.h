// Merge-insert (MergeInsertIntoTable, LanceDB's mergeInsert, `quiver table merge`): the source
// rows are joined to the table's latest version on the key columns (`on`), and
//   - when matched, with update_all: the target row is replaced by its source row where the
//     optional condition (SQL over `source.<col>` and `target.<col>`) is TRUE;
//   - when not matched, with insert_all: the source row is inserted;
//   - when not matched by source, with delete: the target row is deleted where the optional
//     filter (SQL over the target's columns) is TRUE.
// As Lance does it (observed with LanceDB 0.31 and 0.39, docs/lance-findings.md): a key with a
// NULL never matches (the source row is inserted); two source rows matching one target row are
// refused when matched rows are updated ("Ambiguous merge inserts are prohibited ..."), and
// otherwise the duplicates are inserted or skipped like any other row; a matched source row whose
// condition is not TRUE is neither updated nor inserted; a version is committed even when
// nothing changed. One Update transaction (table/update_rows.h: replaced and inserted rows as new
// fragments, replaced and deleted rows through deletion vectors), retried on a conflicting
// commit against the new latest version.
//
// Bad input is InvalidInput before anything is written: no key, a key column the table does not
// have (TableColumnNotFound) or that is not a scalar, a source whose columns are not the table's,
// a bad condition or filter, no action at all.
//
// The source is held in memory (every attempt joins it again).
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/clock.h"
#include "common/result.h"
#include "table/commit.h"
#include "table/operations.h"

namespace quiver::query {

struct MergeInsertSpec {
  std::vector<std::string> on;  // key columns
  bool when_matched_update_all = false;
  std::string when_matched_update_all_filt;  // "" = every matched row
  bool when_not_matched_insert_all = false;
  bool when_not_matched_by_source_delete = false;
  std::string when_not_matched_by_source_delete_filt;  // "" = every unmatched target row
  // Set: no new attempt after it has passed (Lance's merge-insert timeout bounds the retrying
  // of lost races; the first attempt always runs). The give-up is ServiceUnavailable.
  std::optional<Deadline> retry_deadline;
};

struct MergeInsertResult {
  uint64_t version = 0;
  uint64_t inserted = 0;
  uint64_t updated = 0;
  uint64_t deleted = 0;
  int attempts = 0;
};

// `source`: the rows to merge, every batch in `schema` (the table's columns).
Result<MergeInsertResult> MergeInsert(const table::CommitTarget& target,
                                      std::shared_ptr<const arrow::Schema> schema,
                                      std::vector<arrow::RecordBatch> source,
                                      const MergeInsertSpec& spec,
                                      const table::CommitOptions& options = {});

}  // namespace quiver::query
