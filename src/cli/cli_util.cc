#include "cli/cli_util.h"

#include <cstdio>

#include "common/numbers.h"
#include "store/store_uri.h"

namespace quiver::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "quiver: error: %s\n", status.ToString().c_str());
  return 1;
}

int UsageError(const Status& status) {
  std::fprintf(stderr, "quiver: error: %s\n", status.ToString().c_str());
  return kUsageExitCode;
}

void CheckIntegerOptions(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // The type name before any validator's description is appended ("UINT:..." otherwise).
    std::string type = option->get_type_name();
    type = type.substr(0, type.find(':'));
    if (type != "INT" && type != "UINT") continue;
    const bool is_signed = type == "INT";
    option->check(CLI::Validator(
        [is_signed](std::string& text) -> std::string {
          Status s = is_signed ? ParseInt64(text).status() : ParseUint64(text).status();
          return s.ok() ? std::string() : s.message();
        },
        "", "decimal integer"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    CheckIntegerOptions(*sub);
  }
}

Result<std::shared_ptr<ObjectStore>> OpenExistingStore(const std::string& uri) {
  OpenStoreOptions options;
  options.create_if_missing = false;
  return OpenStore(uri, options);
}

}  // namespace quiver::cli
