// `quiver access ...`: offline administration of identity and grants on a catalog root, for
// bootstrapping a server with authentication on (the first API key, the first server admin)
// and for operators without a running server.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

// Adds the `access` subcommand tree; the chosen command's exit code goes to *exit_code.
void AddAccessCommands(CLI::App& app, int* exit_code);

}  // namespace quiver::cli
