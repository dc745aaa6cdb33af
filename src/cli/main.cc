// The `quiver` binary: `serve` and the offline/client subcommands.
#include <csignal>
#include <cstdio>

#include <pthread.h>
#include <map>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/access_commands.h"
#include "cli/catalog_commands.h"
#include "cli/cli_util.h"
#include "cli/store_commands.h"
#include "cli/table_commands.h"
#include "common/allocator.h"
#include "common/config.h"
#include "common/logging.h"
#include "server/server.h"

namespace {

constexpr const char* kVersion = QUIVER_VERSION;

// Serves until SIGINT/SIGTERM, then shuts down gracefully (stop accepting, finish the requests
// in flight) and returns 0. The signals are blocked before any thread starts, so only the
// sigwait below receives them.
int RunServer(const quiver::Config& config) {
  quiver::Logger::Default().SetLevel(config.log_level);
  quiver::Logger::Default().SetFormat(config.log_format);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto server = quiver::server::Server::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "quiver: error: cannot serve: %s\n", server.status().ToString().c_str());
    return 1;
  }
  std::printf("quiver serve: listening on %s (root %s, managed versioning %s, quiver %s)\n",
              (*server)->url().c_str(), (*server)->root().c_str(),
              config.managed_versioning ? "on" : "off", kVersion);
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  QV_LOG_INFO("shutting down: no new connections; finishing requests in flight",
              {{"signal", received == SIGINT ? "SIGINT" : "SIGTERM"}});
  (*server)->Shutdown();
  (*server)->Wait();
  QV_LOG_INFO("stopped", {});
  return 0;
}

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
    CLI::Option* option = serve->add_option_function<std::string>(
        std::string(o.flag), [flags, key](const std::string& v) { (*flags)[key] = v; },
        fmt::format("{} (default {}) [env: {}]", o.help, o.default_value, o.env));
    // Boolean settings work as bare flags too (`--managed-versioning`).
    if (o.default_value == "false") option->expected(0, 1)->default_str("true");
  }
  serve->callback([flags, config_file, exit_code] {
    quiver::ConfigSources sources;
    if (!config_file->empty()) sources.file = *config_file;
    sources.env = quiver::QuiverEnvironment();
    sources.flags = *flags;
    auto config = quiver::LoadConfig(sources);
    if (!config.ok()) {
      *exit_code = quiver::cli::UsageError(config.status());
      return;
    }
    *exit_code = RunServer(*config);
  });
}

}  // namespace

int main(int argc, char** argv) {
  quiver::TuneAllocatorForLargeBuffers();
  CLI::App app{"quiver: a catalog server and table engine for Lance datasets"};
  app.name("quiver");
  app.set_version_flag("-V,--version", fmt::format("quiver {}", kVersion));
  app.require_subcommand(1);
  int exit_code = 0;
  AddServeCommand(app, &exit_code);
  quiver::cli::AddStoreCommands(app, &exit_code);
  quiver::cli::AddTableCommands(app, &exit_code);
  quiver::cli::AddCatalogCommands(app, &exit_code);
  quiver::cli::AddAccessCommands(app, &exit_code);
  quiver::cli::CheckIntegerOptions(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; every other one is a wrong command line.
    const int code = app.exit(e);
    return code == 0 ? 0 : quiver::cli::kUsageExitCode;
  }
  return exit_code;
}
