// The operation handlers of the namespace service, and the helpers they share. Each is a named
// function, HandleDescribeTable for DescribeTable, grouped by topic in *_handlers.cc, and named
// by its operation's row of the operation table (operation_table.h), which is how the service
// finds it. A handler gets a HandlerContext (what it acts on) and the Call, parsed and, for a
// spec operation, scoped to the caller's project and through its door (internal/authorize.h);
// it returns a response or a Status, which the service turns into the error body. Handlers can
// be called directly (tests/server/internal/handlers_test.cc). Operations without a handler
// answer Unsupported (406, code 0).
// Thread-safety: handlers are called concurrently; they share only the thread-safe Catalog,
// AccessControl and Metrics.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/result.h"
#include "server/call.h"
#include "server/http_types.h"
#include "server/metrics.h"
#include "server/operation_table.h"
#include "store/counting_store.h"
#include "store/object_store.h"
#include "table/dataset.h"

namespace quiver::server::internal {

// What handlers act on: the service's (service.h). REQUIRES: all of it outlives the calls.
struct HandlerContext {
  catalog::Catalog& catalog;
  catalog::AccessControl& access;
  Metrics& metrics;                       // the request counters (Metrics)
  const CountingStore* counts = nullptr;  // over the catalog's root store (Metrics); may be null
  const Clock* clock = Clock::Real();     // deadlines (RequestDeadline)
};

// Healthz and Metrics (monitoring_handlers.cc).
Result<HttpResponse> HandleHealthz(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleMetrics(const HandlerContext& ctx, Call& call);

// Namespaces (namespace_handlers.cc).
Result<HttpResponse> HandleCreateNamespace(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeNamespace(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleNamespaceExists(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListNamespaces(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDropNamespace(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListTables(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListAllTables(const HandlerContext& ctx, Call& call);

// Projects and warehouses (control_handlers.cc).
Result<HttpResponse> HandleCreateProject(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListProjects(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeProject(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteProject(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCreateWarehouse(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListWarehouses(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeWarehouse(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteWarehouse(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeactivateWarehouse(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleActivateWarehouse(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCreateWarehouseNamespace(const HandlerContext& ctx, Call& call);

// API keys, tuples, checks, events, the consistency scan (access_handlers.cc).
Result<HttpResponse> HandleCreateApiKey(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListApiKeys(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleRevokeApiKey(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleWriteTuples(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteTuples(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleReadTuples(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCheckAccess(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleWhoAmI(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListEvents(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAdminConsistency(const HandlerContext& ctx, Call& call);

// Table registration and metadata (table_handlers.cc).
Result<HttpResponse> HandleDeclareTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleRegisterTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleTableExists(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDropTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeregisterTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleRenameTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleRestoreTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleUpdateTableSchemaMetadata(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleUpdateFieldMetadata(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAlterTableDropColumns(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAlterTableAlterColumns(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAlterTableAddColumns(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleGetTableStats(const HandlerContext& ctx, Call& call);

// Data reads (data_handlers.cc).
Result<HttpResponse> HandleQueryTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCountTableRows(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleExplainTableQueryPlan(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAnalyzeTableQueryPlan(const HandlerContext& ctx, Call& call);

// Data writes (write_handlers.cc).
Result<HttpResponse> HandleCreateTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleInsertIntoTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleMergeInsertIntoTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleUpdateTable(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteFromTable(const HandlerContext& ctx, Call& call);

// Multipart writes of LanceDB's remote protocol (multipart_handlers.cc).
Result<HttpResponse> HandleCreateMultipartWrite(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCompleteMultipartWrite(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleAbortMultipartWrite(const HandlerContext& ctx, Call& call);

// Table versions (version_handlers.cc).
Result<HttpResponse> HandleListTableVersions(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeTableVersion(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCreateTableVersion(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleBatchDeleteTableVersions(const HandlerContext& ctx, Call& call);

// Tags, branches and indices (ref_handlers.cc).
Result<HttpResponse> HandleListTableTags(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleGetTableTagVersion(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCreateTableTag(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleUpdateTableTag(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteTableTag(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListTableBranches(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleCreateTableBranch(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDeleteTableBranch(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleListTableIndices(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDropTableIndex(const HandlerContext& ctx, Call& call);
Result<HttpResponse> HandleDescribeTableIndexStats(const HandlerContext& ctx, Call& call);

// 200 (or `status`) with the JSON body.
HttpResponse JsonReply(const nlohmann::json& body, int status = 200);
// 200 with no body (the exists operations).
HttpResponse EmptyReply();

catalog::Actor ActorOf(const Call& call);
// The client's form of a scoped catalog id (without the project).
catalog::ObjectId SpecId(const catalog::ObjectId& scoped);
Result<catalog::CreateMode> ParseCreateMode(const std::optional<std::string>& mode);
// `limit` from the query (negative = absent) and `page_token`.
struct Paging {
  std::optional<size_t> limit;
  std::string page_token;
};
Result<Paging> QueryPaging(const Call& call);
Result<Paging> BodyPaging(const Call& call);

// A rename's destination namespace as the client names it (`new_namespace_id`; LanceDB's remote
// client sends `new_namespace`); nullopt: the table's own.
Result<std::optional<catalog::ObjectId>> RenameDestination(const Call& call);

// The table of the call's id, and a store rooted at it.
struct OpenedTable {
  catalog::TableInfo info;
  std::shared_ptr<ObjectStore> root;
};
Result<OpenedTable> OpenTable(catalog::Catalog& catalog, const Call& call);
// `branch` from the body, else the query; "" and "main" mean main.
Result<std::optional<std::string>> BranchOf(const Call& call);
// The version a read addresses: `version` (body, else query), `tag`, `branch`. InvalidInput for
// a negative version or a tag with a version.
Result<table::OpenOptions> ReadTarget(const Call& call);
// The dataset at `target`. A read of the latest version is held to the remote client's
// read-your-writes headers (x-lancedb-min-version, x-lancedb-min-read-version: the highest
// version it saw written or read): a version older than that is read again once, then answered
// ServiceUnavailable (retryable), never served stale. (x-lancedb-min-timestamp needs nothing:
// quiver reads the latest version from storage on every request.)
Result<std::shared_ptr<const table::Dataset>> OpenRead(const OpenedTable& table, const Call& call,
                                                       const table::OpenOptions& target);
// The request's deadline: LanceDB's `x-request-timeout-ms` header (milliseconds), else the
// spec's `timeout` query parameter ("30s", "500ms", "5m", "1h"); none when neither is sent.
// InvalidInput for a value that is not a positive duration.
Result<std::optional<Deadline>> RequestDeadline(const HandlerContext& ctx, const Call& call);

}  // namespace quiver::server::internal
