// `quiver table query|count`: LanceDB's queries (filters, projections, order, exact vector
// search) over a dataset on the command line, on the query engine the server uses (query/).
// Registered under `quiver table` by AddTableCommands.
// Thread-safety: CLI code, single-threaded.
#pragma once

#include <CLI/CLI.hpp>

namespace quiver::cli {

void AddQueryCommands(CLI::App& table, int* exit_code);

}  // namespace quiver::cli
