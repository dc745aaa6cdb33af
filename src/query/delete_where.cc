// DeleteWhere (delete_where.h).
#include "query/delete_where.h"

#include <fmt/format.h>

#include "query/internal/on_latest.h"
#include "query/query.h"
#include "table/dataset.h"
#include "table/delete_rows.h"

namespace quiver::query {

namespace {

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
  return internal::OnLatestVersion(
      target, "delete",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<DeleteWhereResult> {
        QV_ASSIGN_OR_RETURN(std::vector<uint64_t> addrs, MatchingRows(dataset, predicate));
        if (addrs.empty()) return DeleteWhereResult{dataset->version(), 0};
        QV_ASSIGN_OR_RETURN(table::CommitResult committed,
                            table::DeleteRowsOf(*dataset, addrs, predicate, options));
        return DeleteWhereResult{committed.version, addrs.size()};
      });
}

}  // namespace quiver::query
