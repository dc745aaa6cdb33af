#include "catalog/internal/create_protocol.h"

#include "catalog/catalog.h"
#include "common/logging.h"

namespace quiver::catalog::internal {

Result<std::string> CreateRecord(Registry& registry, const CreateSpec& spec,
                                 SyncPoints* sync_points, CreateStage* failed_at) {
  auto fail = [&](CreateStage stage, Status status) -> Status {
    if (failed_at != nullptr) *failed_at = stage;
    return status;
  };
  auto written = registry.Create(spec.kind, spec.id, spec.body);
  if (!written.ok()) {
    if (spec.undo) spec.undo();
    return fail(CreateStage::kWrite, written.status());
  }
  if (sync_points != nullptr) {
    Status stop = sync_points->Reach(kCreateWrittenPoint);
    if (!stop.ok()) return fail(CreateStage::kRecheck, stop);  // a simulated crash: no cleanup
  }
  Status live = spec.recheck ? spec.recheck() : Status::OK();
  if (live.ok()) return written;
  Status withdrawn = registry.Delete(spec.kind, spec.id, *written);
  if (!withdrawn.ok() && !withdrawn.IsNotFound()) {
    QV_LOG_WARN("a create's re-check failed and its record could not be withdrawn",
                {{"record", Registry::RecordKey(spec.kind, spec.id)},
                 {"recheck", live.ToString()},
                 {"error", withdrawn.ToString()}});
  }
  if (spec.undo) spec.undo();
  return fail(CreateStage::kRecheck, live);
}

Status NoRecord(Registry& registry, RecordKind kind, const ObjectId& id, Status taken) {
  QV_ASSIGN_OR_RETURN(bool exists, registry.Exists(kind, id));
  return exists ? taken : Status::OK();
}

Status FirstFailure(std::initializer_list<std::function<Status()>> checks) {
  for (const auto& check : checks) {
    Status s = check();
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace quiver::catalog::internal
