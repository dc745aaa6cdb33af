// The operation handlers of the namespace service, grouped by topic (namespace_handlers.cc,
// table_handlers.cc, version_handlers.cc, ref_handlers.cc), and the helpers they share.
// A handler turns a parsed Call into a response or a Status; the service turns a Status into
// the error body. Operations without a handler answer Unsupported (406, code 0).
// Thread-safety: handlers are called concurrently; they share only the thread-safe Catalog.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "common/result.h"
#include "server/call.h"
#include "server/http_types.h"
#include "store/object_store.h"

namespace quiver::server::internal {

using Handler = std::function<Result<HttpResponse>(Call&)>;
using HandlerMap = std::map<std::string, Handler, std::less<>>;

void AddNamespaceHandlers(catalog::Catalog& catalog, catalog::AccessControl& access,
                          HandlerMap& handlers);
// Projects, warehouses (control_handlers.cc).
void AddControlHandlers(catalog::Catalog& catalog, catalog::AccessControl& access,
                        HandlerMap& handlers);
// API keys, tuples, checks, events, the consistency scan (access_handlers.cc).
void AddAccessHandlers(catalog::Catalog& catalog, catalog::AccessControl& access,
                       HandlerMap& handlers);
void AddTableHandlers(catalog::Catalog& catalog, HandlerMap& handlers);
void AddVersionHandlers(catalog::Catalog& catalog, HandlerMap& handlers);
void AddRefHandlers(catalog::Catalog& catalog, HandlerMap& handlers);

// 200 (or `status`) with the JSON body.
HttpResponse JsonReply(const nlohmann::json& body, int status = 200);
// 200 with no body (the exists operations).
HttpResponse EmptyReply();

catalog::Actor ActorOf(const Call& call);
// The client's form of a scoped catalog id (without the project).
catalog::ObjectId SpecId(const catalog::ObjectId& scoped);
Result<catalog::CreateMode> ParseCreateMode(const std::optional<std::string>& mode);
// `limit` from the query (negative = absent) and `page_token`.
struct Paging {
  std::optional<size_t> limit;
  std::string page_token;
};
Result<Paging> QueryPaging(const Call& call);
Result<Paging> BodyPaging(const Call& call);

// The table of the call's id, and a store rooted at it.
struct OpenedTable {
  catalog::TableInfo info;
  std::shared_ptr<ObjectStore> root;
};
Result<OpenedTable> OpenTable(catalog::Catalog& catalog, const Call& call);
// `branch` from the body, else the query; "" and "main" mean main.
Result<std::optional<std::string>> BranchOf(const Call& call);

}  // namespace quiver::server::internal
