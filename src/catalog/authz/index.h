// AuthzIndex: the in-memory set of relation tuples (model.h) and the questions asked of it on
// every request: what rank a subject holds on an object, whether it has a permission, which
// children of a namespace it may see, which projects it is in. Pure memory, no I/O: the catalog
// feeds it the grants it reads from its records.
//
// Two indexes over the same tuples keep every question proportional to what the subject holds,
// never to the size of the catalog:
//   - forward:  object -> its grants. Rank walks the object and its ancestors (at most
//     kMaxIdDepth + 3 levels) and looks each one up.
//   - reverse:  subject -> sorted set of the objects it holds grants on. Since ObjectRef sorts by
//     path, everything a subject holds below a project or namespace is one contiguous range;
//     "has a grant below", VisibleChildren and ProjectsOf are range scans that jump from one
//     child name to the next.
// Plus the warehouse records: which warehouse each top-level namespace is in (its parent in the
// hierarchy) and, per warehouse, the set of its top-level namespaces.
//
// Grants held by kAnySubject ("user:*") count for every subject in Rank, Check,
// VisibleChildren and ProjectsOf; Read and GrantsOn report tuples as stored.
//
// Thread-safety: safe for concurrent use; readers share a lock, writers take it exclusively.
// Each call sees the index either before or after any one write.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/authz/model.h"
#include "common/mutex.h"

namespace quiver::catalog::authz {

enum class ChildKind { kNamespace, kTable };

struct TupleFilter {
  std::optional<std::string> subject;  // exact; "user:*" matches only tuples of user:*
  std::optional<Relation> relation;
  std::optional<ObjectRef> object;         // exactly this object
  std::optional<ObjectRef> object_prefix;  // this object and its descendants
  // Paging: only tuples after this one in the result order (Tuple's operator<). A caller with a
  // text page token (FormatTuple of the last tuple returned) parses it with ParseTuple.
  std::optional<Tuple> start_after;
  size_t limit = 0;  // 0 = no limit
};

class AuthzIndex {
 public:
  AuthzIndex() = default;
  AuthzIndex(const AuthzIndex&) = delete;
  AuthzIndex& operator=(const AuthzIndex&) = delete;

  // Replaces every tuple on `obj` by `grants` (duplicates collapse; empty removes them).
  // REQUIRES: ValidateTuple({g.subject, g.relation, obj}).ok() for every grant.
  void SetGrants(const ObjectRef& obj, std::vector<Grant> grants);

  // Records that top-level namespace {project, ns} lives in `warehouse` (replacing any earlier
  // record), which makes warehouse {project, warehouse} its parent.
  void SetNamespaceWarehouse(const std::string& project, const std::string& ns,
                             const std::string& warehouse);
  void ClearNamespaceWarehouse(const std::string& project, const std::string& ns);

  // Drops the grants of `obj` and of every descendant: for a project everything with that
  // project, for a warehouse the namespaces recorded in it and everything below them, for a
  // namespace everything below it, for the server everything. Also drops the namespace ->
  // warehouse records inside (a warehouse's own, a removed top-level namespace's).
  void RemoveSubtree(const ObjectRef& obj);

  // Moves the grants held on `from` to `to`, replacing those on `to` (a renamed table).
  // Descendants are not moved: a table has none. REQUIRES: from.type == to.type.
  void MoveObject(const ObjectRef& from, const ObjectRef& to);

  // The best rank `subject` (or kAnySubject) holds on `obj` or an ancestor; 0 if none.
  int Rank(std::string_view subject, const ObjectRef& obj) const;

  // Rank >= MinRank(p) (and PermissionAppliesTo(p, obj.type)); can_observe also holds when the
  // subject holds any relation on a descendant of `obj` (so the path down to a grant is
  // navigable): below a project or namespace by path, below a warehouse through the namespaces
  // recorded in it.
  bool Check(std::string_view subject, Permission p, const ObjectRef& obj) const;

  // The names of `parent`'s direct children of `kind` that `subject` may observe because of a
  // grant on the child or below it; also, for a project, every top-level namespace recorded in a
  // warehouse of that project the subject holds a grant on. (A rank on the parent or above makes
  // every child visible; the caller lists those itself.) Sorted, without duplicates; only names
  // strictly after `start_after` ("" = from the first), at most `limit` of them (0 = all).
  // `parent` is a project (its root namespace) or a namespace; anything else has no children
  // here. Cost: proportional to the subject's grants under `parent`.
  std::vector<std::string> VisibleChildren(std::string_view subject, const ObjectRef& parent,
                                           ChildKind kind, std::string_view start_after = {},
                                           size_t limit = 0) const;

  // The projects in which `subject` holds a grant (on the project or anything in it), sorted.
  // Server admins see every project; the caller handles that.
  std::vector<std::string> ProjectsOf(std::string_view subject) const;

  // The tuples matching every given field of `filter`, in Tuple order.
  std::vector<Tuple> Read(const TupleFilter& filter) const;

  size_t TupleCount() const;
  // The grants stored on exactly `obj`, sorted.
  std::vector<Grant> GrantsOn(const ObjectRef& obj) const;
  void Clear();

 private:
  // A sorted set of objects; a subject's entry in the reverse index.
  using ObjectSet = std::set<ObjectRef>;
  // A part of a subtree in ObjectRef order: the single object `lo` (exact) or the range
  // [lo, hi) (hi absent: to the end).
  struct KeyRange {
    ObjectRef lo;
    std::optional<ObjectRef> hi;
    bool exact = false;
  };

  // The best rank up the chain, or the first one that reaches `enough`.
  int RankLocked(std::string_view subject, const ObjectRef& obj, int enough = kMaxRank) const
      REQUIRES_SHARED(mu_);
  bool HoldsBelowLocked(const ObjectSet& held, const ObjectRef& obj) const REQUIRES_SHARED(mu_);
  void AddChildrenLocked(const ObjectSet& held, const ObjectRef& parent, ChildKind kind,
                         std::string_view start_after, size_t limit,
                         std::set<std::string>* names) const REQUIRES_SHARED(mu_);
  std::string_view WarehouseOfLocked(std::string_view project, std::string_view ns) const
      REQUIRES_SHARED(mu_);
  std::vector<KeyRange> SubtreeRangesLocked(const ObjectRef& root) const REQUIRES_SHARED(mu_);
  bool InSubtreeLocked(const ObjectRef& obj, const ObjectRef& root) const REQUIRES_SHARED(mu_);
  // The reverse-index sets to consult for `subject`: its own and kAnySubject's (when present).
  std::vector<const ObjectSet*> HeldBy(std::string_view subject) const REQUIRES_SHARED(mu_);
  void SetGrantsLocked(const ObjectRef& obj, std::vector<Grant> grants) REQUIRES(mu_);
  // Erases one object's grants from both indexes; returns the next forward entry.
  std::map<ObjectRef, std::vector<Grant>>::iterator EraseLocked(
      std::map<ObjectRef, std::vector<Grant>>::iterator it) REQUIRES(mu_);
  void ClearNamespaceWarehouseLocked(const std::string& project, const std::string& ns)
      REQUIRES(mu_);

  mutable SharedMutex mu_;
  // each vector sorted, non-empty
  std::map<ObjectRef, std::vector<Grant>> forward_ GUARDED_BY(mu_);
  std::map<std::string, ObjectSet, std::less<>> reverse_ GUARDED_BY(mu_);  // no empty sets
  size_t tuple_count_ GUARDED_BY(mu_) = 0;
  // project -> top-level namespace -> warehouse.
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> ns_warehouse_
      GUARDED_BY(mu_);
  // project -> warehouse -> its top-level namespaces.
  std::map<std::string, std::map<std::string, std::set<std::string>, std::less<>>, std::less<>>
      warehouse_ns_ GUARDED_BY(mu_);
};

}  // namespace quiver::catalog::authz
