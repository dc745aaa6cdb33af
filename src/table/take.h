// Take: reads given rows of one dataset version, by row address or by row id, as one Arrow record
// batch.
//
// Rows come back in the order asked, repeats included. Addresses are fragment id << 32 | physical
// row offset (Scan's `_rowaddr`); ids are Scan's `_rowid` (the address itself unless the table
// has stable row ids, row_ids.h). The rows are grouped by fragment, and each data file of a
// fragment is read once over the sorted, distinct rows wanted from it (nearby rows are read as one
// range and the rows in between dropped), then put back in the order asked. Projection is as for
// Scan; `_rowid` and `_rowaddr` can be appended.
//
// Every row asked for is checked (fragment, offset, deletion vector) before any data file is
// read. Memory: the distinct rows asked for, decoded, plus the result; by id on a stable-row-id
// table, also one fragment's row id sequence at a time (each is searched for the ids in turn),
// and with `_rowid` by address on one, the sequences of the fragments asked for.
//
// Thread-safety: reentrant; any number of takes and scans may run at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/dataset.h"

namespace quiver::table {

enum class RowKey {
  kAddress,  // fragment id << 32 | physical row offset
  kId,       // `_rowid`: the address, or the stable row id on tables that have them
};

struct TakeOptions {
  std::vector<std::string> columns;  // top-level field names; empty = all, in schema order
  RowKey key = RowKey::kAddress;     // what the rows passed to Take are
  bool with_row_id = false;          // append `_rowid` (uint64)
  bool with_row_addr = false;        // append `_rowaddr` (uint64), after `_rowid`
  arrow::MemoryPool* pool = nullptr;
};

// The rows `rows` names, in that order. Errors, checked before anything is read:
//  * InvalidInput for an unknown column, or an address whose offset is past its fragment's
//    physical rows;
//  * InvalidInput with subcode NotFound (Status::IsNotFound) for a row that is not in this
//    version: a deleted row, an address in a fragment the version does not have, or an id no kept
//    row has. Nothing else is IsNotFound: a data, deletion or row id file the manifest names that
//    the store does not have is Corruption;
//  * Corruption for a malformed or missing data, deletion or row id file, or a fragment whose
//    rows cannot have row addresses (CheckAddressable); Unsupported as for Scan.
Result<arrow::RecordBatch> Take(const std::shared_ptr<const Dataset>& dataset,
                                const std::vector<uint64_t>& rows, const TakeOptions& options = {});

}  // namespace quiver::table
