// Changing columns' types (AlterTableAlterColumns with `data_type`, LanceDB's
// alterColumns([{path, dataType}]), `quiver table alter-column --type`): each column's values cast
// as DataFusion's CAST casts them (internal/to_column_type.h: a value that does not fit refuses
// the change, nothing is written), rewritten as one new data file per fragment and committed as
// one Merge in which the field keeps its name, place and nullability under a new id
// (table::RewriteColumns), as Lance does. Retried against the new latest version on a
// conflicting commit.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arrow/type.h"
#include "common/result.h"
#include "table/commit.h"
#include "table/operations.h"

namespace quiver::query {

// `casts`: (top-level column, new type) pairs. The version committed.
Result<uint64_t> CastColumns(const table::CommitTarget& target,
                             const std::vector<std::pair<std::string, arrow::DataType>>& casts,
                             const table::CommitOptions& options = {});

}  // namespace quiver::query
