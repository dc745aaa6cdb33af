#include "cli/catalog_commands.h"

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "cli/cli_util.h"
#include "common/numbers.h"

namespace quiver::cli {
namespace {

Result<std::shared_ptr<ObjectStore>> OpenRoot(const std::string& uri) {
  QV_ASSIGN_OR_RETURN(auto store, OpenExistingStore(uri));
  if (!store->Head("_quiver/format.json").ok()) {
    return Status::InvalidInput(
        fmt::format("'{}' is not a quiver catalog root (no _quiver/format.json)", uri));
  }
  return store;
}

// The offline tools never create the default project (a server does, at its start): a root
// whose default project was deleted stays so. `read_only`: for the tools that only look (the
// log), which must leave the root exactly as they found it: every write is refused below the
// catalog.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& uri, bool read_only) {
  QV_ASSIGN_OR_RETURN(auto store, OpenRoot(uri));
  catalog::CatalogOptions options;
  options.ensure_defaults = false;
  options.read_only = read_only;
  return catalog::Catalog::Open(store, options);
}

int RunCheck(const std::string& uri, bool json, double in_flight_seconds) {
  // Checked: converting 1e300 seconds (or inf) to nanoseconds is undefined.
  auto in_flight = DurationFromSeconds(in_flight_seconds);
  if (!in_flight.ok()) return UsageError(in_flight.status().WithContext("--min-age"));
  auto store = OpenRoot(uri);
  if (!store.ok()) return Fail(store.status());
  auto report = catalog::Catalog::CheckRoot(*store, *in_flight);
  if (!report.ok()) return Fail(report.status());
  if (json) {
    std::cout << nlohmann::json({{"projects", report->projects},
                                 {"warehouses", report->warehouses},
                                 {"namespaces", report->namespaces},
                                 {"tables", report->tables},
                                 {"problems", report->problems},
                                 {"in_flight", report->in_flight}})
                     .dump(2)
              << '\n';
  } else {
    std::cout << fmt::format(
        "{} projects, {} warehouses, {} namespaces, {} tables, {} problems, {} in flight\n",
        report->projects, report->warehouses, report->namespaces, report->tables,
        report->problems.size(), report->in_flight.size());
    for (const std::string& p : report->problems) std::cout << "  " << p << '\n';
    for (const std::string& p : report->in_flight) std::cout << "  in flight: " << p << '\n';
  }
  return report->problems.empty() ? 0 : 4;
}

int RunRecover(const std::string& uri, double min_age_seconds) {
  // Checked: converting 1e300 seconds (or inf) to nanoseconds is undefined.
  auto min_age = DurationFromSeconds(min_age_seconds);
  if (!min_age.ok()) return UsageError(min_age.status().WithContext("--min-age"));
  auto catalog = OpenCatalog(uri, /*read_only=*/false);
  if (!catalog.ok()) return Fail(catalog.status());
  Status recovered = (*catalog)->Recover(*min_age);
  if (!recovered.ok()) return Fail(recovered);
  return RunCheck(uri, false, min_age_seconds);
}

int RunLog(const std::string& uri, uint64_t since, size_t limit) {
  auto catalog = OpenCatalog(uri, /*read_only=*/true);
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
  check->add_flag("--json", *json, "print {namespaces, tables, problems, in_flight} as JSON");
  auto in_flight_age = std::make_shared<double>(60);
  check->add_option("--min-age", *in_flight_age,
                    "operations younger than this many seconds are reported as in flight, not "
                    "as problems (default 60, recovery's own default: a live server may be in "
                    "the middle of them)");
  check->callback([uri, json, in_flight_age, exit_code] {
    *exit_code = RunCheck(*uri, *json, *in_flight_age);
  });

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
