// Test support for the authorization tests (authz_matrix_test.cc, oracle_test.cc): a server with
// authentication on and `user:root` as its server admin, API keys for named principals, one
// plain request per route aimed at the object `default` ns$t (ns for namespace operations, a
// fresh name for create doors), and a printable form of a reply.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/routes.h"
#include "server_fixture.h"

namespace quiver::server::testing {

// One HTTP request. In the target, {own_key} is replaced by the key id of the caller's own API
// key and {victim_key} by that of user:victim (AuthzFixture::SendWith).
struct Request {
  std::string method;
  std::string target;
  std::string body = "{}";
};

struct OpRequest {
  std::string op;  // a route's operation name (routes.cc)
  Request request;
};

// A plain, valid-looking request for every route but Healthz and Metrics. The table is
// `ns$t` (version 1, index `id_idx`, tag `v1`, branch `dev`), the namespace `ns`, the project and
// warehouse `default`; create doors name something fresh under `ns`.
inline const std::vector<OpRequest>& OperationRequests() {
  static const std::vector<OpRequest> kRequests = {
      // namespaces
      {"CreateNamespace", {"POST", "/v1/namespace/ns%24fresh/create"}},
      {"ListNamespaces", {"GET", "/v1/namespace/ns/list", ""}},
      {"DescribeNamespace", {"POST", "/v1/namespace/ns/describe"}},
      {"DropNamespace", {"POST", "/v1/namespace/ns/drop", R"({"behavior":"Cascade"})"}},
      {"NamespaceExists", {"POST", "/v1/namespace/ns/exists"}},
      {"ListTables", {"GET", "/v1/namespace/ns/table/list", ""}},
      {"ListAllTables", {"GET", "/v1/table", ""}},
      // table lifecycle
      {"RegisterTable", {"POST", "/v1/table/ns%24fresh/register", R"({"location":"elsewhere"})"}},
      {"DeclareTable", {"POST", "/v1/table/ns%24fresh/declare"}},
      {"CreateTable", {"POST", "/v1/table/ns%24fresh/create"}},
      {"CreateMaterializedView", {"POST", "/v1/materialized_view/ns%24fresh/create"}},
      {"DescribeTable", {"POST", "/v1/table/ns%24t/describe"}},
      {"TableExists", {"POST", "/v1/table/ns%24t/exists"}},
      {"DropTable", {"POST", "/v1/table/ns%24t/drop"}},
      {"DeregisterTable", {"POST", "/v1/table/ns%24t/deregister"}},
      {"RenameTable", {"POST", "/v1/table/ns%24t/rename", R"({"new_table_name":"t2"})"}},
      // reading a table
      {"ListTableVersions", {"POST", "/v1/table/ns%24t/version/list"}},
      {"DescribeTableVersion", {"POST", "/v1/table/ns%24t/version/describe", R"({"version":1})"}},
      {"GetTableStats", {"POST", "/v1/table/ns%24t/stats"}},
      {"CountTableRows", {"POST", "/v1/table/ns%24t/count_rows"}},
      {"QueryTable", {"POST", "/v1/table/ns%24t/query", R"({"vector":[0.5],"k":1})"}},
      {"ExplainTableQueryPlan", {"POST", "/v1/table/ns%24t/explain_plan", R"({"query":{}})"}},
      {"AnalyzeTableQueryPlan", {"POST", "/v1/table/ns%24t/analyze_plan", R"({"k":1})"}},
      {"ListTableIndices", {"POST", "/v1/table/ns%24t/index/list"}},
      {"DescribeTableIndexStats", {"POST", "/v1/table/ns%24t/index/id_idx/stats"}},
      {"ListTableTags", {"POST", "/v1/table/ns%24t/tags/list"}},
      {"GetTableTagVersion", {"POST", "/v1/table/ns%24t/tags/version", R"({"tag":"v1"})"}},
      {"ListTableBranches", {"POST", "/v1/table/ns%24t/branches/list"}},
      // writing a table
      {"RestoreTable", {"POST", "/v1/table/ns%24t/restore", R"({"version":1})"}},
      {"UpdateTableSchemaMetadata",
       {"POST", "/v1/table/ns%24t/schema_metadata/update", R"({"b":"2"})"}},
      {"CreateTableVersion",
       {"POST", "/v1/table/ns%24t/version/create", R"({"version":2,"manifest_path":"nowhere"})"}},
      {"BatchDeleteTableVersions",
       {"POST", "/v1/table/ns%24t/version/delete",
        R"({"ranges":[{"start_version":1,"end_version":1}]})"}},
      {"AlterTableAlterColumns",
       {"POST", "/v1/table/ns%24t/alter_columns",
        R"({"alterations":[{"path":"name","rename":"label"}]})"}},
      {"UpdateFieldMetadata",
       {"POST", "/v1/table/ns%24t/update_field_metadata",
        R"({"updates":[{"path":"name","metadata":{"unit":"x"}}]})"}},
      {"AlterTableDropColumns",
       {"POST", "/v1/table/ns%24t/drop_columns", R"({"columns":["name"]})"}},
      {"InsertIntoTable", {"POST", "/v1/table/ns%24t/insert"}},
      {"MergeInsertIntoTable", {"POST", "/v1/table/ns%24t/merge_insert"}},
      {"UpdateTable",
       {"POST", "/v1/table/ns%24t/update", R"({"updates":[["name","'x'"]],"predicate":"id = 1"})"}},
      {"DeleteFromTable", {"POST", "/v1/table/ns%24t/delete", R"({"predicate":"id = 1"})"}},
      {"AlterTableAddColumns",
       {"POST", "/v1/table/ns%24t/add_columns",
        R"({"new_columns":[{"name":"c","expression":"id * 2"}]})"}},
      {"AlterTableBackfillColumns",
       {"POST", "/v1/table/ns%24t/backfill_column", R"({"column":"c"})"}},
      {"RefreshMaterializedView", {"POST", "/v1/materialized_view/ns%24t/refresh"}},
      {"CreateTableIndex",
       {"POST", "/v1/table/ns%24t/create_index", R"({"column":"id","index_type":"BTREE"})"}},
      {"CreateTableScalarIndex",
       {"POST", "/v1/table/ns%24t/create_scalar_index",
        R"({"column":"name","index_type":"BITMAP"})"}},
      {"DropTableIndex", {"POST", "/v1/table/ns%24t/index/id_idx/drop"}},
      {"CreateTableTag", {"POST", "/v1/table/ns%24t/tags/create", R"({"tag":"v2","version":1})"}},
      {"DeleteTableTag", {"POST", "/v1/table/ns%24t/tags/delete", R"({"tag":"v1"})"}},
      {"UpdateTableTag", {"POST", "/v1/table/ns%24t/tags/update", R"({"tag":"v1","version":1})"}},
      {"CreateTableBranch", {"POST", "/v1/table/ns%24t/branches/create", R"({"name":"b2"})"}},
      {"DeleteTableBranch", {"POST", "/v1/table/ns%24t/branches/delete", R"({"name":"dev"})"}},
      // multi-table operations and transactions (unsupported: 406 for whoever may ask)
      {"BatchCreateTableVersions", {"POST", "/v1/table/version/batch-create", R"({"entries":[]})"}},
      {"BatchCommitTables", {"POST", "/v1/table/batch-commit", R"({"operations":[]})"}},
      {"DescribeTransaction", {"POST", "/v1/transaction/tx1/describe"}},
      {"AlterTransaction", {"POST", "/v1/transaction/tx1/alter", R"({"actions":[]})"}},
      // projects and warehouses
      {"CreateProject", {"POST", "/v1/projects", R"({"name":"fresh"})"}},
      {"ListProjects", {"GET", "/v1/projects", ""}},
      {"DescribeProject", {"POST", "/v1/projects/default/describe"}},
      {"DeleteProject", {"POST", "/v1/projects/default/delete"}},
      {"CreateWarehouse", {"POST", "/v1/warehouses", R"({"name":"fresh"})"}},
      {"ListWarehouses", {"GET", "/v1/warehouses", ""}},
      {"DescribeWarehouse", {"POST", "/v1/warehouses/default/describe"}},
      {"DeleteWarehouse", {"POST", "/v1/warehouses/default/delete"}},
      {"DeactivateWarehouse", {"POST", "/v1/warehouses/default/deactivate"}},
      {"ActivateWarehouse", {"POST", "/v1/warehouses/default/activate"}},
      {"CreateWarehouseNamespace",
       {"POST", "/v1/warehouses/default/namespaces", R"({"name":"fresh"})"}},
      // identity and authorization
      {"CreateApiKey", {"POST", "/v1/access/api-keys", R"({"description":"mine"})"}},
      {"ListApiKeys", {"GET", "/v1/access/api-keys", ""}},
      {"RevokeApiKey", {"POST", "/v1/access/api-keys/{own_key}/revoke"}},
      {"WriteTuples",
       {"POST", "/v1/access/tuples", R"({"writes":["user:reader#writer@table:default/ns/t"]})"}},
      {"ReadTuples", {"GET", "/v1/access/tuples?object=table:default/ns/t", ""}},
      {"DeleteTuples",
       {"POST", "/v1/access/tuples/delete",
        R"({"deletes":["user:reader#reader@table:default/ns/t"]})"}},
      {"CheckAccess",
       {"POST", "/v1/access/check",
        R"({"permission":"can_read_data","object":"table:default/ns/t"})"}},
      {"WhoAmI", {"GET", "/v1/access/whoami", ""}},
      {"ListEvents", {"GET", "/v1/events", ""}},
      {"AdminConsistency", {"GET", "/v1/admin/consistency", ""}},
      // LanceDB's remote protocol (a trailing '/' puts a table route in that dialect)
      {"CreateMultipartWrite", {"POST", "/v1/table/ns%24t/multipart_write/create/", ""}},
      {"CompleteMultipartWrite", {"POST", "/v1/table/ns%24t/multipart_write/complete/", ""}},
      {"AbortMultipartWrite", {"POST", "/v1/table/ns%24t/multipart_write/abort/", ""}},
      {"CloneTable", {"POST", "/v1/table/ns%24fresh/clone/", R"({"source_location":"x"})"}},
      {"PrewarmTableIndex", {"POST", "/v1/table/ns%24t/index/id_idx/prewarm/", ""}},
      {"PrewarmTableData", {"POST", "/v1/table/ns%24t/page_cache/prewarm/", R"({"columns":[]})"}},
  };
  return kRequests;
}

inline const Request& RequestFor(const std::string& op) {
  for (const OpRequest& r : OperationRequests()) {
    if (r.op == op) return r.request;
  }
  ADD_FAILURE() << "no request for " << op;
  static const Request kNone;
  return kNone;
}

// Replaces every `from` in *s by `to`.
inline void Fill(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) {
    s->replace(at, from.size(), to);
  }
}

// "403 code 15: <error message>" (or the raw body when it is not an error body).
inline std::string Show(const Reply& reply) {
  nlohmann::json body = reply.Json();
  std::string out = std::to_string(reply.status);
  if (body.is_object() && body.contains("code") && body.contains("error")) {
    return out + " code " + body["code"].dump() + ": " + body["error"].get<std::string>();
  }
  return out + " " + reply.body.substr(0, 300);
}

// The Lance error code of an error body (-1 when the body is not one).
inline int CodeOf(const Reply& reply) {
  nlohmann::json body = reply.Json();
  if (!body.is_object()) return -1;
  return body.value("code", -1);
}

class AuthzFixture : public ServerFixture {
 protected:
  static constexpr const char* kRoot = "user:root";

  // Each test starts the server it needs (StartAuthServer).
  void SetUp() override { Logger::Default().SetLevel(LogLevel::kWarn); }

  // A fresh server over a fresh memory root: authentication on, user:root a server admin with
  // an API key, and a key for each of `principals`.
  void StartAuthServer(const std::vector<std::string>& principals) {
    StopServer();
    StartServer(HttpServerOptions{}, /*managed=*/false, /*auth=*/true, kRoot);
    keys_.clear();
    key_ids_.clear();
    AddKey(kRoot);
    for (const std::string& p : principals) AddKey(p);
  }

  void AddKey(const std::string& principal) {
    auto created = access_->api_keys().Create(principal, std::nullopt, "", "test");
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    keys_[principal] = created->key;
    key_ids_[principal] = created->info.key_id;
  }

  // Sends `request` with `credentials` as headers (plus `extra`), after filling in the target's
  // placeholders for `principal` ("" for a caller without a key of its own).
  Reply SendWith(const std::map<std::string, std::string>& credentials,
                 const std::string& principal, const Request& request,
                 const std::map<std::string, std::string>& extra = {}) {
    std::string target = request.target;
    Fill(&target, "{own_key}", key_ids_.count(principal) ? key_ids_[principal] : "0000");
    Fill(&target, "{victim_key}", victim_key_id_.empty() ? "0000" : victim_key_id_);
    std::map<std::string, std::string> headers = credentials;
    headers.insert(extra.begin(), extra.end());
    return client_->Send(request.method, target, request.body, headers,
                         request.method == "GET" ? "" : "application/json");
  }

  // Sends `request` as `principal` (with its API key).
  Reply As(const std::string& principal, const Request& request,
           const std::map<std::string, std::string>& extra = {}) {
    auto key = keys_.find(principal);
    EXPECT_NE(key, keys_.end()) << "no API key for " << principal;
    if (key == keys_.end()) return Reply{};
    return SendWith({{"x-api-key", key->second}}, principal, request, extra);
  }

  // As root, expecting `status`.
  Reply Root(const Request& request, int status = 200,
             const std::map<std::string, std::string>& extra = {}) {
    Reply reply = As(kRoot, request, extra);
    EXPECT_EQ(reply.status, status)
        << request.method << " " << request.target << ": " << reply.body;
    return reply;
  }

  // Writes grants through the tuple API as root.
  void Grant(const std::vector<std::string>& tuples) {
    Root({"POST", "/v1/access/tuples", nlohmann::json({{"writes", tuples}}).dump()});
  }

  // Declares `ns$t`-style table `spec` (in the default project) as root and writes a synthetic
  // version 1 (with the index `id_idx`) at its location.
  void RootTable(const catalog::ObjectId& spec) {
    std::string target = "/v1/table/" + spec[0];
    for (size_t i = 1; i < spec.size(); ++i) target += "%24" + spec[i];
    Root({"POST", target + "/declare"});
    auto info = catalog_->GetTable(Scoped(spec));
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*memory_, info->location, true).ok());
  }

  std::map<std::string, std::string> keys_;     // principal -> API key
  std::map<std::string, std::string> key_ids_;  // principal -> key id
  std::string victim_key_id_;                   // {victim_key}
};

}  // namespace quiver::server::testing
