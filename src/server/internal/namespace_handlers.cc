// CreateNamespace, ListNamespaces, DescribeNamespace, DropNamespace, NamespaceExists,
// ListTables, ListAllTables.
#include <fmt/format.h>

#include "server/internal/handlers.h"

namespace quiver::server::internal {

using nlohmann::json;

void AddNamespaceHandlers(catalog::Catalog& catalog, HandlerMap& handlers) {
  handlers["CreateNamespace"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
    QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
    QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
    QV_ASSIGN_OR_RETURN(
        catalog::NamespaceInfo info,
        catalog.CreateNamespace(call.id, mode, properties.value_or(catalog::Properties{}),
                                ActorOf(call)));
    return JsonReply({{"properties", info.properties}});
  };

  handlers["DescribeNamespace"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_ASSIGN_OR_RETURN(catalog::NamespaceInfo info, catalog.DescribeNamespace(call.id));
    return JsonReply({{"properties", info.properties}});
  };

  handlers["NamespaceExists"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_RETURN_IF_ERROR(catalog.DescribeNamespace(call.id).status());
    return EmptyReply();
  };

  handlers["ListNamespaces"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
    QV_ASSIGN_OR_RETURN(catalog::NameList list,
                        catalog.ListNamespaces(call.id, paging.page_token, paging.limit));
    json body = {{"namespaces", list.names}};
    if (list.page_token) body["page_token"] = *list.page_token;
    return JsonReply(body);
  };

  handlers["DropNamespace"] = [&catalog](Call& call) -> Result<HttpResponse> {
    catalog::Catalog::DropNamespaceOptions options;
    QV_ASSIGN_OR_RETURN(auto mode, call.String("mode"));
    if (mode) {
      std::string m = NormalizeEnum(*mode);
      if (m == "skip") {
        options.skip_missing = true;
      } else if (m != "fail") {
        return Status::InvalidInput(fmt::format("'mode' must be Fail or Skip, not '{}'", *mode));
      }
    }
    QV_ASSIGN_OR_RETURN(auto behavior, call.String("behavior"));
    if (behavior) {
      std::string b = NormalizeEnum(*behavior);
      if (b == "cascade") {
        options.cascade = true;
      } else if (b != "restrict") {
        return Status::InvalidInput(
            fmt::format("'behavior' must be Restrict or Cascade, not '{}'", *behavior));
      }
    }
    QV_ASSIGN_OR_RETURN(auto dropped, catalog.DropNamespace(call.id, options, ActorOf(call)));
    if (!dropped) return JsonReply(json::object());
    return JsonReply({{"properties", dropped->properties}});
  };

  handlers["ListTables"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
    QV_ASSIGN_OR_RETURN(auto include_declared, call.QueryBool("include_declared"));
    QV_ASSIGN_OR_RETURN(catalog::NameList list,
                        catalog.ListTables(call.id, paging.page_token, paging.limit,
                                           include_declared.value_or(true)));
    json body = {{"tables", list.names}};
    if (list.page_token) body["page_token"] = *list.page_token;
    return JsonReply(body);
  };

  handlers["ListAllTables"] = [&catalog](Call& call) -> Result<HttpResponse> {
    QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
    QV_ASSIGN_OR_RETURN(auto include_declared, call.QueryBool("include_declared"));
    QV_ASSIGN_OR_RETURN(
        catalog::Catalog::IdList list,
        catalog.ListAllTables(paging.page_token, paging.limit, include_declared.value_or(true)));
    json tables = json::array();
    for (const catalog::ObjectId& id : list.ids)
      tables.push_back(catalog::JoinId(id, call.delimiter));
    json body = {{"tables", tables}};
    if (list.page_token) body["page_token"] = *list.page_token;
    return JsonReply(body);
  };
}

}  // namespace quiver::server::internal
