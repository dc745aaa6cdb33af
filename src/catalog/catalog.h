// Catalog: the governed hierarchy (projects > warehouses > namespaces > tables) over the
// registry (registry.h).
//
// Ids are SCOPED: the first element is the project, the rest is the Lance Namespace id inside
// it ({"p"} is project p's root namespace, {"p", "a", "t"} the table a$t of project p). The
// server prepends the caller's project; messages show the unscoped id. A project is stored as a
// depth-1 namespace record (kind "project"), so "the parent exists and is not being dropped"
// covers projects too. A top-level namespace lives in one warehouse of its project (a storage
// root); its tables get locations under that root.
//
// Every created record carries its creator's ownership grant ("grants": [{subject, relation}]),
// written in the same conditional put as the record: an object never exists without its owner,
// and a grant never outlives its object (they are one object in storage).
//
// Every mutation follows one order: validate → parent exists (and is not being dropped) →
// conflict → conditional write → re-check what a concurrent writer could have invalidated →
// change-log event. A rejected request leaves nothing behind. Every create writes, re-checks and
// withdraws through one piece of code, internal/create_protocol.h (its invariants are there).
//
// Records are read through the typed structs of internal/records.h: a record with a field of the
// wrong type (hand-edited or damaged) is Corruption naming the record and the field, never an
// exception, at every operation that reads it.
//
// Invariants kept against concurrent writers in this and other processes:
//   - one record per id; a table and a namespace never share a name under one parent;
//   - no record outlives its parent namespace (creates re-check the parent after writing;
//     a namespace drop first marks the namespace as dropping);
//   - a table's location is chosen fresh at declare and never reused by another name: a rename
//     moves the record (the source is retired first, so concurrent renames have one winner);
//   - a drop retires the record (one winner against other drops and renames), removes it,
//     then the bytes.
// Renames and drops write an intent record (_quiver/intents/) first; an interrupted one is
// finished or rolled back by Recover().
//
// Thread-safety: safe for concurrent use; several processes may serve one root.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/object_id.h"
#include "catalog/registry.h"
#include "common/mutex.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver {
class SyncPoints;
}  // namespace quiver

namespace quiver::catalog {

namespace internal {
struct NamespaceRecord;
struct TableRecord;
struct WarehouseRecord;
struct IntentRecord;
template <typename R>
struct Stored;
}  // namespace internal

// The sync point every create reaches right after its record is written and before it
// re-checks (internal/create_protocol.h): a test can drop the parent there.
inline constexpr std::string_view kCreateWrittenPoint = "catalog.create.written";
// The sync point a namespace drop reaches right before it deletes the namespace's record.
inline constexpr std::string_view kDropNamespaceDeletingPoint = "catalog.drop_namespace.deleting";

using Properties = std::map<std::string, std::string>;

enum class CreateMode { kCreate, kExistOk, kOverwrite };

// The embedded default: the project and warehouse a fresh root gets.
inline constexpr std::string_view kDefaultProject = "default";
inline constexpr std::string_view kDefaultWarehouse = "default";
// The namespace property that names a top-level namespace's warehouse at create.
inline constexpr std::string_view kWarehouseProperty = "warehouse";

struct NamespaceInfo {
  ObjectId id;
  Properties properties;
  std::string created_at;
  std::string warehouse;  // top-level namespaces only
  nlohmann::json grants = nlohmann::json::array();
};

struct TableInfo {
  ObjectId id;
  std::string warehouse;
  std::string root;      // the warehouse's storage root URI; "" = the catalog root
  std::string location;  // relative to `root`
  Properties properties;
  bool declared = false;  // created by DeclareTable (data may have been written since)
  bool managed_versioning = false;
  std::string created_at;
  nlohmann::json grants = nlohmann::json::array();
};

struct ProjectInfo {
  std::string name;
  Properties properties;
  std::string created_at;
  nlohmann::json grants = nlohmann::json::array();
};

struct WarehouseInfo {
  std::string project;
  std::string name;
  std::string root;  // storage root URI; "" = the catalog root
  bool active = true;
  Properties properties;
  std::string created_at;
  nlohmann::json grants = nlohmann::json::array();
};

struct NameList {
  std::vector<std::string> names;
  std::optional<std::string> page_token;  // the last name, when more may follow
};

struct CatalogOptions {
  bool managed_versioning = false;  // every table is managed, whatever its properties say
  bool ensure_defaults = true;      // Open creates the default project and warehouse
  // Reads only (`quiver catalog check`): the root and every warehouse root are opened behind a
  // store that refuses every write (and warehouse roots without creating them), and
  // ensure_defaults is ignored. Open fails on a root without a registry format stamp.
  bool read_only = false;
  const Clock* clock = nullptr;
  SyncPoints* sync_points = nullptr;  // tests only (kCreateWrittenPoint, ...)
};

// How old an interrupted operation's intent must be before recovery touches it (and before the
// consistency check calls it a problem): younger ones may be a live server's work in progress.
inline constexpr Duration kRecoveryMinAge = std::chrono::seconds(60);

// Who asked: recorded in the change log, and the subject of the ownership grant a create seeds.
struct Actor {
  std::string principal = "user:anonymous";
  std::string request_id;
};

// Told about every mutation, synchronously and in order, with the change-log event that
// describes it (the same JSON other processes read back from the log).
class CatalogObserver {
 public:
  virtual ~CatalogObserver() = default;
  virtual void OnEvent(const nlohmann::json& event) = 0;
};

// The table property that turns managed versioning on for one table.
inline constexpr std::string_view kManagedVersioningProperty = "managed_versioning";

class Catalog {
 public:
  static Result<std::unique_ptr<Catalog>> Open(std::shared_ptr<ObjectStore> root,
                                               const CatalogOptions& options = {});

  // REQUIRES: set before concurrent use; the observer outlives the catalog's use.
  void SetObserver(CatalogObserver* observer) { observer_ = observer; }
  // Appends the change-log event of a mutation made outside the catalog's own operations (the
  // server's grants, API keys): `event` (action, kind, object, ...) gains actor, request_id and
  // outcome, goes to the observer, then to the log behind the response.
  void LogEvent(nlohmann::json event, const Actor& actor);

  // --- projects and warehouses (hierarchy.cc) ----------------------------------------------
  // Creates the default project and its default warehouse on the catalog root when absent.
  Status EnsureDefaults(const Actor& actor);
  // The record and the creator's `admin` grant are one write. Projects and warehouses are
  // containers, so they answer with the namespace codes: NamespaceAlreadyExists (2, 409) when
  // taken, NamespaceNotFound (1, 404) when missing, NamespaceNotEmpty (3, 409) on a delete
  // that would orphan something.
  Result<ProjectInfo> CreateProject(const std::string& name, const Properties& properties,
                                    const Actor& actor);
  Result<ProjectInfo> DescribeProject(const std::string& name);
  Result<NameList> ListProjects(const std::string& page_token, std::optional<size_t> limit);
  // Never cascades: a project that holds warehouses or namespaces refuses (409, naming them).
  Result<ProjectInfo> DeleteProject(const std::string& name, const Actor& actor);

  // `root`: a store URI (file:///..., memory://...) or "" for the catalog root.
  Result<WarehouseInfo> CreateWarehouse(const std::string& project, const std::string& name,
                                        const std::string& root, const Properties& properties,
                                        const Actor& actor);
  Result<WarehouseInfo> DescribeWarehouse(const std::string& project, const std::string& name);
  Result<NameList> ListWarehouses(const std::string& project, const std::string& page_token,
                                  std::optional<size_t> limit);
  // A warehouse that holds namespaces refuses (409, naming them).
  Result<WarehouseInfo> DeleteWarehouse(const std::string& project, const std::string& name,
                                        const Actor& actor);
  Result<WarehouseInfo> SetWarehouseActive(const std::string& project, const std::string& name,
                                           bool active, const Actor& actor);
  // The warehouse a top-level namespace `ns` ({project, name}) lives in.
  Result<std::string> WarehouseOfNamespace(const ObjectId& ns);

  // --- grants (stored inside each object's record) ------------------------------------------
  enum class GrantTarget { kProject, kWarehouse, kNamespace, kTable };
  // Read-modify-write of the grants of one object (retried on concurrent changes). `edit` gets
  // the current array and changes it in place (returning an error aborts with nothing
  // written). Returns the new array. NotFound-style codes when the object does not exist.
  Result<nlohmann::json> UpdateGrants(GrantTarget target, const ObjectId& id,
                                      const std::function<Status(nlohmann::json&)>& edit,
                                      const Actor& actor);
  Result<nlohmann::json> ReadGrants(GrantTarget target, const ObjectId& id);

  // --- namespaces -------------------------------------------------------------------------
  // Create: NamespaceAlreadyExists (2) if taken. ExistOk: the existing one. Overwrite: replaces
  // the properties of an existing, empty namespace (NamespaceNotEmpty (3) otherwise).
  // NamespaceNotFound (1) when the parent is missing; InvalidInput for the root.
  Result<NamespaceInfo> CreateNamespace(const ObjectId& id, CreateMode mode,
                                        const Properties& properties, const Actor& actor);
  // The root always exists (no properties).
  Result<NamespaceInfo> DescribeNamespace(const ObjectId& id);
  Result<NameList> ListNamespaces(const ObjectId& parent, const std::string& page_token,
                                  std::optional<size_t> limit);
  struct DropNamespaceOptions {
    bool skip_missing = false;  // mode Skip
    bool cascade = false;       // behavior Cascade
  };
  // nullopt when the namespace was missing and skip_missing is set. Restrict on a non-empty
  // namespace: NamespaceNotEmpty (3) naming what is inside. InvalidInput for the root.
  Result<std::optional<NamespaceInfo>> DropNamespace(const ObjectId& id,
                                                     const DropNamespaceOptions& options,
                                                     const Actor& actor);

  // --- tables -----------------------------------------------------------------------------
  // Reserves the name and a fresh location `<8 hex>_<ns$...$name>` holding `.lance-reserved`.
  Result<TableInfo> DeclareTable(const ObjectId& id, const Properties& properties,
                                 const Actor& actor);
  // Points the name at an existing dataset at `location` (relative, inside the root).
  // mode Create: TableAlreadyExists (5) if the name is taken; Overwrite: replaces the
  // registration. A location registered under another name is TableAlreadyExists too.
  Result<TableInfo> RegisterTable(const ObjectId& id, const std::string& location, CreateMode mode,
                                  const Properties& properties, const Actor& actor);
  // TableNotFound (4); NamespaceNotFound (1) when the namespace itself is missing.
  Result<TableInfo> GetTable(const ObjectId& id);
  // True while no version has been committed at the table's location.
  Result<bool> IsOnlyDeclared(const TableInfo& table);
  Result<NameList> ListTables(const ObjectId& ns, const std::string& page_token,
                              std::optional<size_t> limit, bool include_declared);
  // Every table, as full ids; the page token is opaque.
  struct IdList {
    std::vector<ObjectId> ids;
    std::optional<std::string> page_token;
  };
  Result<IdList> ListAllTables(const std::string& project, const std::string& page_token,
                               std::optional<size_t> limit, bool include_declared);
  // Removes the registration, then every object under the location.
  Result<TableInfo> DropTable(const ObjectId& id, const Actor& actor);
  // Removes the registration only.
  Result<TableInfo> DeregisterTable(const ObjectId& id, const Actor& actor);
  // Moves the registration (never bytes) to `new_namespace` (default: the same) / `new_name`.
  Result<TableInfo> RenameTable(const ObjectId& id, const std::optional<ObjectId>& new_namespace,
                                const std::string& new_name, const Actor& actor);

  // A store rooted at the table's location.
  Result<std::shared_ptr<ObjectStore>> TableStore(const TableInfo& table) const;
  // How Lance addresses the location: an absolute path (local) or the store's own URI form.
  std::string ExternalLocation(const TableInfo& table) const;
  // A full URI (file:///...) for `table_uri`.
  std::string TableUri(const TableInfo& table) const;
  // The object-store path of `key` under the table (no leading '/'), the form Lance exchanges
  // `manifest_path` values in (lancedb-rest-trace.md §7).
  std::string ObjectStorePath(const TableInfo& table, std::string_view key) const;

  // The change log's newest sequence number.
  Result<uint64_t> Generation();
  Registry& registry() { return *registry_; }
  bool managed_versioning_default() const { return options_.managed_versioning; }

  // A scan of every record for broken invariants: a table or namespace whose parent namespace
  // is missing, a retired table record, two tables at one location, a name used by a table and
  // a namespace, a registered table whose location holds nothing, an unfinished intent, an
  // object whose record holds no owner grant (owner; admin on a project), a top-level namespace
  // naming no existing warehouse, a warehouse without its project, a depth-1 record that is not a
  // project. Reads everything: for tools and tests, not for request paths.
  //
  // What an operation in progress leaves for a moment (its intent record, the retired or
  // dropping table record, a rename's two records at one location, a namespace or project
  // marked as being dropped, a young record whose parent is gone: a create that raced the
  // parent's drop and is about to withdraw) is reported in `in_flight`, not as a problem, while
  // it is younger than `in_flight_age`; older, it is a crashed operation's leftover and a
  // problem.
  struct ConsistencyReport {
    uint64_t projects = 0;
    uint64_t warehouses = 0;
    uint64_t namespaces = 0;
    uint64_t tables = 0;
    std::vector<std::string> problems;
    std::vector<std::string> in_flight;
  };
  Result<ConsistencyReport> CheckConsistency(Duration in_flight_age = kRecoveryMinAge);
  // `quiver catalog check`: CheckConsistency of `root` opened read-only (CatalogOptions::
  // read_only), so the check leaves every object as it was, even on a root whose default project
  // was deleted.
  static Result<ConsistencyReport> CheckRoot(std::shared_ptr<ObjectStore> root,
                                             Duration in_flight_age = kRecoveryMinAge,
                                             const Clock* clock = nullptr);

  // Finishes or rolls back renames and namespace drops that a crash interrupted (intent
  // records older than `min_age`, so that another live server's work is left alone).
  Status Recover(Duration min_age);

 private:
  Catalog(std::unique_ptr<Registry> registry, const CatalogOptions& options);

  const Clock* clock() const { return options_.clock; }
  std::string Now() const;
  // A namespace record marked as being dropped, less than the marker's lifetime ago (an older
  // mark is a crashed drop's leftover).
  bool HasLiveDropMark(std::optional<int64_t> dropping_since) const;
  // NamespaceNotFound unless `ns` is the root or an existing namespace not being dropped.
  Status CheckNamespaceLive(const ObjectId& ns, std::string_view purpose);
  Result<TableInfo> TableFromRecord(const ObjectId& id, const internal::TableRecord& record) const;
  NamespaceInfo NamespaceFromRecord(const ObjectId& id,
                                    const internal::NamespaceRecord& record) const;
  // Active table record and its etag (TableNotFound / NamespaceNotFound otherwise).
  Result<internal::Stored<internal::TableRecord>> GetActiveTableRecord(const ObjectId& id);
  Result<TableInfo> RemoveTable(const ObjectId& id, bool delete_bytes, std::string_view action,
                                const Actor& actor);
  // RemoveTable when the storage is full (no intent or retired record can be written).
  Result<TableInfo> RemoveTableOnFullStorage(const ObjectId& id, const std::string& etag,
                                             const TableInfo& info, bool delete_bytes,
                                             std::string_view action, const Actor& actor);
  Status DeleteLocation(const std::string& root, const std::string& location);
  Status DropNamespaceContents(const ObjectId& id, const Actor& actor);
  void Log(std::string_view action, std::string_view kind, const ObjectId& id, const Actor& actor,
           nlohmann::json extra = nlohmann::json::object());
  Result<std::string> WriteIntent(const internal::IntentRecord& intent);
  // Released locations (internal::ReleasedRecord): a deregister files one before its record
  // goes, so the bytes it leaves stay its project's.
  Status WriteReleased(const ObjectId& id, const TableInfo& info);
  // For a RegisterTable of `id` at canonical location `where`: `foreign` when another project
  // released a location at, inside or above it; else the keys of this project's records of
  // exactly `where` (the registration takes them back).
  Result<std::vector<std::string>> CheckReleased(const ObjectId& id, const std::string& where,
                                                 const Status& foreign);
  // Replaces the table's active record (at `etag`) with `retired` (if-match): of concurrent
  // renames and drops exactly one gets here. On failure clears `intent`; a lost race is code 14.
  Result<std::string> RetireTable(const ObjectId& id, const std::string& etag,
                                  const internal::TableRecord& retired, const std::string& intent);
  Status RecoverDrop(const internal::IntentRecord& intent, const std::string& key);
  // The intent records: those younger than `in_flight_age` described into *young and the ids
  // they name (a drop's table, a rename's source and destination) added to *busy; the older
  // ones described into *old (young and old may be null).
  Status ListIntents(Duration in_flight_age, std::vector<std::string>* young,
                     std::vector<std::string>* old, std::set<ObjectId>* busy);
  void ClearIntent(const std::string& key);
  bool ManagedFor(const Properties& properties) const;

  // The store of a warehouse root ("" = the catalog root), opened once.
  Result<std::shared_ptr<ObjectStore>> RootStore(const std::string& root) const;
  // The canonical location (store_uri.h: CanonicalLocation) of a warehouse root ("" = the
  // catalog root), resolved once per root and process. Every comparison of locations (shared,
  // nested, inside the catalog's own area) compares these, by whole segments.
  Result<std::string> CanonicalRoot(const std::string& root) const;
  Result<std::string> CanonicalTableLocation(const std::string& root,
                                             const std::string& location) const;
  // InvalidInput when the canonical location `where` lies inside the catalog root's own areas
  // (_quiver/, .qv-store/) or holds them.
  Status CheckOutsideCatalogArea(const std::string& where, std::string_view what) const;
  // InvalidInput unless a new warehouse's `root` (a URI) lies outside the catalog's own areas
  // and outside every registered table.
  Status CheckWarehouseRoot(const std::string& root);
  // Where tables of the namespace `ns` go: its top-level namespace's warehouse (or, for the
  // project root, the project's default warehouse), which must exist and be active.
  Result<WarehouseInfo> WarehouseForTables(const ObjectId& ns);
  // The default warehouse of a project: its only one, else the one named "default".
  Result<WarehouseInfo> DefaultWarehouse(const std::string& project);
  // After a namespace drop that could not write its mark: removes what a racing create left
  // below the dropped namespace (catalog.cc says when that happens).
  Status SweepDroppedNamespace(const ObjectId& id, const Actor& actor);
  // The create protocol's re-check for a table record just written at `id` in `ns`: the
  // namespace is still live and no namespace took the name meanwhile.
  Status RecheckTableName(const ObjectId& ns, const ObjectId& id, std::string_view doing);
  // A new table's record (its grants are the caller's to set).
  internal::TableRecord FreshTableRecord(const ObjectId& id, const WarehouseInfo& wh,
                                         const std::string& location, const Properties& properties,
                                         bool declared) const;
  WarehouseInfo WarehouseFromRecord(const std::string& project, const std::string& name,
                                    const internal::WarehouseRecord& record) const;
  nlohmann::json OwnerGrants(const Actor& actor, std::string_view relation) const;

  std::unique_ptr<Registry> registry_;
  CatalogOptions options_;
  CatalogObserver* observer_ = nullptr;
  mutable Mutex roots_mu_;
  mutable std::map<std::string, std::shared_ptr<ObjectStore>> roots_ GUARDED_BY(roots_mu_);
  mutable std::map<std::string, std::string> canonical_roots_ GUARDED_BY(roots_mu_);
};

// "a$b" for the scoped id {"p", "a", "b"} (the project is not shown); "" for a project root.
std::string DisplayId(const ObjectId& scoped);
// InvalidInput unless `id` is {project, names...} with a valid project name and at most
// kMaxIdDepth names of at most kMaxIdBytes together (at least one unless allow_root).
Status ValidateScopedId(const ObjectId& id, std::string_view what, bool allow_root);
// ValidateScopedId for a lookup: the length limits do not apply (object_id.h, ValidateLookupId).
Status ValidateScopedLookupId(const ObjectId& id, std::string_view what, bool allow_root);

}  // namespace quiver::catalog
