// Opening a store from a URI: the one place that knows which schemes exist.
//
//   /abs/path, rel/path        local directory (relative to the working directory)
//   file:///abs/path           local directory (percent-escapes decoded; host must be empty or
//                              "localhost")
//   memory://name              the process-wide memory store `name`
// Any other scheme (s3://, gs://, ...) is InvalidInput naming the supported ones.
// Thread-safety: safe to call from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/sync_point.h"
#include "store/object_store.h"

namespace quiver {

enum class StoreScheme { kLocal, kMemory };

struct StoreLocation {
  StoreScheme scheme;
  std::string path;  // local: directory path; memory: the store's name
};

Result<StoreLocation> ParseStoreUri(std::string_view uri);

struct OpenStoreOptions {
  bool create_if_missing = true;  // local: create the root directory
  const Clock* clock = nullptr;
  SyncPoints* sync_points = nullptr;  // handed to the backend
};

Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri,
                                               const OpenStoreOptions& options = {});

}  // namespace quiver
