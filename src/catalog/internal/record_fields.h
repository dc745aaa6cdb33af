// Helpers shared by the catalog's implementation files (catalog.cc, hierarchy.cc): the statuses
// the catalog answers with. (The records themselves are read through records.h.)
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/status.h"

namespace quiver::catalog::internal {

inline Status Error(StatusCode code, std::string message) {
  return Status(code, std::move(message));
}

// A lost race the caller may retry (code 14).
inline Status Retryable(std::string message) {
  return Status(StatusCode::kConcurrentModification, std::move(message), Subcode::kNone, true);
}

}  // namespace quiver::catalog::internal
