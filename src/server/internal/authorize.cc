#include "server/internal/authorize.h"

#include <fmt/format.h>

#include "server/internal/handlers.h"

namespace quiver::server::internal {

namespace {

using catalog::authz::ObjectRef;
using catalog::authz::Permission;

}  // namespace

ObjectRef RefOf(Target target, const catalog::ObjectId& scoped) {
  switch (target) {
    case Target::kTable:
      return ObjectRef::Table(scoped);
    case Target::kNamespace:
      return scoped.size() <= 1 ? ObjectRef::Project(scoped.front()) : ObjectRef::Namespace(scoped);
    case Target::kProject:
      return ObjectRef::Project(scoped.front());
  }
  return ObjectRef::Project(scoped.front());
}

Status HiddenTable(const catalog::ObjectId& scoped) {
  return Status(StatusCode::kTableNotFound,
                fmt::format("table '{}' does not exist", catalog::DisplayId(scoped)));
}

Status HiddenNamespace(const catalog::ObjectId& scoped) {
  if (scoped.size() <= 1) {
    return Status(StatusCode::kNamespaceNotFound, "the root namespace is not visible to you");
  }
  return Status(StatusCode::kNamespaceNotFound,
                fmt::format("namespace '{}' does not exist", catalog::DisplayId(scoped)));
}

Status Require(catalog::AccessControl& access, std::string_view subject, Permission permission,
               const ObjectRef& obj, Status hidden) {
  QV_ASSIGN_OR_RETURN(bool allowed, access.CheckFresh(subject, permission, obj));
  if (allowed) return Status::OK();
  if (access.Check(subject, Permission::kObserve, obj)) {
    return Status(
        StatusCode::kPermissionDenied,
        fmt::format("{} lacks {} on {}", subject, catalog::authz::PermissionName(permission),
                    catalog::authz::FormatObjectRef(obj)));
  }
  return hidden;
}

namespace {

Status Deactivated(const std::string& warehouse) {
  return Status(StatusCode::kPermissionDenied,
                fmt::format("warehouse '{}' is deactivated; a project admin can activate it "
                            "(POST /v1/warehouses/{}/activate)",
                            warehouse, warehouse));
}

// The warehouse the call's object lives in must be active. A namespace and everything below it
// live in its top-level namespace's warehouse; a table in the project's root namespace lives in
// the warehouse its record names (the project's default one when it was created), which only the
// record knows. A table that does not exist is left to the handler (its 404).
Status CheckWarehouseActive(catalog::Catalog& catalog, catalog::AccessControl& access,
                            const catalog::ObjectId& scoped, Target target) {
  if (scoped.size() < 2) return Status::OK();
  std::string warehouse;
  if (target == Target::kTable && scoped.size() == 2) {
    auto table = catalog.GetTable(scoped);
    if (!table.ok()) {
      return table.status().code() == StatusCode::kTableNotFound ? Status::OK() : table.status();
    }
    warehouse = table->warehouse;
  } else {
    warehouse = access.WarehouseOf(scoped[0], scoped[1]);
  }
  if (warehouse.empty() || access.WarehouseActive(scoped[0], warehouse)) return Status::OK();
  return Deactivated(warehouse);
}

// The shape of a create door's body, checked before anything about the parent is revealed.
Status CheckCreateShape(const Call& call) {
  std::string_view op = call.op->name;
  if (op == "CreateNamespace") {
    QV_RETURN_IF_ERROR(catalog::ValidateScopedId(call.id, "namespace", true));
    QV_ASSIGN_OR_RETURN(auto mode, call.String("mode"));
    QV_RETURN_IF_ERROR(ParseCreateMode(mode).status());
    return call.StringMap("properties").status();
  }
  QV_RETURN_IF_ERROR(catalog::ValidateScopedId(call.id, "table", false));
  if (op == "DeclareTable" || op == "RegisterTable") {
    QV_RETURN_IF_ERROR(call.StringMap("properties").status());
  }
  if (op == "RegisterTable") {
    QV_RETURN_IF_ERROR(call.RequiredString("location").status());
    QV_ASSIGN_OR_RETURN(auto mode, call.String("mode"));
    QV_RETURN_IF_ERROR(ParseCreateMode(mode).status());
  }
  return Status::OK();
}

// The object a create door checks its permission on: the parent namespace; for a top-level
// namespace, the warehouse it will live in.
Result<ObjectRef> CreateParent(catalog::Catalog& catalog, const Call& call) {
  // The root namespace always exists (its create is a 409, or a no-op with ExistOk): the
  // question is only whether the caller may create anything at the top.
  if (call.id.size() <= 1) return ObjectRef::Project(call.project);
  catalog::ObjectId parent = catalog::ParentOf(call.id);
  Status exists = catalog.DescribeNamespace(parent).status();
  if (exists.code() == StatusCode::kNamespaceNotFound && parent.size() > 1) {
    return Status(StatusCode::kNamespaceNotFound,
                  fmt::format("namespace '{}' does not exist; create it first (CreateNamespace, "
                              "POST /v1/namespace/{}/create)",
                              catalog::DisplayId(parent), catalog::DisplayId(parent)));
  }
  QV_RETURN_IF_ERROR(exists);
  if (call.op->name == "CreateNamespace" && call.id.size() == 2) {
    QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
    std::string warehouse;
    if (properties && properties->count(std::string(catalog::kWarehouseProperty))) {
      warehouse = properties->at(std::string(catalog::kWarehouseProperty));
      QV_RETURN_IF_ERROR(catalog.DescribeWarehouse(call.project, warehouse).status());
    } else {
      QV_ASSIGN_OR_RETURN(warehouse, catalog.WarehouseOfNamespace({call.project}));
    }
    return ObjectRef::Warehouse(call.project, warehouse);
  }
  return parent.size() <= 1 ? ObjectRef::Project(call.project) : ObjectRef::Namespace(parent);
}

// A create door whose object already exists acts on that object: ExistOk answers it (so the
// caller must be able to see it) and Overwrite replaces it (so the caller must be able to drop
// it). The permission on the parent (another warehouse's, for a top-level namespace) does not
// cover either; a caller who may not see it gets a bare conflict.
Status CheckExistingTarget(catalog::Catalog& catalog, catalog::AccessControl& access,
                           const Call& call) {
  std::string_view op = call.op->name;
  if (op != "CreateNamespace" && op != "RegisterTable") return Status::OK();
  if (call.id.size() <= 1) return Status::OK();
  QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
  QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
  if (mode == catalog::CreateMode::kCreate) return Status::OK();
  bool is_namespace = op == "CreateNamespace";
  Status exists = is_namespace ? catalog.DescribeNamespace(call.id).status()
                               : catalog.GetTable(call.id).status();
  if (!exists.ok()) return Status::OK();  // nothing there: a plain create
  ObjectRef obj = is_namespace ? ObjectRef::Namespace(call.id) : ObjectRef::Table(call.id);
  Permission needed =
      mode == catalog::CreateMode::kOverwrite ? Permission::kDrop : Permission::kObserve;
  Status conflict =
      is_namespace
          ? Status(StatusCode::kNamespaceAlreadyExists,
                   fmt::format("namespace '{}' already exists", catalog::DisplayId(call.id)))
          : Status(StatusCode::kTableAlreadyExists,
                   fmt::format("table '{}' already exists", catalog::DisplayId(call.id)));
  QV_ASSIGN_OR_RETURN(bool allowed, access.CheckFresh(call.subject, needed, obj));
  return allowed ? Status::OK() : conflict;
}

}  // namespace

Result<std::string> ResolveProject(catalog::Catalog& catalog, catalog::AccessControl& access,
                                   const Call& call) {
  access.MaybeRefresh();
  std::string named = call.http->Header(std::string(kProjectHeader));
  // LanceDB's remote "database" is the project (remote_dialect.h, invariant 2).
  const std::string& database = call.http->Header(std::string(kRemoteDatabaseHeader));
  if (!database.empty()) {
    if (!named.empty() && named != database) {
      return Status::InvalidInput(
          fmt::format("{} '{}' and {} '{}' name different projects; send one, or the same in both",
                      kProjectHeader, named, kRemoteDatabaseHeader, database));
    }
    named = database;
  }
  if (!call.http->Header(std::string(kRemoteDatabasePrefixHeader)).empty()) {
    return Status::Unsupported(fmt::format(
        "a database prefix ({}, from db://NAME/PREFIX) has no meaning in quiver: connect to "
        "db://PROJECT and address tables by namespace",
        kRemoteDatabasePrefixHeader));
  }
  const bool admin = access.IsServerAdmin(call.subject);
  auto hidden = [&](std::string_view name) {
    return Status(StatusCode::kNamespaceNotFound, fmt::format("project '{}' does not exist", name));
  };
  if (!named.empty()) {
    // A name no project can have (too long) is simply missing, like any other: its refusal must
    // not differ from a missing project's. A malformed one is still 400.
    QV_RETURN_IF_ERROR(catalog::ValidateLookupId({named}, "project", /*allow_root=*/false));
    if (!catalog::ValidateName(named, "project").ok()) return hidden(named);
    if (admin) {
      QV_RETURN_IF_ERROR(catalog.DescribeProject(named).status());
      return named;
    }
    ObjectRef ref = ObjectRef::Project(named);
    if (access.Check(call.subject, Permission::kObserve, ref)) return named;
    // About to refuse: a grant made on another server may be anywhere in the project, so read
    // the project's record and what the change log has (the record of the grant itself is
    // already written; its event follows within milliseconds).
    QV_RETURN_IF_ERROR(access.Reconcile(ref));
    access.MaybeRefresh();  // rate-limited: a refused caller cannot make every request read it
    if (access.Check(call.subject, Permission::kObserve, ref)) return named;
    return hidden(named);
  }
  if (admin) return std::string(catalog::kDefaultProject);
  QV_ASSIGN_OR_RETURN(std::vector<std::string> projects, access.ProjectsOf(call.subject));
  if (projects.empty()) {
    access.MaybeRefresh();  // about to refuse: see above
    QV_ASSIGN_OR_RETURN(projects, access.ProjectsOf(call.subject));
  }
  // Exactly one project, or the caller names one. No preference among several: a grant someone
  // else writes for the caller must never move the caller's requests into that project.
  if (projects.size() == 1) return projects.front();
  if (projects.empty()) {
    return Status(StatusCode::kPermissionDenied,
                  fmt::format("{} has no access to any project; ask a project admin for a grant",
                              call.subject));
  }
  return Status::InvalidInput(
      fmt::format("{} belongs to several projects ({}); choose one with the {} header",
                  call.subject, fmt::join(projects, ", "), kProjectHeader));
}

Status AuthorizeSpecCall(catalog::Catalog& catalog, catalog::AccessControl& access,
                         const Call& call) {
  const Operation& op = *call.op;
  if (op.door == Door::kNone) return Status::OK();
  access.MaybeRefresh();
  const std::string& subject = call.subject;
  if (op.door == Door::kCreate) {
    QV_RETURN_IF_ERROR(CheckCreateShape(call));
    QV_ASSIGN_OR_RETURN(ObjectRef parent, CreateParent(catalog, call));
    // A create door reveals its parent (the 404 above names it), so a refusal here is a 403.
    QV_RETURN_IF_ERROR(Require(access, subject, op.permission, parent,
                               Status(StatusCode::kPermissionDenied,
                                      fmt::format("{} lacks {} on {}", subject,
                                                  catalog::authz::PermissionName(op.permission),
                                                  catalog::authz::FormatObjectRef(parent)))));
    if (parent.type == catalog::authz::ObjectType::kWarehouse &&
        !access.WarehouseActive(parent.path[0], parent.path[1])) {
      return Status(StatusCode::kPermissionDenied,
                    fmt::format("warehouse '{}' is deactivated", parent.path[1]));
    }
    QV_RETURN_IF_ERROR(CheckExistingTarget(catalog, access, call));
    // The new object's namespace; an existing table that a create door replaces or answers.
    QV_RETURN_IF_ERROR(
        CheckWarehouseActive(catalog, access, catalog::ParentOf(call.id), Target::kNamespace));
    return CheckWarehouseActive(
        catalog, access, call.id,
        call.op->name == "CreateNamespace" ? Target::kNamespace : Target::kTable);
  }
  ObjectRef obj =
      RefOf(op.target, op.target == Target::kProject ? catalog::ObjectId{call.project} : call.id);
  Status hidden = op.target == Target::kTable ? HiddenTable(call.id) : HiddenNamespace(call.id);
  QV_RETURN_IF_ERROR(Require(access, subject, op.permission, obj, hidden));
  if (call.op->name == "RenameTable") {
    // The destination namespace (the same one by default) needs can_create_table too: a rename
    // creates a name there, and its 409 would reveal what the namespace holds.
    QV_ASSIGN_OR_RETURN(auto new_namespace, RenameDestination(call));
    catalog::ObjectId dest =
        new_namespace ? call.Scoped(*new_namespace) : catalog::ParentOf(call.id);
    QV_RETURN_IF_ERROR(catalog::ValidateScopedId(dest, "namespace", true));
    ObjectRef dest_ref = RefOf(Target::kNamespace, dest);
    QV_RETURN_IF_ERROR(
        Require(access, subject, Permission::kCreateTable, dest_ref, HiddenNamespace(dest)));
    // Neither out of a deactivated warehouse (below) nor into one.
    QV_RETURN_IF_ERROR(CheckWarehouseActive(catalog, access, dest, Target::kNamespace));
  }
  return CheckWarehouseActive(catalog, access, call.id, op.target);
}

}  // namespace quiver::server::internal
