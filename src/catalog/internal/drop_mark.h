// The drop mark: how a container (a project, a warehouse, a namespace) is deleted while creates
// may be landing under it, with no lock. It lives here, once; DeleteProject, DeleteWarehouse and
// DropNamespace say what "empty" means for them and what they delete.
//
//   deleter: live mark? → Retryable | write mark (if-match) → check children → delete (if-match
//            on the mark's etag) | refuse → withdraw the mark
//
// Invariants (against concurrent writers in this and other processes, over a store whose
// conditional puts are linearizable):
//   1. The mark (`dropping_since` = the deleter's clock reading, its identity) is written into
//      the container's record with if-match before the deleter looks for children; the record's
//      delete is conditional on the etag the mark write returned, so anything that changed the
//      record meanwhile (a property update, another deleter) stops the delete.
//   2. A create under a container re-checks its parent after its own conditional write
//      (create_protocol.h, invariant 3) and withdraws when the parent carries a live mark. Both
//      sides write before they read: whatever lands after the mark withdraws, whatever landed
//      before it is found by the deleter's check (or its cascade). Never neither.
//   3. A live mark refuses a second deleter (Retryable), so one deleter works at a time.
//   4. A mark is live for a bounded time (Catalog::HasLiveDropMark); an older one is a crashed
//      deleter's leftover, ignored by creates and overwritten by the next deleter.
//   5. A deleter that refuses (not empty, a storage error) withdraws only its own mark: the
//      record's `dropping_since` still equals its mark. The withdrawal is retried; one that
//      keeps failing is logged and leaves a mark that expires by (4).
//   6. A mark that cannot be written because the storage is full is the caller's to handle
//      (DropNamespace drops without it, to free space, and sweeps what raced it after).
// Thread-safety: stateless functions; the Registry is thread-safe.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/internal/record_fields.h"
#include "catalog/internal/records.h"
#include "catalog/registry.h"
#include "common/logging.h"

namespace quiver::catalog::internal {

// Writes `mark` into the stored container record (R: ProjectRecord, WarehouseRecord,
// NamespaceRecord) if it still has `stored.etag`; the new etag. A lost race is Retryable naming
// `what` ("project 'p'"); other errors are the store's.
template <typename R>
Result<std::string> WriteDropMark(Registry& registry, RecordKind kind, const ObjectId& id,
                                  const Stored<R>& stored, int64_t mark, std::string_view what) {
  R marked = stored.record;
  marked.dropping_since = mark;
  auto etag = registry.Replace(kind, id, marked.ToJson(), stored.etag);
  if (!etag.ok() && etag.status().IsConflict()) {
    return Retryable(fmt::format("{} changed concurrently", what));
  }
  return etag;
}

// Withdraws `mark` from the container's record if it is still there (invariant 5). Never fails:
// a withdrawal that cannot be made leaves a mark that expires.
template <typename R>
void WithdrawDropMark(Registry& registry, RecordKind kind, const ObjectId& id, int64_t mark) {
  constexpr int kAttempts = 5;
  Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto current = GetRecord<R>(registry, kind, id);
    if (!current.ok() || current->record.dropping_since != mark) return;
    current->record.dropping_since.reset();
    last = registry.Replace(kind, id, current->record.ToJson(), current->etag).status();
    if (last.ok()) return;
  }
  QV_LOG_WARN("could not withdraw a drop mark; it expires by itself",
              {{"record", Registry::RecordKey(kind, id)}, {"error", last.ToString()}});
}

}  // namespace quiver::catalog::internal
