#include "table/refs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "store/prefix_store.h"

namespace quiver::table {
namespace {

Result<nlohmann::json> ParseObject(std::string_view text, const std::string& what) {
  // Bounded (common/json.h): a ref file is whatever any writer to the table's storage put there.
  auto j = ParseJson(text);
  if (!j.ok() || !j->is_object()) {
    return Status::Corruption(
        fmt::format("{}: not a JSON object{}", what,
                    j.ok() ? std::string() : std::string(": ") + j.status().message()));
  }
  return std::move(*j);
}

Result<uint64_t> RequiredUint(const nlohmann::json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) {
    return Status::Corruption(fmt::format("{}: '{}' must be a non-negative integer", what, key));
  }
  return it->get<uint64_t>();
}

std::optional<std::string> OptionalString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

constexpr std::string_view kJsonSuffix = ".json";

// Lists `dir` and parses each "<stem>.json" with `parse`.
template <typename Info, typename Parse>
Result<std::map<std::string, Info>> ListRefs(ObjectStore& root, std::string_view dir, Parse parse,
                                             bool decode_branch) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, root.ListAll(dir));
  std::map<std::string, Info> out;
  for (const ObjectMeta& meta : all) {
    std::string_view name(meta.key);
    name.remove_prefix(dir.size());
    if (name.find('/') != std::string_view::npos || name.size() <= kJsonSuffix.size() ||
        name.substr(name.size() - kJsonSuffix.size()) != kJsonSuffix) {
      continue;
    }
    std::string stem(name.substr(0, name.size() - kJsonSuffix.size()));
    QV_ASSIGN_OR_RETURN(GetResult got, root.Get(meta.key));
    QV_ASSIGN_OR_RETURN(Info info, parse(got.data, meta.key));
    out.emplace(decode_branch ? DecodeBranchFileName(stem) : stem, std::move(info));
  }
  return out;
}

}  // namespace

Result<TagInfo> ParseTagJson(std::string_view text, const std::string& what) {
  QV_ASSIGN_OR_RETURN(nlohmann::json j, ParseObject(text, what));
  TagInfo tag;
  QV_ASSIGN_OR_RETURN(tag.version, RequiredUint(j, "version", what));
  QV_ASSIGN_OR_RETURN(tag.manifest_size, RequiredUint(j, "manifestSize", what));
  tag.branch = OptionalString(j, "branch");
  tag.created_at = OptionalString(j, "createdAt");
  tag.updated_at = OptionalString(j, "updatedAt");
  return tag;
}

Result<BranchInfo> ParseBranchJson(std::string_view text, const std::string& what) {
  QV_ASSIGN_OR_RETURN(nlohmann::json j, ParseObject(text, what));
  BranchInfo branch;
  QV_ASSIGN_OR_RETURN(branch.parent_version, RequiredUint(j, "parentVersion", what));
  QV_ASSIGN_OR_RETURN(branch.manifest_size, RequiredUint(j, "manifestSize", what));
  branch.parent_branch = OptionalString(j, "parentBranch");
  auto created = j.find("createAt");
  if (created != j.end()) {
    if (std::optional<int64_t> at = JsonToInt64(*created)) branch.create_at = *at;
  }
  return branch;
}

Result<std::map<std::string, TagInfo>> ListTags(ObjectStore& root) {
  return ListRefs<TagInfo>(root, kTagsDir, ParseTagJson, /*decode_branch=*/false);
}

Result<std::map<std::string, BranchInfo>> ListBranches(ObjectStore& root) {
  return ListRefs<BranchInfo>(root, kBranchesDir, ParseBranchJson, /*decode_branch=*/true);
}

namespace {

// Reads and parses the ref file of `what` `name`; a missing (or unaddressable) one is that ref's
// not-found code (RefReadError).
template <typename Info, typename Parse>
Result<Info> GetRef(ObjectStore& root, const std::string& key, std::string_view what,
                    std::string_view name, Parse parse) {
  auto got = root.Get(key);
  if (!got.ok()) return RefReadError(got.status(), what, name);
  return parse(got->data, key);
}

}  // namespace

Status RefReadError(const Status& read, std::string_view what, std::string_view name) {
  if (!read.IsNotFound() && !read.IsInvalidInput()) return read;
  return Status(what == "tag" ? StatusCode::kTableTagNotFound : StatusCode::kTableBranchNotFound,
                fmt::format("{} '{}' does not exist", what, name));
}

Status CheckRefNameLength(std::string_view name, std::string_view what) {
  size_t stored = what == "branch" ? EncodeBranchFileName(name).size() : name.size();
  if (stored > kMaxRefNameBytes) {
    return Status::InvalidInput(fmt::format("{} name is {} bytes{}; at most {} are allowed", what,
                                            stored, stored != name.size() ? " as stored" : "",
                                            kMaxRefNameBytes));
  }
  return Status::OK();
}

std::string TagKey(std::string_view name) {
  return std::string(kTagsDir) + std::string(name) + std::string(kJsonSuffix);
}

Result<TagInfo> GetTag(ObjectStore& root, const std::string& name) {
  return GetRef<TagInfo>(root, TagKey(name), "tag", name, ParseTagJson);
}

std::string BranchRefKey(std::string_view name) {
  return std::string(kBranchesDir) + EncodeBranchFileName(name) + std::string(kJsonSuffix);
}

Result<BranchInfo> GetBranch(ObjectStore& root, const std::string& name) {
  return GetRef<BranchInfo>(root, BranchRefKey(name), "branch", name, ParseBranchJson);
}

std::string EncodeBranchFileName(std::string_view branch) {
  std::string out;
  for (char c : branch) {
    if (c == '/') {
      out += "%2F";
    } else if (c == '%') {
      out += "%25";
    } else {
      out += c;
    }
  }
  return out;
}

std::string DecodeBranchFileName(std::string_view stem) {
  std::string out;
  for (size_t i = 0; i < stem.size(); ++i) {
    if (stem[i] == '%' && i + 2 < stem.size() + 0 && stem.substr(i, 3) == "%2F") {
      out += '/';
      i += 2;
    } else if (stem[i] == '%' && stem.substr(i, 3) == "%25") {
      out += '%';
      i += 2;
    } else {
      out += stem[i];
    }
  }
  return out;
}

std::string BranchRootKey(std::string_view branch) { return "tree/" + std::string(branch); }

Result<std::shared_ptr<ObjectStore>> OpenBranchStore(const std::shared_ptr<ObjectStore>& root,
                                                     const std::string& branch) {
  QV_RETURN_IF_ERROR(GetBranch(*root, branch).status());
  auto prefixed = PrefixStore::Make(root, BranchRootKey(branch));
  if (!prefixed.ok()) {
    return Status(StatusCode::kTableBranchNotFound,
                  fmt::format("branch '{}': {}", branch, prefixed.status().message()));
  }
  return std::shared_ptr<ObjectStore>(*prefixed);
}

}  // namespace quiver::table
