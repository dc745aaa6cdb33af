#include "catalog/access_control.h"

#include <fmt/format.h>

#include "catalog/internal/records.h"
#include "common/json.h"
#include "common/logging.h"

namespace quiver::catalog {

namespace {

using authz::Grant;
using authz::ObjectRef;
using authz::ObjectType;
using internal::ChangeEvent;
using internal::GetRecord;
using nlohmann::json;

constexpr std::string_view kServerRecord = "_quiver/server.json";
constexpr size_t kLogPage = 1000;

// What the index keeps of one object's record (typed: records.h).
struct ObjectState {
  bool live = true;  // false for a table record that is not active (being dropped or renamed)
  json grants = json::array();
  std::string warehouse;  // a top-level namespace's
  bool active = true;     // a warehouse's
};

// The record of (kind, id); nullopt when there is none. Corruption when it is mistyped.
Result<std::optional<ObjectState>> ReadObject(Registry& registry, RecordKind kind,
                                              const ObjectId& id) {
  auto absent = [](const Status& status) -> Result<std::optional<ObjectState>> {
    if (status.IsNotFound()) return std::optional<ObjectState>();
    return status;
  };
  ObjectState state;
  if (kind == RecordKind::kTable) {
    auto table = GetRecord<internal::TableRecord>(registry, kind, id);
    if (!table.ok()) return absent(table.status());
    state.live = table->record.state == internal::TableState::kActive;
    state.grants = std::move(table->record.grants);
  } else if (kind == RecordKind::kWarehouse) {
    auto warehouse = GetRecord<internal::WarehouseRecord>(registry, kind, id);
    if (!warehouse.ok()) return absent(warehouse.status());
    state.grants = std::move(warehouse->record.grants);
    state.active = warehouse->record.active;
  } else if (id.size() == 1) {
    auto project = GetRecord<internal::ProjectRecord>(registry, kind, id);
    if (!project.ok()) return absent(project.status());
    state.grants = std::move(project->record.grants);
  } else {
    auto ns = GetRecord<internal::NamespaceRecord>(registry, kind, id);
    if (!ns.ok()) return absent(ns.status());
    state.grants = std::move(ns->record.grants);
    state.warehouse = ns->record.warehouse.value_or("");
  }
  return std::optional<ObjectState>(std::move(state));
}

// A record LoadAll cannot read is left out of the index (as if absent: access it would grant is
// not granted), and said so.
void SkipUnreadable(RecordKind kind, const ObjectId& id, const Status& why) {
  if (why.IsNotFound()) return;  // removed while the scan ran
  QV_LOG_WARN("authorization index: a record cannot be read and is left out",
              {{"record", Registry::RecordKey(kind, id)}, {"error", why.ToString()}});
}

// The index object of a catalog event's (kind, scoped id); nullopt for kinds without one.
std::optional<ObjectRef> RefOf(std::string_view kind, const ObjectId& id) {
  if (kind == "project" && id.size() == 1) return ObjectRef::Project(id[0]);
  if (kind == "warehouse" && id.size() == 2) return ObjectRef::Warehouse(id[0], id[1]);
  if (kind == "namespace" && id.size() >= 2) return ObjectRef::Namespace(id);
  if (kind == "table" && id.size() >= 2) return ObjectRef::Table(id);
  if (kind == "server") return ObjectRef::Server();
  return std::nullopt;
}

}  // namespace

std::vector<Grant> AccessControl::GrantsFromJson(const json& grants, ObjectType type) {
  std::vector<Grant> out;
  if (!grants.is_array()) return out;
  for (const json& g : grants) {
    // Records are whatever a writer to the root put there (this runs at startup and on every
    // refresh): an entry that is not a grant is skipped, not the whole record.
    auto entry = internal::GrantEntry::FromJson(g);
    auto relation = entry.ok() ? authz::ParseRelation(entry->relation)
                               : Result<authz::Relation>(entry.status());
    if (!relation.ok() || !authz::ValidateSubject(entry->subject).ok() ||
        !authz::ValidateRelationFor(type, *relation).ok()) {
      QV_LOG_WARN("ignoring an unusable grant", {{"grant", g.dump()}});
      continue;
    }
    out.push_back({std::move(entry->subject), *relation});
  }
  return out;
}

AccessControl::AccessControl(Catalog& catalog, const AccessOptions& options)
    : catalog_(catalog),
      options_(options),
      clock_(options.clock != nullptr ? options.clock : Clock::Real()),
      config_admins_(options.server_admins.begin(), options.server_admins.end()),
      api_keys_(std::make_unique<ApiKeyStore>(catalog.registry().store_ptr(), clock_)) {
  server_admins_ = config_admins_;
}

AccessControl::~AccessControl() { catalog_.SetObserver(nullptr); }

Result<std::unique_ptr<AccessControl>> AccessControl::Open(Catalog& catalog,
                                                           const AccessOptions& options) {
  std::unique_ptr<AccessControl> access(new AccessControl(catalog, options));
  QV_RETURN_IF_ERROR(access->LoadAll());
  catalog.SetObserver(access.get());
  return access;
}

Status AccessControl::LoadAll() {
  Registry& registry = catalog_.registry();
  // Everything logged before the scan is in the records; what is logged during it is read
  // back by the first refresh (events are idempotent).
  QV_ASSIGN_OR_RETURN(uint64_t start, registry.Generation());
  applied_seq_ = start;
  refreshed_at_ = clock_->MonotonicNanos();

  QV_ASSIGN_OR_RETURN(json server, ReadServerGrants());
  SetServerGrants(GrantsFromJson(server, ObjectType::kServer));
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> warehouses,
                      registry.ListDescendants(RecordKind::kWarehouse, {}));
  for (const ObjectId& wh : warehouses) {
    if (wh.size() != 2) continue;
    auto record = ReadObject(registry, RecordKind::kWarehouse, wh);
    if (!record.ok() || !record->has_value()) {
      SkipUnreadable(RecordKind::kWarehouse, wh, record.status());
      continue;
    }
    index_.SetGrants(ObjectRef::Warehouse(wh[0], wh[1]),
                     GrantsFromJson((*record)->grants, ObjectType::kWarehouse));
    SetWarehouseState(wh[0], wh[1], (*record)->active);
  }
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> namespaces,
                      registry.ListDescendants(RecordKind::kNamespace, {}));
  for (const ObjectId& ns : namespaces) {
    auto record = ReadObject(registry, RecordKind::kNamespace, ns);
    if (!record.ok() || !record->has_value()) {
      SkipUnreadable(RecordKind::kNamespace, ns, record.status());
      continue;
    }
    const json& grants = (*record)->grants;
    if (ns.size() == 1) {
      index_.SetGrants(ObjectRef::Project(ns[0]), GrantsFromJson(grants, ObjectType::kProject));
      continue;
    }
    if (ns.size() == 2 && !(*record)->warehouse.empty()) {
      SetNamespaceWarehouse(ns[0], ns[1], (*record)->warehouse);
    }
    index_.SetGrants(ObjectRef::Namespace(ns), GrantsFromJson(grants, ObjectType::kNamespace));
  }
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> tables,
                      registry.ListDescendants(RecordKind::kTable, {}));
  for (const ObjectId& table : tables) {
    auto record = ReadObject(registry, RecordKind::kTable, table);
    if (!record.ok() || !record->has_value()) {
      SkipUnreadable(RecordKind::kTable, table, record.status());
      continue;
    }
    if (!(*record)->live) continue;
    index_.SetGrants(ObjectRef::Table(table),
                     GrantsFromJson((*record)->grants, ObjectType::kTable));
  }
  QV_LOG_INFO("authorization index loaded", {{"tuples", index_.TupleCount()},
                                             {"tables", tables.size()},
                                             {"namespaces", namespaces.size()},
                                             {"warehouses", warehouses.size()}});
  return Status::OK();
}

void AccessControl::SetWarehouseState(const std::string& project, const std::string& warehouse,
                                      bool active) {
  WriterLock lock(&state_mu_);
  warehouse_active_[{project, warehouse}] = active;
}

void AccessControl::OnEvent(const json& event) {
  Status applied = Apply(event);
  if (!applied.ok()) {
    QV_LOG_WARN("could not apply a catalog event to the authorization index",
                {{"error", applied.ToString()}});
  }
}

Status AccessControl::Apply(const json& raw) {
  QV_ASSIGN_OR_RETURN(ChangeEvent event, ChangeEvent::FromJson(raw));
  const std::string& action = event.action;
  const std::string& kind = event.kind;
  if (!event.object && kind != "server") return Status::OK();
  ObjectId object = event.object.value_or(ObjectId{});
  std::optional<ObjectRef> ref = RefOf(kind, object);
  if (!ref) return Status::OK();
  auto grants_of = [&] { return GrantsFromJson(event.grants.value_or(json::array()), ref->type); };
  if (action == "set_grants" || action == "activate_warehouse" ||
      action == "deactivate_warehouse") {
    // Events of changes to an existing record can reach the log in another order than their
    // writes did (concurrent requests, other servers), so their snapshot may be older than what
    // is stored: the record itself is the truth.
    Status reloaded = ReloadObject(*ref);
    if (!reloaded.ok()) {
      QV_LOG_WARN(
          "could not re-read a changed record; the index may be stale until the next "
          "change to it",
          {{"object", authz::FormatObjectRef(*ref)}, {"error", reloaded.ToString()}});
    }
    return reloaded;
  }
  if (action == "create_project" || action == "create_warehouse" || action == "create_namespace" ||
      action == "declare_table" || action == "register_table") {
    if (action == "create_namespace" && object.size() == 2 && event.warehouse) {
      SetNamespaceWarehouse(object[0], object[1], *event.warehouse);
    }
    if (action == "create_warehouse") SetWarehouseState(object[0], object[1], true);
    if (ref->type == ObjectType::kServer) {
      SetServerGrants(grants_of());
    } else {
      index_.SetGrants(*ref, grants_of());
    }
  } else if (action == "delete_project" || action == "delete_warehouse" ||
             action == "drop_namespace") {
    index_.RemoveSubtree(*ref);
    WriterLock lock(&state_mu_);
    if (action == "delete_warehouse") warehouse_active_.erase({object[0], object[1]});
    if (action == "drop_namespace" && object.size() == 2) {
      namespace_warehouse_.erase({object[0], object[1]});
    }
  } else if (action == "drop_table" || action == "deregister_table") {
    index_.SetGrants(*ref, {});
  } else if (action == "rename_table") {
    const ObjectId to = event.to.value_or(ObjectId{});
    // Replayed from the log after the grants already moved, the source has none left: keep
    // the destination's.
    if (to.size() >= 2 && !index_.GrantsOn(*ref).empty()) {
      index_.MoveObject(*ref, ObjectRef::Table(to));
    }
  }
  return Status::OK();
}

Status AccessControl::ReloadObject(const ObjectRef& ref) {
  if (ref.type == ObjectType::kServer) {
    QV_ASSIGN_OR_RETURN(json server, ReadServerGrants());
    SetServerGrants(GrantsFromJson(server, ObjectType::kServer));
    return Status::OK();
  }
  RecordKind kind = ref.type == ObjectType::kWarehouse ? RecordKind::kWarehouse
                    : ref.type == ObjectType::kTable   ? RecordKind::kTable
                                                       : RecordKind::kNamespace;
  QV_ASSIGN_OR_RETURN(std::optional<ObjectState> record,
                      ReadObject(catalog_.registry(), kind, ref.path));
  if (!record) {
    index_.SetGrants(ref, {});  // gone: its own drop event removes the rest
    return Status::OK();
  }
  index_.SetGrants(ref,
                   record->live ? GrantsFromJson(record->grants, ref.type) : std::vector<Grant>{});
  if (ref.type == ObjectType::kWarehouse) {
    SetWarehouseState(ref.path[0], ref.path[1], record->active);
  }
  return Status::OK();
}

void AccessControl::MaybeRefresh() {
  int64_t now = clock_->MonotonicNanos();
  if (now - refreshed_at_.load() < options_.refresh_interval.count()) return;
  if (!refresh_mu_.TryLock()) return;  // another request is reading the log right now
  Status refreshed;
  if (clock_->MonotonicNanos() - refreshed_at_.load() >= options_.refresh_interval.count()) {
    refreshed = RefreshLocked();  // answers with a Status, never throws
  }
  refresh_mu_.Unlock();
  if (!refreshed.ok()) {
    QV_LOG_WARN("could not read the change log for grant changes",
                {{"error", refreshed.ToString()}});
  }
}

Status AccessControl::Refresh() {
  // One reader at a time: two interleaved replays could apply an older event after a newer one
  // and leave the index behind the log for good (the newer one is not read again).
  MutexLock lock(&refresh_mu_);
  return RefreshLocked();
}

Status AccessControl::RefreshLocked() {
  Registry& registry = catalog_.registry();
  // An event that cannot be applied (mistyped, or naming a record that cannot be read) is passed
  // (it is not read again: the log is append-only) and the first such failure is the answer,
  // once every event after it has been applied.
  Status first_failure;
  while (true) {
    QV_ASSIGN_OR_RETURN(std::vector<json> events, registry.ReadLog(applied_seq_.load(), kLogPage));
    for (const json& event : events) {
      Status applied = Apply(event);
      if (!applied.ok() && first_failure.ok()) first_failure = applied;
      // ReadLog checked that every event has an unsigned "seq".
      applied_seq_ = std::max<uint64_t>(applied_seq_.load(), event["seq"].get<uint64_t>());
    }
    if (events.size() < kLogPage) break;
  }
  refreshed_at_ = clock_->MonotonicNanos();
  return first_failure;
}

Status AccessControl::Reconcile(const ObjectRef& obj) {
  Registry& registry = catalog_.registry();
  const std::vector<std::string>& path = obj.path;
  if (obj.type == ObjectType::kServer || path.empty()) {
    QV_ASSIGN_OR_RETURN(json server, ReadServerGrants());
    SetServerGrants(GrantsFromJson(server, ObjectType::kServer));
    return Status::OK();
  }
  // The record of one object on the chain into the index; nullopt when it holds no object.
  auto load = [&](RecordKind kind, const ObjectId& id,
                  const ObjectRef& ref) -> Result<std::optional<ObjectState>> {
    QV_ASSIGN_OR_RETURN(std::optional<ObjectState> record, ReadObject(registry, kind, id));
    if (!record) {
      if (kind == RecordKind::kNamespace && id.size() >= 2) {
        index_.RemoveSubtree(ref);
      } else {
        index_.SetGrants(ref, {});
      }
      return record;
    }
    if (!record->live) {
      index_.SetGrants(ref, {});
      return std::optional<ObjectState>();
    }
    index_.SetGrants(ref, GrantsFromJson(record->grants, ref.type));
    return record;
  };
  const std::string& project = path[0];
  QV_RETURN_IF_ERROR(load(RecordKind::kNamespace, {project}, ObjectRef::Project(project)).status());
  if (obj.type == ObjectType::kWarehouse && path.size() == 2) {
    QV_ASSIGN_OR_RETURN(auto record, load(RecordKind::kWarehouse, path, obj));
    if (record) SetWarehouseState(path[0], path[1], record->active);
    return Status::OK();
  }
  // The namespaces from the top down, then the table.
  size_t ns_depth = obj.type == ObjectType::kTable ? path.size() - 1 : path.size();
  for (size_t depth = 2; depth <= ns_depth; ++depth) {
    ObjectId ns(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(depth));
    QV_ASSIGN_OR_RETURN(auto record, load(RecordKind::kNamespace, ns, ObjectRef::Namespace(ns)));
    if (!record) return Status::OK();  // nothing below a missing namespace
    if (depth == 2 && !record->warehouse.empty()) {
      const std::string& wh = record->warehouse;
      SetNamespaceWarehouse(project, ns[1], wh);
      QV_ASSIGN_OR_RETURN(auto wh_record, load(RecordKind::kWarehouse, {project, wh},
                                               ObjectRef::Warehouse(project, wh)));
      if (wh_record) SetWarehouseState(project, wh, wh_record->active);
    }
  }
  if (obj.type == ObjectType::kTable) {
    QV_RETURN_IF_ERROR(load(RecordKind::kTable, path, obj).status());
  }
  return Status::OK();
}

void AccessControl::SetServerGrants(std::vector<Grant> grants) {
  std::set<std::string, std::less<>> admins(config_admins_.begin(), config_admins_.end());
  for (const Grant& g : grants) {
    if (authz::RelationRank(g.relation) >= authz::kMaxRank) admins.insert(g.subject);
  }
  index_.SetGrants(ObjectRef::Server(), std::move(grants));
  WriterLock lock(&state_mu_);
  server_admins_ = std::move(admins);
}

bool AccessControl::IsServerAdmin(std::string_view subject) const {
  ReaderLock lock(&state_mu_);
  return server_admins_.count(subject) > 0 || server_admins_.count(authz::kAnySubject) > 0;
}

Result<bool> AccessControl::CheckFresh(std::string_view subject, authz::Permission permission,
                                       const ObjectRef& obj, const ObjectRef* reread) {
  if (Check(subject, permission, obj)) return true;
  QV_RETURN_IF_ERROR(Reconcile(reread != nullptr ? *reread : obj));
  return Check(subject, permission, obj);
}

namespace {
Catalog::GrantTarget GrantTargetOf(ObjectType type) {
  switch (type) {
    case ObjectType::kProject:
      return Catalog::GrantTarget::kProject;
    case ObjectType::kWarehouse:
      return Catalog::GrantTarget::kWarehouse;
    case ObjectType::kNamespace:
      return Catalog::GrantTarget::kNamespace;
    default:
      return Catalog::GrantTarget::kTable;
  }
}
}  // namespace

Result<json> AccessControl::UpdateGrantsOf(const ObjectRef& obj,
                                           const std::function<Status(json&)>& edit,
                                           const Actor& actor) {
  if (obj.type == ObjectType::kServer) return UpdateServerGrants(edit, actor);
  return catalog_.UpdateGrants(GrantTargetOf(obj.type), obj.path, edit, actor);
}

Result<json> AccessControl::ReadGrantsOf(const ObjectRef& obj) {
  if (obj.type == ObjectType::kServer) return ReadServerGrants();
  return catalog_.ReadGrants(GrantTargetOf(obj.type), obj.path);
}

bool AccessControl::Check(std::string_view subject, authz::Permission permission,
                          const ObjectRef& obj) const {
  if (IsServerAdmin(subject)) return true;
  return index_.Check(subject, permission, obj);
}

int AccessControl::Rank(std::string_view subject, const ObjectRef& obj) const {
  if (IsServerAdmin(subject)) return authz::kMaxRank;
  return index_.Rank(subject, obj);
}

Result<std::vector<std::string>> AccessControl::ProjectsOf(std::string_view subject) {
  if (!IsServerAdmin(subject)) return index_.ProjectsOf(subject);
  std::vector<std::string> all;
  std::string after;
  while (true) {
    QV_ASSIGN_OR_RETURN(NameList page, catalog_.ListProjects(after, kLogPage));
    all.insert(all.end(), page.names.begin(), page.names.end());
    if (!page.page_token) return all;
    after = *page.page_token;
  }
}

std::vector<std::string> AccessControl::VisibleChildren(std::string_view subject,
                                                        const ObjectRef& parent,
                                                        authz::ChildKind kind,
                                                        std::string_view start_after,
                                                        size_t limit) const {
  return index_.VisibleChildren(subject, parent, kind, start_after, limit);
}

std::string AccessControl::WarehouseOf(const std::string& project, const std::string& ns) const {
  ReaderLock lock(&state_mu_);
  auto it = namespace_warehouse_.find({project, ns});
  return it == namespace_warehouse_.end() ? "" : it->second;
}

void AccessControl::SetNamespaceWarehouse(const std::string& project, const std::string& ns,
                                          const std::string& warehouse) {
  index_.SetNamespaceWarehouse(project, ns, warehouse);
  WriterLock lock(&state_mu_);
  namespace_warehouse_[{project, ns}] = warehouse;
}

bool AccessControl::WarehouseActive(const std::string& project,
                                    const std::string& warehouse) const {
  ReaderLock lock(&state_mu_);
  auto it = warehouse_active_.find({project, warehouse});
  return it == warehouse_active_.end() || it->second;
}

namespace {
// The server's grant record as read back from storage (bounded: common/json.h), typed.
Result<internal::ServerRecord> ParseServerRecord(const std::string& data) {
  auto body = ParseJson(data);
  if (!body.ok() || !body->is_object()) {
    return Status::Corruption(
        fmt::format("{} is not a JSON object{}", kServerRecord,
                    body.ok() ? std::string() : std::string(": ") + body.status().message()));
  }
  auto record = internal::ServerRecord::FromJson(*body);
  if (!record.ok()) return record.status().WithContext(kServerRecord);
  return record;
}
}  // namespace

Result<json> AccessControl::ReadServerGrants() {
  auto got = catalog_.registry().store().Get(kServerRecord);
  if (!got.ok()) {
    if (got.status().IsNotFound()) return json::array();
    return got.status();
  }
  QV_ASSIGN_OR_RETURN(internal::ServerRecord record, ParseServerRecord(got->data));
  return std::move(record.grants);
}

Result<json> AccessControl::UpdateServerGrants(const std::function<Status(json&)>& edit,
                                               const Actor& actor) {
  ObjectStore& store = catalog_.registry().store();
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto got = store.Get(kServerRecord);
    internal::ServerRecord record;
    std::optional<std::string> etag;
    if (got.ok()) {
      QV_ASSIGN_OR_RETURN(record, ParseServerRecord(got->data));
      etag = got->meta.etag;
    } else if (!got.status().IsNotFound()) {
      return got.status();
    }
    json grants = record.grants;
    QV_RETURN_IF_ERROR(edit(grants));
    if (!grants.is_array()) return Status::Internal("a grants edit must leave an array");
    record.grants = grants;
    auto put = store.Put(kServerRecord, record.ToJson().dump(2) + "\n",
                         etag ? PutOptions::IfMatch(*etag) : PutOptions::CreateOnly());
    if (put.ok()) {
      // This object is the catalog's observer: the event reaches Apply through it.
      catalog_.LogEvent({{"action", "set_grants"},
                         {"kind", "server"},
                         {"object", json::array()},
                         {"grants", grants}},
                        actor);
      return grants;
    }
    if (!put.status().IsConflict() && !put.status().IsAlreadyExists()) return put.status();
  }
  return Status(StatusCode::kConcurrentModification, "the server's grants keep changing",
                Subcode::kNone, true);
}

}  // namespace quiver::catalog
