// Whether a transaction can still commit after another one was committed since its read version
// (lance-table-format.md §3.3, the rows for the operations quiver commits today). A conflict is
// ConcurrentModification (code 14): retryable when redoing the operation on the new latest
// version can succeed, not retryable when the other commit made it meaningless.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "common/status.h"

namespace lance::table {
class Transaction;
}

namespace quiver::table {

// REQUIRES: `mine` is an operation quiver commits (Restore, UpdateConfig, Project,
// ReserveFragments, CreateIndex removing indices, Delete); anything else is Unsupported.
Status CheckConflict(const lance::table::Transaction& mine, const lance::table::Transaction& theirs,
                     uint64_t their_version);

}  // namespace quiver::table
