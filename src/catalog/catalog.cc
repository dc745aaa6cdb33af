#include "catalog/catalog.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "catalog/internal/create_protocol.h"
#include "catalog/internal/drop_mark.h"
#include "catalog/internal/read_only_store.h"
#include "catalog/internal/record_fields.h"
#include "catalog/internal/records.h"
#include "common/ids.h"
#include "common/ignore_status.h"
#include "common/json.h"
#include "common/logging.h"
#include "common/numbers.h"
#include "store/key.h"
#include "store/local_store.h"
#include "store/prefix_store.h"
#include "store/store_uri.h"
#include "table/versions.h"

namespace quiver::catalog {

namespace {

using internal::CreateRecord;
using internal::CreateSpec;
using internal::CreateStage;
using internal::Error;
using internal::GetRecord;
using internal::IntentOp;
using internal::IntentRecord;
using internal::NamespaceRecord;
using internal::ProjectRecord;
using internal::ReleasedRecord;
using internal::Retryable;
using internal::Stored;
using internal::TableRecord;
using internal::TableState;
using internal::WarehouseRecord;
using nlohmann::json;

constexpr std::string_view kIntentsDir = "_quiver/intents/";
constexpr std::string_view kReleasedDir = "_quiver/released/";
constexpr std::string_view kReservedMarker = ".lance-reserved";
// A namespace marked as dropping longer ago than this is a leftover of a crashed drop.
constexpr int64_t kDroppingMarkerTtlNanos = 300LL * 1'000'000'000;

std::string NamespaceName(const ObjectId& ns) {
  return ns.size() <= 1 ? "the root namespace" : fmt::format("namespace '{}'", DisplayId(ns));
}

json IdJson(const ObjectId& id) { return json(id); }

// The drop mark of the namespace (or, at depth 1, project) record `ns`.
Result<std::optional<int64_t>> DropMarkOf(Registry& registry, const ObjectId& ns) {
  if (ns.size() == 1) {
    QV_ASSIGN_OR_RETURN(auto project,
                        GetRecord<ProjectRecord>(registry, RecordKind::kNamespace, ns));
    return project.record.dropping_since;
  }
  QV_ASSIGN_OR_RETURN(auto record,
                      GetRecord<NamespaceRecord>(registry, RecordKind::kNamespace, ns));
  return record.record.dropping_since;
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return s.substr(0, n);
}

std::string PercentEncodePath(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("-._~/$!&'()*+,;=:@").find(static_cast<char>(c)) !=
                               std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Status ValidateRegisterLocation(const std::string& location) {
  if (location.empty()) return Status::InvalidInput("'location' must not be empty");
  if (location.find("://") != std::string::npos || location.front() == '/') {
    return Status::InvalidInput(fmt::format(
        "location '{}' must be relative to the catalog root (no scheme, no leading '/')",
        location));
  }
  std::string_view trimmed = location;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  size_t start = 0;
  while (start <= trimmed.size()) {
    size_t slash = trimmed.find('/', start);
    std::string_view seg =
        trimmed.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (seg == "..") {
      return Status::InvalidInput(fmt::format("location '{}' must not contain '..'", location));
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (trimmed.substr(0, kRegistryDir.size()) == kRegistryDir) {
    return Status::InvalidInput(
        fmt::format("location '{}' is inside the catalog's own records", location));
  }
  Status key = ValidateKey(trimmed);
  if (!key.ok())
    return Status::InvalidInput(fmt::format("location '{}': {}", location, key.message()));
  if (!IsValidUtf8(trimmed)) return Status::InvalidInput("location is not valid UTF-8");
  return Status::OK();
}

}  // namespace

Catalog::Catalog(std::unique_ptr<Registry> registry, const CatalogOptions& options)
    : registry_(std::move(registry)), options_(options) {
  if (options_.clock == nullptr) options_.clock = Clock::Real();
}

Result<std::unique_ptr<Catalog>> Catalog::Open(std::shared_ptr<ObjectStore> root,
                                               const CatalogOptions& options) {
  if (options.read_only) root = std::make_shared<internal::ReadOnlyStore>(std::move(root));
  QV_ASSIGN_OR_RETURN(std::unique_ptr<Registry> registry,
                      Registry::Open(std::move(root), options.clock));
  std::unique_ptr<Catalog> catalog(new Catalog(std::move(registry), options));
  if (options.ensure_defaults && !options.read_only) {
    QV_RETURN_IF_ERROR(catalog->EnsureDefaults(Actor{}));
  }
  return catalog;
}

std::string Catalog::Now() const { return FormatIso8601Millis(clock()->NowNanos()); }

Status Catalog::RecheckTableName(const ObjectId& ns, const ObjectId& id, std::string_view doing) {
  return internal::FirstFailure(
      {[&] { return CheckNamespaceLive(ns, doing); },
       [&] {
         return internal::NoRecord(
             *registry_, RecordKind::kNamespace, id,
             Error(StatusCode::kTableAlreadyExists,
                   fmt::format("a namespace named '{}' was created concurrently", LeafOf(id))));
       }});
}

TableRecord Catalog::FreshTableRecord(const ObjectId& id, const WarehouseInfo& wh,
                                      const std::string& location, const Properties& properties,
                                      bool declared) const {
  TableRecord record;
  record.id = id;
  record.warehouse = wh.name;
  record.root = wh.root;
  record.location = location;
  record.properties = properties;
  record.declared = declared;
  record.managed_versioning = ManagedFor(properties);
  record.created_at = Now();
  return record;
}

bool Catalog::ManagedFor(const Properties& properties) const {
  if (options_.managed_versioning) return true;
  auto it = properties.find(std::string(kManagedVersioningProperty));
  return it != properties.end() && IEquals(it->second, "true");
}

void Catalog::Log(std::string_view action, std::string_view kind, const ObjectId& id,
                  const Actor& actor, json extra) {
  extra["action"] = action;
  extra["kind"] = kind;
  extra["object"] = IdJson(id);
  if (!id.empty()) extra["project"] = id.front();
  LogEvent(std::move(extra), actor);
}

void Catalog::LogEvent(json event, const Actor& actor) {
  event["actor"] = actor.principal;
  if (!actor.request_id.empty()) event["request_id"] = actor.request_id;
  event["outcome"] = "ok";
  if (observer_ != nullptr) observer_->OnEvent(event);
  // The mutation is durable already; its event is written behind the response (in order,
  // group-committed). A crash in between loses the event, never the mutation, exactly as if
  // the process had died right before appending it.
  registry_->AppendLogAsync(std::move(event));
}

bool Catalog::HasLiveDropMark(std::optional<int64_t> since) const {
  // A record's number: no overflow (a planted mark far in the past or future is no live mark).
  std::optional<int64_t> age =
      since && *since != INT64_MIN ? CheckedAdd(clock()->NowNanos(), -*since) : std::nullopt;
  return age && *age < kDroppingMarkerTtlNanos;
}

Status Catalog::CheckNamespaceLive(const ObjectId& ns, std::string_view purpose) {
  if (ns.empty()) return Status::InvalidInput("an object outside every project");
  auto mark = DropMarkOf(*registry_, ns);
  if (!mark.ok()) {
    if (!mark.status().IsNotFound()) return mark.status();
    if (ns.size() == 1) {
      return Error(
          StatusCode::kNamespaceNotFound,
          fmt::format("project '{}' does not exist; create it (POST /v1/projects) before {}",
                      ns.front(), purpose));
    }
    return Error(StatusCode::kNamespaceNotFound,
                 fmt::format("namespace '{}' does not exist; create it (CreateNamespace) before {}",
                             DisplayId(ns), purpose));
  }
  if (HasLiveDropMark(*mark)) {
    return Retryable(fmt::format("{} is being {}",
                                 ns.size() == 1 ? "the project" : NamespaceName(ns),
                                 ns.size() == 1 ? "deleted" : "dropped"));
  }
  return Status::OK();
}

NamespaceInfo Catalog::NamespaceFromRecord(const ObjectId& id,
                                           const NamespaceRecord& record) const {
  NamespaceInfo info;
  info.id = id;
  info.properties = record.properties;
  info.created_at = record.created_at;
  info.warehouse = record.warehouse.value_or("");
  info.grants = record.grants;
  return info;
}

Result<TableInfo> Catalog::TableFromRecord(const ObjectId& id, const TableRecord& record) const {
  TableInfo info;
  info.id = id;
  if (record.location.empty()) {
    return Status::Corruption(fmt::format("table record of '{}' has no location", DisplayId(id)));
  }
  info.location = record.location;
  info.warehouse = record.warehouse;
  info.root = record.root;
  info.grants = record.grants;
  info.properties = record.properties;
  info.declared = record.declared;
  info.managed_versioning = record.managed_versioning || ManagedFor(info.properties);
  info.created_at = record.created_at;
  return info;
}

// --- namespaces ------------------------------------------------------------------------------

Result<NamespaceInfo> Catalog::CreateNamespace(const ObjectId& id, CreateMode mode,
                                               const Properties& properties, const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedId(id, "namespace", true));
  if (id.size() == 1) {
    if (mode == CreateMode::kExistOk) return DescribeNamespace(id);
    return Error(StatusCode::kNamespaceAlreadyExists, "the root namespace always exists");
  }
  ObjectId parent = ParentOf(id);
  QV_RETURN_IF_ERROR(CheckNamespaceLive(parent, "creating namespaces in it"));
  // A top-level namespace lives in a warehouse: the one its properties name, else the
  // project's default. The choice is recorded, not kept as a property.
  Properties stored = properties;
  std::string warehouse;
  if (id.size() == 2) {
    auto named = stored.find(std::string(kWarehouseProperty));
    WarehouseInfo wh;
    if (named != stored.end()) {
      QV_ASSIGN_OR_RETURN(wh, DescribeWarehouse(id.front(), named->second));
      stored.erase(named);
    } else {
      QV_ASSIGN_OR_RETURN(wh, DefaultWarehouse(id.front()));
    }
    if (!wh.active) {
      return Error(StatusCode::kPermissionDenied,
                   fmt::format("warehouse '{}' is deactivated", wh.name));
    }
    warehouse = wh.name;
  } else if (stored.count(std::string(kWarehouseProperty))) {
    return Status::InvalidInput(
        "only a top-level namespace names its warehouse (nested namespaces use their parent's)");
  }

  auto existing = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, id);
  if (existing.ok()) {
    if (mode == CreateMode::kCreate) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("namespace '{}' already exists", DisplayId(id)));
    }
    if (mode == CreateMode::kExistOk) return NamespaceFromRecord(id, existing->record);
    // Overwrite: "drop and recreate empty", allowed only when there is nothing to drop.
    QV_ASSIGN_OR_RETURN(bool has_ns, registry_->HasDescendants(RecordKind::kNamespace, id));
    QV_ASSIGN_OR_RETURN(bool has_tables, registry_->HasDescendants(RecordKind::kTable, id));
    if (has_ns || has_tables) {
      return Error(StatusCode::kNamespaceNotEmpty,
                   fmt::format("namespace '{}' is not empty; Overwrite only replaces an empty "
                               "namespace (drop it with behavior Cascade first)",
                               DisplayId(id)));
    }
    NamespaceRecord record = existing->record;
    record.properties = stored;
    record.dropping_since.reset();
    auto replaced = registry_->Replace(RecordKind::kNamespace, id, record.ToJson(), existing->etag);
    if (!replaced.ok()) {
      if (replaced.status().IsConflict()) {
        return Retryable(fmt::format("namespace '{}' changed concurrently", DisplayId(id)));
      }
      return replaced.status();
    }
    Log("overwrite_namespace", "namespace", id, actor);
    return NamespaceFromRecord(id, record);
  }
  if (!existing.status().IsNotFound()) return existing.status();

  auto table_taken = [&](std::string_view how) {
    return Error(StatusCode::kNamespaceAlreadyExists,
                 how == "exists"
                     ? fmt::format("a table named '{}' already exists in {}", LeafOf(id),
                                   NamespaceName(parent))
                     : fmt::format("a table named '{}' was created concurrently", LeafOf(id)));
  };
  QV_RETURN_IF_ERROR(internal::NoRecord(*registry_, RecordKind::kTable, id, table_taken("exists")));

  NamespaceRecord record;
  record.id = id;
  record.properties = stored;
  record.created_at = Now();
  record.grants = OwnerGrants(actor, "owner");
  if (!warehouse.empty()) record.warehouse = warehouse;
  CreateSpec spec{RecordKind::kNamespace, id, record.ToJson()};
  // What a concurrent writer could have changed while we wrote.
  spec.recheck = [&] {
    return internal::FirstFailure(
        {[&] { return CheckNamespaceLive(parent, "creating namespaces in it"); },
         [&] {
           return internal::NoRecord(*registry_, RecordKind::kTable, id, table_taken("raced"));
         },
         [&]() -> Status {
           if (warehouse.empty()) return Status::OK();
           // A warehouse delete marks the warehouse before it looks for namespaces in it.
           auto wh = GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse,
                                                {id.front(), warehouse});
           if (!wh.ok() || HasLiveDropMark(wh->record.dropping_since)) {
             return Retryable(fmt::format("warehouse '{}' is being deleted", warehouse));
           }
           return Status::OK();
         }});
  };
  CreateStage failed_at = CreateStage::kWrite;
  auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
  if (!created.ok()) {
    if (failed_at != CreateStage::kWrite || !created.status().IsAlreadyExists()) {
      return created.status();
    }
    if (mode == CreateMode::kCreate) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("namespace '{}' already exists", DisplayId(id)));
    }
    QV_ASSIGN_OR_RETURN(auto now,
                        GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, id));
    return NamespaceFromRecord(id, now.record);
  }
  json extra = {{"grants", record.grants}};
  if (!warehouse.empty()) extra["warehouse"] = warehouse;
  Log("create_namespace", "namespace", id, actor, std::move(extra));
  return NamespaceFromRecord(id, record);
}

Result<NamespaceInfo> Catalog::DescribeNamespace(const ObjectId& id) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "namespace", true));
  if (id.size() == 1) {
    auto project = GetRecord<ProjectRecord>(*registry_, RecordKind::kNamespace, id);
    if (!project.ok()) {
      if (project.status().IsNotFound()) {
        return Error(StatusCode::kNamespaceNotFound,
                     fmt::format("project '{}' does not exist", id.front()));
      }
      return project.status();
    }
    return NamespaceInfo{id, {}, project->record.created_at, "", {}};
  }
  auto record = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, id);
  if (!record.ok()) {
    if (record.status().IsNotFound()) {
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("namespace '{}' does not exist", DisplayId(id)));
    }
    return record.status();
  }
  return NamespaceFromRecord(id, record->record);
}

Result<NameList> Catalog::ListNamespaces(const ObjectId& parent, const std::string& page_token,
                                         std::optional<size_t> limit) {
  QV_RETURN_IF_ERROR(DescribeNamespace(parent).status());
  NameList out;
  if (limit && *limit == 0) return out;
  QV_ASSIGN_OR_RETURN(NamePage page, registry_->ListChildren(RecordKind::kNamespace, parent,
                                                             page_token, limit.value_or(0)));
  out.names = std::move(page.names);
  if (page.truncated && !out.names.empty()) out.page_token = out.names.back();
  return out;
}

Result<std::optional<NamespaceInfo>> Catalog::DropNamespace(const ObjectId& id,
                                                            const DropNamespaceOptions& options,
                                                            const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "namespace", true));
  if (id.size() == 1) return Status::InvalidInput("the root namespace cannot be dropped");
  auto record = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, id);
  if (!record.ok()) {
    if (!record.status().IsNotFound()) return record.status();
    if (options.skip_missing) return std::optional<NamespaceInfo>();
    return Error(StatusCode::kNamespaceNotFound,
                 fmt::format("namespace '{}' does not exist", DisplayId(id)));
  }
  NamespaceInfo info = NamespaceFromRecord(id, record->record);

  // Mark first: a create that lands in this namespace after the mark sees it on its re-check
  // and withdraws; one that landed before is found by the emptiness check or the cascade.
  if (HasLiveDropMark(record->record.dropping_since)) {
    return Retryable(
        fmt::format("namespace '{}' is being dropped by another request", DisplayId(id)));
  }
  const int64_t mark = clock()->NowNanos();
  bool mark_written = true;
  auto marked_etag = internal::WriteDropMark(*registry_, RecordKind::kNamespace, id, *record, mark,
                                             fmt::format("namespace '{}'", DisplayId(id)));
  if (!marked_etag.ok()) {
    // With the storage full no mark can be written: drop without it, as a table drop does, to
    // free space. Creates are not held off then (space can come back meanwhile, not least from
    // this cascade), so what lands under the namespace before its record goes is swept after.
    if (!marked_etag.status().IsStorageFull()) return marked_etag.status();
    marked_etag = record->etag;
    mark_written = false;
  }
  auto unmark = [&](Status why) -> Status {
    internal::WithdrawDropMark<NamespaceRecord>(*registry_, RecordKind::kNamespace, id, mark);
    return why;
  };

  if (!options.cascade) {
    auto children = registry_->ListChildren(RecordKind::kNamespace, id, "", 5);
    auto tables = registry_->ListChildren(RecordKind::kTable, id, "", 5);
    if (!children.ok()) return unmark(children.status());
    if (!tables.ok()) return unmark(tables.status());
    QV_ASSIGN_OR_RETURN(bool deeper, registry_->HasDescendants(RecordKind::kNamespace, id));
    if (!children->names.empty() || !tables->names.empty() || deeper) {
      std::vector<std::string> parts;
      if (!tables->names.empty()) {
        parts.push_back(fmt::format("tables {}{}", fmt::join(tables->names, ", "),
                                    tables->truncated ? ", ..." : ""));
      }
      if (!children->names.empty()) {
        parts.push_back(fmt::format("namespaces {}{}", fmt::join(children->names, ", "),
                                    children->truncated ? ", ..." : ""));
      }
      return unmark(Error(StatusCode::kNamespaceNotEmpty,
                          fmt::format("namespace '{}' is not empty (it holds {}); drop those first "
                                      "or use behavior Cascade",
                                      DisplayId(id), fmt::join(parts, " and "))));
    }
  } else {
    Status dropped = DropNamespaceContents(id, actor);
    if (!dropped.ok()) return unmark(dropped);
  }
  QV_SYNC_POINT(options_.sync_points, kDropNamespaceDeletingPoint);
  Status deleted = registry_->Delete(RecordKind::kNamespace, id, *marked_etag);
  if (!deleted.ok()) {
    if (deleted.IsNotFound() || deleted.IsConflict()) {
      return Retryable(
          fmt::format("namespace '{}' changed while it was being dropped", DisplayId(id)));
    }
    return unmark(deleted);
  }
  Log("drop_namespace", "namespace", id, actor, {{"cascade", options.cascade}});
  if (!mark_written) QV_RETURN_IF_ERROR(SweepDroppedNamespace(id, actor));
  return std::optional<NamespaceInfo>(std::move(info));
}

// A create re-checks its parent after writing its record, so one that writes after the delete
// above withdraws by itself; one that wrote before it (and re-checked before it) is still there,
// and is found here. Nothing may outlive its namespace: it goes too, unless the namespace exists
// again (created anew meanwhile), when what is below is that namespace's.
Status Catalog::SweepDroppedNamespace(const ObjectId& id, const Actor& actor) {
  QV_ASSIGN_OR_RETURN(bool again, registry_->Exists(RecordKind::kNamespace, id));
  if (again) return Status::OK();
  QV_ASSIGN_OR_RETURN(bool tables, registry_->HasDescendants(RecordKind::kTable, id));
  QV_ASSIGN_OR_RETURN(bool namespaces, registry_->HasDescendants(RecordKind::kNamespace, id));
  if (!tables && !namespaces) return Status::OK();
  QV_LOG_WARN("objects created while their namespace was being dropped go with it",
              {{"namespace", DisplayId(id)}});
  return DropNamespaceContents(id, actor);
}

Status Catalog::DropNamespaceContents(const ObjectId& id, const Actor& actor) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> namespaces,
                      registry_->ListDescendants(RecordKind::kNamespace, id));
  // Parents before children, so that a create racing the cascade finds a marked ancestor.
  std::sort(namespaces.begin(), namespaces.end(),
            [](const ObjectId& a, const ObjectId& b) { return a.size() < b.size(); });
  std::vector<std::pair<ObjectId, std::string>> marked;
  for (const ObjectId& ns : namespaces) {
    auto record = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, ns);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      return record.status();
    }
    record->record.dropping_since = clock()->NowNanos();
    auto etag =
        registry_->Replace(RecordKind::kNamespace, ns, record->record.ToJson(), record->etag);
    if (!etag.ok()) {
      if (!etag.status().IsStorageFull()) return etag.status();
      etag = record->etag;  // the storage is full: unmarked (see DropNamespace)
    }
    marked.emplace_back(ns, std::move(*etag));
  }
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> tables,
                      registry_->ListDescendants(RecordKind::kTable, id));
  for (const ObjectId& table : tables) {
    auto removed = RemoveTable(table, /*delete_bytes=*/true, "drop_table", actor);
    if (!removed.ok() && removed.status().code() != StatusCode::kTableNotFound) {
      return removed.status();
    }
  }
  for (auto it = marked.rbegin(); it != marked.rend(); ++it) {
    Status deleted = registry_->Delete(RecordKind::kNamespace, it->first, it->second);
    if (!deleted.ok() && !deleted.IsNotFound()) return deleted;
    Log("drop_namespace", "namespace", it->first, actor, {{"cascade", true}});
  }
  return Status::OK();
}

// --- tables ----------------------------------------------------------------------------------

Result<Stored<TableRecord>> Catalog::GetActiveTableRecord(const ObjectId& id) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "table", false));
  auto record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, id);
  if (record.ok() && record->record.state == TableState::kActive) return record;
  if (!record.ok() && !record.status().IsNotFound()) return record.status();
  ObjectId ns = ParentOf(id);
  if (ns.size() > 1) {
    QV_ASSIGN_OR_RETURN(bool ns_exists, registry_->Exists(RecordKind::kNamespace, ns));
    if (!ns_exists) {
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("namespace '{}' does not exist", DisplayId(ns)));
    }
  }
  return Error(StatusCode::kTableNotFound,
               fmt::format("table '{}' does not exist in {}", LeafOf(id), NamespaceName(ns)));
}

Result<TableInfo> Catalog::GetTable(const ObjectId& id) {
  QV_ASSIGN_OR_RETURN(Stored<TableRecord> record, GetActiveTableRecord(id));
  return TableFromRecord(id, record.record);
}

Result<TableInfo> Catalog::DeclareTable(const ObjectId& id, const Properties& properties,
                                        const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedId(id, "table", false));
  ObjectId ns = ParentOf(id);
  QV_RETURN_IF_ERROR(CheckNamespaceLive(ns, "declaring tables in it"));
  QV_RETURN_IF_ERROR(internal::NoRecord(
      *registry_, RecordKind::kTable, id,
      Error(StatusCode::kTableAlreadyExists,
            fmt::format("table '{}' already exists in {}", LeafOf(id), NamespaceName(ns)))));
  QV_RETURN_IF_ERROR(
      internal::NoRecord(*registry_, RecordKind::kNamespace, id,
                         Error(StatusCode::kTableAlreadyExists,
                               fmt::format("a namespace named '{}' already exists in {}",
                                           LeafOf(id), NamespaceName(ns)))));
  QV_ASSIGN_OR_RETURN(WarehouseInfo wh, WarehouseForTables(ns));
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, RootStore(wh.root));

  // A fresh location: random hex + the id, as the dir namespace names them. The create-only
  // marker proves nobody else holds it.
  std::string location;
  std::string marker_etag;
  for (int attempt = 0;; ++attempt) {
    location = RandomHex(4) + "_" + std::string(Utf8Prefix(JoinId(id, "$"), 200));
    // Not durable: a marker lost in a crash costs nothing (the record names the location), and
    // skipping its three fsyncs makes declare markedly cheaper.
    auto marker = root->Put(location + "/" + std::string(kReservedMarker), "",
                            PutOptions::CreateOnly().NotDurable());
    if (marker.ok()) break;
    if (!marker.status().IsAlreadyExists() || attempt >= 4) return marker.status();
  }
  TableRecord record = FreshTableRecord(id, wh, location, properties, /*declared=*/true);
  record.grants = OwnerGrants(actor, "owner");
  CreateSpec spec{RecordKind::kTable, id, record.ToJson()};
  spec.recheck = [&] { return RecheckTableName(ns, id, "declaring tables in it"); };
  spec.undo = [&] {
    IgnoreStatus(root->Delete(location + "/" + std::string(kReservedMarker)),
                 "a leftover reservation marker only keeps a random location from being chosen "
                 "again; no record names it");
  };
  CreateStage failed_at = CreateStage::kWrite;
  auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
  if (!created.ok()) {
    if (failed_at == CreateStage::kWrite && created.status().IsAlreadyExists()) {
      return Error(StatusCode::kTableAlreadyExists,
                   fmt::format("table '{}' already exists in {}", LeafOf(id), NamespaceName(ns)));
    }
    return created.status();
  }
  Log("declare_table", "table", id, actor, {{"location", location}, {"grants", record.grants}});
  return TableFromRecord(id, record);
}

Result<TableInfo> Catalog::RegisterTable(const ObjectId& id, const std::string& raw_location,
                                         CreateMode mode, const Properties& properties,
                                         const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedId(id, "table", false));
  QV_RETURN_IF_ERROR(ValidateRegisterLocation(raw_location));
  std::string location = raw_location;
  while (location.back() == '/') location.pop_back();
  ObjectId ns = ParentOf(id);
  QV_RETURN_IF_ERROR(CheckNamespaceLive(ns, "registering tables in it"));
  QV_ASSIGN_OR_RETURN(WarehouseInfo wh, WarehouseForTables(ns));
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, RootStore(wh.root));

  // Where the location is, canonically: every comparison below is of canonical locations by
  // whole segments, so no spelling of a root (relative, file://, "..", doubled or trailing
  // slashes, a link to it) makes one place look like two.
  QV_ASSIGN_OR_RETURN(const std::string where, CanonicalTableLocation(wh.root, location));
  QV_RETURN_IF_ERROR(CheckOutsideCatalogArea(where, fmt::format("location '{}'", location)));
  // What a location without a dataset answers, and what another project's location answers.
  const Status no_dataset = Status::InvalidInput(
      fmt::format("location '{}' holds no Lance dataset (no manifest under _versions/)", location));
  // One location, one table, and no table inside another: a second name, or a table inside
  // another's tree (its branches' tree/, its _versions/), would let a drop delete another
  // table's bytes. Another project's tables are not there as far as this project can tell: a
  // location at, inside or above one of theirs (warehouses of several projects may share a
  // root) answers as an empty one, before anything about this project is checked, so that the
  // answer reveals neither their data nor whether it exists. Tables of this project the caller
  // may not see are not named either.
  bool same_location = false;    // a table of this project is registered there
  bool nested_location = false;  // a table of this project is inside it or holds it
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> all,
                      registry_->ListDescendants(RecordKind::kTable, {}));
  for (const ObjectId& other : all) {
    if (other == id) continue;
    auto record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, other);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;  // dropped meanwhile
      return record.status();                      // an unread record could hold this location
    }
    // A record whose location cannot be resolved names no place this one could share (its
    // table cannot be opened either; `catalog check` reports it): it is passed over, not allowed
    // to fail every registration with its (another project's) root in the message.
    auto other_where = CanonicalTableLocation(record->record.root, record->record.location);
    if (!other_where.ok() || !LocationsOverlap(where, *other_where)) continue;
    if (other.front() != id.front()) return no_dataset;
    if (where == *other_where) {
      same_location = true;
    } else {
      nested_location = true;
    }
  }
  // Bytes another project deregistered stay theirs, and answer as theirs do while registered.
  QV_ASSIGN_OR_RETURN(std::vector<std::string> taken_back, CheckReleased(id, where, no_dataset));
  // A table holding a warehouse root would hold every table declared there later.
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> warehouses,
                      registry_->ListDescendants(RecordKind::kWarehouse, {}));
  for (const ObjectId& other : warehouses) {
    auto record = GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse, other);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      return record.status();
    }
    auto other_root = CanonicalRoot(record->record.root);
    if (!other_root.ok() || !LocationWithin(*other_root, where)) continue;
    if (other.front() != id.front()) return no_dataset;
    return Status::InvalidInput(fmt::format(
        "location '{}' holds the storage root of a warehouse; a table cannot contain one",
        location));
  }

  // Links are never followed below a root: one could lead into another table (whose drop or
  // read this would become) or out of the root entirely. The store refuses them too; this says
  // so clearly.
  const std::string root_path = root->ExternalPath("");
  if (!root_path.empty() && root_path.front() == '/') {
    Status links = CheckNoLinksBelow(root_path, location);
    if (!links.ok()) {
      return Status::InvalidInput(
          fmt::format("location '{}' cannot be registered: {}", location, links.message()));
    }
  }

  // The location (relative to the warehouse's root) must hold a dataset.
  QV_ASSIGN_OR_RETURN(auto store, PrefixStore::Make(root, location));
  auto latest = table::ResolveLatestVersion(*store);
  if (!latest.ok()) {
    if (latest.status().code() == StatusCode::kTableNotFound) return no_dataset;
    return latest.status();
  }

  auto existing = GetRecord<TableRecord>(*registry_, RecordKind::kTable, id);
  if (existing.ok()) {
    bool same = existing->record.location == location;
    if (mode != CreateMode::kOverwrite) {
      return Error(
          StatusCode::kTableAlreadyExists,
          same ? fmt::format("table '{}' is already registered at '{}'", DisplayId(id), location)
               : fmt::format("table '{}' already exists (at another location)", DisplayId(id)));
    }
  } else if (!existing.status().IsNotFound()) {
    return existing.status();
  }
  QV_RETURN_IF_ERROR(
      internal::NoRecord(*registry_, RecordKind::kNamespace, id,
                         Error(StatusCode::kTableAlreadyExists,
                               fmt::format("a namespace named '{}' already exists in {}",
                                           LeafOf(id), NamespaceName(ns)))));
  if (same_location) {
    return Error(StatusCode::kTableAlreadyExists,
                 fmt::format("location '{}' is already registered as another table", location));
  }
  if (nested_location) {
    return Status::InvalidInput(fmt::format(
        "location '{}' is inside the location of another registered table, or holds one; a "
        "table's files cannot belong to another table",
        location));
  }

  TableRecord record = FreshTableRecord(id, wh, location, properties, /*declared=*/false);
  // An overwrite re-points the name; who may use it does not change.
  // (A record without grants, planted or damaged, gets the caller's: no object is ownerless.)
  record.grants = existing.ok() && !existing->record.grants.empty() ? existing->record.grants
                                                                    : OwnerGrants(actor, "owner");
  auto registered_concurrently = [&] {
    return Error(StatusCode::kTableAlreadyExists,
                 fmt::format("table '{}' was registered concurrently", DisplayId(id)));
  };
  if (existing.ok()) {
    // An overwrite replaces a record under the same name: its parent and siblings were checked
    // when it was created, and nothing new appears.
    auto replaced = registry_->Replace(RecordKind::kTable, id, record.ToJson(), existing->etag);
    if (!replaced.ok()) {
      if (replaced.status().IsConflict()) return registered_concurrently();
      return replaced.status();
    }
  } else {
    CreateSpec spec{RecordKind::kTable, id, record.ToJson()};
    spec.recheck = [&] { return CheckNamespaceLive(ns, "registering tables in it"); };
    CreateStage failed_at = CreateStage::kWrite;
    auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
    if (!created.ok()) {
      if (failed_at == CreateStage::kWrite && created.status().IsAlreadyExists()) {
        return registered_concurrently();
      }
      return created.status();
    }
  }
  for (const std::string& key : taken_back) {
    IgnoreStatus(registry_->store().Delete(key),
                 "a released-location record left behind names a location this project holds "
                 "again: it keeps other projects out, as the table record does");
  }
  Log("register_table", "table", id, actor, {{"location", location}, {"grants", record.grants}});
  return TableFromRecord(id, record);
}

Result<bool> Catalog::IsOnlyDeclared(const TableInfo& table) {
  QV_ASSIGN_OR_RETURN(auto store, TableStore(table));
  auto latest = table::ResolveLatestVersion(*store);
  if (latest.ok()) return false;
  if (latest.status().code() == StatusCode::kTableNotFound) return true;
  return latest.status();
}

Result<NameList> Catalog::ListTables(const ObjectId& ns, const std::string& page_token,
                                     std::optional<size_t> limit, bool include_declared) {
  QV_RETURN_IF_ERROR(DescribeNamespace(ns).status());
  NameList out;
  if (limit && *limit == 0) return out;
  QV_ASSIGN_OR_RETURN(NamePage page, registry_->ListChildren(RecordKind::kTable, ns, page_token,
                                                             limit.value_or(0)));
  if (page.truncated && !page.names.empty()) out.page_token = page.names.back();
  for (std::string& name : page.names) {
    if (!include_declared) {
      auto table = GetTable(ChildOf(ns, name));
      if (!table.ok()) continue;
      QV_ASSIGN_OR_RETURN(bool only_declared, IsOnlyDeclared(*table));
      if (only_declared) continue;
    }
    out.names.push_back(std::move(name));
  }
  return out;
}

Result<Catalog::IdList> Catalog::ListAllTables(const std::string& project,
                                               const std::string& page_token,
                                               std::optional<size_t> limit, bool include_declared) {
  IdList out;
  if (limit && *limit == 0) return out;
  QV_RETURN_IF_ERROR(ValidateStartAfter(page_token));
  std::string after = page_token;
  while (true) {
    size_t want = limit ? *limit - out.ids.size() : 1000;
    QV_ASSIGN_OR_RETURN(
        Registry::IdPage page,
        registry_->ListIds(RecordKind::kTable, {project}, after, std::min<size_t>(want, 1000)));
    for (ObjectId& id : page.ids) {
      if (!include_declared) {
        auto table = GetTable(id);
        if (!table.ok()) continue;
        QV_ASSIGN_OR_RETURN(bool only_declared, IsOnlyDeclared(*table));
        if (only_declared) continue;
      }
      out.ids.push_back(std::move(id));
    }
    if (!page.next) return out;
    after = *page.next;
    if (limit && out.ids.size() >= *limit) {
      out.page_token = after;
      return out;
    }
  }
}

Status Catalog::DeleteLocation(const std::string& root_uri, const std::string& location) {
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, RootStore(root_uri));
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> objects, root->ListAll(location + "/"));
  for (const ObjectMeta& object : objects) QV_RETURN_IF_ERROR(root->Delete(object.key));
  return Status::OK();
}

Result<TableInfo> Catalog::RemoveTable(const ObjectId& id, bool delete_bytes,
                                       std::string_view action, const Actor& actor) {
  QV_ASSIGN_OR_RETURN(Stored<TableRecord> record, GetActiveTableRecord(id));
  QV_ASSIGN_OR_RETURN(TableInfo info, TableFromRecord(id, record.record));
  auto intent = WriteIntent(IntentRecord::Drop(id, info.root, info.location, delete_bytes));
  if (!intent.ok()) {
    // A drop is how space is freed; a deregister frees none and waits for space like any write.
    if (intent.status().IsStorageFull() && delete_bytes) {
      return RemoveTableOnFullStorage(id, record.etag, info, delete_bytes, action, actor);
    }
    return intent.status();
  }
  if (!delete_bytes) {
    // Filed before the record goes: at no moment are the bytes left nobody's (a registration
    // elsewhere that no longer sees the table sees this). A deregister that fails after this
    // leaves a record that names the project's own live table, which changes nothing.
    Status released = WriteReleased(id, info);
    if (!released.ok()) {
      ClearIntent(*intent);
      return released;
    }
  }
  // Retire first: of two drops (or a drop and a rename) of one table only one can do this, and
  // nobody else touches a retired record.
  TableRecord retired = record.record;
  retired.state = TableState::kDropping;
  auto retired_etag = RetireTable(id, record.etag, retired, *intent);
  if (!retired_etag.ok()) {
    if (retired_etag.status().IsStorageFull() && delete_bytes) {
      return RemoveTableOnFullStorage(id, record.etag, info, delete_bytes, action, actor);
    }
    return retired_etag.status();
  }
  // The table is gone for every reader now; what follows is cleanup that Recover() finishes if
  // it is interrupted.
  bool finished = registry_->Delete(RecordKind::kTable, id, *retired_etag).ok();
  if (finished && delete_bytes) {
    Status bytes = DeleteLocation(info.root, info.location);
    if (!bytes.ok()) {
      finished = false;
      QV_LOG_WARN(
          "dropped table's files could not all be deleted; recovery will retry",
          {{"table", DisplayId(id)}, {"location", info.location}, {"error", bytes.ToString()}});
    }
  }
  if (finished) ClearIntent(*intent);
  Log(action, "table", id, actor, {{"location", info.location}});
  return info;
}

Result<TableInfo> Catalog::RemoveTableOnFullStorage(const ObjectId& id, const std::string& etag,
                                                    const TableInfo& info, bool delete_bytes,
                                                    std::string_view action, const Actor& actor) {
  // Nothing can be written (neither the intent nor the retired record), and a drop is how space
  // is freed: delete the record as read (a concurrent drop or rename changed it: retry), then
  // the bytes. A rename cannot run meanwhile (its first step is an intent write, which fails
  // too); a crash between the two deletes leaves bytes that no record names (the orphan report
  // finds them), never a record without its bytes. The change-log event is kept until the log
  // can be written (Registry::AppendLogAsync).
  QV_LOG_WARN("storage is full: dropping a table without an intent record",
              {{"table", DisplayId(id)}, {"location", info.location}});
  Status deleted = registry_->Delete(RecordKind::kTable, id, etag);
  if (!deleted.ok()) {
    if (deleted.IsConflict() || deleted.IsNotFound()) {
      return Retryable(
          fmt::format("table '{}' was renamed or dropped concurrently", DisplayId(id)));
    }
    return deleted;
  }
  if (delete_bytes) {
    Status bytes = DeleteLocation(info.root, info.location);
    if (!bytes.ok()) {
      QV_LOG_WARN(
          "dropped table's files could not all be deleted; the orphan report lists them",
          {{"table", DisplayId(id)}, {"location", info.location}, {"error", bytes.ToString()}});
    }
  }
  Log(action, "table", id, actor, {{"location", info.location}});
  return info;
}

Result<TableInfo> Catalog::DropTable(const ObjectId& id, const Actor& actor) {
  return RemoveTable(id, true, "drop_table", actor);
}

Result<TableInfo> Catalog::DeregisterTable(const ObjectId& id, const Actor& actor) {
  return RemoveTable(id, false, "deregister_table", actor);
}

Result<std::string> Catalog::RetireTable(const ObjectId& id, const std::string& active_etag,
                                         const TableRecord& retired, const std::string& intent) {
  auto etag = registry_->Replace(RecordKind::kTable, id, retired.ToJson(), active_etag);
  if (etag.ok()) return etag;
  ClearIntent(intent);
  if (etag.status().IsConflict()) {
    return Retryable(fmt::format("table '{}' was renamed or dropped concurrently", DisplayId(id)));
  }
  return etag.status();
}

Result<std::string> Catalog::WriteIntent(const IntentRecord& intent) {
  std::string key = fmt::format("{}{}.json", kIntentsDir, NewUlid(clock()));
  QV_RETURN_IF_ERROR(
      registry_->store().Put(key, intent.ToJson().dump(), PutOptions::CreateOnly()).status());
  return key;
}

Status Catalog::WriteReleased(const ObjectId& id, const TableInfo& info) {
  QV_ASSIGN_OR_RETURN(Stored<ProjectRecord> project,
                      GetRecord<ProjectRecord>(*registry_, RecordKind::kNamespace, {id.front()}));
  ReleasedRecord released;
  released.project = id.front();
  released.project_incarnation = project.record.Incarnation();
  released.root = info.root;
  released.location = info.location;
  released.table = id;
  released.released_at = Now();
  std::string key = fmt::format("{}{}.json", kReleasedDir, NewUlid(clock()));
  return registry_->store()
      .Put(key, released.ToJson().dump(), PutOptions::CreateOnly())
      .status()
      .WithContext("recording the deregistered table's location");
}

Result<std::vector<std::string>> Catalog::CheckReleased(const ObjectId& id,
                                                        const std::string& where,
                                                        const Status& foreign) {
  auto project = GetRecord<ProjectRecord>(*registry_, RecordKind::kNamespace, {id.front()});
  if (!project.ok()) return project.status();
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> records, registry_->store().ListAll(kReleasedDir));
  std::vector<std::string> own;
  for (const ObjectMeta& meta : records) {
    auto got = registry_->store().Get(meta.key);
    if (!got.ok()) {
      if (got.status().IsNotFound()) continue;  // taken back meanwhile
      return got.status();                      // an unread record could hold this location
    }
    auto parsed = ParseJson(got->data);  // bounded: any writer to the root can plant one
    Result<ReleasedRecord> released =
        parsed.ok() ? ReleasedRecord::FromJson(*parsed) : Result<ReleasedRecord>(parsed.status());
    if (!released.ok()) {
      return Status::Corruption(released.status().message()).WithContext(meta.key);
    }
    // As for table records: a location that no longer resolves names no place to share.
    auto released_where = CanonicalTableLocation(released->root, released->location);
    if (!released_where.ok() || !LocationsOverlap(where, *released_where)) continue;
    bool ours = released->project == id.front() &&
                released->project_incarnation == project->record.Incarnation();
    if (!ours) return foreign;
    if (*released_where == where) own.push_back(meta.key);
  }
  return own;
}

void Catalog::ClearIntent(const std::string& key) {
  IgnoreStatus(registry_->store().Delete(key),
               "an intent left behind is finished again by Recover (every step is idempotent), "
               "and reported by the consistency check once it is old");
}

Result<TableInfo> Catalog::RenameTable(const ObjectId& id,
                                       const std::optional<ObjectId>& new_namespace,
                                       const std::string& new_name, const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "table", false));
  QV_RETURN_IF_ERROR(ValidateName(new_name, "table"));
  ObjectId target_ns = new_namespace.value_or(ParentOf(id));
  QV_RETURN_IF_ERROR(ValidateScopedId(target_ns, "namespace", true));
  ObjectId dest = ChildOf(target_ns, new_name);
  if (dest == id) {
    return Status::InvalidInput(fmt::format("table '{}' already has that name", DisplayId(id)));
  }
  if (target_ns.empty() || target_ns.front() != id.front()) {
    return Status::InvalidInput("a table cannot move to another project");
  }
  QV_ASSIGN_OR_RETURN(Stored<TableRecord> source, GetActiveTableRecord(id));
  QV_RETURN_IF_ERROR(CheckNamespaceLive(target_ns, "moving tables into it"));
  if (target_ns != ParentOf(id)) {
    // The bytes stay where they are, so the table may only move within its warehouse.
    QV_ASSIGN_OR_RETURN(WarehouseInfo wh, WarehouseForTables(target_ns));
    if (wh.name != source.record.warehouse) {
      return Status::InvalidInput(fmt::format(
          "table '{}' lives in warehouse '{}' and cannot move to {} in warehouse '{}' (renames "
          "move no bytes)",
          DisplayId(id), source.record.warehouse, NamespaceName(target_ns), wh.name));
    }
  }
  const Status dest_taken =
      Error(StatusCode::kTableAlreadyExists,
            fmt::format("'{}' already exists in {}", new_name, NamespaceName(target_ns)));
  QV_RETURN_IF_ERROR(internal::NoRecord(*registry_, RecordKind::kTable, dest, dest_taken));
  QV_RETURN_IF_ERROR(internal::NoRecord(*registry_, RecordKind::kNamespace, dest, dest_taken));

  const std::string location = source.record.location;
  QV_ASSIGN_OR_RETURN(std::string intent, WriteIntent(IntentRecord::Rename(id, dest, location)));
  // Retire the source first: of two renames of one source only one can do this.
  TableRecord retired = source.record;
  retired.state = TableState::kRetired;
  retired.renamed_to = dest;
  QV_ASSIGN_OR_RETURN(std::string retired_etag, RetireTable(id, source.etag, retired, intent));

  // The destination is created like any table (create_protocol.h); withdrawing it restores the
  // source.
  TableRecord moved = source.record;
  moved.id = dest;
  moved.renamed_from = id;
  CreateSpec spec{RecordKind::kTable, dest, moved.ToJson()};
  spec.recheck = [&] { return RecheckTableName(target_ns, dest, "moving tables into it"); };
  spec.undo = [&] {
    auto restored =
        registry_->Replace(RecordKind::kTable, id, source.record.ToJson(), retired_etag);
    if (!restored.ok()) {
      // The intent stays: Recover finds the source retired and the destination missing, and
      // restores it.
      QV_LOG_WARN("a failed rename could not restore its source; recovery will",
                  {{"table", DisplayId(id)}, {"error", restored.status().ToString()}});
      return;
    }
    ClearIntent(intent);
  };
  CreateStage failed_at = CreateStage::kWrite;
  auto created = CreateRecord(*registry_, spec, options_.sync_points, &failed_at);
  if (!created.ok()) {
    if (failed_at == CreateStage::kWrite && created.status().IsAlreadyExists()) {
      return Error(
          StatusCode::kTableAlreadyExists,
          fmt::format("'{}' was created concurrently in {}", new_name, NamespaceName(target_ns)));
    }
    return created.status();
  }
  // The rename has happened once the destination exists. If the retired source cannot be
  // removed now, the intent stays behind for Recover() to finish the job.
  Status source_deleted = registry_->Delete(RecordKind::kTable, id, retired_etag);
  if (source_deleted.ok()) {
    ClearIntent(intent);
  } else {
    QV_LOG_WARN("renamed table's old record could not be removed; recovery will remove it",
                {{"table", DisplayId(id)}, {"error", source_deleted.ToString()}});
  }
  Log("rename_table", "table", id, actor, {{"to", IdJson(dest)}, {"location", location}});
  return TableFromRecord(dest, moved);
}

Status Catalog::RecoverDrop(const IntentRecord& intent, const std::string& key) {
  const ObjectId& id = intent.id;
  const std::string& location = intent.location;
  if (id.empty() || location.empty()) {
    QV_LOG_WARN("ignoring an unreadable drop intent", {{"key", key}});
    return Status::OK();
  }
  auto record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, id);
  if (!record.ok() && !record.status().IsNotFound()) return record.status();
  if (record.ok() && record->record.location == location &&
      record->record.state == TableState::kActive) {
    // The drop never retired the record: nothing happened, nothing to finish.
    QV_LOG_INFO("rolled back an interrupted drop", {{"table", DisplayId(id)}});
    ClearIntent(key);
    return Status::OK();
  }
  if (record.ok() && record->record.state == TableState::kDropping &&
      record->record.location == location) {
    Status deleted = registry_->Delete(RecordKind::kTable, id, record->etag);
    if (!deleted.ok() && !deleted.IsNotFound()) return deleted;
  }
  if (intent.delete_bytes) QV_RETURN_IF_ERROR(DeleteLocation(intent.root, location));
  QV_LOG_INFO("finished an interrupted drop", {{"table", DisplayId(id)}, {"location", location}});
  ClearIntent(key);
  return Status::OK();
}

namespace {
// An intent record as stored: nullopt (logged) when it is not a JSON object (it is ignored, as an
// unknown op is); Corruption when it is one with a field of the wrong type.
Result<std::optional<IntentRecord>> ParseIntent(const std::string& data, const std::string& key) {
  auto parsed = ParseJson(data);  // bounded: any writer to the root can plant one
  if (!parsed.ok() || !parsed->is_object()) return std::optional<IntentRecord>();
  auto intent = IntentRecord::FromJson(*parsed);
  if (!intent.ok()) return intent.status().WithContext(key);
  return std::optional<IntentRecord>(std::move(*intent));
}
}  // namespace

// A record planted in the root with a field of the wrong type is Corruption (records.h), never
// an exception: recovery runs at every server start.
Status Catalog::Recover(Duration min_age) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> intents, registry_->store().ListAll(kIntentsDir));
  int64_t now = clock()->NowNanos();
  for (const ObjectMeta& meta : intents) {
    if (now - meta.last_modified_nanos < min_age.count()) continue;
    auto got = registry_->store().Get(meta.key);
    if (!got.ok()) continue;
    QV_ASSIGN_OR_RETURN(std::optional<IntentRecord> intent, ParseIntent(got->data, meta.key));
    if (intent && intent->op == IntentOp::kDrop) {
      QV_RETURN_IF_ERROR(RecoverDrop(*intent, meta.key));
      continue;
    }
    if (!intent || intent->op != IntentOp::kRename) {
      QV_LOG_WARN("ignoring an unreadable intent record", {{"key", meta.key}});
      continue;
    }
    const ObjectId& source = intent->source;
    const ObjectId& dest = intent->dest;
    if (source.empty() || dest.empty()) continue;
    const std::string& location = intent->location;
    auto dest_record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, dest);
    if (!dest_record.ok() && !dest_record.status().IsNotFound()) return dest_record.status();
    bool completed = dest_record.ok() && dest_record->record.location == location;
    auto src_record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, source);
    if (!src_record.ok() && !src_record.status().IsNotFound()) return src_record.status();
    if (src_record.ok() && src_record->record.state == TableState::kRetired) {
      Status settled;
      if (completed) {
        settled = registry_->Delete(RecordKind::kTable, source, src_record->etag);
      } else {
        TableRecord body = src_record->record;
        body.state = TableState::kActive;
        body.renamed_to.reset();
        settled = registry_->Replace(RecordKind::kTable, source, body.ToJson(), src_record->etag)
                      .status();
      }
      if (!settled.ok() && !settled.IsNotFound()) {
        // The intent stays: the next recovery tries again.
        QV_LOG_WARN("could not settle an interrupted rename's source; recovery will retry",
                    {{"source", DisplayId(source)}, {"error", settled.ToString()}});
        continue;
      }
    }
    QV_LOG_INFO(
        "recovered an interrupted rename",
        {{"source", DisplayId(source)}, {"dest", DisplayId(dest)}, {"completed", completed}});
    ClearIntent(meta.key);
  }
  return Status::OK();
}

namespace {

// Whether a record's grants hold an owner (or, on a project, an admin): every object is created
// with its creator's, and the last one cannot be revoked.
bool HasOwnerGrant(const json& grants) {
  if (!grants.is_array()) return false;
  return std::any_of(grants.begin(), grants.end(), [](const json& g) {
    auto entry = internal::GrantEntry::FromJson(g);
    return entry.ok() && (entry->relation == "owner" || entry->relation == "admin");
  });
}

}  // namespace

Status Catalog::ListIntents(Duration in_flight_age, std::vector<std::string>* young,
                            std::vector<std::string>* old, std::set<ObjectId>* busy) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> intents, registry_->store().ListAll(kIntentsDir));
  const int64_t now = clock()->NowNanos();
  for (const ObjectMeta& meta : intents) {
    if (now - meta.last_modified_nanos >= in_flight_age.count()) {
      if (old != nullptr) old->push_back(fmt::format("unfinished operation '{}'", meta.key));
      continue;
    }
    auto got = registry_->store().Get(meta.key);
    if (!got.ok()) {
      if (got.status().IsNotFound()) continue;  // finished meanwhile
      return got.status();
    }
    // A young intent that cannot be read is described as such (and names nothing busy).
    auto intent = ParseIntent(got->data, meta.key);
    std::string op;
    if (intent.ok() && intent->has_value()) {
      const IntentRecord& i = **intent;
      op = i.op_text;
      for (const ObjectId* id : {&i.id, &i.source, &i.dest}) {
        if (!id->empty()) busy->insert(*id);
      }
    }
    if (young != nullptr) {
      young->push_back(
          fmt::format("operation '{}' in progress ({})", meta.key, op.empty() ? "unreadable" : op));
    }
  }
  return Status::OK();
}

// A record with a field of the wrong type is Corruption (records.h), never an exception.
Result<Catalog::ConsistencyReport> Catalog::CheckConsistency(Duration in_flight_age) {
  ConsistencyReport report;
  // What operations in progress name (their intents come first, so one that is seen half done
  // below was listed here or is listed again at the end).
  std::set<ObjectId> busy;
  QV_RETURN_IF_ERROR(ListIntents(in_flight_age, nullptr, nullptr, &busy));
  const int64_t now = clock()->NowNanos();
  // A namespace, project or warehouse marked as being dropped: a delete in progress while the
  // mark is young (an old mark is a crashed delete's leftover, ignored by every reader).
  auto check_mark = [&](std::string_view what, const std::string& name,
                        std::optional<int64_t> since) {
    if (since && *since > now - in_flight_age.count()) {
      report.in_flight.push_back(fmt::format("{} '{}' is being deleted", what, name));
    }
  };
  // A record whose parent is missing: a create that raced its parent's drop writes its record,
  // sees the drop on its re-check and withdraws it, so a young record is that create in
  // progress; an old one is an orphan.
  // A record with a field of the wrong type: a problem (the rest is still checked). False for
  // any other failure to read it, which ends the check.
  auto unreadable = [&](std::string_view what, const std::string& name, const Status& why) {
    if (why.subcode() != Subcode::kCorruption) return false;
    report.problems.push_back(fmt::format("{} '{}' is unreadable: {}", what, name, why.message()));
    return true;
  };
  auto orphan = [&](RecordKind kind, const ObjectId& id, std::string what) {
    auto meta = registry_->store().Head(Registry::RecordKey(kind, id));
    bool young = meta.ok() && now - meta->last_modified_nanos < in_flight_age.count();
    if (young) what += " (being created or withdrawn)";
    (young ? report.in_flight : report.problems).push_back(std::move(what));
  };
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> namespaces,
                      registry_->ListDescendants(RecordKind::kNamespace, {}));
  std::set<ObjectId> ns_set(namespaces.begin(), namespaces.end());
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> warehouses,
                      registry_->ListDescendants(RecordKind::kWarehouse, {}));
  std::set<ObjectId> wh_set(warehouses.begin(), warehouses.end());
  // Every object's record carries an owner grant (its creator's, and the last one cannot be
  // revoked): an object never exists without an owner, and since grants live in the record, no
  // grant outlives its object.
  auto check_grants = [&](std::string_view what, const std::string& name, const json& grants) {
    if (!HasOwnerGrant(grants)) {
      report.problems.push_back(fmt::format("{} '{}' has no owner grant", what, name));
    }
  };
  for (const ObjectId& wh : warehouses) {
    ++report.warehouses;
    std::string name = wh.size() == 2 ? wh[0] + "/" + wh[1] : JoinId(wh);
    if (wh.size() != 2 || !ns_set.count({wh.front()})) {
      report.problems.push_back(fmt::format("warehouse '{}' has no project record", name));
    }
    auto record = GetRecord<WarehouseRecord>(*registry_, RecordKind::kWarehouse, wh);
    if (record.ok()) {
      check_grants("warehouse", name, record->record.grants);
      check_mark("warehouse", name, record->record.dropping_since);
    } else if (!record.status().IsNotFound()) {
      unreadable("warehouse", name, record.status());
    }
  }
  for (const ObjectId& ns : namespaces) {
    if (ns.size() == 1) {
      auto record = GetRecord<ProjectRecord>(*registry_, RecordKind::kNamespace, ns);
      if (!record.ok()) {
        if (record.status().IsNotFound()) continue;
        ++report.projects;
        if (!unreadable("project", ns[0], record.status())) return record.status();
        continue;
      }
      ++report.projects;
      if (record->record.kind != "project") {
        report.problems.push_back(fmt::format("'{}' at the top is not a project record", ns[0]));
      }
      check_grants("project", ns[0], record->record.grants);
      check_mark("project", ns[0], record->record.dropping_since);
      continue;
    }
    std::string name = ns.front() + "/" + DisplayId(ns);
    auto record = GetRecord<NamespaceRecord>(*registry_, RecordKind::kNamespace, ns);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      ++report.namespaces;
      if (!unreadable("namespace", name, record.status())) return record.status();
      continue;
    }
    ++report.namespaces;
    check_grants("namespace", name, record->record.grants);
    check_mark("namespace", name, record->record.dropping_since);
    if (!ns_set.count(ParentOf(ns))) {
      orphan(RecordKind::kNamespace, ns,
             fmt::format("namespace '{}' has no parent namespace record", name));
    }
    if (ns.size() == 2) {
      std::string wh = record->record.warehouse.value_or("");
      if (wh.empty() || !wh_set.count({ns.front(), wh})) {
        report.problems.push_back(
            fmt::format("namespace '{}' names no existing warehouse ('{}')", name, wh));
      }
    }
  }
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> tables,
                      registry_->ListDescendants(RecordKind::kTable, {}));
  report.tables = tables.size();
  // Found while reading the tables; whether they are problems or an operation in progress is
  // decided once the intents have been listed again.
  std::vector<std::pair<std::vector<ObjectId>, std::string>> unsettled;
  std::map<std::string, ObjectId> locations;  // canonical location -> table
  auto table_name = [](const ObjectId& id) { return id.front() + "/" + DisplayId(id); };
  for (const ObjectId& id : tables) {
    std::string name = id.front() + "/" + DisplayId(id);
    auto record = GetRecord<TableRecord>(*registry_, RecordKind::kTable, id);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      if (!unreadable("table", name, record.status())) return record.status();
      continue;
    }
    const TableRecord& table = record->record;
    check_grants("table", name, table.grants);
    const bool active = table.state == TableState::kActive;
    if (!active) {
      unsettled.push_back(
          {{id}, fmt::format("table '{}' is {}", name, internal::TableStateName(table.state))});
    }
    if (id.size() > 1 && !ns_set.count(ParentOf(id))) {
      orphan(RecordKind::kTable, id, fmt::format("table '{}' has no namespace record", name));
    }
    if (ns_set.count(id)) {
      report.problems.push_back(fmt::format("'{}' is both a table and a namespace", name));
    }
    const std::string& location = table.location;
    const std::string& root_uri = table.root;
    // Locations are compared canonically, whatever spelling their warehouses' roots use. Two
    // records sharing one are a rename in progress while it is young.
    auto where = CanonicalTableLocation(root_uri, location);
    if (!where.ok()) {
      report.problems.push_back(fmt::format("table '{}': location '{}' cannot be resolved: {}",
                                            name, location, where.status().message()));
    } else {
      auto [it, fresh] = locations.emplace(*where, id);
      if (!fresh) {
        unsettled.push_back({{id, it->second},
                             fmt::format("tables '{}' and '{}' share location '{}'", name,
                                         table_name(it->second), *where)});
      }
    }
    // A link on the way (planted after registration, or by an older quiver): read with lstat
    // only, through the canonical root (opening a root could create it).
    if (auto canonical_root = CanonicalRoot(root_uri);
        canonical_root.ok() && canonical_root->rfind("file://", 0) == 0) {
      Status links = CheckNoLinksBelow(canonical_root->substr(7), location);
      if (!links.ok()) {
        report.problems.push_back(
            fmt::format("table '{}' at '{}': {}", name, location, links.message()));
      }
    }
    // A registered table must have bytes; a declared one may legitimately have none (its
    // reservation marker is not durable), and a dropping one is losing them.
    if (active && !table.declared) {
      ListOptions options;
      options.prefix = location + "/";
      options.limit = 1;
      auto root = RootStore(root_uri);
      auto listed = root.ok() ? (*root)->List(options) : Result<ListPage>(root.status());
      if (listed.ok() && listed->objects.empty()) {
        report.problems.push_back(
            fmt::format("table '{}': nothing at location '{}'", name, location));
      }
    }
  }
  // A table inside another's location (its branches' tree/, its _versions/): a drop of the outer
  // one deletes the inner one's files. Each location's ancestors are looked up (O(depth) each).
  for (const auto& [where, inner] : locations) {
    for (size_t slash = where.rfind('/'); slash != std::string::npos && slash > 0;
         slash = where.rfind('/', slash - 1)) {
      auto outer = locations.find(where.substr(0, slash));
      if (outer != locations.end()) {
        report.problems.push_back(fmt::format("table '{}' at '{}' is inside table '{}' at '{}'",
                                              table_name(inner), where, table_name(outer->second),
                                              outer->first));
        break;
      }
    }
  }
  std::vector<std::string> old_intents;
  QV_RETURN_IF_ERROR(ListIntents(in_flight_age, &report.in_flight, &old_intents, &busy));
  for (auto& [ids, what] : unsettled) {
    bool in_flight =
        std::all_of(ids.begin(), ids.end(), [&](const ObjectId& id) { return busy.count(id) > 0; });
    (in_flight ? report.in_flight : report.problems).push_back(std::move(what));
  }
  report.problems.insert(report.problems.end(), old_intents.begin(), old_intents.end());
  return report;
}

Result<Catalog::ConsistencyReport> Catalog::CheckRoot(std::shared_ptr<ObjectStore> root,
                                                      Duration in_flight_age, const Clock* clock) {
  CatalogOptions options;
  options.read_only = true;
  options.clock = clock;
  QV_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Open(std::move(root), options));
  return catalog->CheckConsistency(in_flight_age);
}

Result<std::shared_ptr<ObjectStore>> Catalog::RootStore(const std::string& root) const {
  if (root.empty()) return registry_->store_ptr();
  MutexLock lock(&roots_mu_);
  auto it = roots_.find(root);
  if (it != roots_.end()) return it->second;
  OpenStoreOptions options;
  options.clock = clock();
  options.create_if_missing = !options_.read_only;
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, OpenStore(root, options));
  if (options_.read_only) store = std::make_shared<internal::ReadOnlyStore>(std::move(store));
  roots_.emplace(root, store);
  return store;
}

Result<std::string> Catalog::CanonicalRoot(const std::string& root) const {
  {
    MutexLock lock(&roots_mu_);
    auto it = canonical_roots_.find(root);
    if (it != canonical_roots_.end()) return it->second;
  }
  std::string canonical;
  if (root.empty()) {
    // The catalog root is a store, not a URI: its external path is its place (an absolute path
    // for a local root, "memory://name" for a memory one).
    std::string path = registry_->store().ExternalPath("");
    if (!path.empty() && path.front() == '/') {
      QV_ASSIGN_OR_RETURN(canonical, CanonicalLocation(path));
    } else {
      canonical = path;
    }
  } else {
    // Not opened here (opening a local root creates it, and `catalog check` only reads): the
    // callers that write (RegisterTable, CreateWarehouse) have opened it already, so its links
    // are resolved; a root that does not exist yet is normalised lexically below its existing
    // part.
    QV_ASSIGN_OR_RETURN(canonical, CanonicalLocation(root));
  }
  MutexLock lock(&roots_mu_);
  return canonical_roots_.emplace(root, canonical).first->second;
}

Result<std::string> Catalog::CanonicalTableLocation(const std::string& root,
                                                    const std::string& location) const {
  QV_ASSIGN_OR_RETURN(std::string canonical_root, CanonicalRoot(root));
  return JoinLocation(canonical_root, location);
}

Status Catalog::CheckOutsideCatalogArea(const std::string& where, std::string_view what) const {
  QV_ASSIGN_OR_RETURN(std::string catalog_root, CanonicalRoot(""));
  for (std::string_view area : {std::string_view("_quiver"), kReservedSegment}) {
    if (LocationsOverlap(where, JoinLocation(catalog_root, area))) {
      return Status::InvalidInput(
          fmt::format("{} is inside the catalog's own records, or holds them", what));
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<ObjectStore>> Catalog::TableStore(const TableInfo& table) const {
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, RootStore(table.root));
  QV_ASSIGN_OR_RETURN(auto store, PrefixStore::Make(root, table.location));
  return std::shared_ptr<ObjectStore>(std::move(store));
}

std::string Catalog::ExternalLocation(const TableInfo& table) const {
  auto root = RootStore(table.root);
  if (!root.ok()) return table.location;
  return (*root)->ExternalPath(table.location);
}

std::string Catalog::TableUri(const TableInfo& table) const {
  std::string path = ExternalLocation(table);
  if (!path.empty() && path.front() == '/') return "file://" + PercentEncodePath(path);
  return path;
}

std::string Catalog::ObjectStorePath(const TableInfo& table, std::string_view key) const {
  auto root = RootStore(table.root);
  if (!root.ok()) return table.location + "/" + std::string(key);
  std::string path = (*root)->ExternalPath(table.location + "/" + std::string(key));
  size_t start = path.find_first_not_of('/');
  return start == std::string::npos ? path : path.substr(start);
}

Result<uint64_t> Catalog::Generation() { return registry_->Generation(); }

}  // namespace quiver::catalog
