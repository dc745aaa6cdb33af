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

const std::vector<Operation>& Operations() {
  static const std::vector<Operation> kOps = {
      {"CreateNamespace", "POST", "/v1/namespace/{id}/create"},
      {"ListNamespaces", "GET", "/v1/namespace/{id}/list"},
      {"DescribeNamespace", "POST", "/v1/namespace/{id}/describe"},
      {"DropNamespace", "POST", "/v1/namespace/{id}/drop"},
      {"NamespaceExists", "POST", "/v1/namespace/{id}/exists"},
      {"ListTables", "GET", "/v1/namespace/{id}/table/list"},
      {"ListAllTables", "GET", "/v1/table"},
      {"RegisterTable", "POST", "/v1/table/{id}/register"},
      {"DescribeTable", "POST", "/v1/table/{id}/describe"},
      {"TableExists", "POST", "/v1/table/{id}/exists"},
      {"DropTable", "POST", "/v1/table/{id}/drop"},
      {"DeregisterTable", "POST", "/v1/table/{id}/deregister"},
      {"RestoreTable", "POST", "/v1/table/{id}/restore"},
      {"RenameTable", "POST", "/v1/table/{id}/rename"},
      {"UpdateTableSchemaMetadata", "POST", "/v1/table/{id}/schema_metadata/update"},
      {"ListTableVersions", "POST", "/v1/table/{id}/version/list"},
      {"CreateTableVersion", "POST", "/v1/table/{id}/version/create"},
      {"DescribeTableVersion", "POST", "/v1/table/{id}/version/describe"},
      {"BatchDeleteTableVersions", "POST", "/v1/table/{id}/version/delete"},
      {"BatchCreateTableVersions", "POST", "/v1/table/version/batch-create"},
      {"BatchCommitTables", "POST", "/v1/table/batch-commit"},
      {"AlterTableAlterColumns", "POST", "/v1/table/{id}/alter_columns"},
      {"UpdateFieldMetadata", "POST", "/v1/table/{id}/update_field_metadata"},
      {"AlterTableDropColumns", "POST", "/v1/table/{id}/drop_columns"},
      {"GetTableStats", "POST", "/v1/table/{id}/stats", 200, true, true},
      {"InsertIntoTable", "POST", "/v1/table/{id}/insert"},
      {"MergeInsertIntoTable", "POST", "/v1/table/{id}/merge_insert"},
      {"UpdateTable", "POST", "/v1/table/{id}/update"},
      {"DeleteFromTable", "POST", "/v1/table/{id}/delete"},
      {"QueryTable", "POST", "/v1/table/{id}/query"},
      {"CountTableRows", "POST", "/v1/table/{id}/count_rows", 200, true, true},
      {"CreateTable", "POST", "/v1/table/{id}/create"},
      {"ExplainTableQueryPlan", "POST", "/v1/table/{id}/explain_plan"},
      {"AnalyzeTableQueryPlan", "POST", "/v1/table/{id}/analyze_plan"},
      {"AlterTableAddColumns", "POST", "/v1/table/{id}/add_columns"},
      {"AlterTableBackfillColumns", "POST", "/v1/table/{id}/backfill_column", 202},
      {"RefreshMaterializedView", "POST", "/v1/materialized_view/{id}/refresh", 202},
      {"CreateMaterializedView", "POST", "/v1/materialized_view/{id}/create", 201},
      {"CreateTableIndex", "POST", "/v1/table/{id}/create_index"},
      {"CreateTableScalarIndex", "POST", "/v1/table/{id}/create_scalar_index"},
      {"ListTableIndices", "POST", "/v1/table/{id}/index/list"},
      {"DescribeTableIndexStats", "POST", "/v1/table/{id}/index/{index_name}/stats", 200, true,
       true},
      {"DropTableIndex", "POST", "/v1/table/{id}/index/{index_name}/drop"},
      {"ListTableTags", "POST", "/v1/table/{id}/tags/list", 200, true, true},
      {"GetTableTagVersion", "POST", "/v1/table/{id}/tags/version"},
      {"DeclareTable", "POST", "/v1/table/{id}/declare"},
      {"CreateTableTag", "POST", "/v1/table/{id}/tags/create"},
      {"DeleteTableTag", "POST", "/v1/table/{id}/tags/delete"},
      {"UpdateTableTag", "POST", "/v1/table/{id}/tags/update"},
      {"ListTableBranches", "POST", "/v1/table/{id}/branches/list"},
      {"CreateTableBranch", "POST", "/v1/table/{id}/branches/create"},
      {"DeleteTableBranch", "POST", "/v1/table/{id}/branches/delete"},
      {"DescribeTransaction", "POST", "/v1/transaction/{id}/describe"},
      {"AlterTransaction", "POST", "/v1/transaction/{id}/alter"},
      // quiver's own
      {"Healthz", "GET", "/healthz", 200, false},
      {"Metrics", "GET", "/metrics", 200, false},
      // the hierarchy layer (docs/authorization.md)
      {"CreateProject", "POST", "/v1/projects", 200, false},
      {"ListProjects", "GET", "/v1/projects", 200, false},
      {"DescribeProject", "POST", "/v1/projects/{id}/describe", 200, false, true},
      {"DeleteProject", "POST", "/v1/projects/{id}/delete", 200, false},
      {"CreateWarehouse", "POST", "/v1/warehouses", 200, false},
      {"ListWarehouses", "GET", "/v1/warehouses", 200, false},
      {"DescribeWarehouse", "POST", "/v1/warehouses/{id}/describe", 200, false, true},
      {"DeleteWarehouse", "POST", "/v1/warehouses/{id}/delete", 200, false},
      {"DeactivateWarehouse", "POST", "/v1/warehouses/{id}/deactivate", 200, false},
      {"ActivateWarehouse", "POST", "/v1/warehouses/{id}/activate", 200, false},
      {"CreateWarehouseNamespace", "POST", "/v1/warehouses/{id}/namespaces", 200, false},
      // identity and authorization
      {"CreateApiKey", "POST", "/v1/access/api-keys", 200, false},
      {"ListApiKeys", "GET", "/v1/access/api-keys", 200, false},
      {"RevokeApiKey", "POST", "/v1/access/api-keys/{id}/revoke", 200, false},
      {"WriteTuples", "POST", "/v1/access/tuples", 200, false},
      {"ReadTuples", "GET", "/v1/access/tuples", 200, false},
      {"DeleteTuples", "POST", "/v1/access/tuples/delete", 200, false},
      {"CheckAccess", "POST", "/v1/access/check", 200, false},
      {"WhoAmI", "GET", "/v1/access/whoami", 200, false},
      // operations
      {"ListEvents", "GET", "/v1/events", 200, false},
      {"AdminConsistency", "GET", "/v1/admin/consistency", 200, false},
  };
  return kOps;
}

const Operation* FindOperation(std::string_view name) {
  for (const Operation& op : Operations()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

Result<RouteMatch> MatchRoute(std::string_view method, std::string_view raw_path,
                              std::string_view delimiter, int* http_status, std::string* allow) {
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
