// The `quiver` binary: `serve` and the offline/client subcommands.
#include <cstdio>
#include <map>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/store_commands.h"
#include "cli/table_commands.h"
#include "common/config.h"
#include "common/logging.h"

namespace {

constexpr const char* kVersion = QUIVER_VERSION;

// `serve`: every setting from ConfigOptions() becomes a flag whose help names its env twin.
void AddServeCommand(CLI::App& app, int* exit_code) {
  CLI::App* serve = app.add_subcommand(
      "serve",
      "Serve the Lance Namespace REST API over a storage root (default ./quiver-data "
      "on 127.0.0.1:2333)");
  auto flags = std::make_shared<std::map<std::string, std::string>>();
  auto config_file = std::make_shared<std::string>();
  serve->add_option("--config", *config_file,
                    fmt::format("config file (.toml or .json) [env: {}]", quiver::kConfigFileEnv));
  for (const quiver::ConfigOption& o : quiver::ConfigOptions()) {
    std::string key(o.key);
    serve->add_option_function<std::string>(
        std::string(o.flag), [flags, key](const std::string& v) { (*flags)[key] = v; },
        fmt::format("{} (default {}) [env: {}]", o.help, o.default_value, o.env));
  }
  serve->callback([flags, config_file, exit_code] {
    quiver::ConfigSources sources;
    if (!config_file->empty()) sources.file = *config_file;
    sources.env = quiver::QuiverEnvironment();
    sources.flags = *flags;
    auto config = quiver::LoadConfig(sources);
    if (!config.ok()) {
      std::fprintf(stderr, "quiver: error: %s\n", config.status().ToString().c_str());
      *exit_code = 2;
      return;
    }
    std::fprintf(stderr,
                 "quiver serve: the catalog server is not available in quiver %s yet; it arrives "
                 "with the catalog-server milestone (configuration is valid: root=%s listen=%s)\n",
                 kVersion, config->root.c_str(), config->listen.c_str());
    *exit_code = 3;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quiver: a catalog server and table engine for Lance datasets"};
  app.name("quiver");
  app.set_version_flag("-V,--version", fmt::format("quiver {}", kVersion));
  app.require_subcommand(1);
  int exit_code = 0;
  AddServeCommand(app, &exit_code);
  quiver::cli::AddStoreCommands(app, &exit_code);
  quiver::cli::AddTableCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
