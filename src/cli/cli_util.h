// Helpers shared by the CLI's subcommands.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "store/object_store.h"

namespace quiver::cli {

// Prints "quiver: error: <status>" to stderr and returns exit status 1.
int Fail(const Status& status);

// Opens the store at `uri` without creating it: a mistyped path is an error, not a new root.
Result<std::shared_ptr<ObjectStore>> OpenExistingStore(const std::string& uri);

}  // namespace quiver::cli
