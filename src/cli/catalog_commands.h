// `quiver catalog ...`: offline tools over a catalog root (the registry under _quiver/):
// a consistency check, recovery of interrupted operations, and the change log.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

// Adds the `catalog` subcommand tree; the chosen command's exit code goes to *exit_code.
void AddCatalogCommands(CLI::App& app, int* exit_code);

}  // namespace quiver::cli
