#include "catalog/authz/model.h"

#include <array>

#include <fmt/format.h>

#include "catalog/object_id.h"

namespace quiver::catalog::authz {

namespace {

constexpr std::array<std::string_view, 5> kTypeNames = {"server", "project", "warehouse",
                                                        "namespace", "table"};
constexpr std::array<std::string_view, 4> kRelationNames = {"admin", "owner", "writer", "reader"};
constexpr std::array<std::string_view, 10> kPermissionNames = {
    "can_observe",          "can_read_data",     "can_write_data", "can_create_table",
    "can_create_namespace", "can_drop",          "can_grant",      "can_administer",
    "can_create_warehouse", "can_create_project"};

// What a name at position i of a path of this type is called in messages.
std::string_view ElementKind(ObjectType type, size_t i, size_t size) {
  if (i == 0) return "project";
  if (type == ObjectType::kWarehouse) return "warehouse";
  if (type == ObjectType::kTable && i + 1 == size) return "table";
  return "namespace";
}

// Allowed path lengths per type.
struct Bounds {
  size_t min;
  size_t max;
};
Bounds PathBounds(ObjectType type) {
  switch (type) {
    case ObjectType::kServer:
      return {0, 0};
    case ObjectType::kProject:
      return {1, 1};
    case ObjectType::kWarehouse:
      return {2, 2};
    case ObjectType::kNamespace:
    case ObjectType::kTable:
      return {2, 1 + kMaxIdDepth};
  }
  return {0, 0};
}

std::string AllowedRelations(ObjectType type) {
  switch (type) {
    case ObjectType::kServer:
      return "admin";
    case ObjectType::kProject:
      return "admin, writer, reader";
    default:
      return "owner, writer, reader";
  }
}

}  // namespace

std::string_view ObjectTypeName(ObjectType type) { return kTypeNames[static_cast<size_t>(type)]; }

Result<ObjectType> ParseObjectType(std::string_view text) {
  for (size_t i = 0; i < kTypeNames.size(); ++i) {
    if (kTypeNames[i] == text) return static_cast<ObjectType>(i);
  }
  return Status::InvalidInput(fmt::format(
      "unknown object type '{}'; expected server, project, warehouse, namespace or table", text));
}

Status ValidateObjectRef(const ObjectRef& ref) {
  Bounds bounds = PathBounds(ref.type);
  if (ref.path.size() < bounds.min || ref.path.size() > bounds.max) {
    std::string expected = bounds.min == bounds.max ? fmt::format("{}", bounds.min)
                                                    : fmt::format("{}..{}", bounds.min, bounds.max);
    return Status::InvalidInput(fmt::format("a {} reference has {} path elements, not {}",
                                            ObjectTypeName(ref.type), expected, ref.path.size()));
  }
  for (size_t i = 0; i < ref.path.size(); ++i) {
    QV_RETURN_IF_ERROR(ValidateName(ref.path[i], ElementKind(ref.type, i, ref.path.size())));
  }
  return Status::OK();
}

std::string FormatObjectRef(const ObjectRef& ref) {
  std::string out(ObjectTypeName(ref.type));
  out += ':';
  if (ref.type == ObjectType::kServer) {
    out += kServerObjectName;
  } else {
    out += JoinId(ref.path, "/");
  }
  return out;
}

Result<ObjectRef> ParseObjectRef(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidInput(fmt::format("object '{}' is not of the form <type>:<path>", text));
  }
  QV_ASSIGN_OR_RETURN(ObjectType type, ParseObjectType(text.substr(0, colon)));
  std::string_view rest = text.substr(colon + 1);
  ObjectRef ref{type, {}};
  if (type == ObjectType::kServer) {
    if (rest != kServerObjectName) {
      return Status::InvalidInput(
          fmt::format("the server object is 'server:{}', not '{}'", kServerObjectName, text));
    }
    return ref;
  }
  // Split on every '/': an empty element (leading, trailing or doubled '/') is then an empty
  // name, which ValidateName rejects.
  size_t start = 0;
  while (true) {
    size_t slash = rest.find('/', start);
    ref.path.emplace_back(
        rest.substr(start, slash == std::string_view::npos ? rest.npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
    if (ref.path.size() > 1 + kMaxIdDepth) break;  // too long already; no need to split it all
  }
  Status status = ValidateObjectRef(ref);
  if (!status.ok()) return status.WithContext(fmt::format("object '{}'", text));
  return ref;
}

bool ToParent(ObjectRef* ref, std::string_view warehouse) {
  switch (ref->type) {
    case ObjectType::kServer:
      return false;
    case ObjectType::kProject:
      ref->type = ObjectType::kServer;
      ref->path.clear();
      return true;
    case ObjectType::kWarehouse:
      ref->type = ObjectType::kProject;
      ref->path.pop_back();
      return true;
    case ObjectType::kNamespace:
      if (ref->path.size() > 2) {
        ref->path.pop_back();
      } else if (!warehouse.empty()) {
        ref->type = ObjectType::kWarehouse;
        ref->path.back() = std::string(warehouse);
      } else {
        ref->type = ObjectType::kProject;
        ref->path.pop_back();
      }
      return true;
    case ObjectType::kTable:
      // {P, t} lives in the project's root namespace, which is the project itself.
      ref->type = ref->path.size() > 2 ? ObjectType::kNamespace : ObjectType::kProject;
      ref->path.pop_back();
      return true;
  }
  return false;
}

Status ValidateSubject(std::string_view subject) {
  if (subject.substr(0, kUserPrefix.size()) != kUserPrefix) {
    return Status::InvalidInput(
        fmt::format("subject '{}' is not of the form user:<name>", subject));
  }
  if (subject == kAnySubject) return Status::OK();
  std::string_view name = subject.substr(kUserPrefix.size());
  if (name.empty() || name.size() > kMaxSubjectNameBytes) {
    return Status::InvalidInput(fmt::format("a subject's user name must be 1..{} bytes, not {}",
                                            kMaxSubjectNameBytes, name.size()));
  }
  if (!IsValidUtf8(name)) {
    return Status::InvalidInput("a subject's user name must be valid UTF-8");
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidInput(fmt::format(
          "a subject's user name must not contain control characters (found 0x{:02x})", c));
    }
    if (c == '#') {
      return Status::InvalidInput(fmt::format(
          "subject '{}' must not contain '#' (it ends the subject in a tuple)", subject));
    }
  }
  return Status::OK();
}

std::string UserSubject(std::string_view name) {
  std::string out(kUserPrefix);
  out += name;
  return out;
}

std::string_view RelationName(Relation relation) {
  return kRelationNames[static_cast<size_t>(relation)];
}

Result<Relation> ParseRelation(std::string_view text) {
  for (size_t i = 0; i < kRelationNames.size(); ++i) {
    if (kRelationNames[i] == text) return static_cast<Relation>(i);
  }
  return Status::InvalidInput(
      fmt::format("unknown relation '{}'; expected admin, owner, writer or reader", text));
}

int RelationRank(Relation relation) {
  switch (relation) {
    case Relation::kAdmin:
    case Relation::kOwner:
      return 3;
    case Relation::kWriter:
      return 2;
    case Relation::kReader:
      return 1;
  }
  return 0;
}

Status ValidateRelationFor(ObjectType type, Relation relation) {
  bool ok = false;
  switch (type) {
    case ObjectType::kServer:
      ok = relation == Relation::kAdmin;
      break;
    case ObjectType::kProject:
      ok = relation != Relation::kOwner;
      break;
    default:
      ok = relation != Relation::kAdmin;
      break;
  }
  if (ok) return Status::OK();
  return Status::InvalidInput(fmt::format("relation '{}' is not allowed on a {}; allowed: {}",
                                          RelationName(relation), ObjectTypeName(type),
                                          AllowedRelations(type)));
}

std::string_view PermissionName(Permission permission) {
  return kPermissionNames[static_cast<size_t>(permission)];
}

Result<Permission> ParsePermission(std::string_view text) {
  for (size_t i = 0; i < kPermissionNames.size(); ++i) {
    if (kPermissionNames[i] == text) return static_cast<Permission>(i);
  }
  return Status::InvalidInput(fmt::format("unknown permission '{}'", text));
}

int MinRank(Permission permission) {
  switch (permission) {
    case Permission::kObserve:
    case Permission::kReadData:
      return 1;
    case Permission::kWriteData:
    case Permission::kCreateTable:
      return 2;
    default:
      return 3;
  }
}

bool PermissionAppliesTo(Permission permission, ObjectType type) {
  switch (permission) {
    case Permission::kCreateWarehouse:
      return type == ObjectType::kProject;
    case Permission::kCreateProject:
      return type == ObjectType::kServer;
    default:
      return true;
  }
}

Status ValidateTuple(const Tuple& tuple) {
  QV_RETURN_IF_ERROR(ValidateSubject(tuple.subject));
  QV_RETURN_IF_ERROR(ValidateObjectRef(tuple.object));
  return ValidateRelationFor(tuple.object.type, tuple.relation);
}

std::string FormatTuple(const Tuple& tuple) {
  return fmt::format("{}#{}@{}", tuple.subject, RelationName(tuple.relation),
                     FormatObjectRef(tuple.object));
}

Result<Tuple> ParseTuple(std::string_view text) {
  // Subjects never contain '#' and relations never contain '@'; object names may contain both.
  size_t hash = text.find('#');
  size_t at = hash == std::string_view::npos ? hash : text.find('@', hash + 1);
  if (at == std::string_view::npos) {
    return Status::InvalidInput(
        fmt::format("tuple '{}' is not of the form <subject>#<relation>@<object>", text));
  }
  Tuple tuple;
  tuple.subject = std::string(text.substr(0, hash));
  QV_RETURN_IF_ERROR(ValidateSubject(tuple.subject));
  QV_ASSIGN_OR_RETURN(tuple.relation, ParseRelation(text.substr(hash + 1, at - hash - 1)));
  QV_ASSIGN_OR_RETURN(tuple.object, ParseObjectRef(text.substr(at + 1)));
  QV_RETURN_IF_ERROR(ValidateRelationFor(tuple.object.type, tuple.relation));
  return tuple;
}

nlohmann::json TupleToJson(const Tuple& tuple) {
  return nlohmann::json{{"subject", tuple.subject},
                        {"relation", std::string(RelationName(tuple.relation))},
                        {"object", FormatObjectRef(tuple.object)}};
}

Result<Tuple> TupleFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Status::InvalidInput("a tuple must be a JSON object");
  for (const auto& [key, value] : json.items()) {
    if (key != "subject" && key != "relation" && key != "object") {
      return Status::InvalidInput(fmt::format("unknown tuple member '{}'", key));
    }
    if (!value.is_string()) {
      return Status::InvalidInput(fmt::format("tuple member '{}' must be a string", key));
    }
  }
  for (const char* key : {"subject", "relation", "object"}) {
    if (!json.contains(key)) {
      return Status::InvalidInput(fmt::format("tuple member '{}' is missing", key));
    }
  }
  Tuple tuple;
  tuple.subject = json["subject"].get<std::string>();
  QV_RETURN_IF_ERROR(ValidateSubject(tuple.subject));
  QV_ASSIGN_OR_RETURN(tuple.relation, ParseRelation(json["relation"].get<std::string>()));
  QV_ASSIGN_OR_RETURN(tuple.object, ParseObjectRef(json["object"].get<std::string>()));
  QV_RETURN_IF_ERROR(ValidateRelationFor(tuple.object.type, tuple.relation));
  return tuple;
}

}  // namespace quiver::catalog::authz
