#include "catalog/authz/index.h"

#include <algorithm>

namespace quiver::catalog::authz {

namespace {

using Path = std::vector<std::string>;

bool HasPrefix(const Path& path, const Path& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// The smallest ref whose path is strictly longer than `prefix` and starts with it (names are
// never empty, so prefix + {""} sorts before all of them and after `prefix` itself).
ObjectRef FirstBelow(const Path& prefix) {
  ObjectRef ref{ObjectType::kServer, prefix};
  ref.path.emplace_back();
  return ref;
}

// The smallest ref after every ref whose path starts with `prefix` (names never contain NUL, so
// last + "\0" is the next name after last). REQUIRES: !prefix.empty().
ObjectRef PastPrefix(const Path& prefix) {
  ObjectRef ref{ObjectType::kServer, prefix};
  ref.path.back().push_back('\0');
  return ref;
}

Path ChildPath(const Path& parent, const std::string& name) {
  Path child = parent;
  child.push_back(name);
  return child;
}

const ObjectRef& KeyOf(const ObjectRef& ref) { return ref; }
template <typename V>
const ObjectRef& KeyOf(const std::pair<const ObjectRef, V>& entry) {
  return entry.first;
}

// Calls fn(element) for the elements of `c` (a set or map keyed by ObjectRef) inside `ranges`
// (sorted, disjoint), in order, from the first key >= *from (when given), until fn returns false.
template <typename Container, typename Range, typename Fn>
void ForEachInRanges(const Container& c, const std::vector<Range>& ranges, const ObjectRef* from,
                     Fn fn) {
  for (const Range& range : ranges) {
    if (range.exact) {
      if (from != nullptr && range.lo < *from) continue;
      auto it = c.find(range.lo);
      if (it != c.end() && !fn(*it)) return;
      continue;
    }
    if (from != nullptr && range.hi && !(*from < *range.hi)) continue;
    const ObjectRef& start = from != nullptr && range.lo < *from ? *from : range.lo;
    for (auto it = c.lower_bound(start); it != c.end() && (!range.hi || KeyOf(*it) < *range.hi);
         ++it) {
      if (!fn(*it)) return;
    }
  }
}

}  // namespace

void AuthzIndex::SetGrants(const ObjectRef& obj, std::vector<Grant> grants) {
  WriterLock lock(&mu_);
  SetGrantsLocked(obj, std::move(grants));
}

void AuthzIndex::SetGrantsLocked(const ObjectRef& obj, std::vector<Grant> grants) {
  std::sort(grants.begin(), grants.end());
  grants.erase(std::unique(grants.begin(), grants.end()), grants.end());
  auto it = forward_.find(obj);
  if (it != forward_.end()) {
    EraseLocked(it);
  }
  if (grants.empty()) return;
  for (const Grant& g : grants) reverse_[g.subject].insert(obj);
  tuple_count_ += grants.size();
  forward_.emplace(obj, std::move(grants));
}

std::map<ObjectRef, std::vector<Grant>>::iterator AuthzIndex::EraseLocked(
    std::map<ObjectRef, std::vector<Grant>>::iterator it) {
  for (const Grant& g : it->second) {
    auto r = reverse_.find(g.subject);
    if (r == reverse_.end()) continue;  // an earlier grant of this subject erased it already
    r->second.erase(it->first);
    if (r->second.empty()) reverse_.erase(r);
  }
  tuple_count_ -= it->second.size();
  return forward_.erase(it);
}

void AuthzIndex::SetNamespaceWarehouse(const std::string& project, const std::string& ns,
                                       const std::string& warehouse) {
  WriterLock lock(&mu_);
  ClearNamespaceWarehouseLocked(project, ns);
  ns_warehouse_[project][ns] = warehouse;
  warehouse_ns_[project][warehouse].insert(ns);
}

void AuthzIndex::ClearNamespaceWarehouse(const std::string& project, const std::string& ns) {
  WriterLock lock(&mu_);
  ClearNamespaceWarehouseLocked(project, ns);
}

void AuthzIndex::ClearNamespaceWarehouseLocked(const std::string& project, const std::string& ns) {
  auto p = ns_warehouse_.find(project);
  if (p == ns_warehouse_.end()) return;
  auto n = p->second.find(ns);
  if (n == p->second.end()) return;
  auto wp = warehouse_ns_.find(project);
  if (wp != warehouse_ns_.end()) {
    auto w = wp->second.find(n->second);
    if (w != wp->second.end()) {
      w->second.erase(ns);
      if (w->second.empty()) wp->second.erase(w);
    }
    if (wp->second.empty()) warehouse_ns_.erase(wp);
  }
  p->second.erase(n);
  if (p->second.empty()) ns_warehouse_.erase(p);
}

std::string_view AuthzIndex::WarehouseOfLocked(std::string_view project,
                                               std::string_view ns) const {
  auto p = ns_warehouse_.find(project);
  if (p == ns_warehouse_.end()) return {};
  auto n = p->second.find(ns);
  return n == p->second.end() ? std::string_view() : std::string_view(n->second);
}

std::vector<AuthzIndex::KeyRange> AuthzIndex::SubtreeRangesLocked(const ObjectRef& root) const {
  std::vector<KeyRange> ranges;
  // A namespace's subtree: itself (not the same-named table beside it) and every longer path.
  auto add_namespace = [&ranges](const Path& path) {
    ranges.push_back({ObjectRef{ObjectType::kNamespace, path}, std::nullopt, true});
    ranges.push_back({FirstBelow(path), PastPrefix(path), false});
  };
  switch (root.type) {
    case ObjectType::kServer:
      ranges.push_back({ObjectRef::Server(), std::nullopt, false});
      break;
    case ObjectType::kProject:
      ranges.push_back({root, PastPrefix(root.path), false});
      break;
    case ObjectType::kWarehouse: {
      ranges.push_back({root, std::nullopt, true});
      auto p = warehouse_ns_.find(root.path[0]);
      if (p == warehouse_ns_.end()) break;
      auto w = p->second.find(root.path[1]);
      if (w == p->second.end()) break;
      for (const std::string& ns : w->second) add_namespace({root.path[0], ns});
      std::sort(ranges.begin(), ranges.end(),
                [](const KeyRange& a, const KeyRange& b) { return a.lo < b.lo; });
      break;
    }
    case ObjectType::kNamespace:
      add_namespace(root.path);
      break;
    case ObjectType::kTable:
      ranges.push_back({root, std::nullopt, true});
      break;
  }
  return ranges;
}

bool AuthzIndex::InSubtreeLocked(const ObjectRef& obj, const ObjectRef& root) const {
  ObjectRef ref = obj;
  while (true) {
    if (ref == root) return true;
    std::string_view wh =
        IsTopLevelNamespace(ref) ? WarehouseOfLocked(ref.path[0], ref.path[1]) : std::string_view();
    if (!ToParent(&ref, wh)) return false;
  }
}

std::vector<const AuthzIndex::ObjectSet*> AuthzIndex::HeldBy(std::string_view subject) const {
  std::vector<const ObjectSet*> sets;
  auto own = reverse_.find(subject);
  if (own != reverse_.end()) sets.push_back(&own->second);
  if (subject != kAnySubject) {
    auto any = reverse_.find(kAnySubject);
    if (any != reverse_.end()) sets.push_back(&any->second);
  }
  return sets;
}

void AuthzIndex::RemoveSubtree(const ObjectRef& obj) {
  WriterLock lock(&mu_);
  if (obj.type == ObjectType::kServer) {
    forward_.clear();
    reverse_.clear();
    tuple_count_ = 0;
    ns_warehouse_.clear();
    warehouse_ns_.clear();
    return;
  }
  for (const KeyRange& range : SubtreeRangesLocked(obj)) {
    if (range.exact) {
      auto it = forward_.find(range.lo);
      if (it != forward_.end()) EraseLocked(it);
      continue;
    }
    auto it = forward_.lower_bound(range.lo);
    while (it != forward_.end() && (!range.hi || it->first < *range.hi)) it = EraseLocked(it);
  }
  const std::string& project = obj.path[0];
  switch (obj.type) {
    case ObjectType::kProject:
      ns_warehouse_.erase(project);
      warehouse_ns_.erase(project);
      break;
    case ObjectType::kWarehouse: {
      auto p = warehouse_ns_.find(project);
      if (p == warehouse_ns_.end()) break;
      auto w = p->second.find(obj.path[1]);
      if (w == p->second.end()) break;
      std::set<std::string> namespaces = w->second;  // the loop below erases w
      for (const std::string& ns : namespaces) ClearNamespaceWarehouseLocked(project, ns);
      break;
    }
    case ObjectType::kNamespace:
      if (IsTopLevelNamespace(obj)) ClearNamespaceWarehouseLocked(project, obj.path[1]);
      break;
    default:
      break;
  }
}

void AuthzIndex::MoveObject(const ObjectRef& from, const ObjectRef& to) {
  WriterLock lock(&mu_);
  if (from == to) return;
  std::vector<Grant> grants;
  auto it = forward_.find(from);
  if (it != forward_.end()) {
    grants = it->second;
    EraseLocked(it);
  }
  SetGrantsLocked(to, std::move(grants));
}

int AuthzIndex::Rank(std::string_view subject, const ObjectRef& obj) const {
  ReaderLock lock(&mu_);
  return RankLocked(subject, obj);
}

int AuthzIndex::RankLocked(std::string_view subject, const ObjectRef& obj, int enough) const {
  int best = 0;
  ObjectRef ref = obj;
  while (true) {
    auto it = forward_.find(ref);
    if (it != forward_.end()) {
      for (const Grant& g : it->second) {
        if (g.subject == subject || g.subject == kAnySubject) {
          best = std::max(best, RelationRank(g.relation));
        }
      }
    }
    if (best >= enough) return best;  // a check stops at the first level that answers it
    std::string_view wh =
        IsTopLevelNamespace(ref) ? WarehouseOfLocked(ref.path[0], ref.path[1]) : std::string_view();
    if (!ToParent(&ref, wh)) return best;
  }
}

bool AuthzIndex::HoldsBelowLocked(const ObjectSet& held, const ObjectRef& obj) const {
  switch (obj.type) {
    case ObjectType::kServer:
    case ObjectType::kProject:
    case ObjectType::kNamespace: {
      auto it = held.lower_bound(FirstBelow(obj.path));
      return it != held.end() && HasPrefix(it->path, obj.path);
    }
    case ObjectType::kWarehouse: {
      // Walk the subject's top-level children of the project, one name at a time, and ask
      // whether that name is a namespace recorded in this warehouse.
      const std::string& project = obj.path[0];
      const std::string& warehouse = obj.path[1];
      Path project_path = {project};
      auto it = held.lower_bound(FirstBelow(project_path));
      while (it != held.end() && HasPrefix(it->path, project_path)) {
        if (WarehouseOfLocked(project, it->path[1]) == warehouse) {
          // The namespace or anything in it; not a same-named table or warehouse.
          if (it->path.size() > 2 || it->type == ObjectType::kNamespace) return true;
          ++it;
          continue;
        }
        it = held.lower_bound(PastPrefix({project, it->path[1]}));
      }
      return false;
    }
    case ObjectType::kTable:
      return false;
  }
  return false;
}

bool AuthzIndex::Check(std::string_view subject, Permission p, const ObjectRef& obj) const {
  if (!PermissionAppliesTo(p, obj.type)) return false;
  ReaderLock lock(&mu_);
  if (RankLocked(subject, obj, MinRank(p)) >= MinRank(p)) return true;
  if (p != Permission::kObserve) return false;
  for (const ObjectSet* held : HeldBy(subject)) {
    if (HoldsBelowLocked(*held, obj)) return true;
  }
  return false;
}

void AuthzIndex::AddChildrenLocked(const ObjectSet& held, const ObjectRef& parent, ChildKind kind,
                                   std::string_view start_after, size_t limit,
                                   std::set<std::string>* names) const {
  const Path& base = parent.path;
  const size_t depth = base.size();
  // A warehouse grant {P, W} sits among the project's children under the name W but reveals
  // namespaces with any name, so that scan cannot start at start_after or stop at the limit.
  const bool expand_warehouses =
      parent.type == ObjectType::kProject && kind == ChildKind::kNamespace;
  ObjectRef start = FirstBelow(base);
  if (!start_after.empty() && !expand_warehouses) {
    start.path.back() = std::string(start_after);
    start.path.back().push_back('\0');
  }
  size_t added = 0;
  auto it = held.lower_bound(start);
  while (it != held.end() && HasPrefix(it->path, base)) {
    Path child = ChildPath(base, it->path[depth]);
    const std::string& name = child.back();
    bool visible = false;
    // The refs named exactly `child` (warehouse, namespace, table: in that order), then
    // everything inside a namespace of that name.
    auto jt = it;
    for (; jt != held.end() && jt->path == child; ++jt) {
      switch (jt->type) {
        case ObjectType::kWarehouse:
          if (expand_warehouses) {
            auto p = warehouse_ns_.find(base[0]);
            if (p == warehouse_ns_.end()) break;
            auto w = p->second.find(name);
            if (w == p->second.end()) break;
            for (auto ns = w->second.upper_bound(std::string(start_after)); ns != w->second.end();
                 ++ns) {
              names->insert(*ns);
            }
          }
          break;
        case ObjectType::kNamespace:
          visible |= kind == ChildKind::kNamespace;
          break;
        case ObjectType::kTable:
          visible |= kind == ChildKind::kTable;
          break;
        default:
          break;
      }
    }
    if (kind == ChildKind::kNamespace && jt != held.end() && jt->path.size() > child.size() &&
        HasPrefix(jt->path, child)) {
      visible = true;
    }
    if (visible && name > start_after) {
      names->insert(name);
      // Without warehouses the names come in order: later ones cannot make the first `limit`.
      if (!expand_warehouses && limit != 0 && ++added >= limit) return;
    }
    it = held.lower_bound(PastPrefix(child));
  }
}

std::vector<std::string> AuthzIndex::VisibleChildren(std::string_view subject,
                                                     const ObjectRef& parent, ChildKind kind,
                                                     std::string_view start_after,
                                                     size_t limit) const {
  if (parent.type != ObjectType::kProject && parent.type != ObjectType::kNamespace) return {};
  std::set<std::string> names;
  {
    ReaderLock lock(&mu_);
    for (const ObjectSet* held : HeldBy(subject)) {
      AddChildrenLocked(*held, parent, kind, start_after, limit, &names);
    }
  }
  std::vector<std::string> out;
  for (const std::string& name : names) {
    if (limit != 0 && out.size() >= limit) break;
    out.push_back(name);
  }
  return out;
}

std::vector<std::string> AuthzIndex::ProjectsOf(std::string_view subject) const {
  std::set<std::string> projects;
  ReaderLock lock(&mu_);
  for (const ObjectSet* held : HeldBy(subject)) {
    // FirstBelow({}) skips the server object, the only one with an empty path.
    auto it = held->lower_bound(FirstBelow({}));
    while (it != held->end()) {
      const std::string& project = it->path[0];
      projects.insert(project);
      it = held->lower_bound(PastPrefix({project}));
    }
  }
  return {projects.begin(), projects.end()};
}

std::vector<Tuple> AuthzIndex::Read(const TupleFilter& filter) const {
  std::vector<Tuple> out;
  ReaderLock lock(&mu_);
  std::vector<KeyRange> ranges;
  if (filter.object) {
    if (filter.object_prefix && !InSubtreeLocked(*filter.object, *filter.object_prefix)) {
      return out;
    }
    ranges.push_back({*filter.object, std::nullopt, true});
  } else if (filter.object_prefix) {
    ranges = SubtreeRangesLocked(*filter.object_prefix);
  } else {
    ranges.push_back({ObjectRef::Server(), std::nullopt, false});
  }
  const ObjectRef* from = filter.start_after ? &filter.start_after->object : nullptr;
  // Appends the matching tuples of one object; false once the limit is reached.
  auto emit = [&](const ObjectRef& obj, const std::vector<Grant>& grants) {
    for (const Grant& g : grants) {
      if (filter.subject && g.subject != *filter.subject) continue;
      if (filter.relation && g.relation != *filter.relation) continue;
      Tuple tuple{g.subject, g.relation, obj};
      if (filter.start_after && !(*filter.start_after < tuple)) continue;
      out.push_back(std::move(tuple));
      if (filter.limit != 0 && out.size() >= filter.limit) return false;
    }
    return true;
  };
  if (filter.subject) {
    // Only the objects this subject holds grants on.
    auto held = reverse_.find(*filter.subject);
    if (held == reverse_.end()) return out;
    // The callback runs under the lock held above; the analysis does not see into lambdas.
    const auto* forward = &forward_;
    ForEachInRanges(held->second, ranges, from,
                    [&](const ObjectRef& obj) { return emit(obj, forward->find(obj)->second); });
  } else {
    ForEachInRanges(forward_, ranges, from,
                    [&](const auto& entry) { return emit(entry.first, entry.second); });
  }
  return out;
}

size_t AuthzIndex::TupleCount() const {
  ReaderLock lock(&mu_);
  return tuple_count_;
}

std::vector<Grant> AuthzIndex::GrantsOn(const ObjectRef& obj) const {
  ReaderLock lock(&mu_);
  auto it = forward_.find(obj);
  return it == forward_.end() ? std::vector<Grant>() : it->second;
}

void AuthzIndex::Clear() {
  WriterLock lock(&mu_);
  forward_.clear();
  reverse_.clear();
  tuple_count_ = 0;
  ns_warehouse_.clear();
  warehouse_ns_.clear();
}

}  // namespace quiver::catalog::authz
