// The operation table (operation_table.h): one row per operation.
#include "server/operation_table.h"

#include "server/internal/handlers.h"

namespace quiver::server {

namespace internal {
namespace {

using A = Auth;
using B = BodyKind;
using D = Door;
using P = catalog::authz::Permission;
using T = Target;

constexpr bool kSpec = true;  // one of the spec's 54
constexpr bool kOurs = false;
constexpr bool kAlsoGet = true;  // GET accepted as well as the method
constexpr bool kOneMethod = false;
constexpr bool kRemoteOnly = true;  // a route of LanceDB's remote protocol only

// Columns: name, method, pattern, success status, spec?, GET too?, body, auth, door, the door's
// permission and target, handler (nullptr: Unsupported). quiver's own operations (door kNone)
// check their permissions in their handlers, in the door order; the permission listed is the
// one docs/authorization.md names. The multi-table spec operations name their tables in the
// body; unsupported so far, they will check can_write_data on each table when they arrive.
std::vector<Operation> MakeTable() {
  return {
      {"CreateNamespace", "POST", "/v1/namespace/{id}/create", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kCreate, P::kCreateNamespace, T::kNamespace, HandleCreateNamespace},
      {"ListNamespaces", "GET", "/v1/namespace/{id}/list", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kObserve, T::kNamespace, HandleListNamespaces},
      {"DescribeNamespace", "POST", "/v1/namespace/{id}/describe", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kObserve, T::kNamespace, HandleDescribeNamespace},
      {"DropNamespace", "POST", "/v1/namespace/{id}/drop", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kDrop, T::kNamespace, HandleDropNamespace},
      {"NamespaceExists", "POST", "/v1/namespace/{id}/exists", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kObserve, T::kNamespace, HandleNamespaceExists},
      {"ListTables", "GET", "/v1/namespace/{id}/table/list", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kObserve, T::kNamespace, HandleListTables},
      {"ListAllTables", "GET", "/v1/table", 200, kSpec, kOneMethod, B::kJson, A::kAuthenticated,
       D::kRead, P::kObserve, T::kProject, HandleListAllTables},
      {"RegisterTable", "POST", "/v1/table/{id}/register", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kCreate, P::kCreateTable, T::kTable, HandleRegisterTable},
      {"DescribeTable", "POST", "/v1/table/{id}/describe", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleDescribeTable},
      {"TableExists", "POST", "/v1/table/{id}/exists", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kObserve, T::kTable, HandleTableExists},
      {"DropTable", "POST", "/v1/table/{id}/drop", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kDrop, T::kTable, HandleDropTable},
      {"DeregisterTable", "POST", "/v1/table/{id}/deregister", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kDrop, T::kTable, HandleDeregisterTable},
      {"RestoreTable", "POST", "/v1/table/{id}/restore", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleRestoreTable},
      {"RenameTable", "POST", "/v1/table/{id}/rename", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kDrop, T::kTable, HandleRenameTable},
      {"UpdateTableSchemaMetadata", "POST", "/v1/table/{id}/schema_metadata/update", 200, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleUpdateTableSchemaMetadata},
      {"ListTableVersions", "POST", "/v1/table/{id}/version/list", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleListTableVersions},
      {"CreateTableVersion", "POST", "/v1/table/{id}/version/create", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleCreateTableVersion},
      {"DescribeTableVersion", "POST", "/v1/table/{id}/version/describe", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleDescribeTableVersion},
      {"BatchDeleteTableVersions", "POST", "/v1/table/{id}/version/delete", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleBatchDeleteTableVersions},
      {"BatchCreateTableVersions", "POST", "/v1/table/version/batch-create", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kNone, P::kWriteData, T::kProject, nullptr},
      {"BatchCommitTables", "POST", "/v1/table/batch-commit", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kWriteData, T::kProject, nullptr},
      {"AlterTableAlterColumns", "POST", "/v1/table/{id}/alter_columns", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleAlterTableAlterColumns},
      {"UpdateFieldMetadata", "POST", "/v1/table/{id}/update_field_metadata", 200, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleUpdateFieldMetadata},
      {"AlterTableDropColumns", "POST", "/v1/table/{id}/drop_columns", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleAlterTableDropColumns},
      {"GetTableStats", "POST", "/v1/table/{id}/stats", 200, kSpec, kAlsoGet, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleGetTableStats},
      {"InsertIntoTable", "POST", "/v1/table/{id}/insert", 200, kSpec, kOneMethod, B::kArrowStream,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleInsertIntoTable},
      {"MergeInsertIntoTable", "POST", "/v1/table/{id}/merge_insert", 200, kSpec, kOneMethod,
       B::kArrow, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleMergeInsertIntoTable},
      {"UpdateTable", "POST", "/v1/table/{id}/update", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleUpdateTable},
      {"DeleteFromTable", "POST", "/v1/table/{id}/delete", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleDeleteFromTable},
      {"QueryTable", "POST", "/v1/table/{id}/query", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleQueryTable},
      {"CountTableRows", "POST", "/v1/table/{id}/count_rows", 200, kSpec, kAlsoGet, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleCountTableRows},
      {"CreateTable", "POST", "/v1/table/{id}/create", 200, kSpec, kOneMethod, B::kArrowStream,
       A::kAuthenticated, D::kCreate, P::kCreateTable, T::kTable, HandleCreateTable},
      {"ExplainTableQueryPlan", "POST", "/v1/table/{id}/explain_plan", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleExplainTableQueryPlan},
      {"AnalyzeTableQueryPlan", "POST", "/v1/table/{id}/analyze_plan", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleAnalyzeTableQueryPlan},
      {"AlterTableAddColumns", "POST", "/v1/table/{id}/add_columns", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleAlterTableAddColumns},
      {"AlterTableBackfillColumns", "POST", "/v1/table/{id}/backfill_column", 202, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, nullptr},
      {"RefreshMaterializedView", "POST", "/v1/materialized_view/{id}/refresh", 202, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, nullptr},
      {"CreateMaterializedView", "POST", "/v1/materialized_view/{id}/create", 201, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kCreate, P::kCreateTable, T::kTable, nullptr},
      {"CreateTableIndex", "POST", "/v1/table/{id}/create_index", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, nullptr},
      {"CreateTableScalarIndex", "POST", "/v1/table/{id}/create_scalar_index", 200, kSpec,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, nullptr},
      {"ListTableIndices", "POST", "/v1/table/{id}/index/list", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleListTableIndices},
      {"DescribeTableIndexStats", "POST", "/v1/table/{id}/index/{index_name}/stats", 200, kSpec,
       kAlsoGet, B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable,
       HandleDescribeTableIndexStats},
      {"DropTableIndex", "POST", "/v1/table/{id}/index/{index_name}/drop", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleDropTableIndex},
      {"ListTableTags", "POST", "/v1/table/{id}/tags/list", 200, kSpec, kAlsoGet, B::kJson,
       A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleListTableTags},
      {"GetTableTagVersion", "POST", "/v1/table/{id}/tags/version", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleGetTableTagVersion},
      {"DeclareTable", "POST", "/v1/table/{id}/declare", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kCreate, P::kCreateTable, T::kTable, HandleDeclareTable},
      {"CreateTableTag", "POST", "/v1/table/{id}/tags/create", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleCreateTableTag},
      {"DeleteTableTag", "POST", "/v1/table/{id}/tags/delete", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleDeleteTableTag},
      {"UpdateTableTag", "POST", "/v1/table/{id}/tags/update", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable, HandleUpdateTableTag},
      {"ListTableBranches", "POST", "/v1/table/{id}/branches/list", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, HandleListTableBranches},
      {"CreateTableBranch", "POST", "/v1/table/{id}/branches/create", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleCreateTableBranch},
      {"DeleteTableBranch", "POST", "/v1/table/{id}/branches/delete", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleDeleteTableBranch},
      {"DescribeTransaction", "POST", "/v1/transaction/{id}/describe", 200, kSpec, kOneMethod,
       B::kJson, A::kAuthenticated, D::kNone, P::kReadData, T::kProject, nullptr},
      {"AlterTransaction", "POST", "/v1/transaction/{id}/alter", 200, kSpec, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kWriteData, T::kProject, nullptr},
      // quiver's own. Healthz is open to all and answered before its request is parsed; Metrics
      // is for server admins, and its body is parsed like any JSON body (it may carry the
      // caller's `identity`). Neither has a door (the permission and target are unused).
      {"Healthz", "GET", "/healthz", 200, kOurs, kOneMethod, B::kNone, A::kOpen, D::kNone,
       P::kObserve, T::kProject, HandleHealthz},
      {"Metrics", "GET", "/metrics", 200, kOurs, kOneMethod, B::kJson, A::kServerAdmin, D::kNone,
       P::kObserve, T::kProject, HandleMetrics},
      // the hierarchy layer (docs/authorization.md)
      {"CreateProject", "POST", "/v1/projects", 200, kOurs, kOneMethod, B::kJson, A::kAuthenticated,
       D::kNone, P::kCreateProject, T::kProject, HandleCreateProject},
      {"ListProjects", "GET", "/v1/projects", 200, kOurs, kOneMethod, B::kJson, A::kAuthenticated,
       D::kNone, P::kObserve, T::kProject, HandleListProjects},
      {"DescribeProject", "POST", "/v1/projects/{id}/describe", 200, kOurs, kAlsoGet, B::kJson,
       A::kAuthenticated, D::kNone, P::kObserve, T::kProject, HandleDescribeProject},
      {"DeleteProject", "POST", "/v1/projects/{id}/delete", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleDeleteProject},
      {"CreateWarehouse", "POST", "/v1/warehouses", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kCreateWarehouse, T::kProject, HandleCreateWarehouse},
      {"ListWarehouses", "GET", "/v1/warehouses", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kObserve, T::kProject, HandleListWarehouses},
      {"DescribeWarehouse", "POST", "/v1/warehouses/{id}/describe", 200, kOurs, kAlsoGet, B::kJson,
       A::kAuthenticated, D::kNone, P::kObserve, T::kProject, HandleDescribeWarehouse},
      {"DeleteWarehouse", "POST", "/v1/warehouses/{id}/delete", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleDeleteWarehouse},
      {"DeactivateWarehouse", "POST", "/v1/warehouses/{id}/deactivate", 200, kOurs, kOneMethod,
       B::kJson, A::kAuthenticated, D::kNone, P::kAdminister, T::kProject,
       HandleDeactivateWarehouse},
      {"ActivateWarehouse", "POST", "/v1/warehouses/{id}/activate", 200, kOurs, kOneMethod,
       B::kJson, A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleActivateWarehouse},
      {"CreateWarehouseNamespace", "POST", "/v1/warehouses/{id}/namespaces", 200, kOurs, kOneMethod,
       B::kJson, A::kAuthenticated, D::kNone, P::kCreateNamespace, T::kProject,
       HandleCreateWarehouseNamespace},
      // identity and authorization
      {"CreateApiKey", "POST", "/v1/access/api-keys", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleCreateApiKey},
      {"ListApiKeys", "GET", "/v1/access/api-keys", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleListApiKeys},
      {"RevokeApiKey", "POST", "/v1/access/api-keys/{id}/revoke", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleRevokeApiKey},
      {"WriteTuples", "POST", "/v1/access/tuples", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kGrant, T::kProject, HandleWriteTuples},
      {"ReadTuples", "GET", "/v1/access/tuples", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kGrant, T::kProject, HandleReadTuples},
      {"DeleteTuples", "POST", "/v1/access/tuples/delete", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kGrant, T::kProject, HandleDeleteTuples},
      {"CheckAccess", "POST", "/v1/access/check", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kObserve, T::kProject, HandleCheckAccess},
      {"WhoAmI", "GET", "/v1/access/whoami", 200, kOurs, kOneMethod, B::kJson, A::kAuthenticated,
       D::kNone, P::kObserve, T::kProject, HandleWhoAmI},
      // operations
      {"ListEvents", "GET", "/v1/events", 200, kOurs, kOneMethod, B::kJson, A::kAuthenticated,
       D::kNone, P::kAdminister, T::kProject, HandleListEvents},
      {"AdminConsistency", "GET", "/v1/admin/consistency", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kNone, P::kAdminister, T::kProject, HandleAdminConsistency},
      // LanceDB's remote protocol (remote_dialect.h): routes the spec lacks. Multipart writes
      // stage `insert/?upload_id=` parts and commit them as one version (table/staged_write.h).
      {"CreateMultipartWrite", "POST", "/v1/table/{id}/multipart_write/create", 200, kOurs,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleCreateMultipartWrite, kRemoteOnly},
      {"CompleteMultipartWrite", "POST", "/v1/table/{id}/multipart_write/complete", 200, kOurs,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleCompleteMultipartWrite, kRemoteOnly},
      {"AbortMultipartWrite", "POST", "/v1/table/{id}/multipart_write/abort", 200, kOurs,
       kOneMethod, B::kJson, A::kAuthenticated, D::kDestructive, P::kWriteData, T::kTable,
       HandleAbortMultipartWrite, kRemoteOnly},
      {"CloneTable", "POST", "/v1/table/{id}/clone", 200, kOurs, kOneMethod, B::kJson,
       A::kAuthenticated, D::kCreate, P::kCreateTable, T::kTable, nullptr, kRemoteOnly},
      {"PrewarmTableIndex", "POST", "/v1/table/{id}/index/{index_name}/prewarm", 200, kOurs,
       kOneMethod, B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, nullptr,
       kRemoteOnly},
      {"PrewarmTableData", "POST", "/v1/table/{id}/page_cache/prewarm", 200, kOurs, kOneMethod,
       B::kJson, A::kAuthenticated, D::kRead, P::kReadData, T::kTable, nullptr, kRemoteOnly},
  };
}

}  // namespace
}  // namespace internal

const std::vector<Operation>& Operations() {
  static const std::vector<Operation> kOps = internal::MakeTable();
  return kOps;
}

const Operation* FindOperation(std::string_view name) {
  for (const Operation& op : Operations()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace quiver::server
