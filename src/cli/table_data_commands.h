// `quiver table head|import|export`: reading and writing a Lance dataset's rows from the
// command line (issue 6). Registered under `quiver table` by AddTableCommands.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

void AddTableDataCommands(CLI::App& table, int* exit_code);

}  // namespace quiver::cli
