// Committing a transaction to a Lance dataset the way Rust Lance does
// (lance-table-format.md §3): against the version it was built from (`read_version`), after
// checking every transaction committed since then for conflicts, by creating the next
// version's manifest name only if it does not exist yet. A lost race re-reads the new latest
// version, re-checks and retries (bounded).
//
// Each attempt writes `_transactions/{read_version}-{uuid}.txn`, then the manifest (index
// section, the same transaction inline, manifest, footer) with CreateOnly, then the version
// hint. A version committed since `read_version` that carries no transaction at all cannot be
// checked and fails the commit, as in Rust.
// Thread-safety: reentrant; concurrent committers (threads, processes, Rust Lance) are
// arbitrated by the store's create-only put.
#pragma once

#include <cstdint>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "store/object_store.h"

namespace lance::table {
class Transaction;
}

namespace quiver::table {

inline constexpr std::string_view kWriterLibrary = "quiver";

struct CommitOptions {
  int max_attempts = 20;
  Clock* clock = nullptr;  // commit timestamps and retry backoff; Clock::Real() when null
  // An Overwrite with read_version 0 on a store without versions creates the dataset (version 1)
  // in this data storage version (Lance's `data_format.version`): Lance 12's default, 2.2 (which
  // LanceDB 0.39 and newer read; "2.1" for tables that Lance 8 / LanceDB 0.31 must read).
  std::string new_table_storage_version = "2.2";
  // ...and with stable row ids (reader and writer feature flag 2, Lance's
  // enable_stable_row_ids): every row gets an id that survives compaction and updates.
  bool new_table_stable_row_ids = false;
};

struct CommitResult {
  uint64_t version = 0;
  std::string manifest_path;
  uint64_t manifest_size = 0;
  std::string transaction_file;  // name inside _transactions/
  int attempts = 0;
};

// `store` is rooted at the dataset (or branch) root. The transaction's uuid is assigned if empty.
// An Overwrite with read_version 0 creates the dataset when it has no version yet (AlreadyExists-
// like ConcurrentModification if another writer created it first).
// Errors: ConcurrentModification (14) for conflicts (retryable when redoing the operation on the
// new latest version can work) and for running out of attempts; Unsupported for unknown writer
// flags or operations quiver cannot apply; InvalidInput if read_version is not a version.
//
// On an error, `*outcome_unknown` (when given) says whether the version may have been committed
// anyway: true only when the manifest's create-only put itself failed other than with
// AlreadyExists (a timeout, an I/O error: the object may have been created before the error).
// Every other error is known to have committed nothing, so a caller may then delete what only
// this commit would have referenced (WriteData's data files); after an unknown outcome it must
// not (cleanup removes them later if they are unreferenced).
Result<CommitResult> CommitTransaction(ObjectStore& store, lance::table::Transaction txn,
                                       const CommitOptions& options = {},
                                       bool* outcome_unknown = nullptr);

}  // namespace quiver::table
