// Helpers shared by the catalog's implementation files (catalog.cc, hierarchy.cc): reading the
// common fields of registry records and building the statuses the catalog answers with.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace quiver::catalog::internal {

inline Status Error(StatusCode code, std::string message) {
  return Status(code, std::move(message));
}

// A lost race the caller may retry (code 14).
inline Status Retryable(std::string message) {
  return Status(StatusCode::kConcurrentModification, std::move(message), Subcode::kNone, true);
}

// A record's "properties" (string values only; anything else is ignored).
inline std::map<std::string, std::string> PropertiesFromJson(const nlohmann::json& body) {
  std::map<std::string, std::string> props;
  auto it = body.find("properties");
  if (it == body.end() || !it->is_object()) return props;
  for (auto& [k, v] : it->items()) {
    if (v.is_string()) props[k] = v.get<std::string>();
  }
  return props;
}

}  // namespace quiver::catalog::internal
