// Versions of a table: ListTableVersions, DescribeTableVersion, CreateTableVersion (managed
// versioning: the catalog publishes a writer's staged manifest) and BatchDeleteTableVersions.
// `manifest_path` values are object-store paths (no leading '/'), the form Lance exchanges them
// in (lancedb-rest-trace.md §7).
#include <fmt/format.h>

#include "common/clock.h"
#include "common/json.h"
#include "common/numbers.h"
#include "format/manifest_names.h"
#include "server/internal/handlers.h"
#include "store/prefix_store.h"
#include "table/publish.h"
#include "table/refs.h"
#include "table/stats.h"
#include "table/versions.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

struct VersionStore {
  std::shared_ptr<ObjectStore> store;  // rooted at the table (or branch) root
  std::string prefix;                  // "" or "tree/<branch>/" below the table root
};

// The store of `branch` (main when absent). The branch tree is used even before its ref exists:
// Lance publishes a new branch's first manifest before writing the ref.
Result<VersionStore> StoreFor(const OpenedTable& table, const std::optional<std::string>& branch) {
  if (!branch) return VersionStore{table.root, ""};
  std::string prefix = table::BranchRootKey(*branch);
  auto store = PrefixStore::Make(table.root, prefix);
  if (!store.ok()) {
    return Status(StatusCode::kTableBranchNotFound,
                  fmt::format("branch '{}' does not exist", *branch));
  }
  return VersionStore{*store, prefix + "/"};
}

// TableBranchNotFound for a branch with neither a ref nor versions.
Status CheckBranchExists(const OpenedTable& table, const std::optional<std::string>& branch,
                         bool has_versions) {
  if (!branch || has_versions) return Status::OK();
  return table::GetBranch(*table.root, *branch).status();
}

json VersionJson(catalog::Catalog& catalog, const OpenedTable& table, const VersionStore& vs,
                 const table::VersionRef& ref, std::optional<int64_t> timestamp_millis) {
  json v = {{"version", ref.version},
            {"manifest_path", catalog.ObjectStorePath(table.info, vs.prefix + ref.path)},
            {"manifest_size", ref.size},
            {"e_tag", ref.etag}};
  if (timestamp_millis) v["timestamp_millis"] = *timestamp_millis;
  return v;
}

// LanceDB's remote client reads lance's Version: {version, timestamp (RFC 3339), metadata}, all
// required, and pages nothing (lancedb-remote-api.md §5.12). The spec's fields stay alongside.
// `metadata` is the version's summary, as Lance's (table::ManifestSummary).
Result<json> RemoteVersionJson(json v, const VersionStore& vs, const table::VersionInfo& info) {
  QV_ASSIGN_OR_RETURN(table::LoadedManifest loaded, table::LoadManifest(*vs.store, info.ref));
  v["timestamp"] = FormatRfc3339Nanos(info.timestamp_millis * 1'000'000);
  v["metadata"] = table::ManifestSummary(*loaded.file.manifest);
  return v;
}

Result<std::optional<format::ManifestNaming>> ParseNaming(const Call& call) {
  QV_ASSIGN_OR_RETURN(auto naming, call.String("naming_scheme"));
  QV_ASSIGN_OR_RETURN(auto choice, ParseEnumChoice("naming_scheme", naming, {"V1", "V2"}));
  if (!choice) return std::optional<format::ManifestNaming>();
  return std::optional<format::ManifestNaming>(*choice == 0 ? format::ManifestNaming::kV1
                                                            : format::ManifestNaming::kV2);
}

}  // namespace

Result<HttpResponse> HandleListTableVersions(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(VersionStore vs, StoreFor(table, branch));
  QV_ASSIGN_OR_RETURN(auto descending, call.BoolParam("descending"));
  QV_ASSIGN_OR_RETURN(Paging paging, BodyPaging(call));
  if (call.dialect == Dialect::kRemote) {
    json versions = json::array();
    table::VersionListOptions options;
    options.limit = kMaxListLimit;
    while (true) {
      auto page = table::ListVersions(*vs.store, options);
      if (!page.ok()) {
        if (page.status().code() != StatusCode::kTableNotFound) return page.status();
        break;
      }
      for (const table::VersionInfo& info : page->versions) {
        QV_ASSIGN_OR_RETURN(json v, RemoteVersionJson(VersionJson(ctx.catalog, table, vs, info.ref,
                                                                  info.timestamp_millis),
                                                      vs, info));
        versions.push_back(std::move(v));
      }
      if (!page->next) break;
      options.after = *page->next;
    }
    QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, !versions.empty()));
    return JsonReply({{"versions", versions}});
  }
  table::VersionListOptions options;
  options.descending = descending.value_or(false);
  options.limit = paging.limit.value_or(kMaxListLimit);
  if (!paging.page_token.empty()) {
    // Checked (common/numbers.h): std::stoull took "-1" as 2^64-1 and "12abc" as 12.
    auto after = ParseUint64(paging.page_token);
    if (!after.ok()) {
      return Status::InvalidInput(
          fmt::format("not a version page token: {}", after.status().message()));
    }
    options.after = *after;
  }
  json versions = json::array();
  if (options.limit == 0) return JsonReply({{"versions", versions}});
  json body;
  if (options.descending && options.limit == 1 && !options.after) {
    // The common managed-versioning probe: "the latest version", one LIST page + one GET.
    auto latest = table::ResolveLatestVersion(*vs.store);
    if (latest.ok()) {
      QV_ASSIGN_OR_RETURN(table::LoadedManifest loaded, table::LoadManifest(*vs.store, *latest));
      versions.push_back(
          VersionJson(ctx.catalog, table, vs, loaded.ref,
                      table::ManifestTimestampNanos(*loaded.file.manifest) / 1'000'000));
    } else if (latest.status().code() != StatusCode::kTableNotFound) {
      return latest.status();
    }
    QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, !versions.empty()));
    return JsonReply({{"versions", versions}});
  }
  auto page = table::ListVersions(*vs.store, options);
  if (!page.ok()) {
    if (page.status().code() != StatusCode::kTableNotFound) return page.status();
    QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, false));
    return JsonReply({{"versions", versions}});
  }
  for (const table::VersionInfo& info : page->versions) {
    versions.push_back(VersionJson(ctx.catalog, table, vs, info.ref, info.timestamp_millis));
  }
  QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, !versions.empty()));
  body = {{"versions", versions}};
  if (page->next) body["page_token"] = std::to_string(*page->next);
  return JsonReply(body);
}

Result<HttpResponse> HandleDescribeTableVersion(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(VersionStore vs, StoreFor(table, branch));
  QV_ASSIGN_OR_RETURN(auto version, call.Int("version"));
  table::LoadedManifest loaded;
  if (version) {
    if (*version < 0) return Status::InvalidInput("'version' must not be negative");
    auto got = table::LoadVersion(*vs.store, static_cast<uint64_t>(*version));
    if (!got.ok()) {
      QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, false));
      return got.status();
    }
    loaded = std::move(*got);
  } else {
    auto latest = table::ResolveLatestVersion(*vs.store);
    if (!latest.ok()) {
      QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, false));
      if (latest.status().code() == StatusCode::kTableNotFound) {
        return Status(StatusCode::kTableVersionNotFound,
                      fmt::format("table '{}' has no versions yet", catalog::DisplayId(call.id)));
      }
      return latest.status();
    }
    QV_ASSIGN_OR_RETURN(loaded, table::LoadManifest(*vs.store, *latest));
  }
  return JsonReply(
      {{"version", VersionJson(ctx.catalog, table, vs, loaded.ref,
                               table::ManifestTimestampNanos(*loaded.file.manifest) / 1'000'000)}});
}

Result<HttpResponse> HandleCreateTableVersion(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(VersionStore vs, StoreFor(table, branch));
  QV_ASSIGN_OR_RETURN(int64_t version, call.RequiredInt("version"));
  if (version <= 0) return Status::InvalidInput("'version' must be positive");
  QV_ASSIGN_OR_RETURN(std::string manifest_path, call.RequiredString("manifest_path"));
  QV_ASSIGN_OR_RETURN(auto size, call.Int("manifest_size"));
  QV_ASSIGN_OR_RETURN(auto etag, call.String("e_tag"));
  QV_ASSIGN_OR_RETURN(auto naming, ParseNaming(call));

  // The staged manifest must lie inside the table (branch) directory.
  std::string base = ctx.catalog.ObjectStorePath(table.info, vs.prefix + "_versions");
  base.resize(base.size() - std::string_view("_versions").size());
  std::string key;
  if (manifest_path.rfind(base, 0) == 0) {
    key = manifest_path.substr(base.size());
  } else if (manifest_path.rfind("_versions/", 0) == 0) {
    key = manifest_path;
  } else {
    return Status::InvalidInput(fmt::format(
        "manifest_path '{}' is not inside the table's directory '{}'", manifest_path, base));
  }
  table::StagedManifest staged;
  staged.key = key;
  staged.version = static_cast<uint64_t>(version);
  staged.naming = naming;
  if (size && *size >= 0) staged.size = static_cast<uint64_t>(*size);
  // The writer's e_tag is in its own object store's format (Rust object_store, local files:
  // inode-mtime(µs)-size in hex), not ours, so it cannot be compared; the size is.
  (void)etag;
  QV_ASSIGN_OR_RETURN(table::VersionRef ref, table::PublishStagedManifest(*vs.store, staged));
  return JsonReply({{"version", VersionJson(ctx.catalog, table, vs, ref, std::nullopt)}});
}

Result<HttpResponse> HandleBatchDeleteTableVersions(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(VersionStore vs, StoreFor(table, branch));
  auto it = call.body.find("ranges");
  if (it == call.body.end() || !it->is_array()) {
    return Status::InvalidInput("'ranges' is required (an array of {start_version, end_version})");
  }
  struct Range {
    uint64_t start;
    std::optional<uint64_t> end;  // exclusive; absent = through the latest
  };
  std::vector<Range> ranges;
  for (const json& r : *it) {
    // JsonToInt64: get<int64_t>() wrapped 2^63 and above to negative numbers.
    std::optional<int64_t> start_version, end_version;
    if (r.is_object() && r.contains("start_version") && r.contains("end_version")) {
      start_version = JsonToInt64(r["start_version"]);
      end_version = JsonToInt64(r["end_version"]);
    }
    if (!start_version || !end_version) {
      return Status::InvalidInput(
          "each range needs integer 'start_version' and 'end_version' (64-bit signed)");
    }
    int64_t start = *start_version;
    int64_t end = *end_version;
    if (start < 0) return Status::InvalidInput("'start_version' must not be negative");
    ranges.push_back(
        {static_cast<uint64_t>(start),
         end < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(end))});
  }
  auto refs = table::ListVersionRefs(*vs.store);
  if (!refs.ok()) {
    if (refs.status().code() == StatusCode::kTableNotFound) {
      QV_RETURN_IF_ERROR(CheckBranchExists(table, branch, false));
      return JsonReply({{"deleted_count", 0}});
    }
    return refs.status();
  }
  uint64_t latest = refs->empty() ? 0 : refs->back().version;
  std::vector<const table::VersionRef*> doomed;
  for (const table::VersionRef& ref : *refs) {
    for (const Range& r : ranges) {
      if (ref.version >= r.start && (!r.end || ref.version < *r.end)) {
        if (ref.version == latest) {
          return Status::InvalidInput(fmt::format(
              "version {} is the latest version; deleting it would roll the table back", latest));
        }
        doomed.push_back(&ref);
        break;
      }
    }
  }
  for (const table::VersionRef* ref : doomed) QV_RETURN_IF_ERROR(vs.store->Delete(ref->path));
  return JsonReply({{"deleted_count", doomed.size()}});
}

}  // namespace quiver::server::internal
