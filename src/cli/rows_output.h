// Printing rows (an aligned text table or JSON Lines) and opening a dataset version: shared by
// the `quiver table` commands that read rows.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "table/dataset.h"

namespace quiver::cli {

// The non-empty comma-separated parts of `s`.
std::vector<std::string> SplitComma(const std::string& s);

// One version (the latest when `version` is empty) of the dataset at `uri`, on `branch` (main
// when empty).
Result<std::shared_ptr<const table::Dataset>> OpenVersion(const std::string& uri,
                                                          std::optional<uint64_t> version,
                                                          const std::string& branch);

// Prints `batches` as JSON Lines or as an aligned text table. A streaming caller passes one batch
// at a time with `json` (the text table needs every row to size its columns). 0, or the exit
// code of the failure it printed.
int PrintBatches(const arrow::Schema& schema, const std::vector<arrow::RecordBatch>& batches,
                 bool json);

// Prints a whole stream: JSON Lines batch by batch, or the text table at the end.
int PrintStream(arrow::BatchStream& stream, bool json);

}  // namespace quiver::cli
