// Running a predicate-driven write (delete_where.h, update_where.h) on the target's latest
// version, again on the new latest one when its commit loses a race it can redo: a retryable
// conflict (a concurrent commit touched the same fragments), or NotFound (a fragment the rows
// were in is gone since the scan, compacted or deleted whole). Each attempt reads, selects and
// commits against one version, so what it changes is what matched in the version it commits on.
// Thread-safety: reentrant.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>

#include "common/clock.h"
#include "common/logging.h"
#include "common/result.h"
#include "table/dataset.h"
#include "table/operations.h"

namespace quiver::query::internal {

inline constexpr int kWriteAttempts = 5;

// `attempt(dataset)` → Result<T>. A `deadline` stops the retries once it has passed (the first
// attempt always runs, as Lance's merge-insert timeout: it bounds the time spent retrying).
template <typename F>
auto OnLatestVersion(const table::CommitTarget& target, const char* what, F attempt,
                     const std::optional<Deadline>& deadline = std::nullopt)
    -> decltype(attempt(std::shared_ptr<const table::Dataset>())) {
  table::OpenOptions at;
  at.branch = target.branch;
  Status last;
  for (int n = 1; n <= kWriteAttempts; ++n) {
    QV_ASSIGN_OR_RETURN(auto dataset, table::Dataset::Open(target.root, at));
    auto result = attempt(std::move(dataset));
    if (result.ok()) return result;
    last = result.status();
    if (!last.retryable() && !last.IsNotFound()) return last;
    if (deadline && deadline->Expired()) {
      return Status::ServiceUnavailable(fmt::format(
          "{}: gave up after {} attempts, its timeout of {} ms has passed (last: {})", what, n,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline->budget).count(),
          last.message()));
    }
    QV_LOG_INFO(fmt::format("{}: retrying on the new latest version", what),
                {{"attempt", n}, {"error", last.ToString()}});
  }
  return last.WithContext(fmt::format("{}: gave up after {} attempts", what, kWriteAttempts));
}

}  // namespace quiver::query::internal
