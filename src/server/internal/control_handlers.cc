// The hierarchy layer's own operations: projects and warehouses (docs/authorization.md). Each
// handler runs the door order itself: shape (400) → parent exists (404) → permission (403) →
// conflict (409) → write; read and destructive doors answer a hidden object's 404.
#include <fmt/format.h>

#include "server/internal/authorize.h"
#include "server/internal/handlers.h"

namespace quiver::server::internal {

namespace {

using catalog::authz::ObjectRef;
using catalog::authz::Permission;
using nlohmann::json;

json ProjectJson(const catalog::ProjectInfo& p) {
  return {{"name", p.name}, {"properties", p.properties}, {"created_at", p.created_at}};
}

json WarehouseJson(const catalog::WarehouseInfo& w) {
  return {{"name", w.name},     {"project", w.project},       {"root", w.root},
          {"active", w.active}, {"properties", w.properties}, {"created_at", w.created_at}};
}

Status HiddenProject(std::string_view name) {
  return Status(StatusCode::kNamespaceNotFound, fmt::format("project '{}' does not exist", name));
}

Status HiddenWarehouse(std::string_view name) {
  return Status(
      StatusCode::kNamespaceNotFound,
      fmt::format("warehouse '{}' does not exist; create it (POST /v1/warehouses)", name));
}

Status Denied(std::string_view subject, Permission permission, const ObjectRef& obj) {
  return Status(
      StatusCode::kPermissionDenied,
      fmt::format("{} lacks {} on {}", subject, catalog::authz::PermissionName(permission),
                  catalog::authz::FormatObjectRef(obj)));
}

// The single name a control route's {id} carries.
Result<std::string> PathName(const Call& call, std::string_view what) {
  if (call.id.size() != 1) {
    return Status::InvalidInput(fmt::format("a {} is named by one path segment", what));
  }
  // A lookup: a name over the length limit is merely missing (answered as any missing one).
  QV_RETURN_IF_ERROR(catalog::ValidateLookupId({call.id.front()}, what, false));
  return call.id.front();
}

// A body's `project`, when present, must be the caller's own (it never selects a tenant).
Status CheckBodyProject(const Call& call, const std::string& project) {
  QV_ASSIGN_OR_RETURN(auto named, call.String("project"));
  if (named && *named != project) {
    return Status::InvalidInput(fmt::format(
        "'project' is '{}' but this request acts in project '{}': the project comes from your "
        "credentials (choose among yours with the {} header)",
        *named, project, kProjectHeader));
  }
  return Status::OK();
}

// Destructive warehouse operations are authorized on the project's can_administer; a caller
// who cannot even see the warehouse gets its 404.
Status RequireWarehouseAdmin(catalog::AccessControl& access, const Call& call,
                             const std::string& project, const std::string& warehouse) {
  ObjectRef proj = ObjectRef::Project(project);
  ObjectRef wh = ObjectRef::Warehouse(project, warehouse);
  QV_ASSIGN_OR_RETURN(bool allowed,
                      access.CheckFresh(call.subject, Permission::kAdminister, proj, &wh));
  if (allowed) return Status::OK();
  if (access.Check(call.subject, Permission::kObserve, wh)) {
    return Denied(call.subject, Permission::kAdminister, proj);
  }
  return HiddenWarehouse(warehouse);
}

}  // namespace

// --- projects ---------------------------------------------------------------------------
Result<HttpResponse> HandleCreateProject(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, call.RequiredString("name"));
  QV_RETURN_IF_ERROR(catalog::ValidateName(name, "project"));
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(bool allowed, ctx.access.CheckFresh(call.subject, Permission::kCreateProject,
                                                          ObjectRef::Server()));
  if (!allowed) return Denied(call.subject, Permission::kCreateProject, ObjectRef::Server());
  QV_ASSIGN_OR_RETURN(
      catalog::ProjectInfo info,
      ctx.catalog.CreateProject(name, properties.value_or(catalog::Properties{}), ActorOf(call)));
  return JsonReply(ProjectJson(info));
}

Result<HttpResponse> HandleListProjects(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  catalog::NameList list;
  if (ctx.access.IsServerAdmin(call.subject)) {
    QV_ASSIGN_OR_RETURN(list, ctx.catalog.ListProjects(paging.page_token, paging.limit));
  } else {
    QV_ASSIGN_OR_RETURN(std::vector<std::string> mine, ctx.access.ProjectsOf(call.subject));
    for (std::string& p : mine) {
      if (p <= paging.page_token) continue;
      if (paging.limit && list.names.size() >= *paging.limit) {
        if (!list.names.empty()) list.page_token = list.names.back();  // limit=0: none
        break;
      }
      list.names.push_back(std::move(p));
    }
  }
  json body = {{"projects", list.names}};
  if (list.page_token) body["page_token"] = *list.page_token;
  return JsonReply(body);
}

Result<HttpResponse> HandleDescribeProject(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, PathName(call, "project"));
  QV_RETURN_IF_ERROR(Require(ctx.access, call.subject, Permission::kObserve,
                             ObjectRef::Project(name), HiddenProject(name)));
  auto info = ctx.catalog.DescribeProject(name);
  if (!info.ok())
    return info.status().code() == StatusCode::kNamespaceNotFound ? HiddenProject(name)
                                                                  : info.status();
  json body = ProjectJson(*info);
  // Who holds what is for those who may change it (as with ReadTuples).
  if (ctx.access.Check(call.subject, Permission::kGrant, ObjectRef::Project(name))) {
    body["grants"] = info->grants;
  }
  return JsonReply(body);
}

Result<HttpResponse> HandleDeleteProject(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, PathName(call, "project"));
  QV_RETURN_IF_ERROR(Require(ctx.access, call.subject, Permission::kAdminister,
                             ObjectRef::Project(name), HiddenProject(name)));
  auto info = ctx.catalog.DeleteProject(name, ActorOf(call));
  if (!info.ok())
    return info.status().code() == StatusCode::kNamespaceNotFound ? HiddenProject(name)
                                                                  : info.status();
  return JsonReply(ProjectJson(*info));
}

// --- warehouses -------------------------------------------------------------------------
Result<HttpResponse> HandleCreateWarehouse(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, call.RequiredString("name"));
  QV_RETURN_IF_ERROR(catalog::ValidateName(name, "warehouse"));
  QV_ASSIGN_OR_RETURN(auto root, call.String("root"));
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  QV_RETURN_IF_ERROR(CheckBodyProject(call, project));
  ObjectRef proj = ObjectRef::Project(project);
  QV_RETURN_IF_ERROR(Require(ctx.access, call.subject, Permission::kCreateWarehouse, proj,
                             Denied(call.subject, Permission::kCreateWarehouse, proj)));
  // A root of its own is storage configuration of the whole server (it could name any path
  // the server can reach, another project's included): server admins only. Project admins
  // create warehouses on the catalog root.
  if (root && !root->empty() && !ctx.access.IsServerAdmin(call.subject)) {
    return Status(StatusCode::kPermissionDenied,
                  "only a server admin gives a warehouse its own 'root'; omit it to use the "
                  "catalog root");
  }
  QV_ASSIGN_OR_RETURN(
      catalog::WarehouseInfo info,
      ctx.catalog.CreateWarehouse(project, name, root.value_or(""),
                                  properties.value_or(catalog::Properties{}), ActorOf(call)));
  return JsonReply(WarehouseJson(info));
}

Result<HttpResponse> HandleListWarehouses(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  catalog::NameList list;
  if (ctx.access.Rank(call.subject, ObjectRef::Project(project)) > 0) {
    QV_ASSIGN_OR_RETURN(list, ctx.catalog.ListWarehouses(project, paging.page_token, paging.limit));
  } else {
    catalog::authz::TupleFilter filter;
    filter.subject = call.subject;
    filter.object_prefix = ObjectRef::Project(project);
    std::set<std::string> names;
    for (const auto& t : ctx.access.index().Read(filter)) {
      if (t.object.type == catalog::authz::ObjectType::kWarehouse) {
        names.insert(t.object.path[1]);
      } else if (t.object.path.size() >= 2) {
        std::string wh = ctx.access.WarehouseOf(project, t.object.path[1]);
        if (!wh.empty()) names.insert(wh);
      }
    }
    for (const std::string& n : names) {
      if (n <= paging.page_token) continue;
      if (paging.limit && list.names.size() >= *paging.limit) {
        if (!list.names.empty()) list.page_token = list.names.back();  // limit=0: none
        break;
      }
      list.names.push_back(n);
    }
  }
  json body = {{"warehouses", list.names}, {"project", project}};
  if (list.page_token) body["page_token"] = *list.page_token;
  return JsonReply(body);
}

Result<HttpResponse> HandleDescribeWarehouse(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, PathName(call, "warehouse"));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  QV_RETURN_IF_ERROR(Require(ctx.access, call.subject, Permission::kObserve,
                             ObjectRef::Warehouse(project, name), HiddenWarehouse(name)));
  QV_ASSIGN_OR_RETURN(catalog::WarehouseInfo info, ctx.catalog.DescribeWarehouse(project, name));
  json body = WarehouseJson(info);
  if (ctx.access.Check(call.subject, Permission::kGrant, ObjectRef::Warehouse(project, name))) {
    body["grants"] = info.grants;
  }
  return JsonReply(body);
}

Result<HttpResponse> HandleDeleteWarehouse(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string name, PathName(call, "warehouse"));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  QV_RETURN_IF_ERROR(RequireWarehouseAdmin(ctx.access, call, project, name));
  QV_ASSIGN_OR_RETURN(catalog::WarehouseInfo info,
                      ctx.catalog.DeleteWarehouse(project, name, ActorOf(call)));
  return JsonReply(WarehouseJson(info));
}

namespace {

Result<HttpResponse> SetWarehouseActivity(const HandlerContext& ctx, Call& call, bool active) {
  QV_ASSIGN_OR_RETURN(std::string name, PathName(call, "warehouse"));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  QV_RETURN_IF_ERROR(RequireWarehouseAdmin(ctx.access, call, project, name));
  QV_ASSIGN_OR_RETURN(catalog::WarehouseInfo info,
                      ctx.catalog.SetWarehouseActive(project, name, active, ActorOf(call)));
  return JsonReply(WarehouseJson(info));
}

}  // namespace

Result<HttpResponse> HandleDeactivateWarehouse(const HandlerContext& ctx, Call& call) {
  return SetWarehouseActivity(ctx, call, false);
}

Result<HttpResponse> HandleActivateWarehouse(const HandlerContext& ctx, Call& call) {
  return SetWarehouseActivity(ctx, call, true);
}

Result<HttpResponse> HandleCreateWarehouseNamespace(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string warehouse, PathName(call, "warehouse"));
  QV_ASSIGN_OR_RETURN(std::string name, call.RequiredString("name"));
  QV_RETURN_IF_ERROR(catalog::ValidateName(name, "namespace"));
  QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
  QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
  // Parent exists (the warehouse; create doors name what is missing) → permission → write.
  QV_ASSIGN_OR_RETURN(catalog::WarehouseInfo wh, ctx.catalog.DescribeWarehouse(project, warehouse));
  ObjectRef wh_ref = ObjectRef::Warehouse(project, warehouse);
  QV_RETURN_IF_ERROR(Require(ctx.access, call.subject, Permission::kCreateNamespace, wh_ref,
                             Denied(call.subject, Permission::kCreateNamespace, wh_ref)));
  if (!wh.active) {
    return Status(StatusCode::kPermissionDenied,
                  fmt::format("warehouse '{}' is deactivated", warehouse));
  }
  catalog::Properties props = properties.value_or(catalog::Properties{});
  props[std::string(catalog::kWarehouseProperty)] = warehouse;
  QV_ASSIGN_OR_RETURN(catalog::NamespaceInfo info,
                      ctx.catalog.CreateNamespace({project, name}, mode, props, ActorOf(call)));
  return JsonReply({{"name", name},
                    {"warehouse", info.warehouse.empty() ? warehouse : info.warehouse},
                    {"properties", info.properties}});
}

}  // namespace quiver::server::internal
