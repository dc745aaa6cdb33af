// The create protocol: how every catalog create (CreateProject, CreateWarehouse,
// CreateNamespace, DeclareTable, RegisterTable, and a rename's destination) writes its record.
// It lives here, once; the create paths only say what to write and what to re-check.
//
//   caller: validate → parent live → no conflict (its own checks, with its own messages)
//   here:   conditional write → [sync point kCreateWritten] → re-check → withdraw on failure
//
// Invariants (against concurrent writers in this and other processes, over a store whose
// conditional puts are linearizable):
//   1. The record is written with a create-only put, so of concurrent creates of one id exactly
//      one writes; the others fail at the write (AlreadyExists) having written nothing, and the
//      caller answers with its "already exists" code.
//   2. The record and its owner grant are one write (the grants are inside the body): an object
//      never exists without its owner.
//   3. After the write the re-check runs: everything a concurrent writer could have invalidated
//      between the caller's checks and the write (the parent still exists and is not being
//      dropped, no sibling of the other kind took the name, the warehouse is not being deleted).
//      Destructive operations work the other way round: they mark first (dropping_since) and
//      look for children after. Both write before they read, so either the drop sees the new
//      record, or the create sees the mark; never neither.
//   4. A re-check that fails, or that cannot be made (a storage error), withdraws: the record is
//      deleted if it still has the etag written (nobody else changes a record this young, but if
//      somebody did, theirs is not deleted), then the caller's undo runs (a reserved location's
//      marker, a rename's retired source), and the answer is the re-check's error. A rejected
//      create leaves nothing behind.
//   5. A failed write also runs the undo, and answers the store's status unchanged.
//   6. Between the write and the withdraw the record exists and readers may see it; the
//      consistency check reports such a young orphan as in flight (catalog.h). A withdraw that
//      fails is logged and leaves an orphan the check reports as a problem once it is old.
//   7. No change-log event is written here: the caller logs after a successful create.
//
// Thread-safety: CreateRecord may run concurrently with anything (all arbitration is in the
// store's conditional puts).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "catalog/registry.h"
#include "common/result.h"
#include "common/sync_point.h"

namespace quiver::catalog::internal {

struct CreateSpec {
  RecordKind kind = RecordKind::kNamespace;
  ObjectId id;
  nlohmann::json body;
  // What a concurrent writer could have invalidated; empty when nothing (a project). Runs after
  // the write; a non-OK status withdraws the record and is the answer.
  std::function<Status()> recheck;
  // Withdraws what the caller did before the write (may be empty). Runs on every failure.
  std::function<void()> undo;
};

enum class CreateStage { kWrite, kRecheck };

// Returns the new record's etag. On failure, *failed_at (may be null) says which step failed:
// kWrite (nothing was written; the store's status, e.g. AlreadyExists) or kRecheck (the record
// was withdrawn). A non-OK status from the sync point stops right there (a simulated crash: no
// withdraw, no undo) and is returned with kRecheck.
Result<std::string> CreateRecord(Registry& registry, const CreateSpec& spec,
                                 SyncPoints* sync_points, CreateStage* failed_at = nullptr);

// Re-check building blocks.
// OK when no record of `kind` has `id`; `taken` when one does; the registry's error when that
// cannot be told.
Status NoRecord(Registry& registry, RecordKind kind, const ObjectId& id, Status taken);
// The first non-OK of `checks`, run in order (later ones are not run).
Status FirstFailure(std::initializer_list<std::function<Status()>> checks);

}  // namespace quiver::catalog::internal
