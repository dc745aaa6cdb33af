#include <fmt/format.h>

#include "server/internal/handlers.h"

namespace quiver::server::internal {

HttpResponse JsonReply(const nlohmann::json& body, int status) {
  HttpResponse response;
  response.status = status;
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

HttpResponse EmptyReply() {
  HttpResponse response;
  response.content_type.clear();
  return response;
}

catalog::Actor ActorOf(const Call& call) { return {call.subject, call.request_id}; }

catalog::ObjectId SpecId(const catalog::ObjectId& scoped) {
  if (scoped.empty()) return {};
  return catalog::ObjectId(scoped.begin() + 1, scoped.end());
}

Result<catalog::CreateMode> ParseCreateMode(const std::optional<std::string>& mode) {
  QV_ASSIGN_OR_RETURN(auto choice,
                      ParseEnumChoice("mode", mode, {"Create", "ExistOk", "Overwrite"}));
  constexpr catalog::CreateMode kModes[] = {
      catalog::CreateMode::kCreate, catalog::CreateMode::kExistOk, catalog::CreateMode::kOverwrite};
  return kModes[choice.value_or(0)];
}

namespace {
Result<Paging> MakePaging(std::optional<int64_t> limit, std::optional<std::string> token) {
  Paging paging;
  if (limit && *limit >= 0) {
    paging.limit =
        static_cast<size_t>(std::min<int64_t>(*limit, static_cast<int64_t>(kMaxListLimit)));
  }
  if (token) paging.page_token = std::move(*token);
  return paging;
}
}  // namespace

Result<Paging> QueryPaging(const Call& call) {
  QV_ASSIGN_OR_RETURN(auto limit, call.QueryInt("limit"));
  return MakePaging(limit, call.Query("page_token"));
}

Result<Paging> BodyPaging(const Call& call) {
  QV_ASSIGN_OR_RETURN(auto limit, call.Int("limit"));
  QV_ASSIGN_OR_RETURN(auto token, call.String("page_token"));
  if (!limit) {
    QV_ASSIGN_OR_RETURN(limit, call.QueryInt("limit"));
  }
  if (!token) token = call.Query("page_token");
  return MakePaging(limit, token);
}

Result<OpenedTable> OpenTable(catalog::Catalog& catalog, const Call& call) {
  QV_ASSIGN_OR_RETURN(catalog::TableInfo info, catalog.GetTable(call.id));
  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, catalog.TableStore(info));
  return OpenedTable{std::move(info), std::move(root)};
}

Result<std::optional<std::string>> BranchOf(const Call& call) {
  QV_ASSIGN_OR_RETURN(auto branch, call.String("branch"));
  if (!branch) branch = call.Query("branch");
  if (branch && (branch->empty() || *branch == "main")) branch.reset();
  return branch;
}

// The version a read addresses: version / tag / branch from the body (or query).
Result<table::OpenOptions> ReadTarget(const Call& call) {
  table::OpenOptions options;
  QV_ASSIGN_OR_RETURN(auto version, call.Int("version"));
  if (!version) {
    QV_ASSIGN_OR_RETURN(version, call.QueryInt("version"));
  }
  if (version) {
    if (*version < 0) return Status::InvalidInput("'version' must not be negative");
    options.version = static_cast<uint64_t>(*version);
  }
  QV_ASSIGN_OR_RETURN(options.tag, call.String("tag"));
  QV_ASSIGN_OR_RETURN(options.branch, BranchOf(call));
  if (options.tag && options.version) {
    return Status::InvalidInput("'tag' cannot be combined with 'version'");
  }
  return options;
}

}  // namespace quiver::server::internal
