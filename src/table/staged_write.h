// Staged (multipart) writes: the parts of one write are uploaded separately (by several requests,
// in parallel, possibly through several servers), then committed together as ONE Append or
// Overwrite transaction, or abandoned. LanceDB's remote client writes large adds this way
// (lancedb-remote-api.md §5.3: multipart_write/create, insert/?upload_id=U per part,
// multipart_write/complete or abort); the protocol below is quiver's.
//
// Records, under the table root in `_quiver_uploads/<upload id>/` (outside every directory
// Lance reads or cleans):
//   upload.json     {"branch", "created_version"}: written create-only by BeginStagedWrite
//   part-<uuid>.pb  a Lance Transaction whose Append holds one part's fragments, and in its
//                   properties the part's mode: create-only, by StageWritePart, after the part's
//                   data files exist
//   finish.json     {"action": "complete" | "abort", "owner", "version"?}: the one decision
//
// Invariants:
//  1. A part record names only data files that exist: they are written first.
//  2. finish.json decides once. Complete and abort each create it (create-only); the loser
//     answers what the winner decided (an abort after a complete, or a complete after an abort,
//     is InvalidTableState). A part is refused once finish.json exists.
//  3. Complete commits one transaction whose uuid is the upload id, holding the fragments of
//     every part recorded when it lists them. A complete retried after a commit whose answer was
//     lost finds that version (finish.json's, else the manifests since created_version carrying
//     the uuid) and answers it: one upload never commits twice. While another complete of the
//     same upload is in flight (in this process; or finish.json names another server and no
//     version carries the uuid yet) it is ServiceUnavailable, retryable.
//  4. Nothing a completed upload wrote is deleted but its part records (the committed version
//     owns the data files); upload.json and finish.json stay, the answer to a retry. Abort
//     deletes the data files of the recorded parts, then their records.
//  5. A commit that fails with a known outcome (nothing committed) removes finish.json again,
//     so complete can be retried or the upload aborted; after an unknown outcome it stays and
//     a retry settles it by the manifests (3).
//  6. A part that records itself after complete listed the parts is not committed; its files are
//     unreferenced and cleanup removes them by its unverified-file age rule, as for any writer
//     that fails.
//
// Thread-safety: reentrant; concurrent calls on one upload are arbitrated by the store's
// create-only puts (and one in-process set for invariant 3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/commit.h"
#include "table/operations.h"
#include "table/write.h"

namespace quiver::table {

inline constexpr std::string_view kUploadsDir = "_quiver_uploads";

// Starts an upload on `target` (main or a branch), which must have a version. Returns its id
// (a UUID v4).
Result<std::string> BeginStagedWrite(const CommitTarget& target);

// Writes one part: `input`'s rows as data files of the table, recorded under the upload. `mode`
// kAppend or kOverwrite (every part of an upload must say the same). InvalidInput for an
// unknown upload, another branch than the upload's, or a schema that is not the table's;
// InvalidTableState once the upload is completed or aborted. Returns the rows written.
Result<uint64_t> StageWritePart(const CommitTarget& target, const std::string& upload_id,
                                WriteMode mode, arrow::BatchStream& input);

// Commits every recorded part as one transaction (invariant 3); the version.
Result<CommitResult> CompleteStagedWrite(const CommitTarget& target, const std::string& upload_id,
                                         const CommitOptions& options = {});

// Abandons the upload and deletes what its parts wrote (invariant 4).
Status AbortStagedWrite(const CommitTarget& target, const std::string& upload_id);

}  // namespace quiver::table
