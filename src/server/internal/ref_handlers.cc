// Tags (5 operations), branches (3) and indices (list, stats) through the manifest layer.
#include <algorithm>

#include <fmt/format.h>

#include "server/internal/handlers.h"
#include "table/branches.h"
#include "table/dataset.h"
#include "table/operations.h"
#include "table/refs.h"
#include "table/stats.h"
#include "table/tags.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

// One page of a name-sorted map: names after `page.page_token`, at most `page.limit`.
template <typename Map, typename ToJson>
json PageOfMap(const Map& map, const Paging& page, const char* field, ToJson to_json) {
  json items = json::object();
  auto it = page.page_token.empty() ? map.begin() : map.upper_bound(page.page_token);
  size_t n = 0;
  std::optional<std::string> next;
  for (; it != map.end(); ++it) {
    if (page.limit && n == *page.limit) {
      next = items.empty() ? std::optional<std::string>()
                           : std::optional<std::string>(std::prev(it)->first);
      break;
    }
    items[it->first] = to_json(it->second);
    ++n;
  }
  json body = {{field, items}};
  if (next) body["page_token"] = *next;
  return body;
}

Result<table::TagTarget> TagTargetOf(const Call& call) {
  QV_ASSIGN_OR_RETURN(int64_t version, call.RequiredInt("version"));
  if (version <= 0) return Status::InvalidInput("'version' must be positive");
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  return table::TagTarget{static_cast<uint64_t>(version), branch};
}

Result<std::string> TagName(const Call& call) {
  QV_ASSIGN_OR_RETURN(std::string tag, call.RequiredString("tag"));
  if (tag.empty()) return Status::InvalidInput("'tag' must not be empty");
  return tag;
}

Result<std::shared_ptr<const table::Dataset>> OpenForIndices(const OpenedTable& table,
                                                             const Call& call) {
  table::OpenOptions options;
  QV_ASSIGN_OR_RETURN(auto version, call.Int("version"));
  if (version) {
    if (*version < 0) return Status::InvalidInput("'version' must not be negative");
    options.version = static_cast<uint64_t>(*version);
  }
  QV_ASSIGN_OR_RETURN(options.branch, BranchOf(call));
  return OpenRead(table, call, options);
}

// Index segments grouped by name, in name order.
std::map<std::string, std::vector<table::IndexInfo>> IndicesByName(const table::Dataset& dataset) {
  std::map<std::string, std::vector<table::IndexInfo>> out;
  for (table::IndexInfo& info : dataset.Indices()) out[info.name].push_back(std::move(info));
  return out;
}

}  // namespace

// --- tags ---
Result<HttpResponse> HandleListTableTags(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(Paging paging, BodyPaging(call));
  QV_ASSIGN_OR_RETURN(auto tags, table::ListTags(*table.root));
  auto tag_json = [](const table::TagInfo& t) {
    json j = {{"version", t.version}, {"manifestSize", t.manifest_size}};
    if (t.branch) j["branch"] = *t.branch;
    return j;
  };
  // LanceDB's remote client reads the bare map, every tag (lancedb-remote-api.md §5.13).
  if (call.dialect == Dialect::kRemote) {
    json all = json::object();
    for (const auto& [name, tag] : tags) all[name] = tag_json(tag);
    return JsonReply(all);
  }
  return JsonReply(PageOfMap(tags, paging, "tags", tag_json));
}

Result<HttpResponse> HandleGetTableTagVersion(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, TagName(call));
  QV_ASSIGN_OR_RETURN(table::TagInfo tag, table::GetTag(*table.root, name));
  json body = {{"version", tag.version}};
  if (tag.branch) body["branch"] = *tag.branch;
  return JsonReply(body);
}

Result<HttpResponse> HandleCreateTableTag(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, TagName(call));
  QV_ASSIGN_OR_RETURN(table::TagTarget target, TagTargetOf(call));
  QV_RETURN_IF_ERROR(table::CreateTag(table.root, name, target).status());
  return JsonReply(json::object());
}

Result<HttpResponse> HandleUpdateTableTag(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, TagName(call));
  QV_ASSIGN_OR_RETURN(table::TagTarget target, TagTargetOf(call));
  QV_RETURN_IF_ERROR(table::UpdateTag(table.root, name, target).status());
  return JsonReply(json::object());
}

Result<HttpResponse> HandleDeleteTableTag(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, TagName(call));
  QV_RETURN_IF_ERROR(table::DeleteTag(table.root, name));
  return JsonReply(json::object());
}

// --- branches ---
Result<HttpResponse> HandleListTableBranches(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(Paging paging, BodyPaging(call));
  QV_ASSIGN_OR_RETURN(auto branches, table::ListBranches(*table.root));
  return JsonReply(PageOfMap(branches, paging, "branches", [](const table::BranchInfo& b) {
    json j = {{"parentVersion", b.parent_version},
              {"createAt", b.create_at},
              {"manifestSize", b.manifest_size}};
    if (b.parent_branch) j["parentBranch"] = *b.parent_branch;
    return j;
  }));
}

Result<HttpResponse> HandleCreateTableBranch(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, call.RequiredString("name"));
  table::BranchSource source;
  QV_ASSIGN_OR_RETURN(source.branch, call.String("from_branch"));
  if (source.branch && (source.branch->empty() || *source.branch == "main")) source.branch.reset();
  QV_ASSIGN_OR_RETURN(auto from_version, call.Int("from_version"));
  if (from_version) {
    if (*from_version <= 0) return Status::InvalidInput("'from_version' must be positive");
    source.version = static_cast<uint64_t>(*from_version);
  }
  QV_RETURN_IF_ERROR(table::CreateBranch(table.root, name, source).status());
  return JsonReply(json::object());
}

Result<HttpResponse> HandleDeleteTableBranch(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string name, call.RequiredString("name"));
  QV_RETURN_IF_ERROR(table::DeleteBranch(table.root, name));
  return JsonReply(json::object());
}

// --- indices ---
Result<HttpResponse> HandleListTableIndices(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(Paging paging, BodyPaging(call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForIndices(table, call));
  auto by_name = IndicesByName(*dataset);
  json indexes = json::array();
  std::optional<std::string> next;
  auto it = paging.page_token.empty() ? by_name.begin() : by_name.upper_bound(paging.page_token);
  for (; it != by_name.end(); ++it) {
    if (paging.limit && indexes.size() == *paging.limit) {
      if (!indexes.empty()) next = std::prev(it)->first;
      break;
    }
    const table::IndexInfo& first = it->second.front();
    indexes.push_back({{"index_name", it->first},
                       {"index_uuid", first.uuid},
                       {"columns", first.columns},
                       {"status", "Ready"},
                       {"index_type", first.index_type},
                       {"num_segments", it->second.size()},
                       {"index_version", first.dataset_version}});
  }
  json body = {{"indexes", indexes}};
  if (next) body["page_token"] = *next;
  return JsonReply(body);
}

Result<HttpResponse> HandleDropTableIndex(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  std::string name = call.index_name.value_or("");
  auto dropped = table::DropIndex(table::CommitTarget{table.root, branch}, name);
  if (!dropped.ok()) {
    if (dropped.status().code() == StatusCode::kTableIndexNotFound) {
      return Status(
          StatusCode::kTableIndexNotFound,
          fmt::format("table '{}' has no index named '{}'", catalog::DisplayId(call.id), name));
    }
    return dropped.status();
  }
  return JsonReply({{"version", dropped->version}});
}

Result<HttpResponse> HandleDescribeTableIndexStats(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenForIndices(table, call));
  std::string name = call.index_name.value_or("");
  auto by_name = IndicesByName(*dataset);
  auto it = by_name.find(name);
  if (it == by_name.end()) {
    return Status(StatusCode::kTableIndexNotFound, fmt::format("table '{}' has no index named '{}'",
                                                               catalog::DisplayId(call.id), name));
  }
  return JsonReply({{"index_type", it->second.front().index_type},
                    {"num_indices", it->second.size()},
                    {"distance_type", nullptr},
                    {"num_indexed_rows", nullptr},
                    {"num_unindexed_rows", nullptr}});
}

}  // namespace quiver::server::internal
