#include "cli/catalog_commands.h"

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "cli/cli_util.h"
#include "common/numbers.h"

namespace quiver::cli {
namespace {

Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& uri) {
  QV_ASSIGN_OR_RETURN(auto store, OpenExistingStore(uri));
  if (!store->Head("_quiver/format.json").ok()) {
    return Status::InvalidInput(
        fmt::format("'{}' is not a quiver catalog root (no _quiver/format.json)", uri));
  }
  return catalog::Catalog::Open(store);
}

int RunCheck(const std::string& uri, bool json) {
  auto catalog = OpenCatalog(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  auto report = (*catalog)->CheckConsistency();
  if (!report.ok()) return Fail(report.status());
  if (json) {
    std::cout << nlohmann::json({{"projects", report->projects},
                                 {"warehouses", report->warehouses},
                                 {"namespaces", report->namespaces},
                                 {"tables", report->tables},
                                 {"problems", report->problems}})
                     .dump(2)
              << '\n';
  } else {
    std::cout << fmt::format("{} projects, {} warehouses, {} namespaces, {} tables, {} problems\n",
                             report->projects, report->warehouses, report->namespaces,
                             report->tables, report->problems.size());
    for (const std::string& p : report->problems) std::cout << "  " << p << '\n';
  }
  return report->problems.empty() ? 0 : 4;
}

int RunRecover(const std::string& uri, double min_age_seconds) {
  // Checked: converting 1e300 seconds (or inf) to nanoseconds is undefined.
  auto min_age = DurationFromSeconds(min_age_seconds);
  if (!min_age.ok()) return UsageError(min_age.status().WithContext("--min-age"));
  auto catalog = OpenCatalog(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  Status recovered = (*catalog)->Recover(*min_age);
  if (!recovered.ok()) return Fail(recovered);
  return RunCheck(uri, false);
}

int RunLog(const std::string& uri, uint64_t since, size_t limit) {
  auto catalog = OpenCatalog(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  auto events = (*catalog)->registry().ReadLog(since, limit);
  if (!events.ok()) return Fail(events.status());
  for (const nlohmann::json& e : *events) std::cout << e.dump() << '\n';
  return 0;
}

}  // namespace

void AddCatalogCommands(CLI::App& app, int* exit_code) {
  CLI::App* cat =
      app.add_subcommand("catalog", "Offline tools for a catalog root (_quiver/ records)");
  cat->require_subcommand(1);
  auto uri = std::make_shared<std::string>();

  auto json = std::make_shared<bool>(false);
  CLI::App* check = cat->add_subcommand(
      "check", "Scan every record for broken invariants (exit 4 when problems are found)");
  check->add_option("root", *uri, "catalog root (path, file:///abs or memory://n)")->required();
  check->add_flag("--json", *json, "print {namespaces, tables, problems} as JSON");
  check->callback([uri, json, exit_code] { *exit_code = RunCheck(*uri, *json); });

  auto min_age = std::make_shared<double>(60);
  CLI::App* recover =
      cat->add_subcommand("recover", "Finish or roll back renames a crash interrupted, then check");
  recover->add_option("root", *uri, "catalog root")->required();
  recover->add_option("--min-age", *min_age,
                      "only operations older than this many seconds (default 60; a live server "
                      "may be in the middle of younger ones)");
  recover->callback([uri, min_age, exit_code] { *exit_code = RunRecover(*uri, *min_age); });

  auto since = std::make_shared<uint64_t>(0);
  auto limit = std::make_shared<size_t>(1000);
  CLI::App* log = cat->add_subcommand("log", "Print change-log records (JSON Lines), oldest first");
  log->add_option("root", *uri, "catalog root")->required();
  log->add_option("--since", *since, "only records after this generation (default 0)");
  log->add_option("--limit", *limit, "at most this many records (default 1000)");
  log->callback([uri, since, limit, exit_code] { *exit_code = RunLog(*uri, *since, *limit); });
}

}  // namespace quiver::cli
