// DeleteWhere (delete_where.h).
#include "query/delete_where.h"

#include <fmt/format.h>

#include "query/internal/on_latest.h"
#include "query/query.h"
#include "table/dataset.h"
#include "table/delete_rows.h"

namespace quiver::query {

Result<DeleteWhereResult> DeleteWhere(const table::CommitTarget& target,
                                      const std::string& predicate,
                                      const table::CommitOptions& options) {
  if (predicate.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidInput("a delete needs a predicate (use \"true\" to delete every row)");
  }
  return internal::OnLatestVersion(
      target, "delete",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<DeleteWhereResult> {
        QV_ASSIGN_OR_RETURN(std::vector<uint64_t> addrs, MatchingRowAddresses(dataset, predicate));
        if (addrs.empty()) return DeleteWhereResult{dataset->version(), 0};
        QV_ASSIGN_OR_RETURN(table::CommitResult committed,
                            table::DeleteRowsOf(*dataset, addrs, predicate, options));
        return DeleteWhereResult{committed.version, addrs.size()};
      });
}

}  // namespace quiver::query
