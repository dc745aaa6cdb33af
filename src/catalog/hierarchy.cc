// The hierarchy layer of Catalog: projects, warehouses, scoped ids and the grants stored in
// records (catalog.h). A project is a depth-1 namespace record of kind "project"; a warehouse
// is a record under _quiver/warehouses/<project>/. Both follow the catalog's order: validate →
// parent live → conflict → conditional write (record and owner grant together) → re-check →
// change-log event.
#include <fmt/format.h>

#include "catalog/catalog.h"
#include "catalog/internal/create_protocol.h"
#include "catalog/internal/drop_mark.h"
#include "catalog/internal/record_fields.h"
#include "catalog/internal/records.h"
#include "common/ids.h"
#include "common/ignore_status.h"
#include "common/logging.h"
#include "store/key.h"
#include "store/store_uri.h"

namespace quiver::catalog {

namespace {

using nlohmann::json;

constexpr int kGrantRetries = 8;

using internal::CreateRecord;
using internal::CreateSpec;
using internal::CreateStage;
using internal::Error;
using internal::GetRecord;
using internal::NamespaceRecord;
using internal::ProjectRecord;
using internal::Retryable;
using internal::Stored;
using internal::TableRecord;
using internal::TableState;
using internal::WarehouseRecord;

ProjectInfo ProjectFromRecord(const std::string& name, const ProjectRecord& record) {
  return {name, record.properties, record.created_at, record.grants};
}

// Withdraws the drop mark `mark` of a project or warehouse record (only ours: the record may
// have changed since). A mark that cannot be withdrawn expires (its lifetime), so a failure is
// logged, not answered: the answer is why the delete stopped.
Status ValidateRoot(const std::string& root) {
  if (root.empty()) return Status::OK();
  auto parsed = ParseStoreUri(root);
  if (!parsed.ok())
    return Status::InvalidInput(fmt::format("'root': {}", parsed.status().message()));
  return Status::OK();
}

}  // namespace

std::string DisplayId(const ObjectId& scoped) {
  if (scoped.size() <= 1) return "";
  return JoinId(ObjectId(scoped.begin() + 1, scoped.end()));
}

Status ValidateScopedId(const ObjectId& id, std::string_view what, bool allow_root) {
  if (id.empty()) return Status::InvalidInput(fmt::format("a {} id needs its project", what));
  QV_RETURN_IF_ERROR(ValidateName(id.front(), "project"));
  return ValidateId(ObjectId(id.begin() + 1, id.end()), what, allow_root);
}

Status ValidateScopedLookupId(const ObjectId& id, std::string_view what, bool allow_root) {
  if (id.empty()) return Status::InvalidInput(fmt::format("a {} id needs its project", what));
  QV_RETURN_IF_ERROR(ValidateLookupId({id.front()}, "project", false));
  return ValidateLookupId(ObjectId(id.begin() + 1, id.end()), what, allow_root);
}

json Catalog::OwnerGrants(const Actor& actor, std::string_view relation) const {
  return internal::OwnerGrants(actor.principal, relation);
}

// --- projects --------------------------------------------------------------------------------

Status Catalog::EnsureDefaults(const Actor& actor) {
  auto project = CreateProject(std::string(kDefaultProject), {}, actor);
  if (!project.ok() && project.status().code() != StatusCode::kNamespaceAlreadyExists) {
    return project.status();
  }
  auto warehouse =
      CreateWarehouse(std::string(kDefaultProject), std::string(kDefaultWarehouse), "", {}, actor);
  if (!warehouse.ok() && warehouse.status().code() != StatusCode::kNamespaceAlreadyExists) {
    return warehouse.status();
  }
  return Status::OK();
}

Result<ProjectInfo> Catalog::CreateProject(const std::string& name, const Properties& properties,
                                           const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateName(name, "project"));
  ProjectRecord record;
  record.id = {name};
  record.properties = properties;
  record.created_at = Now();
  record.uid = NewUlid(clock());
  record.grants = OwnerGrants(actor, "admin");
  // A project's parent is the root, which is never dropped, and it has no sibling of another
  // kind: nothing to re-check.
  CreateSpec spec{RecordKind::kNamespace, {name}, record.ToJson()};
  CreateStage failed_at = CreateStage::kWrite;
  auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
  if (!created.ok()) {
    if (failed_at == CreateStage::kWrite && created.status().IsAlreadyExists()) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("project '{}' already exists", name));
    }
    return created.status();
  }
  Log("create_project", "project", {name}, actor, {{"grants", record.grants}});
  return ProjectFromRecord(name, record);
}

namespace {
// The record of project `name` (NamespaceNotFound when there is none).
Result<Stored<ProjectRecord>> GetProjectRecord(Registry& registry, const std::string& name) {
  QV_RETURN_IF_ERROR(ValidateLookupId({name}, "project", false));
  auto record = GetRecord<ProjectRecord>(registry, RecordKind::kNamespace, {name});
  if (!record.ok() && record.status().IsNotFound()) {
    return Error(StatusCode::kNamespaceNotFound, fmt::format("project '{}' does not exist", name));
  }
  return record;
}
}  // namespace

Result<ProjectInfo> Catalog::DescribeProject(const std::string& name) {
  QV_ASSIGN_OR_RETURN(Stored<ProjectRecord> record, GetProjectRecord(*registry_, name));
  return ProjectFromRecord(name, record.record);
}

Result<NameList> Catalog::ListProjects(const std::string& page_token, std::optional<size_t> limit) {
  NameList out;
  if (limit && *limit == 0) return out;
  QV_ASSIGN_OR_RETURN(NamePage page, registry_->ListChildren(RecordKind::kNamespace, {}, page_token,
                                                             limit.value_or(0)));
  out.names = std::move(page.names);
  if (page.truncated && !out.names.empty()) out.page_token = out.names.back();
  return out;
}

Result<ProjectInfo> Catalog::DeleteProject(const std::string& name, const Actor& actor) {
  auto record = GetProjectRecord(*registry_, name);
  if (!record.ok()) return record.status();
  if (HasLiveDropMark(record->record.dropping_since)) {
    return Retryable(fmt::format("project '{}' is being deleted by another request", name));
  }
  // Mark first: a warehouse or namespace created after the mark sees it on its re-check and
  // withdraws; one created before is found by the emptiness check below.
  const int64_t mark = clock()->NowNanos();
  QV_ASSIGN_OR_RETURN(std::string marked_etag,
                      internal::WriteDropMark(*registry_, RecordKind::kNamespace, {name}, *record,
                                              mark, fmt::format("project '{}'", name)));
  auto unmark = [&](Status why) -> Status {
    internal::WithdrawDropMark<ProjectRecord>(*registry_, RecordKind::kNamespace, {name}, mark);
    return why;
  };
  auto warehouses = registry_->ListChildren(RecordKind::kWarehouse, {name}, "", 5);
  if (!warehouses.ok()) return unmark(warehouses.status());
  auto namespaces = registry_->ListChildren(RecordKind::kNamespace, {name}, "", 5);
  if (!namespaces.ok()) return unmark(namespaces.status());
  auto tables = registry_->ListChildren(RecordKind::kTable, {name}, "", 5);
  if (!tables.ok()) return unmark(tables.status());
  std::vector<std::string> parts;
  auto describe = [&](std::string_view what, const NamePage& page) {
    if (page.names.empty()) return;
    parts.push_back(
        fmt::format("{} {}{}", what, fmt::join(page.names, ", "), page.truncated ? ", ..." : ""));
  };
  describe("warehouses", *warehouses);
  describe("namespaces", *namespaces);
  describe("tables", *tables);
  if (!parts.empty()) {
    return unmark(Error(StatusCode::kNamespaceNotEmpty,
                        fmt::format("project '{}' is not empty (it holds {}); delete those first "
                                    "(a project delete never cascades)",
                                    name, fmt::join(parts, " and "))));
  }
  Status deleted = registry_->Delete(RecordKind::kNamespace, {name}, marked_etag);
  if (!deleted.ok()) {
    if (deleted.IsConflict() || deleted.IsNotFound()) {
      return Retryable(fmt::format("project '{}' changed while it was being deleted", name));
    }
    return unmark(deleted);
  }
  Log("delete_project", "project", {name}, actor);
  return ProjectFromRecord(name, record->record);
}

// --- warehouses ------------------------------------------------------------------------------

WarehouseInfo Catalog::WarehouseFromRecord(const std::string& project, const std::string& name,
                                           const WarehouseRecord& record) const {
  WarehouseInfo info;
  info.project = project;
  info.name = name;
  info.root = record.root;
  info.active = record.active;
  info.properties = record.properties;
  info.created_at = record.created_at;
  info.grants = record.grants;
  return info;
}

Status Catalog::CheckWarehouseRoot(const std::string& root) {
  // Compared canonically (store_uri.h), by whole segments: the same place under another
  // spelling is the same place.
  QV_ASSIGN_OR_RETURN(std::string where, CanonicalRoot(root));
  QV_ASSIGN_OR_RETURN(std::string catalog_root, CanonicalRoot(""));
  for (std::string_view area : {std::string_view("_quiver"), kReservedSegment}) {
    if (LocationWithin(where, JoinLocation(catalog_root, area))) {
      return Status::InvalidInput(
          fmt::format("'root' {} is inside the catalog's own records", root));
    }
  }
  // Inside a table, its tables would be that table's files (and go with its drop).
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> tables,
                      registry_->ListDescendants(RecordKind::kTable, {}));
  for (const ObjectId& table : tables) {
    auto record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, table);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      return record.status();
    }
    QV_ASSIGN_OR_RETURN(std::string table_where,
                        CanonicalTableLocation(record->record.root, record->record.location));
    if (LocationWithin(where, table_where)) {
      return Status::InvalidInput(
          fmt::format("'root' {} is inside the location of a registered table", root));
    }
  }
  return Status::OK();
}

Result<WarehouseInfo> Catalog::CreateWarehouse(const std::string& project, const std::string& name,
                                               const std::string& root,
                                               const Properties& properties, const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateName(project, "project"));
  QV_RETURN_IF_ERROR(ValidateName(name, "warehouse"));
  QV_RETURN_IF_ERROR(ValidateRoot(root));
  QV_RETURN_IF_ERROR(CheckNamespaceLive({project}, "creating warehouses in it"));
  if (!root.empty()) {
    // The root must open now, not at the first table.
    QV_RETURN_IF_ERROR(RootStore(root).status().WithContext("opening the warehouse root"));
    QV_RETURN_IF_ERROR(CheckWarehouseRoot(root));
  }
  WarehouseRecord record;
  record.project = project;
  record.name = name;
  record.root = root;
  record.active = true;
  record.properties = properties;
  record.created_at = Now();
  record.grants = OwnerGrants(actor, "owner");
  CreateSpec spec{RecordKind::kWarehouse, {project, name}, record.ToJson()};
  spec.recheck = [&] { return CheckNamespaceLive({project}, "creating warehouses in it"); };
  CreateStage failed_at = CreateStage::kWrite;
  auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
  if (!created.ok()) {
    if (failed_at == CreateStage::kWrite && created.status().IsAlreadyExists()) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("warehouse '{}' already exists in project '{}'", name, project));
    }
    return created.status();
  }
  Log("create_warehouse", "warehouse", {project, name}, actor,
      {{"grants", record.grants}, {"root", root}});
  return WarehouseFromRecord(project, name, record);
}

Result<WarehouseInfo> Catalog::DescribeWarehouse(const std::string& project,
                                                 const std::string& name) {
  // A lookup: names over the length limit are merely missing.
  QV_RETURN_IF_ERROR(ValidateLookupId({project}, "project", false));
  QV_RETURN_IF_ERROR(ValidateLookupId({name}, "warehouse", false));
  auto record = GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse, {project, name});
  if (!record.ok()) {
    if (record.status().IsNotFound()) {
      return Error(
          StatusCode::kNamespaceNotFound,
          fmt::format("warehouse '{}' does not exist; create it (POST /v1/warehouses)", name));
    }
    return record.status();
  }
  return WarehouseFromRecord(project, name, record->record);
}

Result<NameList> Catalog::ListWarehouses(const std::string& project, const std::string& page_token,
                                         std::optional<size_t> limit) {
  QV_RETURN_IF_ERROR(DescribeProject(project).status());
  NameList out;
  if (limit && *limit == 0) return out;
  QV_ASSIGN_OR_RETURN(NamePage page, registry_->ListChildren(RecordKind::kWarehouse, {project},
                                                             page_token, limit.value_or(0)));
  out.names = std::move(page.names);
  if (page.truncated && !out.names.empty()) out.page_token = out.names.back();
  return out;
}

Result<WarehouseInfo> Catalog::DeleteWarehouse(const std::string& project, const std::string& name,
                                               const Actor& actor) {
  QV_RETURN_IF_ERROR(DescribeWarehouse(project, name).status());
  auto record = GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse, {project, name});
  if (!record.ok()) return record.status();
  if (HasLiveDropMark(record->record.dropping_since)) {
    return Retryable(fmt::format("warehouse '{}' is being deleted by another request", name));
  }
  const int64_t mark = clock()->NowNanos();
  QV_ASSIGN_OR_RETURN(std::string marked_etag,
                      internal::WriteDropMark(*registry_, RecordKind::kWarehouse, {project, name},
                                              *record, mark, fmt::format("warehouse '{}'", name)));
  auto unmark = [&](Status why) -> Status {
    internal::WithdrawDropMark<WarehouseRecord>(*registry_, RecordKind::kWarehouse, {project, name},
                                                mark);
    return why;
  };
  // The namespaces that live in this warehouse (a scan of the project's top-level namespaces;
  // deletes are rare and projects hold few of them).
  std::vector<std::string> inside;
  bool more = false;
  std::string after;
  while (true) {
    auto page = registry_->ListChildren(RecordKind::kNamespace, {project}, after, 1000);
    if (!page.ok()) return unmark(page.status());
    for (const std::string& ns : page->names) {
      auto ns_record =
          GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, {project, ns});
      if (!ns_record.ok()) {
        if (ns_record.status().IsNotFound()) continue;  // dropped meanwhile
        // Unread, it could live here: the delete stops rather than orphan it.
        return unmark(ns_record.status());
      }
      if (ns_record->record.warehouse.value_or("") != name) continue;
      if (inside.size() < 5) {
        inside.push_back(ns);
      } else {
        more = true;
      }
    }
    if (!page->truncated || page->names.empty()) break;
    after = page->names.back();
  }
  // The project root's tables live in the default warehouse.
  if (inside.empty()) {
    auto fallback = DefaultWarehouse(project);
    auto root_tables = registry_->ListChildren(RecordKind::kTable, {project}, "", 1);
    if (fallback.ok() && fallback->name == name && root_tables.ok() &&
        !root_tables->names.empty()) {
      inside.push_back("the root namespace's tables");
    }
  }
  if (!inside.empty()) {
    return unmark(Error(StatusCode::kNamespaceNotEmpty,
                        fmt::format("warehouse '{}' is not empty (it holds namespaces {}{}); drop "
                                    "those first",
                                    name, fmt::join(inside, ", "), more ? ", ..." : "")));
  }
  Status deleted = registry_->Delete(RecordKind::kWarehouse, {project, name}, marked_etag);
  if (!deleted.ok()) {
    if (deleted.IsConflict() || deleted.IsNotFound()) {
      return Retryable(fmt::format("warehouse '{}' changed while it was being deleted", name));
    }
    return unmark(deleted);
  }
  Log("delete_warehouse", "warehouse", {project, name}, actor);
  return WarehouseFromRecord(project, name, record->record);
}

Result<WarehouseInfo> Catalog::SetWarehouseActive(const std::string& project,
                                                  const std::string& name, bool active,
                                                  const Actor& actor) {
  QV_RETURN_IF_ERROR(DescribeWarehouse(project, name).status());
  for (int attempt = 0; attempt < kGrantRetries; ++attempt) {
    QV_ASSIGN_OR_RETURN(auto record, GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse,
                                                                {project, name}));
    WarehouseRecord body = record.record;
    body.active = active;
    auto replaced =
        registry_->Replace(RecordKind::kWarehouse, {project, name}, body.ToJson(), record.etag);
    if (replaced.ok()) {
      Log(active ? "activate_warehouse" : "deactivate_warehouse", "warehouse", {project, name},
          actor, {{"active", active}});
      return WarehouseFromRecord(project, name, body);
    }
    if (!replaced.status().IsConflict()) return replaced.status();
  }
  return Retryable(fmt::format("warehouse '{}' keeps changing; try again", name));
}

Result<WarehouseInfo> Catalog::DefaultWarehouse(const std::string& project) {
  QV_ASSIGN_OR_RETURN(NamePage page,
                      registry_->ListChildren(RecordKind::kWarehouse, {project}, "", 2));
  if (page.names.size() == 1) return DescribeWarehouse(project, page.names.front());
  auto named = DescribeWarehouse(project, std::string(kDefaultWarehouse));
  if (named.ok() || named.status().code() != StatusCode::kNamespaceNotFound) return named;
  if (page.names.empty()) {
    return Error(
        StatusCode::kNamespaceNotFound,
        fmt::format("project '{}' has no warehouse; create one (POST /v1/warehouses)", project));
  }
  return Status::InvalidInput(fmt::format(
      "project '{}' has several warehouses and none is named 'default'; name one with the "
      "namespace property '{}'",
      project, kWarehouseProperty));
}

Result<std::string> Catalog::WarehouseOfNamespace(const ObjectId& ns) {
  QV_RETURN_IF_ERROR(ValidateScopedId(ns, "namespace", true));
  if (ns.size() == 1) {
    QV_ASSIGN_OR_RETURN(WarehouseInfo wh, DefaultWarehouse(ns.front()));
    return wh.name;
  }
  ObjectId top = {ns[0], ns[1]};
  auto record = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, top);
  if (!record.ok()) {
    if (record.status().IsNotFound()) {
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("namespace '{}' does not exist", DisplayId(top)));
    }
    return record.status();
  }
  std::string warehouse = record->record.warehouse.value_or("");
  if (warehouse.empty()) {
    return Status::Corruption(
        fmt::format("namespace '{}' does not name its warehouse", DisplayId(top)));
  }
  return warehouse;
}

Result<WarehouseInfo> Catalog::WarehouseForTables(const ObjectId& ns) {
  QV_ASSIGN_OR_RETURN(std::string name, WarehouseOfNamespace(ns));
  QV_ASSIGN_OR_RETURN(WarehouseInfo wh, DescribeWarehouse(ns.front(), name));
  if (!wh.active) {
    return Error(StatusCode::kPermissionDenied,
                 fmt::format("warehouse '{}' is deactivated", wh.name));
  }
  return wh;
}

// --- grants ----------------------------------------------------------------------------------

namespace {

struct GrantRecord {
  RecordKind kind;
  ObjectId key;
  std::string_view what;
  StatusCode missing;
};

Result<GrantRecord> GrantRecordOf(Catalog::GrantTarget target, const ObjectId& id) {
  switch (target) {
    case Catalog::GrantTarget::kProject:
      if (id.size() != 1) return Status::InvalidInput("a project id is one name");
      QV_RETURN_IF_ERROR(ValidateName(id.front(), "project"));
      return GrantRecord{RecordKind::kNamespace, id, "project", StatusCode::kNamespaceNotFound};
    case Catalog::GrantTarget::kWarehouse:
      if (id.size() != 2) return Status::InvalidInput("a warehouse id is project and name");
      QV_RETURN_IF_ERROR(ValidateName(id[0], "project"));
      QV_RETURN_IF_ERROR(ValidateName(id[1], "warehouse"));
      return GrantRecord{RecordKind::kWarehouse, id, "warehouse", StatusCode::kNamespaceNotFound};
    case Catalog::GrantTarget::kNamespace:
      QV_RETURN_IF_ERROR(ValidateScopedId(id, "namespace", false));
      return GrantRecord{RecordKind::kNamespace, id, "namespace", StatusCode::kNamespaceNotFound};
    case Catalog::GrantTarget::kTable:
      QV_RETURN_IF_ERROR(ValidateScopedId(id, "table", false));
      return GrantRecord{RecordKind::kTable, id, "table", StatusCode::kTableNotFound};
  }
  return Status::InvalidInput("unknown grant target");
}

std::string GrantObjectName(const GrantRecord& g) {
  if (g.kind == RecordKind::kWarehouse) return g.key[1];
  if (g.key.size() == 1) return g.key.front();
  return DisplayId(g.key);
}

// The record a grant target's grants live in, typed: whether it is a live object of the target's
// kind (a table record that is not active, or a depth-1 record that is not a project, holds no
// object), its grants, and its body with other grants.
struct GrantedRecord {
  bool found = false;        // a record exists (and, for a table, is active)
  bool kind_matches = true;  // a namespace record is a project exactly at depth 1
  json grants = json::array();
  std::string etag;
  std::function<json(const json&)> with_grants;
};

template <typename R>
GrantedRecord Granted(Stored<R> stored, bool found, bool kind_matches) {
  GrantedRecord out;
  out.found = found;
  out.kind_matches = kind_matches;
  out.grants = stored.record.grants;
  out.etag = std::move(stored.etag);
  out.with_grants = [record = std::move(stored.record)](const json& grants) mutable {
    record.grants = grants;
    return record.ToJson();
  };
  return out;
}

Result<GrantedRecord> ReadGranted(Registry& registry, const GrantRecord& g) {
  auto absent = [](const Status& status) -> Result<GrantedRecord> {
    if (status.IsNotFound()) return GrantedRecord{};
    return status;
  };
  switch (g.kind) {
    case RecordKind::kTable: {
      auto table = GetRecord<TableRecord>(registry, g.kind, g.key);
      if (!table.ok()) return absent(table.status());
      bool active = table->record.state == TableState::kActive;
      return Granted(std::move(*table), active, true);
    }
    case RecordKind::kWarehouse: {
      auto warehouse = GetRecord<WarehouseRecord>(registry, g.kind, g.key);
      if (!warehouse.ok()) return absent(warehouse.status());
      return Granted(std::move(*warehouse), true, true);
    }
    case RecordKind::kNamespace:
      break;
  }
  if (g.key.size() == 1) {
    auto project = GetRecord<ProjectRecord>(registry, g.kind, g.key);
    if (!project.ok()) return absent(project.status());
    bool is_project = project->record.kind == "project";
    return Granted(std::move(*project), true, is_project);
  }
  auto ns = GetRecord<NamespaceRecord>(registry, g.kind, g.key);
  if (!ns.ok()) return absent(ns.status());
  bool is_project = ns->record.kind == "project";
  return Granted(std::move(*ns), true, !is_project);
}

}  // namespace

Result<json> Catalog::ReadGrants(GrantTarget target, const ObjectId& id) {
  QV_ASSIGN_OR_RETURN(GrantRecord g, GrantRecordOf(target, id));
  QV_ASSIGN_OR_RETURN(GrantedRecord record, ReadGranted(*registry_, g));
  if (!record.found) {
    return Error(g.missing, fmt::format("{} '{}' does not exist", g.what, GrantObjectName(g)));
  }
  return record.grants;
}

Result<json> Catalog::UpdateGrants(GrantTarget target, const ObjectId& id,
                                   const std::function<Status(json&)>& edit, const Actor& actor) {
  QV_ASSIGN_OR_RETURN(GrantRecord g, GrantRecordOf(target, id));
  for (int attempt = 0; attempt < kGrantRetries; ++attempt) {
    QV_ASSIGN_OR_RETURN(GrantedRecord record, ReadGranted(*registry_, g));
    if (!record.found || !record.kind_matches) {
      return Error(g.missing, fmt::format("{} '{}' does not exist", g.what, GrantObjectName(g)));
    }
    json grants = record.grants;
    QV_RETURN_IF_ERROR(edit(grants));
    if (!grants.is_array()) return Status::Internal("a grants edit must leave an array");
    auto replaced = registry_->Replace(g.kind, g.key, record.with_grants(grants), record.etag);
    if (replaced.ok()) {
      Log("set_grants", g.what, g.key, actor, {{"grants", grants}});
      return grants;
    }
    if (!replaced.status().IsConflict()) return replaced.status();
  }
  return Retryable(fmt::format("{} '{}' keeps changing; try again", g.what, GrantObjectName(g)));
}

}  // namespace quiver::catalog
