#include "server/routes.h"

#include <fmt/format.h>

#include "server/http_types.h"

namespace quiver::server {

namespace {

std::vector<std::string_view> SplitPattern(std::string_view pattern) {
  std::vector<std::string_view> out;
  size_t start = 1;
  while (start <= pattern.size()) {
    size_t slash = pattern.find('/', start);
    out.push_back(pattern.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

}  // namespace

Result<RouteMatch> MatchRoute(std::string_view method, std::string_view raw_path,
                              std::string_view delimiter, int* http_status, std::string* allow,
                              Dialect dialect) {
  *http_status = 0;
  // Split and decode the request path.
  std::string_view path = raw_path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::vector<std::string> segments;
  if (path.empty() || path.front() != '/') {
    *http_status = 404;
    return Status::Unsupported(fmt::format("no route for '{}'", raw_path));
  }
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view raw = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    std::string decoded;
    if (!PercentDecode(raw, /*form_plus=*/true, &decoded)) {
      return Status::InvalidInput(
          fmt::format("malformed percent-escape in path segment '{}'", raw));
    }
    segments.push_back(std::move(decoded));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  // `delimiter=.`: the client's normalisation removed the root id segment.
  if (delimiter == "." && segments.size() >= 3 && segments[0] == "v1" &&
      segments[1] == "namespace" &&
      ((segments.size() == 3 && segments[2] == "list") ||
       (segments.size() == 4 && segments[2] == "table" && segments[3] == "list"))) {
    segments.insert(segments.begin() + 2, ".");
  }

  const Operation* best = nullptr;
  int best_literals = -1;
  RouteMatch best_match;
  std::vector<std::string_view> methods_for_path;
  for (const Operation& op : Operations()) {
    if (op.remote && dialect != Dialect::kRemote) continue;
    std::vector<std::string_view> pattern = SplitPattern(op.pattern);
    if (pattern.size() != segments.size()) continue;
    RouteMatch match;
    int literals = 0;
    bool ok = true;
    for (size_t i = 0; i < pattern.size() && ok; ++i) {
      if (pattern[i] == "{id}") {
        match.id = segments[i];
      } else if (pattern[i] == "{index_name}") {
        match.index_name = segments[i];
      } else if (pattern[i] == segments[i]) {
        ++literals;
      } else {
        ok = false;
      }
    }
    if (!ok) continue;
    bool method_ok = method == op.method || (op.also_get && (method == "GET" || method == "POST"));
    if (!method_ok) {
      methods_for_path.push_back(op.method);
      if (op.also_get) methods_for_path.push_back("GET");
      continue;
    }
    if (literals > best_literals) {
      best = &op;
      best_literals = literals;
      match.op = &op;
      best_match = std::move(match);
    }
  }
  if (best != nullptr) return best_match;
  if (!methods_for_path.empty()) {
    *http_status = 405;
    allow->clear();
    for (std::string_view m : methods_for_path) {
      if (allow->find(m) != std::string::npos) continue;
      if (!allow->empty()) *allow += ", ";
      *allow += m;
    }
    return Status::Unsupported(
        fmt::format("method {} is not allowed on '{}' (allowed: {})", method, raw_path, *allow));
  }
  *http_status = 404;
  return Status::Unsupported(fmt::format("no route for {} '{}'", method, raw_path));
}

}  // namespace quiver::server
