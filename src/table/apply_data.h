// Applying the data-writing transactions (Append, Overwrite) to a manifest, as Rust Lance's
// Transaction::build_manifest does: new fragments get ids above every id the table has used
// (a fragment written with id 0 is assigned one at commit time), Overwrite replaces the schema
// and the fragments and drops the indices. On a table with stable row ids (reader flag 2) each
// new fragment gets the next row ids (Manifest.next_row_id, which an overwrite does not reset)
// and its created / last-updated version sequences, as Lance's assign_row_ids and
// build_version_meta do; the transaction itself carries none (Lance's neither).
// Thread-safety: pure functions.
#pragma once

#include "common/result.h"
#include "format/lance_proto.h"

namespace quiver::table {

Status ApplyAppend(const lance::table::Transaction::Append& append, lance::table::Manifest& m);
// `drop_indices` is set when the overwrite leaves no index valid.
Status ApplyOverwrite(const lance::table::Transaction::Overwrite& overwrite,
                      lance::table::Manifest& m, bool* drop_indices);

}  // namespace quiver::table
