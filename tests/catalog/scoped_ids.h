// Test support: catalog ids in the default project, as the server scopes a client's ids.
#pragma once

#include <string>

#include "catalog/catalog.h"

namespace quiver::catalog {

// {"default", ...spec}.
inline ObjectId S(ObjectId spec) {
  spec.insert(spec.begin(), std::string(kDefaultProject));
  return spec;
}

}  // namespace quiver::catalog
