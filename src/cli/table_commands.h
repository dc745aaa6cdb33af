// `quiver table ...`: offline tools over one Lance dataset (inspect, versions, tags, branches).
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

void AddTableCommands(CLI::App& app, int* exit_code);

}  // namespace quiver::cli
