// The data plane's read operations: QueryTable, CountTableRows, ExplainTableQueryPlan,
// AnalyzeTableQueryPlan, over the query engine (query/query.h) at the version the request
// addresses (version / tag / branch).
//
// QueryTable answers one Arrow IPC file (spec §2.3; LanceDB's remote client reads it whole);
// CountTableRows a bare integer; the plans a JSON string literal (what the Rust client parses).
#include <fmt/format.h>

#include "arrow/ipc/writer.h"
#include "query/query.h"
#include "server/internal/handlers.h"
#include "server/internal/query_json.h"
#include "table/dataset.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

// The dataset a query reads: the query's own `version` wins over the call's.
Result<std::shared_ptr<const table::Dataset>> OpenForQuery(const HandlerContext& ctx,
                                                           const Call& call,
                                                           const QueryJson& query) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  if (query.version) {
    if (target.tag) return Status::InvalidInput("'tag' cannot be combined with 'version'");
    target.version = *query.version;
  }
  return OpenRead(table, call, target);
}

HttpResponse PlanReply(const std::string& text) {
  HttpResponse response;
  response.body = json(text).dump();
  return response;
}

}  // namespace

Result<HttpResponse> HandleQueryTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(QueryJson query, ParseQueryJson(call.body));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForQuery(ctx, call, query));
  QV_ASSIGN_OR_RETURN(auto stream, query::RunQuery(dataset, query.request));
  HttpResponse response;
  response.content_type = "application/vnd.apache.arrow.file";
  arrow::ipc::StringSink sink(&response.body);
  QV_ASSIGN_OR_RETURN(auto writer, arrow::ipc::FileWriter::Open(&sink, stream->schema()));
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    QV_RETURN_IF_ERROR(writer->Write(*batch));
  }
  QV_RETURN_IF_ERROR(writer->Finish());
  response.headers.emplace_back("x-lancedb-version", std::to_string(dataset->version()));
  return response;
}

Result<HttpResponse> HandleCountTableRows(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto predicate, call.String("predicate"));
  if (!predicate) predicate = call.Query("predicate");
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenRead(table, call, target));
  QV_ASSIGN_OR_RETURN(uint64_t count, query::CountRows(dataset, predicate.value_or("")));
  HttpResponse response = JsonReply(json(count));
  response.headers.emplace_back("x-lancedb-version", std::to_string(dataset->version()));
  return response;
}

Result<HttpResponse> HandleExplainTableQueryPlan(const HandlerContext& ctx, Call& call) {
  auto it = call.body.find("query");
  if (it == call.body.end() || it->is_null()) return Status::InvalidInput("'query' is required");
  QV_ASSIGN_OR_RETURN(QueryJson query, ParseQueryJson(*it));
  QV_ASSIGN_OR_RETURN(auto verbose, call.Bool("verbose"));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForQuery(ctx, call, query));
  QV_ASSIGN_OR_RETURN(std::string plan,
                      query::ExplainQuery(dataset, query.request, verbose.value_or(false)));
  return PlanReply(plan);
}

Result<HttpResponse> HandleAnalyzeTableQueryPlan(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(QueryJson query, ParseQueryJson(call.body));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForQuery(ctx, call, query));
  QV_ASSIGN_OR_RETURN(std::string analysis, query::AnalyzeQuery(dataset, query.request));
  return PlanReply(analysis);
}

}  // namespace quiver::server::internal
