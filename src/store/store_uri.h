// Opening a store from a URI: the one place that knows which schemes exist.
//
//   /abs/path, rel/path        local directory (relative to the working directory)
//   file:///abs/path           local directory (percent-escapes decoded; host must be empty or
//                              "localhost")
//   memory://name              the process-wide memory store `name`
// Any other scheme (s3://, gs://, ...) is InvalidInput naming the supported ones.
//
// Locations are compared only in their canonical form (CanonicalLocation), and "inside" means
// by whole segments (LocationWithin), never by characters: the same directory spelled as a
// relative path, as file:///abs, with "..", "." or doubled and trailing slashes, or through a
// symbolic link, is one location.
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

// The one spelling of a storage location, for comparing locations:
//   local (plain path or file://): "file://" + the absolute path (relative to the working
//     directory), without ".", empty segments or a trailing '/', ".." applied, and symbolic links
//     resolved in the part that exists (realpath of the longest existing ancestor);
//   memory://name: itself;
//   s3://bucket/key: "s3://" + bucket + "/" + the key without empty segments or a trailing '/'
//     (object keys are not paths: "." and ".." are kept as written). Comparable, not openable.
// Anything ParseStoreUri refuses (other than s3) is InvalidInput.
Result<std::string> CanonicalLocation(std::string_view uri);
// `canonical` joined with the relative key path `rel` ("" gives `canonical`).
std::string JoinLocation(std::string_view canonical, std::string_view rel);
// True when `inner` is `outer` or lies below it by whole segments: "file:///a/b" is within
// "file:///a", "file:///ab" is not. Both must be canonical.
bool LocationWithin(std::string_view inner, std::string_view outer);
// One of `a` and `b` is within the other.
bool LocationsOverlap(std::string_view a, std::string_view b);

struct OpenStoreOptions {
  bool create_if_missing = true;  // local: create the root directory
  const Clock* clock = nullptr;
  SyncPoints* sync_points = nullptr;  // handed to the backend
};

Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri,
                                               const OpenStoreOptions& options = {});

}  // namespace quiver
