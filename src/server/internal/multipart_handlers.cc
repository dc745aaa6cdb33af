// LanceDB's remote multipart writes (lancedb-remote-api.md §5.3) over table/staged_write.h:
// multipart_write/create begins an upload, `insert/?upload_id=U` stages a part
// (HandleInsertIntoTable), multipart_write/complete commits every part as one version, and
// multipart_write/abort deletes what the parts wrote. `?branch=` addresses a branch throughout.
#include <fmt/format.h>

#include "server/internal/handlers.h"
#include "table/staged_write.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

Result<table::CommitTarget> UploadTarget(const HandlerContext& ctx, const Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  return table::CommitTarget{table.root, branch};
}

Result<std::string> UploadId(const Call& call) {
  auto id = call.Query("upload_id");
  if (!id || id->empty()) return Status::InvalidInput("'upload_id' is required");
  return *id;
}

}  // namespace

Result<HttpResponse> HandleCreateMultipartWrite(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, UploadTarget(ctx, call));
  QV_ASSIGN_OR_RETURN(std::string id, table::BeginStagedWrite(target));
  return JsonReply({{"upload_id", id}});
}

Result<HttpResponse> HandleCompleteMultipartWrite(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, UploadTarget(ctx, call));
  QV_ASSIGN_OR_RETURN(std::string id, UploadId(call));
  QV_ASSIGN_OR_RETURN(table::CommitResult committed, table::CompleteStagedWrite(target, id));
  return JsonReply({{"version", committed.version}});
}

Result<HttpResponse> HandleAbortMultipartWrite(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, UploadTarget(ctx, call));
  QV_ASSIGN_OR_RETURN(std::string id, UploadId(call));
  QV_RETURN_IF_ERROR(table::AbortStagedWrite(target, id));
  return JsonReply(json::object());
}

}  // namespace quiver::server::internal
