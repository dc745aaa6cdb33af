// DeleteWhere (delete_where.h).
#include "query/delete_where.h"

#include <fmt/format.h>

#include "common/logging.h"
#include "query/query.h"
#include "table/dataset.h"
#include "table/delete_rows.h"

namespace quiver::query {

namespace {

constexpr int kDeleteAttempts = 5;

// The addresses of the rows of `dataset` where `predicate` holds.
Result<std::vector<uint64_t>> MatchingRows(std::shared_ptr<const table::Dataset> dataset,
                                           const std::string& predicate) {
  QueryRequest request;
  request.filter = predicate;
  request.columns = {"_rowaddr"};
  QV_ASSIGN_OR_RETURN(auto stream, RunQuery(std::move(dataset), request));
  std::vector<uint64_t> addrs;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    const arrow::ArrayData& column = *batch->columns[0];
    const uint64_t* values = arrow::Values<uint64_t>(column);
    addrs.insert(addrs.end(), values, values + column.length);
  }
  return addrs;
}

}  // namespace

Result<DeleteWhereResult> DeleteWhere(const table::CommitTarget& target,
                                      const std::string& predicate,
                                      const table::CommitOptions& options) {
  if (predicate.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidInput("a delete needs a predicate (use \"true\" to delete every row)");
  }
  table::OpenOptions at;
  at.branch = target.branch;
  Status last;
  for (int attempt = 1; attempt <= kDeleteAttempts; ++attempt) {
    QV_ASSIGN_OR_RETURN(auto dataset, table::Dataset::Open(target.root, at));
    QV_ASSIGN_OR_RETURN(std::vector<uint64_t> addrs, MatchingRows(dataset, predicate));
    if (addrs.empty()) return DeleteWhereResult{dataset->version(), 0};
    auto committed = table::DeleteRows(target, addrs, predicate, options);
    if (committed.ok()) return DeleteWhereResult{committed->version, addrs.size()};
    last = committed.status();
    // Retryable: a concurrent commit touched the same fragments. NotFound: a fragment the rows
    // were in is gone (compacted or deleted whole) since the scan.
    if (!last.retryable() && !last.IsNotFound()) return last;
    QV_LOG_INFO("delete: retrying on the new latest version",
                {{"attempt", attempt}, {"error", last.ToString()}});
  }
  return last.WithContext(fmt::format("delete: gave up after {} attempts", kDeleteAttempts));
}

}  // namespace quiver::query
