#include "catalog/catalog.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "catalog/internal/read_only_store.h"
#include "catalog/internal/record_fields.h"
#include "common/ids.h"
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

using internal::Error;
using internal::PropertiesFromJson;
using internal::Retryable;
using nlohmann::json;

constexpr std::string_view kIntentsDir = "_quiver/intents/";
constexpr std::string_view kReservedMarker = ".lance-reserved";
// A namespace marked as dropping longer ago than this is a leftover of a crashed drop.
constexpr int64_t kDroppingMarkerTtlNanos = 300LL * 1'000'000'000;

std::string NamespaceName(const ObjectId& ns) {
  return ns.size() <= 1 ? "the root namespace" : fmt::format("namespace '{}'", DisplayId(ns));
}

json IdJson(const ObjectId& id) { return json(id); }

Result<ObjectId> IdFromJson(const json& value, std::string_view what) {
  if (!value.is_array()) return Status::Corruption(fmt::format("{}: 'id' is not an array", what));
  ObjectId id;
  for (const json& part : value) {
    if (!part.is_string())
      return Status::Corruption(fmt::format("{}: 'id' holds a non-string", what));
    id.push_back(part.get<std::string>());
  }
  return id;
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

bool Catalog::HasLiveDropMark(const json& body) const {
  auto it = body.find("dropping_since");
  if (it == body.end()) return false;
  std::optional<int64_t> since = JsonToInt64(*it);  // a record's number: no wrap, no overflow
  std::optional<int64_t> age = since ? CheckedAdd(clock()->NowNanos(), -*since) : std::nullopt;
  return age && *age < kDroppingMarkerTtlNanos;
}

Status Catalog::CheckNamespaceLive(const ObjectId& ns, std::string_view purpose) {
  if (ns.empty()) return Status::InvalidInput("an object outside every project");
  auto record = registry_->Get(RecordKind::kNamespace, ns);
  if (!record.ok()) {
    if (!record.status().IsNotFound()) return record.status();
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
  if (HasLiveDropMark(record->body)) {
    return Retryable(fmt::format("{} is being {}",
                                 ns.size() == 1 ? "the project" : NamespaceName(ns),
                                 ns.size() == 1 ? "deleted" : "dropped"));
  }
  return Status::OK();
}

Result<NamespaceInfo> Catalog::NamespaceFromRecord(const ObjectId& id, const json& body) const {
  NamespaceInfo info;
  info.id = id;
  info.properties = PropertiesFromJson(body);
  info.created_at = body.value("created_at", "");
  info.warehouse = body.value("warehouse", "");
  info.grants = body.value("grants", json::array());
  return info;
}

Result<TableInfo> Catalog::TableFromRecord(const ObjectId& id, const json& body) const {
  TableInfo info;
  info.id = id;
  auto loc = body.find("location");
  if (loc == body.end() || !loc->is_string() || loc->get<std::string>().empty()) {
    return Status::Corruption(fmt::format("table record of '{}' has no location", DisplayId(id)));
  }
  info.location = loc->get<std::string>();
  info.warehouse = body.value("warehouse", "");
  info.root = body.value("root", "");
  info.grants = body.value("grants", json::array());
  info.properties = PropertiesFromJson(body);
  info.declared = body.value("declared", false);
  info.managed_versioning = body.value("managed_versioning", false) || ManagedFor(info.properties);
  info.created_at = body.value("created_at", "");
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

  auto existing = registry_->Get(RecordKind::kNamespace, id);
  if (existing.ok()) {
    if (mode == CreateMode::kCreate) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("namespace '{}' already exists", DisplayId(id)));
    }
    if (mode == CreateMode::kExistOk) return NamespaceFromRecord(id, existing->body);
    // Overwrite: "drop and recreate empty", allowed only when there is nothing to drop.
    QV_ASSIGN_OR_RETURN(bool has_ns, registry_->HasDescendants(RecordKind::kNamespace, id));
    QV_ASSIGN_OR_RETURN(bool has_tables, registry_->HasDescendants(RecordKind::kTable, id));
    if (has_ns || has_tables) {
      return Error(StatusCode::kNamespaceNotEmpty,
                   fmt::format("namespace '{}' is not empty; Overwrite only replaces an empty "
                               "namespace (drop it with behavior Cascade first)",
                               DisplayId(id)));
    }
    json body = existing->body;
    body["properties"] = stored;
    body.erase("dropping_since");
    auto replaced = registry_->Replace(RecordKind::kNamespace, id, body, existing->etag);
    if (!replaced.ok()) {
      if (replaced.status().IsConflict()) {
        return Retryable(fmt::format("namespace '{}' changed concurrently", DisplayId(id)));
      }
      return replaced.status();
    }
    Log("overwrite_namespace", "namespace", id, actor);
    return NamespaceFromRecord(id, body);
  }
  if (!existing.status().IsNotFound()) return existing.status();

  Status err;
  if (registry_->Exists(RecordKind::kTable, id, &err)) {
    return Error(
        StatusCode::kNamespaceAlreadyExists,
        fmt::format("a table named '{}' already exists in {}", LeafOf(id), NamespaceName(parent)));
  }
  QV_RETURN_IF_ERROR(err);

  json body = {{"kind", "namespace"},
               {"id", IdJson(id)},
               {"properties", stored},
               {"created_at", Now()},
               {"grants", OwnerGrants(actor, "owner")}};
  if (!warehouse.empty()) body["warehouse"] = warehouse;
  auto created = registry_->Create(RecordKind::kNamespace, id, body);
  if (!created.ok()) {
    if (!created.status().IsAlreadyExists()) return created.status();
    if (mode == CreateMode::kCreate) {
      return Error(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("namespace '{}' already exists", DisplayId(id)));
    }
    QV_ASSIGN_OR_RETURN(Record now, registry_->Get(RecordKind::kNamespace, id));
    return NamespaceFromRecord(id, now.body);
  }
  // Re-check what a concurrent writer could have changed while we wrote.
  Status live = CheckNamespaceLive(parent, "creating namespaces in it");
  if (live.ok() && registry_->Exists(RecordKind::kTable, id, &err)) {
    live = Error(StatusCode::kNamespaceAlreadyExists,
                 fmt::format("a table named '{}' was created concurrently", LeafOf(id)));
  }
  if (live.ok() && !err.ok()) live = err;  // the re-check could not be made: withdraw
  if (live.ok() && !warehouse.empty()) {
    // A warehouse delete marks the warehouse before it looks for namespaces in it.
    auto wh = registry_->Get(RecordKind::kWarehouse, {id.front(), warehouse});
    if (!wh.ok() || HasLiveDropMark(wh->body)) {
      live = Retryable(fmt::format("warehouse '{}' is being deleted", warehouse));
    }
  }
  if (!live.ok()) {
    (void)registry_->Delete(RecordKind::kNamespace, id, *created);
    return live;
  }
  json extra = {{"grants", body["grants"]}};
  if (!warehouse.empty()) extra["warehouse"] = warehouse;
  Log("create_namespace", "namespace", id, actor, std::move(extra));
  return NamespaceFromRecord(id, body);
}

Result<NamespaceInfo> Catalog::DescribeNamespace(const ObjectId& id) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "namespace", true));
  auto record = registry_->Get(RecordKind::kNamespace, id);
  if (!record.ok()) {
    if (record.status().IsNotFound() && id.size() == 1) {
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("project '{}' does not exist", id.front()));
    }
    if (record.status().IsNotFound()) {
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("namespace '{}' does not exist", DisplayId(id)));
    }
    return record.status();
  }
  if (id.size() == 1) return NamespaceInfo{id, {}, record->body.value("created_at", ""), "", {}};
  return NamespaceFromRecord(id, record->body);
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
  auto record = registry_->Get(RecordKind::kNamespace, id);
  if (!record.ok()) {
    if (!record.status().IsNotFound()) return record.status();
    if (options.skip_missing) return std::optional<NamespaceInfo>();
    return Error(StatusCode::kNamespaceNotFound,
                 fmt::format("namespace '{}' does not exist", DisplayId(id)));
  }
  QV_ASSIGN_OR_RETURN(NamespaceInfo info, NamespaceFromRecord(id, record->body));

  // Mark first: a create that lands in this namespace after the mark sees it on its re-check
  // and withdraws; one that landed before is found by the emptiness check or the cascade.
  if (HasLiveDropMark(record->body)) {
    return Retryable(
        fmt::format("namespace '{}' is being dropped by another request", DisplayId(id)));
  }
  json marked = record->body;
  const int64_t mark = clock()->NowNanos();
  marked["dropping_since"] = mark;
  auto marked_etag = registry_->Replace(RecordKind::kNamespace, id, marked, record->etag);
  if (!marked_etag.ok()) {
    if (marked_etag.status().IsConflict()) {
      return Retryable(fmt::format("namespace '{}' changed concurrently", DisplayId(id)));
    }
    // With the storage full no mark can be written, and no create can land either (it writes a
    // record): drop without the mark, as a table drop does, to free space.
    if (!marked_etag.status().IsStorageFull()) return marked_etag.status();
    marked_etag = record->etag;
  }
  // Withdraws our mark (only ours: the record may have changed since, e.g. properties).
  auto unmark = [&](Status why) -> Status {
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto current = registry_->Get(RecordKind::kNamespace, id);
      if (!current.ok()) break;
      auto it = current->body.find("dropping_since");
      if (it == current->body.end() || *it != mark) break;
      current->body.erase("dropping_since");
      if (registry_->Replace(RecordKind::kNamespace, id, current->body, current->etag).ok()) break;
    }
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
  Status deleted = registry_->Delete(RecordKind::kNamespace, id, *marked_etag);
  if (!deleted.ok()) {
    if (deleted.IsNotFound() || deleted.IsConflict()) {
      return Retryable(
          fmt::format("namespace '{}' changed while it was being dropped", DisplayId(id)));
    }
    return unmark(deleted);
  }
  Log("drop_namespace", "namespace", id, actor, {{"cascade", options.cascade}});
  return std::optional<NamespaceInfo>(std::move(info));
}

Status Catalog::DropNamespaceContents(const ObjectId& id, const Actor& actor) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> namespaces,
                      registry_->ListDescendants(RecordKind::kNamespace, id));
  // Parents before children, so that a create racing the cascade finds a marked ancestor.
  std::sort(namespaces.begin(), namespaces.end(),
            [](const ObjectId& a, const ObjectId& b) { return a.size() < b.size(); });
  std::vector<std::pair<ObjectId, std::string>> marked;
  for (const ObjectId& ns : namespaces) {
    auto record = registry_->Get(RecordKind::kNamespace, ns);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      return record.status();
    }
    record->body["dropping_since"] = clock()->NowNanos();
    auto etag = registry_->Replace(RecordKind::kNamespace, ns, record->body, record->etag);
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

Result<Record> Catalog::GetActiveTableRecord(const ObjectId& id) {
  QV_RETURN_IF_ERROR(ValidateScopedLookupId(id, "table", false));
  auto record = registry_->Get(RecordKind::kTable, id);
  if (record.ok() && record->body.value("state", "active") == "active") return record;
  if (!record.ok() && !record.status().IsNotFound()) return record.status();
  ObjectId ns = ParentOf(id);
  if (ns.size() > 1) {
    Status err;
    if (!registry_->Exists(RecordKind::kNamespace, ns, &err)) {
      QV_RETURN_IF_ERROR(err);
      return Error(StatusCode::kNamespaceNotFound,
                   fmt::format("namespace '{}' does not exist", DisplayId(ns)));
    }
  }
  return Error(StatusCode::kTableNotFound,
               fmt::format("table '{}' does not exist in {}", LeafOf(id), NamespaceName(ns)));
}

Result<TableInfo> Catalog::GetTable(const ObjectId& id) {
  QV_ASSIGN_OR_RETURN(Record record, GetActiveTableRecord(id));
  return TableFromRecord(id, record.body);
}

Result<TableInfo> Catalog::DeclareTable(const ObjectId& id, const Properties& properties,
                                        const Actor& actor) {
  QV_RETURN_IF_ERROR(ValidateScopedId(id, "table", false));
  ObjectId ns = ParentOf(id);
  QV_RETURN_IF_ERROR(CheckNamespaceLive(ns, "declaring tables in it"));
  Status err;
  if (registry_->Exists(RecordKind::kTable, id, &err)) {
    return Error(StatusCode::kTableAlreadyExists,
                 fmt::format("table '{}' already exists in {}", LeafOf(id), NamespaceName(ns)));
  }
  QV_RETURN_IF_ERROR(err);
  if (registry_->Exists(RecordKind::kNamespace, id, &err)) {
    return Error(
        StatusCode::kTableAlreadyExists,
        fmt::format("a namespace named '{}' already exists in {}", LeafOf(id), NamespaceName(ns)));
  }
  QV_RETURN_IF_ERROR(err);
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
  auto drop_marker = [&] { (void)root->Delete(location + "/" + std::string(kReservedMarker)); };

  bool managed = ManagedFor(properties);
  json body = {{"kind", "table"},
               {"id", IdJson(id)},
               {"warehouse", wh.name},
               {"root", wh.root},
               {"location", location},
               {"properties", properties},
               {"declared", true},
               {"managed_versioning", managed},
               {"created_at", Now()},
               {"state", "active"},
               {"grants", OwnerGrants(actor, "owner")}};
  auto created = registry_->Create(RecordKind::kTable, id, body);
  if (!created.ok()) {
    drop_marker();
    if (created.status().IsAlreadyExists()) {
      return Error(StatusCode::kTableAlreadyExists,
                   fmt::format("table '{}' already exists in {}", LeafOf(id), NamespaceName(ns)));
    }
    return created.status();
  }
  Status live = CheckNamespaceLive(ns, "declaring tables in it");
  if (live.ok() && registry_->Exists(RecordKind::kNamespace, id, &err)) {
    live = Error(StatusCode::kTableAlreadyExists,
                 fmt::format("a namespace named '{}' was created concurrently", LeafOf(id)));
  }
  if (live.ok() && !err.ok()) live = err;  // the re-check could not be made: withdraw
  if (!live.ok()) {
    (void)registry_->Delete(RecordKind::kTable, id, *created);
    drop_marker();
    return live;
  }
  Log("declare_table", "table", id, actor, {{"location", location}, {"grants", body["grants"]}});
  return TableFromRecord(id, body);
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
    auto record = registry_->Get(RecordKind::kTable, other);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;  // dropped meanwhile
      return record.status();                      // an unread record could hold this location
    }
    // A record whose location cannot be resolved names no place this one could share (its
    // table cannot be opened either; `catalog check` reports it): it is passed over, not allowed
    // to fail every registration with its (another project's) root in the message.
    auto other_where =
        CanonicalTableLocation(record->body.value("root", ""), record->body.value("location", ""));
    if (!other_where.ok() || !LocationsOverlap(where, *other_where)) continue;
    if (other.front() != id.front()) return no_dataset;
    if (where == *other_where) {
      same_location = true;
    } else {
      nested_location = true;
    }
  }
  // A table holding a warehouse root would hold every table declared there later.
  QV_ASSIGN_OR_RETURN(std::vector<ObjectId> warehouses,
                      registry_->ListDescendants(RecordKind::kWarehouse, {}));
  for (const ObjectId& other : warehouses) {
    auto record = registry_->Get(RecordKind::kWarehouse, other);
    if (!record.ok()) {
      if (record.status().IsNotFound()) continue;
      return record.status();
    }
    auto other_root = CanonicalRoot(record->body.value("root", ""));
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

  auto existing = registry_->Get(RecordKind::kTable, id);
  if (existing.ok()) {
    bool same = existing->body.value("location", "") == location;
    if (mode != CreateMode::kOverwrite) {
      return Error(
          StatusCode::kTableAlreadyExists,
          same ? fmt::format("table '{}' is already registered at '{}'", DisplayId(id), location)
               : fmt::format("table '{}' already exists (at another location)", DisplayId(id)));
    }
  } else if (!existing.status().IsNotFound()) {
    return existing.status();
  }
  Status err;
  if (registry_->Exists(RecordKind::kNamespace, id, &err)) {
    return Error(
        StatusCode::kTableAlreadyExists,
        fmt::format("a namespace named '{}' already exists in {}", LeafOf(id), NamespaceName(ns)));
  }
  QV_RETURN_IF_ERROR(err);
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

  json body = {
      {"kind", "table"},
      {"id", IdJson(id)},
      {"warehouse", wh.name},
      {"root", wh.root},
      {"location", location},
      {"properties", properties},
      {"declared", false},
      {"managed_versioning", ManagedFor(properties)},
      {"created_at", Now()},
      {"state", "active"},
      // An overwrite re-points the name; who may use it does not change.
      {"grants", existing.ok() ? existing->body.value("grants", OwnerGrants(actor, "owner"))
                               : OwnerGrants(actor, "owner")}};
  Result<std::string> written =
      existing.ok() ? registry_->Replace(RecordKind::kTable, id, body, existing->etag)
                    : registry_->Create(RecordKind::kTable, id, body);
  if (!written.ok()) {
    if (written.status().IsAlreadyExists() || written.status().IsConflict()) {
      return Error(StatusCode::kTableAlreadyExists,
                   fmt::format("table '{}' was registered concurrently", DisplayId(id)));
    }
    return written.status();
  }
  if (!existing.ok()) {
    Status live = CheckNamespaceLive(ns, "registering tables in it");
    if (!live.ok()) {
      (void)registry_->Delete(RecordKind::kTable, id, *written);
      return live;
    }
  }
  Log("register_table", "table", id, actor, {{"location", location}, {"grants", body["grants"]}});
  return TableFromRecord(id, body);
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
  QV_ASSIGN_OR_RETURN(Record record, GetActiveTableRecord(id));
  QV_ASSIGN_OR_RETURN(TableInfo info, TableFromRecord(id, record.body));
  auto intent = WriteIntent({{"op", "drop"},
                             {"id", IdJson(id)},
                             {"root", info.root},
                             {"location", info.location},
                             {"delete_bytes", delete_bytes}});
  if (!intent.ok()) {
    if (intent.status().IsStorageFull()) {
      return RemoveTableOnFullStorage(id, record, info, delete_bytes, action, actor);
    }
    return intent.status();
  }
  // Retire first: of two drops (or a drop and a rename) of one table only one can do this, and
  // nobody else touches a retired record.
  json retired = record.body;
  retired["state"] = "dropping";
  auto retired_etag = RetireTable(id, record, retired, *intent);
  if (!retired_etag.ok()) {
    if (retired_etag.status().IsStorageFull()) {
      return RemoveTableOnFullStorage(id, record, info, delete_bytes, action, actor);
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

Result<TableInfo> Catalog::RemoveTableOnFullStorage(const ObjectId& id, const Record& record,
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
  Status deleted = registry_->Delete(RecordKind::kTable, id, record.etag);
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

Result<std::string> Catalog::RetireTable(const ObjectId& id, const Record& record,
                                         const json& retired, const std::string& intent) {
  auto etag = registry_->Replace(RecordKind::kTable, id, retired, record.etag);
  if (etag.ok()) return etag;
  ClearIntent(intent);
  if (etag.status().IsConflict()) {
    return Retryable(fmt::format("table '{}' was renamed or dropped concurrently", DisplayId(id)));
  }
  return etag.status();
}

Result<std::string> Catalog::WriteIntent(const json& intent) {
  std::string key = fmt::format("{}{}.json", kIntentsDir, NewUlid(clock()));
  QV_RETURN_IF_ERROR(registry_->store().Put(key, intent.dump(), PutOptions::CreateOnly()).status());
  return key;
}

void Catalog::ClearIntent(const std::string& key) { (void)registry_->store().Delete(key); }

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
  QV_ASSIGN_OR_RETURN(Record source, GetActiveTableRecord(id));
  QV_RETURN_IF_ERROR(CheckNamespaceLive(target_ns, "moving tables into it"));
  if (target_ns != ParentOf(id)) {
    // The bytes stay where they are, so the table may only move within its warehouse.
    QV_ASSIGN_OR_RETURN(WarehouseInfo wh, WarehouseForTables(target_ns));
    if (wh.name != source.body.value("warehouse", "")) {
      return Status::InvalidInput(fmt::format(
          "table '{}' lives in warehouse '{}' and cannot move to {} in warehouse '{}' (renames "
          "move no bytes)",
          DisplayId(id), source.body.value("warehouse", ""), NamespaceName(target_ns), wh.name));
    }
  }
  Status err;
  if (registry_->Exists(RecordKind::kTable, dest, &err) ||
      registry_->Exists(RecordKind::kNamespace, dest, &err)) {
    QV_RETURN_IF_ERROR(err);
    return Error(StatusCode::kTableAlreadyExists,
                 fmt::format("'{}' already exists in {}", new_name, NamespaceName(target_ns)));
  }
  QV_RETURN_IF_ERROR(err);

  std::string location = source.body.value("location", "");
  QV_ASSIGN_OR_RETURN(std::string intent, WriteIntent({{"op", "rename"},
                                                       {"source", IdJson(id)},
                                                       {"dest", IdJson(dest)},
                                                       {"location", location}}));
  // Retire the source first: of two renames of one source only one can do this.
  json retired = source.body;
  retired["state"] = "retired";
  retired["renamed_to"] = IdJson(dest);
  QV_ASSIGN_OR_RETURN(std::string retired_etag, RetireTable(id, source, retired, intent));
  auto restore_source = [&](Status why) -> Status {
    (void)registry_->Replace(RecordKind::kTable, id, source.body, retired_etag);
    ClearIntent(intent);
    return why;
  };

  json moved = source.body;
  moved["id"] = IdJson(dest);
  moved["renamed_from"] = IdJson(id);
  auto created = registry_->Create(RecordKind::kTable, dest, moved);
  if (!created.ok()) {
    if (created.status().IsAlreadyExists()) {
      return restore_source(Error(
          StatusCode::kTableAlreadyExists,
          fmt::format("'{}' was created concurrently in {}", new_name, NamespaceName(target_ns))));
    }
    return restore_source(created.status());
  }
  Status live = CheckNamespaceLive(target_ns, "moving tables into it");
  if (live.ok() && registry_->Exists(RecordKind::kNamespace, dest, &err)) {
    live = Error(StatusCode::kTableAlreadyExists,
                 fmt::format("a namespace named '{}' was created concurrently", new_name));
  }
  if (live.ok() && !err.ok()) live = err;  // the re-check could not be made: withdraw
  if (!live.ok()) {
    (void)registry_->Delete(RecordKind::kTable, dest, *created);
    return restore_source(live);
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

Status Catalog::RecoverDrop(const json& intent, const std::string& key) {
  auto id = IdFromJson(intent.value("id", json()), key);
  std::string location = intent.value("location", "");
  if (!id.ok() || location.empty()) {
    QV_LOG_WARN("ignoring an unreadable drop intent", {{"key", key}});
    return Status::OK();
  }
  auto record = registry_->Get(RecordKind::kTable, *id);
  if (record.ok() && record->body.value("location", "") == location &&
      record->body.value("state", "active") == "active") {
    // The drop never retired the record: nothing happened, nothing to finish.
    QV_LOG_INFO("rolled back an interrupted drop", {{"table", DisplayId(*id)}});
    ClearIntent(key);
    return Status::OK();
  }
  if (record.ok() && record->body.value("state", "") == "dropping" &&
      record->body.value("location", "") == location) {
    Status deleted = registry_->Delete(RecordKind::kTable, *id, record->etag);
    if (!deleted.ok() && !deleted.IsNotFound()) return deleted;
  }
  if (intent.value("delete_bytes", false)) {
    QV_RETURN_IF_ERROR(DeleteLocation(intent.value("root", ""), location));
  }
  QV_LOG_INFO("finished an interrupted drop", {{"table", DisplayId(*id)}, {"location", location}});
  ClearIntent(key);
  return Status::OK();
}

// A record planted in the root with a field of the wrong type makes nlohmann's typed reads
// throw; recovery runs at every server start and check is the operator's tool, so both answer
// Corruption instead of ending the process. (The typed catalog records will validate fields as
// they are read; until then this is the boundary.)
Status Catalog::Recover(Duration min_age) {
  try {
    return RecoverRecords(min_age);
  } catch (const json::exception& e) {
    return Status::Corruption(
        fmt::format("recovering: a record has an unusable field: {}", e.what()));
  }
}

Result<Catalog::ConsistencyReport> Catalog::CheckConsistency(Duration in_flight_age) {
  try {
    return CheckRecords(in_flight_age);
  } catch (const json::exception& e) {
    return Status::Corruption(
        fmt::format("checking: a record has an unusable field: {}", e.what()));
  }
}

Status Catalog::RecoverRecords(Duration min_age) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> intents, registry_->store().ListAll(kIntentsDir));
  int64_t now = clock()->NowNanos();
  for (const ObjectMeta& meta : intents) {
    if (now - meta.last_modified_nanos < min_age.count()) continue;
    auto got = registry_->store().Get(meta.key);
    if (!got.ok()) continue;
    auto parsed = ParseJson(got->data);  // bounded: any writer to the root can plant one
    json intent = parsed.ok() && parsed->is_object() ? std::move(*parsed) : json();
    if (intent.is_object() && intent.value("op", "") == "drop") {
      QV_RETURN_IF_ERROR(RecoverDrop(intent, meta.key));
      continue;
    }
    if (!intent.is_object() || intent.value("op", "") != "rename") {
      QV_LOG_WARN("ignoring an unreadable intent record", {{"key", meta.key}});
      continue;
    }
    auto source = IdFromJson(intent["source"], meta.key);
    auto dest = IdFromJson(intent["dest"], meta.key);
    if (!source.ok() || !dest.ok()) continue;
    std::string location = intent.value("location", "");
    auto dest_record = registry_->Get(RecordKind::kTable, *dest);
    bool completed = dest_record.ok() && dest_record->body.value("location", "") == location;
    auto src_record = registry_->Get(RecordKind::kTable, *source);
    if (src_record.ok() && src_record->body.value("state", "active") == "retired") {
      if (completed) {
        (void)registry_->Delete(RecordKind::kTable, *source, src_record->etag);
      } else {
        json body = src_record->body;
        body["state"] = "active";
        body.erase("renamed_to");
        (void)registry_->Replace(RecordKind::kTable, *source, body, src_record->etag);
      }
    }
    QV_LOG_INFO(
        "recovered an interrupted rename",
        {{"source", DisplayId(*source)}, {"dest", DisplayId(*dest)}, {"completed", completed}});
    ClearIntent(meta.key);
  }
  return Status::OK();
}

namespace {

// Whether a record's grants hold an owner (or, on a project, an admin): every object is created
// with its creator's, and the last one cannot be revoked.
bool HasOwnerGrant(const json& body) {
  auto grants = body.find("grants");
  if (grants == body.end() || !grants->is_array()) return false;
  return std::any_of(grants->begin(), grants->end(), [](const json& g) {
    if (!g.is_object()) return false;
    std::string relation = g.value("relation", "");
    return relation == "owner" || relation == "admin";
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
    auto parsed = ParseJson(got->data);  // bounded: any writer to the root can plant one
    json intent = parsed.ok() && parsed->is_object() ? std::move(*parsed) : json();
    std::string op = intent.is_object() ? intent.value("op", "") : "";
    if (intent.is_object()) {
      for (const char* field : {"id", "source", "dest"}) {
        auto id = IdFromJson(intent.value(field, json()), meta.key);
        if (id.ok()) busy->insert(*id);
      }
    }
    if (young != nullptr) {
      young->push_back(
          fmt::format("operation '{}' in progress ({})", meta.key, op.empty() ? "unreadable" : op));
    }
  }
  return Status::OK();
}

Result<Catalog::ConsistencyReport> Catalog::CheckRecords(Duration in_flight_age) {
  ConsistencyReport report;
  // What operations in progress name (their intents come first, so one that is seen half done
  // below was listed here or is listed again at the end).
  std::set<ObjectId> busy;
  QV_RETURN_IF_ERROR(ListIntents(in_flight_age, nullptr, nullptr, &busy));
  const int64_t now = clock()->NowNanos();
  // A namespace, project or warehouse marked as being dropped: a delete in progress while the
  // mark is young (an old mark is a crashed delete's leftover, ignored by every reader).
  auto check_mark = [&](std::string_view what, const std::string& name, const json& body) {
    auto it = body.find("dropping_since");
    if (it != body.end() && it->is_number_integer() &&
        now - it->get<int64_t>() < in_flight_age.count()) {
      report.in_flight.push_back(fmt::format("{} '{}' is being deleted", what, name));
    }
  };
  // A record whose parent is missing: a create that raced its parent's drop writes its record,
  // sees the drop on its re-check and withdraws it, so a young record is that create in
  // progress; an old one is an orphan.
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
  auto check_grants = [&](std::string_view what, const std::string& name, const json& body) {
    if (!HasOwnerGrant(body)) {
      report.problems.push_back(fmt::format("{} '{}' has no owner grant", what, name));
    }
  };
  for (const ObjectId& wh : warehouses) {
    ++report.warehouses;
    std::string name = wh.size() == 2 ? wh[0] + "/" + wh[1] : JoinId(wh);
    if (wh.size() != 2 || !ns_set.count({wh.front()})) {
      report.problems.push_back(fmt::format("warehouse '{}' has no project record", name));
    }
    auto record = registry_->Get(RecordKind::kWarehouse, wh);
    if (record.ok()) {
      check_grants("warehouse", name, record->body);
      check_mark("warehouse", name, record->body);
    }
  }
  for (const ObjectId& ns : namespaces) {
    auto record = registry_->Get(RecordKind::kNamespace, ns);
    if (!record.ok()) {
      if (!record.status().IsNotFound()) return record.status();
      continue;
    }
    if (ns.size() == 1) {
      ++report.projects;
      if (record->body.value("kind", "") != "project") {
        report.problems.push_back(fmt::format("'{}' at the top is not a project record", ns[0]));
      }
      check_grants("project", ns[0], record->body);
      check_mark("project", ns[0], record->body);
      continue;
    }
    ++report.namespaces;
    std::string name = ns.front() + "/" + DisplayId(ns);
    check_grants("namespace", name, record->body);
    check_mark("namespace", name, record->body);
    if (!ns_set.count(ParentOf(ns))) {
      orphan(RecordKind::kNamespace, ns,
             fmt::format("namespace '{}' has no parent namespace record", name));
    }
    if (ns.size() == 2) {
      std::string wh = record->body.value("warehouse", "");
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
    auto record = registry_->Get(RecordKind::kTable, id);
    if (!record.ok()) {
      if (!record.status().IsNotFound()) return record.status();
      continue;
    }
    std::string name = id.front() + "/" + DisplayId(id);
    check_grants("table", name, record->body);
    const bool active = record->body.value("state", "active") == "active";
    if (!active) {
      unsettled.push_back(
          {{id}, fmt::format("table '{}' is {}", name, record->body.value("state", ""))});
    }
    if (id.size() > 1 && !ns_set.count(ParentOf(id))) {
      orphan(RecordKind::kTable, id, fmt::format("table '{}' has no namespace record", name));
    }
    if (ns_set.count(id)) {
      report.problems.push_back(fmt::format("'{}' is both a table and a namespace", name));
    }
    std::string location = record->body.value("location", "");
    std::string root_uri = record->body.value("root", "");
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
    if (active && !record->body.value("declared", false)) {
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
  std::lock_guard<std::mutex> lock(roots_mu_);
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
    std::lock_guard<std::mutex> lock(roots_mu_);
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
  std::lock_guard<std::mutex> lock(roots_mu_);
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
