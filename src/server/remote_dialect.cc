#include "server/remote_dialect.h"

namespace quiver::server {

Dialect DetectDialect(const HttpRequest& request) {
  if (!request.Header(std::string(kRemoteDatabaseHeader)).empty()) return Dialect::kRemote;
  std::string_view path = request.path;
  constexpr std::string_view kTables = "/v1/table";
  if (path.size() > kTables.size() && path.substr(0, kTables.size()) == kTables &&
      path[kTables.size()] == '/' && path.back() == '/') {
    return Dialect::kRemote;
  }
  return Dialect::kSpec;
}

int RemoteErrorStatus(const Status& status, std::string_view operation) {
  switch (status.code()) {
    case StatusCode::kTableColumnNotFound:
      return 400;  // a 404 would read as "table not found"
    case StatusCode::kNamespaceAlreadyExists:
    case StatusCode::kNamespaceNotEmpty:
    case StatusCode::kTableAlreadyExists:
    case StatusCode::kTableIndexAlreadyExists:
    case StatusCode::kTableTagAlreadyExists:
    case StatusCode::kTableBranchAlreadyExists:
    case StatusCode::kConcurrentModification:
    case StatusCode::kInvalidTableState:
      if (operation == "CreateTableBranch" &&
          status.code() == StatusCode::kTableBranchAlreadyExists) {
        return 409;
      }
      return status.retryable() ? 409 : 400;
    default:
      return HttpStatusForCode(status.code());
  }
}

}  // namespace quiver::server
