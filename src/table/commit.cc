#include "table/commit.h"

#include <set>

#include <fmt/format.h>

#include "common/ids.h"
#include "common/logging.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "table/apply.h"
#include "table/conflicts.h"
#include "table/versions.h"

namespace quiver::table {
namespace {

using lance::table::Transaction;

// The transaction of a committed version: inline, else its .txn file.
Result<Transaction> TransactionOf(ObjectStore& store, const LoadedManifest& loaded) {
  if (loaded.file.transaction) return *loaded.file.transaction;
  const std::string& name = loaded.file.manifest->transaction_file();
  if (name.empty()) {
    return Status(StatusCode::kConcurrentModification,
                  fmt::format("version {} has no transaction, so a concurrent commit cannot be "
                              "checked against it",
                              loaded.ref.version));
  }
  std::string key = std::string(format::kTransactionsDir) + "/" + name;
  QV_ASSIGN_OR_RETURN(GetResult got, store.Get(key));
  Transaction txn;
  if (!txn.ParseFromString(got.data)) {
    return Status::Corruption(fmt::format("{}: not a valid transaction", key));
  }
  return txn;
}

}  // namespace

Result<CommitResult> CommitTransaction(ObjectStore& store, Transaction txn,
                                       const CommitOptions& options, bool* outcome_unknown) {
  if (outcome_unknown != nullptr) *outcome_unknown = false;
  Clock* clock = options.clock != nullptr ? options.clock : Clock::Real();
  if (txn.uuid().empty()) txn.set_uuid(NewUuidV4());
  const uint64_t read_version = txn.read_version();
  const std::string txn_file = fmt::format("{}-{}.txn", read_version, txn.uuid());
  bool txn_written = false;
  std::set<uint64_t> checked;  // versions already found compatible

  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    if (attempt > 1) {
      // Jittered backoff so that committers racing for the same name spread out.
      uint64_t jitter = 0;
      RandomBytes(&jitter, sizeof(jitter));
      clock->SleepFor(std::chrono::microseconds(jitter % (500 * static_cast<uint64_t>(attempt))));
    }
    Result<VersionRef> resolved = ResolveLatestVersion(store);
    const bool creating = !resolved.ok() &&
                          resolved.status().code() == StatusCode::kTableNotFound &&
                          txn.has_overwrite() && read_version == 0;
    if (!resolved.ok() && !creating) return resolved.status();
    VersionRef latest_ref;
    LoadedManifest latest;
    if (creating) {
      // A new dataset: the transaction applies to an empty manifest and becomes version 1.
      auto empty = std::make_shared<lance::table::Manifest>();
      empty->mutable_data_format()->set_file_format("lance");
      empty->mutable_data_format()->set_version(options.new_table_storage_version);
      if (options.new_table_stable_row_ids) {
        empty->set_reader_feature_flags(format::kFlagStableRowIds);
        empty->set_writer_feature_flags(format::kFlagStableRowIds);
      }
      latest.file.manifest = std::move(empty);
      latest_ref.version = 0;
      latest_ref.naming = format::ManifestNaming::kV2;
    } else {
      latest_ref = *resolved;
      QV_ASSIGN_OR_RETURN(latest, LoadManifest(store, latest_ref));
    }
    QV_RETURN_IF_ERROR(
        format::CheckWriterFlags(latest.file.manifest->writer_feature_flags(), latest_ref.path));
    if (!creating && latest_ref.version < read_version) {
      return Status::InvalidInput(fmt::format("read version {} is newer than the latest version {}",
                                              read_version, latest_ref.version));
    }
    for (uint64_t v = read_version + 1; v <= latest_ref.version; ++v) {
      if (checked.count(v) != 0) continue;
      LoadedManifest theirs;
      if (v == latest_ref.version) {
        theirs = latest;
      } else {
        QV_ASSIGN_OR_RETURN(theirs, LoadVersion(store, v));
      }
      QV_ASSIGN_OR_RETURN(Transaction their_txn, TransactionOf(store, theirs));
      QV_RETURN_IF_ERROR(CheckConflict(txn, their_txn, v));
      checked.insert(v);
    }
    VersionLoader loader = [&store](uint64_t v) -> Result<format::ManifestFile> {
      QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadVersion(store, v));
      return std::move(loaded.file);
    };
    QV_ASSIGN_OR_RETURN(AppliedManifest next, ApplyTransaction(txn, latest.file, loader));
    const uint64_t version = latest_ref.version + 1;
    StampManifest(*next.manifest, version, clock->NowNanos(), txn_file);

    if (!txn_written) {
      QV_RETURN_IF_ERROR(
          store.Put(std::string(format::kTransactionsDir) + "/" + txn_file, txn.SerializeAsString())
              .status());
      txn_written = true;
    }
    std::string bytes = format::EncodeManifestFile(*next.manifest, &txn, next.index_section.get());
    std::string path = std::string(format::kVersionsDir) + "/" +
                       format::ManifestFileName(version, latest_ref.naming);
    auto put = store.Put(path, bytes, PutOptions::CreateOnly());
    if (!put.ok()) {
      if (put.status().IsAlreadyExists() && creating) {
        // Another writer created the dataset first: creating is not a commit to redo on top.
        return Status(StatusCode::kTableAlreadyExists,
                      "the dataset was created by another writer at the same time");
      }
      if (put.status().IsAlreadyExists()) {
        QV_LOG_DEBUG("commit lost a race; retrying",
                     {{"version", version}, {"attempt", attempt}, {"txn", txn.uuid()}});
        continue;
      }
      // Not "it exists": the store may still have created the manifest (e.g. a timeout after
      // the write landed), so nothing this version would reference may be deleted.
      if (outcome_unknown != nullptr) *outcome_unknown = true;
      return put.status();
    }
    WriteVersionHint(store, version);
    return CommitResult{version, path, bytes.size(), txn_file, attempt};
  }
  return Status(StatusCode::kConcurrentModification,
                fmt::format("gave up after {} attempts: other writers kept committing first",
                            options.max_attempts),
                Subcode::kConflict, /*retryable=*/true);
}

}  // namespace quiver::table
