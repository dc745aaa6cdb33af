// Adding (or rewriting) columns of a table the way Lance's add_columns (alter_columns) does: every
// fragment gets one new data file (a column group) holding the new fields for each of its physical
// rows, deleted ones included (Lance computes them too), the schema gets the new fields with ids
// after the largest, and one Merge transaction names every fragment and the new schema
// (lance-table-format.md §3). Rows keep their fragments and addresses, so deletion files, indices
// on the old fields and stable row ids stay valid.
//
// `compute(rows)` gives the new columns' values for one batch of the table's rows (every column
// of the table, then `_rowaddr`): one array per field of `columns`, in order and of its type, of
// the batch's length. Nothing is committed when compute or a write fails; the files written are
// deleted then, and when the commit fails with a known outcome.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol (a Merge
// conflicts with appends, updates and other merges committed since `read`, retryably).
#pragma once

#include <functional>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/commit.h"
#include "table/dataset.h"

namespace quiver::table {

using ColumnCompute =
    std::function<Result<std::vector<arrow::ArrayPtr>>(const arrow::RecordBatch& rows)>;

// InvalidInput when `columns` is empty, names an existing column or a column twice, or has a
// type Lance cannot store.
Result<CommitResult> AddColumns(const Dataset& read, const std::vector<arrow::Field>& columns,
                                const ColumnCompute& compute, const CommitOptions& options = {});

// Rewriting existing top-level columns with new values (a type change: Lance's alter_columns with
// a data type): the same, each field of `columns` taking the place of the column of its name in
// the schema with a new id; the old data files keep the old field's values, which no version
// reads any more (cleanup removes them with the files once no version needs them). InvalidInput
// when a column does not exist or is a struct or list (its children would need rewriting too).
Result<CommitResult> RewriteColumns(const Dataset& read, const std::vector<arrow::Field>& columns,
                                    const ColumnCompute& compute,
                                    const CommitOptions& options = {});

}  // namespace quiver::table
