// Catalog: the Lance Namespace model (namespaces and tables) over the registry (registry.h).
//
// Every mutation follows one order: validate → parent exists (and is not being dropped) →
// conflict → conditional write → re-check what a concurrent writer could have invalidated →
// change-log event. A rejected request leaves nothing behind.
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

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/object_id.h"
#include "catalog/registry.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver::catalog {

using Properties = std::map<std::string, std::string>;

enum class CreateMode { kCreate, kExistOk, kOverwrite };

struct NamespaceInfo {
  ObjectId id;
  Properties properties;
  std::string created_at;
};

struct TableInfo {
  ObjectId id;
  std::string location;  // relative to the root
  Properties properties;
  bool declared = false;  // created by DeclareTable (data may have been written since)
  bool managed_versioning = false;
  std::string created_at;
};

struct NameList {
  std::vector<std::string> names;
  std::optional<std::string> page_token;  // the last name, when more may follow
};

struct CatalogOptions {
  bool managed_versioning = false;  // every table is managed, whatever its properties say
  const Clock* clock = nullptr;
};

// Who asked (recorded in the change log).
struct Actor {
  std::string principal = "anonymous";
  std::string request_id;
};

// The table property that turns managed versioning on for one table.
inline constexpr std::string_view kManagedVersioningProperty = "managed_versioning";

class Catalog {
 public:
  static Result<std::unique_ptr<Catalog>> Open(std::shared_ptr<ObjectStore> root,
                                               const CatalogOptions& options = {});

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
  Result<IdList> ListAllTables(const std::string& page_token, std::optional<size_t> limit,
                               bool include_declared);
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
  // a namespace, a registered table whose location holds nothing, an unfinished intent. Reads
  // everything: for tools and tests, not for request paths.
  struct ConsistencyReport {
    uint64_t namespaces = 0;
    uint64_t tables = 0;
    std::vector<std::string> problems;
  };
  Result<ConsistencyReport> CheckConsistency();

  // Finishes or rolls back renames and namespace drops that a crash interrupted (intent
  // records older than `min_age`, so that another live server's work is left alone).
  Status Recover(Duration min_age);

 private:
  Catalog(std::unique_ptr<Registry> registry, const CatalogOptions& options);

  const Clock* clock() const { return options_.clock; }
  std::string Now() const;
  // A namespace record marked as being dropped, less than the marker's lifetime ago (an older
  // mark is a crashed drop's leftover).
  bool HasLiveDropMark(const nlohmann::json& body) const;
  // NamespaceNotFound unless `ns` is the root or an existing namespace not being dropped.
  Status CheckNamespaceLive(const ObjectId& ns, std::string_view purpose);
  Result<TableInfo> TableFromRecord(const ObjectId& id, const nlohmann::json& body) const;
  Result<NamespaceInfo> NamespaceFromRecord(const ObjectId& id, const nlohmann::json& body) const;
  // Active table record and its etag (TableNotFound / NamespaceNotFound otherwise).
  Result<Record> GetActiveTableRecord(const ObjectId& id);
  Result<TableInfo> RemoveTable(const ObjectId& id, bool delete_bytes, std::string_view action,
                                const Actor& actor);
  Status DeleteLocation(const std::string& location);
  Status DropNamespaceContents(const ObjectId& id, const Actor& actor);
  void Log(std::string_view action, std::string_view kind, const ObjectId& id, const Actor& actor,
           nlohmann::json extra = nlohmann::json::object());
  Result<std::string> WriteIntent(const nlohmann::json& intent);
  // Replaces the table's active `record` with `retired` (if-match): of concurrent renames and
  // drops exactly one gets here. On failure clears `intent`; a lost race is code 14.
  Result<std::string> RetireTable(const ObjectId& id, const Record& record,
                                  const nlohmann::json& retired, const std::string& intent);
  Status RecoverDrop(const nlohmann::json& intent, const std::string& key);
  void ClearIntent(const std::string& key);
  bool ManagedFor(const Properties& properties) const;

  std::unique_ptr<Registry> registry_;
  CatalogOptions options_;
};

}  // namespace quiver::catalog
