#include "table/tags.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "format/lance_proto.h"
#include "table/versions.h"

namespace quiver::table {
namespace {

// The manifest size of `target`, which must exist (on its branch).
Result<uint64_t> TargetManifestSize(const std::shared_ptr<ObjectStore>& root,
                                    const TagTarget& target) {
  std::shared_ptr<ObjectStore> store = root;
  if (target.branch) {
    QV_ASSIGN_OR_RETURN(store, OpenBranchStore(root, *target.branch));
  }
  QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadVersion(*store, target.version));
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

Result<TagInfo> CreateTag(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                          const TagTarget& target, const Clock* clock) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  QV_RETURN_IF_ERROR(CheckRefNameLength(name, "tag"));
  QV_ASSIGN_OR_RETURN(uint64_t manifest_size, TargetManifestSize(root, target));
  if (clock == nullptr) clock = Clock::Real();
  std::string now = FormatRfc3339Nanos(clock->NowNanos());
  TagInfo tag{target.version, target.branch, manifest_size, now, now};
  auto put = root->Put(TagKey(name), TagJson(tag, nlohmann::ordered_json::object()),
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

Result<TagInfo> UpdateTag(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                          const TagTarget& target, const Clock* clock) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  auto got = root->Get(TagKey(name));
  if (!got.ok()) return RefReadError(got.status(), "tag", name);
  QV_ASSIGN_OR_RETURN(TagInfo old, ParseTagJson(got->data, TagKey(name)));
  // Parsed as ParseTagJson just did, keeping the key order of the metadata carried over.
  auto reparsed = ParseOrderedJson(got->data);
  if (!reparsed.ok())
    return Status::Corruption(reparsed.status().message()).WithContext(TagKey(name));
  nlohmann::ordered_json previous = std::move(*reparsed);
  nlohmann::ordered_json metadata =
      previous.is_object() && previous.contains("metadata") && previous["metadata"].is_object()
          ? previous["metadata"]
          : nlohmann::ordered_json::object();
  QV_ASSIGN_OR_RETURN(uint64_t manifest_size, TargetManifestSize(root, target));
  if (clock == nullptr) clock = Clock::Real();
  std::string now = FormatRfc3339Nanos(clock->NowNanos());
  TagInfo tag{target.version, target.branch, manifest_size, old.created_at ? old.created_at : now,
              now};
  auto put = root->Put(TagKey(name), TagJson(tag, metadata), PutOptions::IfMatch(got->meta.etag));
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

Status DeleteTag(const std::shared_ptr<ObjectStore>& root, const std::string& name) {
  QV_RETURN_IF_ERROR(ValidateTagName(name));
  auto head = root->Head(TagKey(name));
  if (!head.ok()) {
    return RefReadError(head.status(), "tag", name);
  }
  return root->Delete(TagKey(name));
}

}  // namespace quiver::table
