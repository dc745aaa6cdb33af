#include <fmt/format.h>

#include "common/numbers.h"

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

Result<std::optional<catalog::ObjectId>> RenameDestination(const Call& call) {
  QV_ASSIGN_OR_RETURN(auto spec, call.StringList("new_namespace_id"));
  if (spec) return spec;
  return call.StringList("new_namespace");
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

Result<std::shared_ptr<const table::Dataset>> OpenRead(const OpenedTable& table, const Call& call,
                                                       const table::OpenOptions& target) {
  QV_ASSIGN_OR_RETURN(auto dataset, table::Dataset::Open(table.root, target));
  if (target.version || target.tag) return dataset;
  uint64_t floor = 0;
  for (const char* header : {"x-lancedb-min-version", "x-lancedb-min-read-version"}) {
    const std::string& value = call.http->Header(header);
    if (value.empty()) continue;
    auto parsed = ParseUint64(value);
    if (!parsed.ok()) {
      return Status::InvalidInput(
          fmt::format("'{}' must be a version number, not '{}'", header, value));
    }
    floor = std::max(floor, *parsed);
  }
  if (dataset->version() >= floor) return dataset;
  QV_ASSIGN_OR_RETURN(dataset, table::Dataset::Open(table.root, target));
  if (dataset->version() >= floor) return dataset;
  return Status::ServiceUnavailable(fmt::format(
      "table '{}' is at version {} here, older than version {} the client has seen; try again",
      catalog::DisplayId(table.info.id), dataset->version(), floor));
}

Result<std::optional<Deadline>> RequestDeadline(const HandlerContext& ctx, const Call& call) {
  Duration budget{0};
  if (const std::string& header = call.http->Header("x-request-timeout-ms"); !header.empty()) {
    auto ms = ParseInt64(header, 1);
    if (!ms.ok()) {
      return Status::InvalidInput(fmt::format(
          "x-request-timeout-ms must be a positive number of milliseconds, not '{}'", header));
    }
    QV_ASSIGN_OR_RETURN(budget, CheckedDuration(*ms, std::chrono::milliseconds(1)));
  } else if (auto param = call.Query("timeout")) {
    auto parsed = ParseDuration(*param);
    if (!parsed.ok() || parsed->count() <= 0) {
      return Status::InvalidInput(fmt::format(
          "'timeout' must be a positive duration such as 30s, 500ms or 5m, not '{}'", *param));
    }
    budget = *parsed;
  } else {
    return std::optional<Deadline>();
  }
  return std::optional<Deadline>(Deadline::After(ctx.clock, budget));
}

}  // namespace quiver::server::internal
