// `quiver store ...`: offline tools over an object store root (list, stat, cat, sweep).
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

// Adds the `store` subcommand tree to `app`. The chosen command's exit code is written to
// *exit_code when it runs.
void AddStoreCommands(CLI::App& app, int* exit_code);

}  // namespace quiver::cli
