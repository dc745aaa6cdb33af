#include "cli/store_commands.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/numbers.h"

namespace quiver::cli {
namespace {

struct LsArgs {
  std::string uri;
  std::string prefix;
  std::string start_after;
  size_t limit = 0;
  bool long_format = false;
};

int RunLs(const LsArgs& args) {
  auto store = OpenExistingStore(args.uri);
  if (!store.ok()) return Fail(store.status());
  ListOptions options;
  options.prefix = args.prefix;
  options.start_after = args.start_after;
  size_t printed = 0;
  while (true) {
    options.limit = args.limit == 0 ? 1000 : std::min<size_t>(1000, args.limit - printed);
    auto page = (*store)->List(options);
    if (!page.ok()) return Fail(page.status());
    for (const ObjectMeta& m : page->objects) {
      if (args.long_format) {
        std::cout << fmt::format("{:>12}  {}  {}  {}\n", m.size,
                                 FormatIso8601Millis(m.last_modified_nanos), m.etag, m.key);
      } else {
        std::cout << m.key << '\n';
      }
      ++printed;
    }
    if (!page->truncated || page->objects.empty() || (args.limit && printed >= args.limit)) break;
    options.start_after = page->objects.back().key;
  }
  return 0;
}

int RunStat(const std::string& uri, const std::string& key) {
  auto store = OpenExistingStore(uri);
  if (!store.ok()) return Fail(store.status());
  auto meta = (*store)->Head(key);
  if (!meta.ok()) return Fail(meta.status());
  std::cout << fmt::format(
      "key:           {}\nsize:          {}\netag:          {}\n"
      "last_modified: {}\n",
      meta->key, meta->size, meta->etag, FormatIso8601Millis(meta->last_modified_nanos));
  return 0;
}

int RunCat(const std::string& uri, const std::string& key) {
  auto store = OpenExistingStore(uri);
  if (!store.ok()) return Fail(store.status());
  auto got = (*store)->Get(key);
  if (!got.ok()) return Fail(got.status());
  std::fwrite(got->data.data(), 1, got->data.size(), stdout);
  return 0;
}

int RunSweep(const std::string& uri, double min_age_seconds) {
  // Checked: converting 1e300 seconds (or inf) to nanoseconds is undefined.
  auto min_age = DurationFromSeconds(min_age_seconds);
  if (!min_age.ok()) return UsageError(min_age.status().WithContext("--min-age"));
  auto store = OpenExistingStore(uri);
  if (!store.ok()) return Fail(store.status());
  auto report = (*store)->Sweep(*min_age);
  if (!report.ok()) return Fail(report.status());
  std::cout << fmt::format("removed {} leftover temp file(s), {} byte(s), older than {}s\n",
                           report->files_removed, report->bytes_removed, min_age_seconds);
  return 0;
}

}  // namespace

void AddStoreCommands(CLI::App& app, int* exit_code) {
  CLI::App* store = app.add_subcommand(
      "store", "Inspect and maintain an object-store root (a path, file:///abs or memory://n)");
  store->require_subcommand(1);

  auto ls_args = std::make_shared<LsArgs>();
  CLI::App* ls = store->add_subcommand("ls", "List keys in byte-wise order");
  ls->add_option("uri", ls_args->uri, "store root")->required();
  ls->add_option("--prefix", ls_args->prefix, "only keys starting with this");
  ls->add_option("--start-after", ls_args->start_after, "only keys after this one");
  ls->add_option("--limit", ls_args->limit, "print at most this many keys (0 = all)");
  ls->add_flag("-l,--long", ls_args->long_format, "show size, last-modified and etag");
  ls->callback([ls_args, exit_code] { *exit_code = RunLs(*ls_args); });

  auto uri = std::make_shared<std::string>();
  auto key = std::make_shared<std::string>();
  CLI::App* stat = store->add_subcommand("stat", "Show one object's size, etag, last-modified");
  stat->add_option("uri", *uri, "store root")->required();
  stat->add_option("key", *key, "object key")->required();
  stat->callback([uri, key, exit_code] { *exit_code = RunStat(*uri, *key); });

  CLI::App* cat = store->add_subcommand("cat", "Write one object's bytes to stdout");
  cat->add_option("uri", *uri, "store root")->required();
  cat->add_option("key", *key, "object key")->required();
  cat->callback([uri, key, exit_code] { *exit_code = RunCat(*uri, *key); });

  auto min_age = std::make_shared<double>(3600);
  CLI::App* sweep = store->add_subcommand(
      "sweep", "Remove temp files left by interrupted writes (never committed objects)");
  sweep->add_option("uri", *uri, "store root")->required();
  sweep
      ->add_option("--min-age", *min_age,
                   "only temp files older than this many seconds (default 3600; 0 only when no "
                   "writer is running)")
      ->check(CLI::NonNegativeNumber);
  sweep->callback([uri, min_age, exit_code] { *exit_code = RunSweep(*uri, *min_age); });
}

}  // namespace quiver::cli
