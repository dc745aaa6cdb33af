// Updating rows by SQL (UpdateTable, `quiver table update`): in the target's latest version, the
// rows where `predicate` is TRUE (every row when it is empty) get new values for the named
// columns, each a SQL expression over the row's current values (`x + 1`, `upper(s)`, `'done'`,
// `NULL`), cast to the column's type as DataFusion's CAST casts (query/internal/to_column_type.h:
// a value that does not fit refuses the whole update). Every expression sees the row before the
// update (`a = b, b = a` swaps). One Update commit (table/update_rows.h); nothing matched: no
// commit. Retried like DeleteWhere on a conflicting commit.
//
// Bad requests are InvalidInput before anything is written: no updates, a column named twice,
// a column the table does not have (TableColumnNotFound), a nested path, a bad expression or one
// whose type the column cannot take.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "table/commit.h"
#include "table/operations.h"

namespace quiver::query {

struct UpdateWhereResult {
  uint64_t version = 0;  // the version committed (or read, when nothing matched)
  uint64_t rows_updated = 0;
};

// `updates`: (column, SQL expression) pairs.
Result<UpdateWhereResult> UpdateWhere(
    const table::CommitTarget& target,
    const std::vector<std::pair<std::string, std::string>>& updates, const std::string& predicate,
    const table::CommitOptions& options = {});

}  // namespace quiver::query
