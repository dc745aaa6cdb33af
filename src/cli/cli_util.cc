#include "cli/cli_util.h"

#include <cstdio>

#include "store/store_uri.h"

namespace quiver::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "quiver: error: %s\n", status.ToString().c_str());
  return 1;
}

Result<std::shared_ptr<ObjectStore>> OpenExistingStore(const std::string& uri) {
  OpenStoreOptions options;
  options.create_if_missing = false;
  return OpenStore(uri, options);
}

}  // namespace quiver::cli
