// AccessControl: the catalog's authorization state in memory, and the questions the server asks
// of it (docs/authorization.md).
//
// The grants live inside the records they are about (catalog.h), plus the server's own in
// _quiver/server.json. AccessControl keeps an AuthzIndex (authz/index.h) of all of them:
//   - at Open it reads every record once;
//   - this process's mutations reach it synchronously (it is the catalog's observer);
//   - other processes' mutations reach it from the change log, read at most every
//     `refresh_interval` by whichever request finds the index older than that;
//   - a request about to be refused re-reads the records along its object's chain first
//     (Reconcile), so a grant made a moment ago by another server never causes a false denial.
// So a grant is visible everywhere at once, and a revocation made on another server within
// `refresh_interval`.
//
// Server admins are the principals named in the configuration plus those granted `admin` on
// server:quiver.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/api_keys.h"
#include "catalog/authz/index.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace quiver::catalog {

struct AccessOptions {
  std::vector<std::string> server_admins;  // principals ("user:ops")
  Duration refresh_interval = std::chrono::seconds(1);
  const Clock* clock = nullptr;
};

class AccessControl : public CatalogObserver {
 public:
  // Reads every record's grants and registers itself as the catalog's observer.
  // REQUIRES: `catalog` outlives the returned object.
  static Result<std::unique_ptr<AccessControl>> Open(Catalog& catalog,
                                                     const AccessOptions& options);
  ~AccessControl() override;

  void OnEvent(const nlohmann::json& event) override;

  // Reads the change log if the index is older than the refresh interval (other servers'
  // mutations). Cheap when fresh; one caller at a time does the reading.
  void MaybeRefresh();
  // Reads the change log now (tests, tools). Every event is applied; the answer is the first
  // that could not be (a mistyped event or record: Corruption).
  Status Refresh();
  // Re-reads the records along `obj`'s chain (the object, its namespaces, warehouse, project)
  // and updates the index from them: O(depth) reads.
  Status Reconcile(const authz::ObjectRef& obj);

  bool IsServerAdmin(std::string_view subject) const;
  // Check, and when it refuses, re-read the records along `reread`'s chain (the object's own by
  // default) and ask again: a refusal never rests on a stale index.
  Result<bool> CheckFresh(std::string_view subject, authz::Permission permission,
                          const authz::ObjectRef& obj, const authz::ObjectRef* reread = nullptr);
  // Server admins hold every permission everywhere.
  bool Check(std::string_view subject, authz::Permission permission,
             const authz::ObjectRef& obj) const;
  int Rank(std::string_view subject, const authz::ObjectRef& obj) const;
  // The projects `subject` holds grants in (every project for a server admin: a listing).
  Result<std::vector<std::string>> ProjectsOf(std::string_view subject);
  std::vector<std::string> VisibleChildren(std::string_view subject, const authz::ObjectRef& parent,
                                           authz::ChildKind kind, std::string_view start_after,
                                           size_t limit) const;
  // The warehouse a top-level namespace lives in ("" when unknown) and whether a warehouse is
  // active (unknown warehouses count as active: the catalog decides they do not exist).
  std::string WarehouseOf(const std::string& project, const std::string& ns) const;
  bool WarehouseActive(const std::string& project, const std::string& warehouse) const;

  // The grants of any object (server:quiver, kept in _quiver/server.json, or a catalog object:
  // Catalog::UpdateGrants), read-modify-write; and read.
  Result<nlohmann::json> UpdateGrantsOf(const authz::ObjectRef& obj,
                                        const std::function<Status(nlohmann::json&)>& edit,
                                        const Actor& actor);
  Result<nlohmann::json> ReadGrantsOf(const authz::ObjectRef& obj);
  Result<nlohmann::json> ReadServerGrants();

  const authz::AuthzIndex& index() const { return index_; }
  ApiKeyStore& api_keys() { return *api_keys_; }
  Catalog& catalog() { return catalog_; }

  // Converts a record's "grants" array; entries that do not validate (records.h: GrantEntry, then
  // authz) are skipped (and logged).
  static std::vector<authz::Grant> GrantsFromJson(const nlohmann::json& grants,
                                                  authz::ObjectType type);

 private:
  AccessControl(Catalog& catalog, const AccessOptions& options);
  Status LoadAll();
  Status RefreshLocked() REQUIRES(refresh_mu_);
  // Corruption for a mistyped event (records.h: ChangeEvent); the failure to re-read a record
  // it names.
  Status Apply(const nlohmann::json& event);
  Result<nlohmann::json> UpdateServerGrants(const std::function<Status(nlohmann::json&)>& edit,
                                            const Actor& actor);
  // Sets the index entry of one object (grants, a warehouse's state) from its record.
  Status ReloadObject(const authz::ObjectRef& ref);
  void SetWarehouseState(const std::string& project, const std::string& warehouse, bool active);
  // The grants on server:quiver, and the admins they make (with the configured ones).
  void SetServerGrants(std::vector<authz::Grant> grants);
  void SetNamespaceWarehouse(const std::string& project, const std::string& ns,
                             const std::string& warehouse);

  Catalog& catalog_;
  AccessOptions options_;
  const Clock* clock_;
  std::set<std::string, std::less<>> config_admins_;
  authz::AuthzIndex index_;
  std::unique_ptr<ApiKeyStore> api_keys_;

  mutable SharedMutex state_mu_;
  std::set<std::string, std::less<>> server_admins_ GUARDED_BY(state_mu_);
  // (project, warehouse) -> active
  std::map<std::pair<std::string, std::string>, bool> warehouse_active_ GUARDED_BY(state_mu_);
  // (project, top-level namespace) -> warehouse
  std::map<std::pair<std::string, std::string>, std::string> namespace_warehouse_
      GUARDED_BY(state_mu_);

  Mutex refresh_mu_;                      // one log reader at a time
  std::atomic<uint64_t> applied_seq_{0};  // newest change-log seq applied from the log
  std::atomic<int64_t> refreshed_at_{0};  // monotonic nanos of the last log read
};

}  // namespace quiver::catalog
