#include "table/versions.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/logging.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"

namespace quiver::table {

using format::ManifestNaming;

namespace {

const std::string kVersionsPrefix = std::string(format::kVersionsDir) + "/";

std::optional<VersionRef> RefFromListing(const ObjectMeta& meta) {
  std::string_view name(meta.key);
  name.remove_prefix(kVersionsPrefix.size());
  if (name.find('/') != std::string_view::npos) return std::nullopt;
  auto parsed = format::ParseManifestName(name);
  if (!parsed || parsed->detached) return std::nullopt;
  return VersionRef{parsed->version, parsed->naming, meta.key, meta.size, meta.etag};
}

Status MixedSchemes() {
  return Status::Corruption(
      "_versions/ mixes V1 and V2 manifest names; Lance refuses such a dataset too (migrate the "
      "V1 names to V2)");
}

}  // namespace

Result<std::vector<VersionRef>> ListVersionRefs(ObjectStore& store) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, store.ListAll(kVersionsPrefix));
  std::vector<VersionRef> refs;
  bool v1 = false;
  bool v2 = false;
  for (const ObjectMeta& meta : all) {
    auto ref = RefFromListing(meta);
    if (!ref) continue;
    (ref->naming == ManifestNaming::kV1 ? v1 : v2) = true;
    refs.push_back(std::move(*ref));
  }
  if (v1 && v2) return MixedSchemes();
  std::sort(refs.begin(), refs.end(),
            [](const VersionRef& a, const VersionRef& b) { return a.version < b.version; });
  return refs;
}

Result<VersionRef> ResolveLatestVersion(ObjectStore& store) {
  ListOptions options;
  options.prefix = kVersionsPrefix;
  // V2 names sort newest first, so the first valid entry is the answer; a short page keeps the
  // per-entry metadata a listing returns cheap. Garbage that crowds out every valid name falls
  // back to the full listing below.
  options.limit = 64;
  QV_ASSIGN_OR_RETURN(ListPage page, store.List(options));
  bool saw_v1 = false;
  for (const ObjectMeta& meta : page.objects) {
    auto ref = RefFromListing(meta);
    if (!ref) continue;
    if (ref->naming == ManifestNaming::kV1) {
      saw_v1 = true;
      break;
    }
    return *ref;  // V2: the first valid name is the newest
  }
  if (!saw_v1 && !page.truncated) {
    return Status(StatusCode::kTableNotFound, "no Lance manifest in _versions/: not a dataset");
  }
  QV_ASSIGN_OR_RETURN(std::vector<VersionRef> refs, ListVersionRefs(store));
  if (refs.empty()) {
    return Status(StatusCode::kTableNotFound, "no Lance manifest in _versions/: not a dataset");
  }
  return refs.back();
}

int64_t ManifestTimestampNanos(const lance::table::Manifest& manifest) {
  const auto& ts = manifest.timestamp();
  return ts.seconds() * 1'000'000'000 + ts.nanos();
}

void WriteVersionHint(ObjectStore& store, uint64_t version, std::string_view root) {
  Status s = store
                 .Put(std::string(root) + std::string(format::kVersionsDir) + "/" +
                          std::string(format::kVersionHintFile),
                      fmt::format("{{\"version\":{}}}", version))
                 .status();
  if (!s.ok()) QV_LOG_WARN("could not update the version hint", {{"error", s.ToString()}});
}

Result<VersionPage> ListVersions(ObjectStore& store, const VersionListOptions& options) {
  if (options.limit == 0 || options.limit > kMaxListLimit) {
    return Status::InvalidInput(
        fmt::format("version list limit {} is outside 1..{}", options.limit, kMaxListLimit));
  }
  QV_ASSIGN_OR_RETURN(std::vector<VersionRef> refs, ListVersionRefs(store));
  if (options.descending) std::reverse(refs.begin(), refs.end());
  auto first = refs.begin();
  if (options.after) {
    first = std::find_if(refs.begin(), refs.end(), [&](const VersionRef& r) {
      return options.descending ? r.version < *options.after : r.version > *options.after;
    });
  }
  VersionPage page;
  for (auto it = first; it != refs.end(); ++it) {
    if (page.versions.size() == options.limit) {
      page.next = page.versions.back().ref.version;
      break;
    }
    QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(store, *it));
    const int64_t millis = ManifestTimestampNanos(*loaded.file.manifest) / 1'000'000;
    page.versions.push_back(VersionInfo{std::move(loaded.ref), millis});
  }
  return page;
}

Result<LoadedManifest> LoadManifest(ObjectStore& store, const VersionRef& ref) {
  QV_ASSIGN_OR_RETURN(GetResult got, store.Get(ref.path));
  QV_ASSIGN_OR_RETURN(format::ManifestFile file, format::DecodeManifestFile(got.data, ref.path));
  QV_RETURN_IF_ERROR(format::CheckReaderFlags(file.manifest->reader_feature_flags(), ref.path));
  if (file.manifest->version() != ref.version) {
    return Status::Corruption(fmt::format("{}: holds version {}, its name says {}", ref.path,
                                          file.manifest->version(), ref.version));
  }
  VersionRef loaded = ref;
  loaded.size = got.meta.size;
  loaded.etag = got.meta.etag;
  return LoadedManifest{std::move(loaded), std::move(file)};
}

Result<LoadedManifest> LoadVersion(ObjectStore& store, uint64_t version) {
  for (ManifestNaming naming : {ManifestNaming::kV2, ManifestNaming::kV1}) {
    VersionRef ref{version, naming, kVersionsPrefix + format::ManifestFileName(version, naming), 0,
                   ""};
    auto loaded = LoadManifest(store, ref);
    if (loaded.ok() || !loaded.status().IsNotFound()) return loaded;
  }
  return Status(StatusCode::kTableVersionNotFound,
                fmt::format("version {} does not exist", version));
}

}  // namespace quiver::table
