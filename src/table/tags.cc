#include "table/tags.h"

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format/lance_proto.h"
#include "store/prefix_store.h"
#include "table/versions.h"

namespace quiver::table {
namespace {

// The manifest size of `target`, which must exist (on its branch).
Result<uint64_t> TargetManifestSize(ObjectStore& root, const TagTarget& target) {
  std::shared_ptr<ObjectStore> store;
  ObjectStore* where = &root;
  if (target.branch) {
    QV_RETURN_IF_ERROR(GetBranch(root, *target.branch).status());
    // A non-owning view of `root` for the prefix decorator.
    std::shared_ptr<ObjectStore> borrowed(&root, [](ObjectStore*) {});
    QV_ASSIGN_OR_RETURN(store, PrefixStore::Make(borrowed, BranchRootKey(*target.branch)));
    where = store.get();
  }
  QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadVersion(*where, target.version));
  return loaded.ref.size;
}

std::string TagJson(const TagInfo& tag, const nlohmann::ordered_json& metadata) {
  nlohmann::ordered_json j;
  j["branch"] = tag.branch ? nlohmann::ordered_json(*tag.branch) : nlohmann::ordered_json(nullptr);
  j["version"] = tag.version;
  if (tag.created_at) j["createdAt"] = *tag.created_at;
  if (tag.updated_at) j["updatedAt"] = *tag.updated_at;
  j["manifestSize"] = tag.manifest_size;
  j["metadata"] = metadata;
  return j.dump(2);
}

}  // namespace

std::string FormatRfc3339Nanos(int64_t unix_nanos) {
  int64_t secs = unix_nanos / 1'000'000'000;
  int64_t nanos = unix_nanos % 1'000'000'000;
  if (nanos < 0) {
    nanos += 1'000'000'000;
    secs -= 1;
  }
  time_t t = static_cast<time_t>(secs);
  tm utc;
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, nanos);
}

Status ValidateTagName(std::string_view name) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidInput(fmt::format("tag name '{}' {}", name, why));
  };
  if (name.empty()) return Status::InvalidInput("tag name is empty");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    if (!ok) return bad("may only contain ASCII letters, digits, '.', '-' and '_'");
  }
  if (name.front() == '.' || name.back() == '.') return bad("may not start or end with '.'");
  if (name.find("..") != std::string_view::npos) return bad("may not contain '..'");
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".lock") {
    return bad("may not end with '.lock'");
  }
  return Status::OK();
}

Result<TagInfo> CreateTag(ObjectStore& root, const std::string& name, const TagTarget& target,
                          const Clock* clock) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  QV_ASSIGN_OR_RETURN(uint64_t manifest_size, TargetManifestSize(root, target));
  if (clock == nullptr) clock = Clock::Real();
  std::string now = FormatRfc3339Nanos(clock->NowNanos());
  TagInfo tag{target.version, target.branch, manifest_size, now, now};
  auto put = root.Put(TagKey(name), TagJson(tag, nlohmann::ordered_json::object()),
                      PutOptions::CreateOnly());
  if (!put.ok()) {
    if (put.status().IsAlreadyExists()) {
      return Status(StatusCode::kTableTagAlreadyExists,
                    fmt::format("tag '{}' already exists", name));
    }
    return put.status();
  }
  return tag;
}

Result<TagInfo> UpdateTag(ObjectStore& root, const std::string& name, const TagTarget& target,
                          const Clock* clock) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  auto got = root.Get(TagKey(name));
  if (!got.ok()) {
    if (got.status().IsNotFound()) {
      return Status(StatusCode::kTableTagNotFound, fmt::format("tag '{}' does not exist", name));
    }
    return got.status();
  }
  QV_ASSIGN_OR_RETURN(TagInfo old, ParseTagJson(got->data, TagKey(name)));
  nlohmann::ordered_json previous =
      nlohmann::ordered_json::parse(got->data, nullptr, /*allow_exceptions=*/false);
  nlohmann::ordered_json metadata =
      previous.is_object() && previous.contains("metadata") && previous["metadata"].is_object()
          ? previous["metadata"]
          : nlohmann::ordered_json::object();
  QV_ASSIGN_OR_RETURN(uint64_t manifest_size, TargetManifestSize(root, target));
  if (clock == nullptr) clock = Clock::Real();
  std::string now = FormatRfc3339Nanos(clock->NowNanos());
  TagInfo tag{target.version, target.branch, manifest_size, old.created_at ? old.created_at : now,
              now};
  auto put = root.Put(TagKey(name), TagJson(tag, metadata), PutOptions::IfMatch(got->meta.etag));
  if (!put.ok()) {
    if (put.status().IsConflict()) {
      return Status(StatusCode::kConcurrentModification,
                    fmt::format("tag '{}' changed while it was being updated; retry", name),
                    Subcode::kConflict, /*retryable=*/true);
    }
    return put.status();
  }
  return tag;
}

Status DeleteTag(ObjectStore& root, const std::string& name) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  auto head = root.Head(TagKey(name));
  if (!head.ok()) {
    if (head.status().IsNotFound()) {
      return Status(StatusCode::kTableTagNotFound, fmt::format("tag '{}' does not exist", name));
    }
    return head.status();
  }
  return root.Delete(TagKey(name));
}

}  // namespace quiver::table
