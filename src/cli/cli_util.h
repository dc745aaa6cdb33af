// Helpers shared by the CLI's subcommands.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver::cli {

// Prints "quiver: error: <status>" to stderr and returns exit status 1.
int Fail(const Status& status);

// The exit status of a command line that is wrong (a bad option value, a bad configuration):
// the same as CLI11's own usage errors get from main().
inline constexpr int kUsageExitCode = 2;
// Prints "quiver: error: <status>" to stderr and returns kUsageExitCode.
int UsageError(const Status& status);

// Makes every integer option of `app` and its subcommands (CLI11 type INT or UINT) take plain
// decimal digits within the 64-bit range (common/numbers.h). CLI11's own conversion (strtoull,
// base 0) clamps an overflow to the maximum, wraps "-1" for an unsigned option and reads "010"
// as octal; this check runs on the text before it. Call once all options are declared.
void CheckIntegerOptions(CLI::App& app);

// Opens the store at `uri` without creating it: a mistyped path is an error, not a new root.
Result<std::shared_ptr<ObjectStore>> OpenExistingStore(const std::string& uri);

// An Arrow IPC stream read from a file (or stdin for "-"), batch by batch; the file is closed
// with the stream. Errors name the file.
Result<std::unique_ptr<arrow::BatchStream>> OpenIpcInput(const std::string& from);

}  // namespace quiver::cli
