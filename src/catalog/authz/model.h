// The authorization model: object types and references, subjects, relations (what is granted),
// permissions (what is checked), relation tuples, and their text and JSON forms.
//
// A tuple "<subject>#<relation>@<object>" (e.g. "user:alice#admin@project:p") says the subject
// holds the relation on the object. Relations have ranks; a permission needs a minimum rank on
// the object or any ancestor (the hierarchy is server > project > warehouse > namespace >
// nested namespace > table; see index.h for how a top-level namespace finds its warehouse).
//
// Object paths use the catalog's scoped ids (catalog.h): the first element is the project.
//   server:quiver            {}
//   project:P                {P}
//   warehouse:P/W            {P, W}
//   namespace:P/n1/.../nk    {P, n1..nk}, 1 <= k <= kMaxIdDepth
//   table:P/n1/.../nk/t      {P, n1..nk, t}, 0 <= k, k + 1 <= kMaxIdDepth
// Names are catalog names (object_id.h), so they never contain '/' and the text form needs no
// escaping.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace quiver::catalog::authz {

// The order is part of ObjectRef's order (see operator< below); do not reorder.
enum class ObjectType { kServer, kProject, kWarehouse, kNamespace, kTable };

std::string_view ObjectTypeName(ObjectType type);  // "server", "project", ...
Result<ObjectType> ParseObjectType(std::string_view text);

// The server's only object is "server:quiver".
inline constexpr std::string_view kServerObjectName = "quiver";

struct ObjectRef {
  ObjectType type = ObjectType::kServer;
  std::vector<std::string> path;

  static ObjectRef Server() { return {ObjectType::kServer, {}}; }
  static ObjectRef Project(std::string project) {
    return {ObjectType::kProject, {std::move(project)}};
  }
  static ObjectRef Warehouse(std::string project, std::string warehouse) {
    return {ObjectType::kWarehouse, {std::move(project), std::move(warehouse)}};
  }
  // `scoped` = {P, n1..nk} / {P, n1..nk, t}, the catalog's scoped id.
  static ObjectRef Namespace(std::vector<std::string> scoped) {
    return {ObjectType::kNamespace, std::move(scoped)};
  }
  static ObjectRef Table(std::vector<std::string> scoped) {
    return {ObjectType::kTable, std::move(scoped)};
  }

  friend bool operator==(const ObjectRef& a, const ObjectRef& b) = default;
  // By path (lexicographic on elements), then type. So an object's descendants that have longer
  // paths (namespaces and tables under a project or namespace) form one contiguous range right
  // after it, which the index's range scans rely on.
  friend bool operator<(const ObjectRef& a, const ObjectRef& b) {
    if (a.path != b.path) return a.path < b.path;
    return a.type < b.type;
  }
};

// Every name valid (ValidateName) and the path length right for the type.
Status ValidateObjectRef(const ObjectRef& ref);
// "project:p", "table:p/a/t", "server:quiver". REQUIRES: ValidateObjectRef(ref).ok().
std::string FormatObjectRef(const ObjectRef& ref);
Result<ObjectRef> ParseObjectRef(std::string_view text);

// Whether `ref` is a namespace directly in its project's root (the kind that lives in a
// warehouse).
inline bool IsTopLevelNamespace(const ObjectRef& ref) {
  return ref.type == ObjectType::kNamespace && ref.path.size() == 2;
}

// Replaces *ref by its parent and returns true; false (and *ref unchanged) for the server.
// `warehouse` is the warehouse recorded for a top-level namespace ("" when none: its parent is
// then the project); it is ignored for every other type. REQUIRES: ValidateObjectRef(*ref).ok().
bool ToParent(ObjectRef* ref, std::string_view warehouse);

// Subjects: "user:<name>" (name: 1..kMaxSubjectNameBytes bytes of UTF-8, no control character,
// no '#', which separates the subject in a tuple's text; '@' is fine), or kAnySubject, which
// stands for every authenticated principal.
inline constexpr std::string_view kUserPrefix = "user:";
inline constexpr std::string_view kAnySubject = "user:*";
inline constexpr size_t kMaxSubjectNameBytes = 256;

Status ValidateSubject(std::string_view subject);
// "user:<name>" (not validated).
std::string UserSubject(std::string_view name);

// Assignable relations. Ranks: reader 1, writer 2, owner 3, admin 3.
enum class Relation { kAdmin, kOwner, kWriter, kReader };

inline constexpr int kMaxRank = 3;

std::string_view RelationName(Relation relation);  // "admin", "owner", ...
Result<Relation> ParseRelation(std::string_view text);
int RelationRank(Relation relation);
// Which relations an object type accepts: server: admin; project: admin, writer, reader;
// warehouse, namespace, table: owner, writer, reader. InvalidInput naming the allowed ones.
Status ValidateRelationFor(ObjectType type, Relation relation);

// Computed permissions.
enum class Permission {
  kObserve,
  kReadData,
  kWriteData,
  kCreateTable,
  kCreateNamespace,
  kDrop,
  kGrant,
  kAdminister,
  kCreateWarehouse,
  kCreateProject,
};

std::string_view PermissionName(Permission permission);  // "can_observe", ...
Result<Permission> ParsePermission(std::string_view text);
// The rank needed on the object or an ancestor: observe/read_data 1, write_data/create_table 2,
// everything else 3. (can_observe is also granted by any relation on a descendant; index.h.)
int MinRank(Permission permission);
// Where a permission means something: can_create_warehouse only on a project, can_create_project
// only on the server; every other permission on every type. AuthzIndex::Check answers false
// elsewhere.
bool PermissionAppliesTo(Permission permission, ObjectType type);

// A relation held by a subject, without the object (the grants stored on one object).
struct Grant {
  std::string subject;
  Relation relation = Relation::kReader;

  friend bool operator==(const Grant& a, const Grant& b) = default;
  friend bool operator<(const Grant& a, const Grant& b) {
    if (a.subject != b.subject) return a.subject < b.subject;
    return a.relation < b.relation;
  }
};

struct Tuple {
  std::string subject;
  Relation relation = Relation::kReader;
  ObjectRef object;

  friend bool operator==(const Tuple& a, const Tuple& b) = default;
  // By object, then subject, then relation: the order AuthzIndex::Read returns.
  friend bool operator<(const Tuple& a, const Tuple& b) {
    if (!(a.object == b.object)) return a.object < b.object;
    if (a.subject != b.subject) return a.subject < b.subject;
    return a.relation < b.relation;
  }
};

// Subject valid, object valid, relation allowed on the object's type.
Status ValidateTuple(const Tuple& tuple);
// "<subject>#<relation>@<object>". REQUIRES: ValidateTuple(tuple).ok().
std::string FormatTuple(const Tuple& tuple);
Result<Tuple> ParseTuple(std::string_view text);

// {"subject": "...", "relation": "...", "object": "<object text>"}; parsing rejects missing,
// non-string and unknown members.
nlohmann::json TupleToJson(const Tuple& tuple);
Result<Tuple> TupleFromJson(const nlohmann::json& json);

}  // namespace quiver::catalog::authz
