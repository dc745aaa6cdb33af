// Adding columns computed by SQL expressions (AlterTableAddColumns, LanceDB's
// addColumns([{name, valueSql}]), `quiver table add-columns`): each new column's values are its
// expression over the row's current values, typed as DataFusion types the expression
// (internal/sql_type.h: `i32 + 1` is int32, `'k'` a non-null string), written as one new data file
// per fragment and committed as one Merge (table/add_columns.h). Retried against the new latest
// version on a conflicting commit.
//
// Bad requests are InvalidInput before anything is written: no columns, an empty or existing
// name, a name given twice, a bad expression or one over a column the table does not have.
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

// `columns`: (name, SQL expression) pairs. The version committed.
Result<uint64_t> AddColumnsSql(const table::CommitTarget& target,
                               const std::vector<std::pair<std::string, std::string>>& columns,
                               const table::CommitOptions& options = {});

}  // namespace quiver::query
