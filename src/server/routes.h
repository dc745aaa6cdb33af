// The router: matches a request's method and path against the operation table
// (operation_table.h, where every operation's method, path pattern and success status are).
//
// Matching (namespace-spec.md §2, §10): the path is split on '/', a trailing '/' is ignored,
// each segment is percent-decoded with '+' as a space; `{id}` and `{index_name}` take one
// segment. Literal routes win over `{id}` routes. Rows with `also_get` (CountTableRows,
// ListTableTags, GetTableStats, DescribeTableIndexStats) accept GET as well as POST (what real
// clients send); a path whose routes all want other methods is 405 with their `Allow`. With
// `delimiter=.` the client's URL normalisation drops the root id, so `/v1/namespace/list` and
// `/v1/namespace/table/list` address the root. Rows of the remote protocol (Operation::remote)
// match only in the remote dialect.
// Thread-safety: MatchRoute is a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "server/operation_table.h"
#include "server/remote_dialect.h"

namespace quiver::server {

struct RouteMatch {
  const Operation* op = nullptr;
  std::optional<std::string> id;          // decoded `{id}` segment (absent for id-less routes)
  std::optional<std::string> index_name;  // decoded `{index_name}`
};

// Errors: 404-worthy "no such route" and 405-worthy "wrong method" are reported through
// `*http_status` with code Unsupported; a malformed percent-escape is InvalidInput.
Result<RouteMatch> MatchRoute(std::string_view method, std::string_view raw_path,
                              std::string_view delimiter, int* http_status, std::string* allow,
                              Dialect dialect = Dialect::kSpec);

}  // namespace quiver::server
