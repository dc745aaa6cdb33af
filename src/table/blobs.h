// FetchBlobs: the payload bytes of a blob v2 column (Lance 12, `lance.blob.v2`) at given rows,
// as LanceDB's `fetchBlobs` answers them. Scans and takes give the descriptors (kind, position,
// size, blob_id, blob_uri); this follows them:
//   kind 0 (inline): bytes [position, position + size) of the row's data file;
//   kind 1 (packed sidecar) and 2 (dedicated): bytes [position, position + size) of
//     data/<data file stem>/<blob_id as 32 binary digits, least significant first>.blob;
//   kind 3 (external URI): not read (Unsupported naming the URI): quiver reads only the table's
//     own files.
// A null blob is null. Rows are as for Take (addresses or ids), in the order asked.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "table/dataset.h"
#include "table/take.h"

namespace quiver::table {

// A large_binary array of the payloads. InvalidInput when `column` is not a top-level blob v2
// column; errors of Take for the rows; Corruption when a descriptor points outside its file or
// names an unknown kind.
Result<arrow::ArrayPtr> FetchBlobs(const std::shared_ptr<const Dataset>& dataset,
                                   const std::string& column, const std::vector<uint64_t>& rows,
                                   RowKey key = RowKey::kAddress);

// The sidecar file name of `blob_id`: its 32 bits as binary digits, least significant first.
std::string BlobFileName(uint32_t blob_id);

}  // namespace quiver::table
