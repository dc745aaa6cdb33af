// CreateNamespace, ListNamespaces, DescribeNamespace, DropNamespace, NamespaceExists,
// ListTables, ListAllTables.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/json.h"
#include "server/internal/authorize.h"
#include "server/internal/handlers.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

using catalog::authz::ChildKind;
using catalog::authz::ObjectRef;

// The children a caller without a rank on `parent` may see: those it holds grants on or below,
// from the reverse index (never one check per child).
Result<catalog::NameList> VisiblePage(catalog::AccessControl& access, const Call& call,
                                      ChildKind kind, const Paging& paging) {
  catalog::NameList out;
  if (paging.limit && *paging.limit == 0) return out;
  ObjectRef parent = RefOf(Target::kNamespace, call.id);
  size_t want = paging.limit.value_or(0);
  out.names = access.VisibleChildren(call.subject, parent, kind, paging.page_token,
                                     want == 0 ? 0 : want + 1);
  if (want != 0 && out.names.size() > want) {
    out.names.resize(want);
    out.page_token = out.names.back();
  }
  return out;
}

bool SeesEverythingIn(catalog::AccessControl& access, const Call& call) {
  return access.Rank(call.subject, RefOf(Target::kNamespace, call.id)) > 0;
}

// Every table of the project the caller may see without a rank on the project: tables it holds
// grants on, and every table below a namespace or warehouse it holds a grant on.
Result<std::vector<catalog::ObjectId>> VisibleTables(catalog::Catalog& catalog,
                                                     catalog::AccessControl& access,
                                                     const Call& call) {
  std::set<catalog::ObjectId> out;
  catalog::authz::TupleFilter filter;
  filter.object_prefix = ObjectRef::Project(call.project);
  std::vector<catalog::authz::Tuple> held;
  for (std::string_view subject : {std::string_view(call.subject), catalog::authz::kAnySubject}) {
    filter.subject = std::string(subject);
    auto tuples = access.index().Read(filter);
    held.insert(held.end(), tuples.begin(), tuples.end());
  }
  for (const catalog::authz::Tuple& t : held) {
    using catalog::authz::ObjectType;
    if (t.object.type == ObjectType::kTable) {
      out.insert(t.object.path);
    } else if (t.object.type == ObjectType::kNamespace) {
      QV_ASSIGN_OR_RETURN(auto below, catalog.registry().ListDescendants(
                                          catalog::RecordKind::kTable, t.object.path));
      out.insert(below.begin(), below.end());
    } else if (t.object.type == ObjectType::kWarehouse) {
      QV_ASSIGN_OR_RETURN(auto top, catalog.registry().ListDescendants(
                                        catalog::RecordKind::kNamespace, {call.project}));
      for (const catalog::ObjectId& ns : top) {
        if (ns.size() != 2 || access.WarehouseOf(ns[0], ns[1]) != t.object.path[1]) continue;
        QV_ASSIGN_OR_RETURN(auto below,
                            catalog.registry().ListDescendants(catalog::RecordKind::kTable, ns));
        out.insert(below.begin(), below.end());
      }
    }
  }
  return std::vector<catalog::ObjectId>(out.begin(), out.end());
}

}  // namespace

Result<HttpResponse> HandleCreateNamespace(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
  QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(
      catalog::NamespaceInfo info,
      ctx.catalog.CreateNamespace(call.id, mode, properties.value_or(catalog::Properties{}),
                                  ActorOf(call)));
  return JsonReply({{"properties", info.properties}});
}

Result<HttpResponse> HandleDescribeNamespace(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(catalog::NamespaceInfo info, ctx.catalog.DescribeNamespace(call.id));
  return JsonReply({{"properties", info.properties}});
}

Result<HttpResponse> HandleNamespaceExists(const HandlerContext& ctx, Call& call) {
  QV_RETURN_IF_ERROR(ctx.catalog.DescribeNamespace(call.id).status());
  return EmptyReply();
}

Result<HttpResponse> HandleListNamespaces(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  catalog::NameList list;
  if (SeesEverythingIn(ctx.access, call)) {
    QV_ASSIGN_OR_RETURN(list, ctx.catalog.ListNamespaces(call.id, paging.page_token, paging.limit));
  } else {
    QV_ASSIGN_OR_RETURN(list, VisiblePage(ctx.access, call, ChildKind::kNamespace, paging));
  }
  json body = {{"namespaces", list.names}};
  if (list.page_token) body["page_token"] = *list.page_token;
  return JsonReply(body);
}

Result<HttpResponse> HandleDropNamespace(const HandlerContext& ctx, Call& call) {
  catalog::Catalog::DropNamespaceOptions options;
  QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
  QV_ASSIGN_OR_RETURN(auto mode, ParseEnumChoice("mode", mode_text, {"Fail", "Skip"}));
  options.skip_missing = mode == size_t{1};
  QV_ASSIGN_OR_RETURN(auto behavior_text, call.String("behavior"));
  QV_ASSIGN_OR_RETURN(auto behavior,
                      ParseEnumChoice("behavior", behavior_text, {"Restrict", "Cascade"}));
  options.cascade = behavior == size_t{1};
  QV_ASSIGN_OR_RETURN(auto dropped, ctx.catalog.DropNamespace(call.id, options, ActorOf(call)));
  if (!dropped) return JsonReply(json::object());
  return JsonReply({{"properties", dropped->properties}});
}

Result<HttpResponse> HandleListTables(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  QV_ASSIGN_OR_RETURN(auto include_declared, call.QueryBool("include_declared"));
  // The remote client cannot open a table without a version: it lists only tables it can use.
  if (!include_declared && call.dialect == Dialect::kRemote) include_declared = false;
  catalog::NameList list;
  if (SeesEverythingIn(ctx.access, call)) {
    QV_ASSIGN_OR_RETURN(list, ctx.catalog.ListTables(call.id, paging.page_token, paging.limit,
                                                     include_declared.value_or(true)));
  } else {
    QV_ASSIGN_OR_RETURN(list, VisiblePage(ctx.access, call, ChildKind::kTable, paging));
    if (!include_declared.value_or(true)) {
      std::vector<std::string> kept;
      for (std::string& name : list.names) {
        auto table = ctx.catalog.GetTable(catalog::ChildOf(call.id, name));
        if (!table.ok()) continue;
        QV_ASSIGN_OR_RETURN(bool only_declared, ctx.catalog.IsOnlyDeclared(*table));
        if (!only_declared) kept.push_back(std::move(name));
      }
      list.names = std::move(kept);
    }
  }
  json body = {{"tables", list.names}};
  if (list.page_token) body["page_token"] = *list.page_token;
  return JsonReply(body);
}

Result<HttpResponse> HandleListAllTables(const HandlerContext& ctx, Call& call) {
  // LanceDB's remote `GET /v1/table/` lists the root namespace's tables by name (Cloud's
  // databases are flat; lancedb-remote-api.md §4), where the spec's lists every table by id.
  if (call.dialect == Dialect::kRemote) {
    call.id = catalog::ObjectId{call.project};
    return HandleListTables(ctx, call);
  }
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  QV_ASSIGN_OR_RETURN(auto include_declared, call.QueryBool("include_declared"));
  catalog::Catalog::IdList list;
  if (ctx.access.Rank(call.subject, ObjectRef::Project(call.project)) > 0) {
    QV_ASSIGN_OR_RETURN(list,
                        ctx.catalog.ListAllTables(call.project, paging.page_token, paging.limit,
                                                  include_declared.value_or(true)));
  } else {
    // The page token is the last id returned, as a JSON array.
    QV_ASSIGN_OR_RETURN(std::vector<catalog::ObjectId> visible,
                        VisibleTables(ctx.catalog, ctx.access, call));
    auto it = visible.begin();
    if (!paging.page_token.empty()) {
      auto parsed = ParseJson(paging.page_token);  // bounded: common/json.h
      json after = parsed.ok() ? std::move(*parsed) : json();
      if (!after.is_array() ||
          !std::all_of(after.begin(), after.end(), [](const json& v) { return v.is_string(); })) {
        return Status::InvalidInput("'page_token' is not one of ours");
      }
      catalog::ObjectId last = call.Scoped(after.get<catalog::ObjectId>());
      it = std::upper_bound(visible.begin(), visible.end(), last);
    }
    for (; it != visible.end(); ++it) {
      if (paging.limit && list.ids.size() >= *paging.limit) {
        if (!list.ids.empty()) list.page_token = json(SpecId(list.ids.back())).dump();
        break;
      }
      if (!include_declared.value_or(true)) {
        auto table = ctx.catalog.GetTable(*it);
        if (!table.ok()) continue;
        QV_ASSIGN_OR_RETURN(bool only_declared, ctx.catalog.IsOnlyDeclared(*table));
        if (only_declared) continue;
      }
      list.ids.push_back(*it);
    }
  }
  json tables = json::array();
  for (const catalog::ObjectId& id : list.ids)
    tables.push_back(catalog::JoinId(SpecId(id), call.delimiter));
  json body = {{"tables", tables}};
  if (list.page_token) body["page_token"] = *list.page_token;
  return JsonReply(body);
}

}  // namespace quiver::server::internal
