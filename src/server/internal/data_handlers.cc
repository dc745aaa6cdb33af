// The data plane's read operations: QueryTable, CountTableRows, ExplainTableQueryPlan,
// AnalyzeTableQueryPlan, over the query engine (query/query.h) at the version the request
// addresses (version / tag / branch).
//
// QueryTable answers one Arrow IPC file (spec §2.3; LanceDB's remote client reads it whole),
// streamed; a query, count or analysis with `x-request-timeout-ms` stops when it passes (503);
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

namespace {

// Hands the IPC writer's bytes to the response as they are made.
class ResponseSink final : public arrow::ipc::Sink {
 public:
  explicit ResponseSink(BodyWriter* out) : out_(out) {}
  Status Write(std::string_view bytes) override { return out_->Write(bytes); }

 private:
  BodyWriter* out_;
};

}  // namespace

// The result streams out as the query makes it (one batch in memory at a time, the file's footer
// last). The first batch is made before the answer starts, so that what fails at once (most
// evaluation errors) is still an error status with its body; a later failure cuts the connection
// (the client sees a file without its footer, never a short result passed off as whole).
Result<HttpResponse> HandleQueryTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(QueryJson query, ParseQueryJson(call.body));
  QV_ASSIGN_OR_RETURN(query.request.deadline, RequestDeadline(ctx, call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForQuery(ctx, call, query));
  QV_ASSIGN_OR_RETURN(std::shared_ptr<arrow::BatchStream> stream,
                      query::RunQuery(dataset, query.request));
  QV_ASSIGN_OR_RETURN(auto first, stream->Next());
  HttpResponse response;
  response.content_type = "application/vnd.apache.arrow.file";
  response.headers.emplace_back("x-lancedb-version", std::to_string(dataset->version()));
  response.stream = [dataset, stream, first = std::make_shared<decltype(first)>(std::move(first))](
                        BodyWriter& out) -> Status {
    ResponseSink sink(&out);
    QV_ASSIGN_OR_RETURN(auto writer, arrow::ipc::FileWriter::Open(&sink, stream->schema()));
    std::optional<arrow::RecordBatch> batch = std::move(*first);
    while (batch) {
      QV_RETURN_IF_ERROR(writer->Write(*batch));
      QV_ASSIGN_OR_RETURN(batch, stream->Next());
    }
    return writer->Finish();
  };
  return response;
}

Result<HttpResponse> HandleCountTableRows(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto predicate, call.String("predicate"));
  if (!predicate) predicate = call.Query("predicate");
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  QV_ASSIGN_OR_RETURN(auto deadline, RequestDeadline(ctx, call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenRead(table, call, target));
  QV_ASSIGN_OR_RETURN(uint64_t count, query::CountRows(dataset, predicate.value_or(""), deadline));
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
  QV_ASSIGN_OR_RETURN(query.request.deadline, RequestDeadline(ctx, call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForQuery(ctx, call, query));
  QV_ASSIGN_OR_RETURN(std::string analysis, query::AnalyzeQuery(dataset, query.request));
  return PlanReply(analysis);
}

}  // namespace quiver::server::internal
