#include "table/branches.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ids.h"
#include "common/json.h"
#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "table/apply.h"
#include "table/commit.h"
#include "table/versions.h"

namespace quiver::table {
namespace {

bool IsRefChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

// The source's version_mapping, from its ref file (main has none).
Result<nlohmann::ordered_json> ParentMapping(ObjectStore& root,
                                             const std::optional<std::string>& source) {
  nlohmann::ordered_json mapping = nlohmann::ordered_json::array();
  if (!source) return mapping;
  QV_ASSIGN_OR_RETURN(GetResult got, root.Get(BranchRefKey(*source)));
  auto parsed = ParseOrderedJson(got.data);  // bounded: common/json.h
  if (!parsed.ok()) {
    return Status::Corruption(parsed.status().message()).WithContext(BranchRefKey(*source));
  }
  const nlohmann::ordered_json& j = *parsed;
  if (j.is_object() && j.contains("identifier") && j["identifier"].is_object() &&
      j["identifier"].contains("version_mapping") &&
      j["identifier"]["version_mapping"].is_array()) {
    mapping = j["identifier"]["version_mapping"];
  }
  return mapping;
}

// The shallow clone's first manifest: the source version's content, with every file it
// inherits pointed at a new base path naming the source root.
lance::table::Manifest CloneManifest(const lance::table::Manifest& source,
                                     lance::table::IndexSection* indices,
                                     const std::optional<std::string>& source_branch,
                                     const std::string& source_path, const std::string& name) {
  lance::table::Manifest m = source;
  uint32_t base_id = 0;
  if (m.base_paths_size() > 0) {
    for (const auto& base : m.base_paths()) base_id = std::max(base_id, base.id() + 1);
  }
  auto* base = m.add_base_paths();
  base->set_id(base_id);
  if (source_branch) base->set_name(*source_branch);
  base->set_is_dataset_root(true);
  base->set_path(source_path);
  for (auto& fragment : *m.mutable_fragments()) {
    for (auto& file : *fragment.mutable_files()) {
      if (!file.has_base_id()) file.set_base_id(base_id);
    }
    if (fragment.has_deletion_file() && !fragment.deletion_file().has_base_id()) {
      fragment.mutable_deletion_file()->set_base_id(base_id);
    }
  }
  if (indices != nullptr) {
    for (auto& index : *indices->mutable_indices()) {
      if (!index.has_base_id()) index.set_base_id(base_id);
    }
  }
  m.set_branch(name);
  return m;
}

}  // namespace

Status ValidateBranchName(std::string_view name) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidInput(fmt::format("branch name '{}' {}", name, why));
  };
  if (name.empty()) return Status::InvalidInput("branch name is empty");
  if (name == "main") return bad("is reserved for the main line");
  if (name.front() == '/' || name.back() == '/') return bad("may not start or end with '/'");
  if (name.find("//") != std::string_view::npos) return bad("may not contain '//'");
  if (name.find("..") != std::string_view::npos) return bad("may not contain '..'");
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".lock") {
    return bad("may not end with '.lock'");
  }
  for (char c : name) {
    if (c != '/' && !IsRefChar(c)) {
      return bad("may only contain ASCII letters, digits, '.', '-', '_' and '/' between segments");
    }
  }
  return Status::OK();
}

Result<BranchInfo> CreateBranch(const std::shared_ptr<ObjectStore>& root, const std::string& name,
                                const BranchSource& source, const Clock* clock) {
  QV_RETURN_IF_ERROR(ValidateBranchName(name));
  QV_RETURN_IF_ERROR(CheckRefNameLength(name, "branch"));
  if (clock == nullptr) clock = Clock::Real();
  auto exists = root->Head(BranchRefKey(name));
  if (exists.ok()) {
    return Status(StatusCode::kTableBranchAlreadyExists,
                  fmt::format("branch '{}' already exists", name));
  }
  if (!exists.status().IsNotFound()) return exists.status();

  std::shared_ptr<ObjectStore> source_store = root;
  if (source.branch) {
    QV_ASSIGN_OR_RETURN(source_store, OpenBranchStore(root, *source.branch));
  }
  LoadedManifest loaded;
  if (source.version) {
    QV_ASSIGN_OR_RETURN(loaded, LoadVersion(*source_store, *source.version));
  } else {
    QV_ASSIGN_OR_RETURN(VersionRef latest, ResolveLatestVersion(*source_store));
    QV_ASSIGN_OR_RETURN(loaded, LoadManifest(*source_store, latest));
  }
  const uint64_t version = loaded.ref.version;
  const std::string source_path = source_store->ExternalPath("");

  auto indices = loaded.file.index_section
                     ? std::make_shared<lance::table::IndexSection>(*loaded.file.index_section)
                     : nullptr;
  lance::table::Manifest m =
      CloneManifest(*loaded.file.manifest, indices.get(), source.branch, source_path, name);
  lance::table::Transaction txn;
  txn.set_read_version(version);
  txn.set_uuid(NewUuidV4());
  auto* clone = txn.mutable_clone();
  clone->set_is_shallow(true);
  if (source.branch) clone->set_ref_name(*source.branch);
  clone->set_ref_version(version);
  clone->set_ref_path(source_path);
  clone->set_branch_name(name);

  const std::string tree = BranchRootKey(name) + "/";
  const std::string txn_file = fmt::format("{}-{}.txn", version, txn.uuid());
  const int64_t now = clock->NowNanos();
  StampManifest(m, version, now, txn_file);
  RecomputeFeatureFlags(m);

  QV_RETURN_IF_ERROR(root->Put(tree + std::string(format::kTransactionsDir) + "/" + txn_file,
                               txn.SerializeAsString())
                         .status());
  std::string bytes = format::EncodeManifestFile(m, &txn, indices.get());
  auto put = root->Put(tree + std::string(format::kVersionsDir) + "/" +
                           format::ManifestFileName(version, format::ManifestNaming::kV2),
                       bytes, PutOptions::CreateOnly());
  if (!put.ok()) {
    if (put.status().IsAlreadyExists()) {
      return Status(StatusCode::kTableBranchAlreadyExists,
                    fmt::format("branch '{}' already exists (or a creation of it was "
                                "interrupted: delete it and create it again)",
                                name));
    }
    return put.status();
  }
  WriteVersionHint(*root, version, tree);

  QV_ASSIGN_OR_RETURN(nlohmann::ordered_json mapping, ParentMapping(*root, source.branch));
  std::string simple_uuid = NewUuidV4();
  simple_uuid.erase(std::remove(simple_uuid.begin(), simple_uuid.end(), '-'), simple_uuid.end());
  mapping.push_back(nlohmann::ordered_json::array({version, simple_uuid}));
  BranchInfo info{source.branch, version, now / 1'000'000'000, bytes.size()};
  nlohmann::ordered_json ref;
  ref["parentBranch"] = source.branch ? nlohmann::ordered_json(*source.branch) : nullptr;
  ref["identifier"] = {{"version_mapping", mapping}};
  ref["parentVersion"] = version;
  ref["createAt"] = info.create_at;
  ref["manifestSize"] = info.manifest_size;
  ref["metadata"] = nlohmann::ordered_json::object();
  auto ref_put = root->Put(BranchRefKey(name), ref.dump(2), PutOptions::CreateOnly());
  if (!ref_put.ok()) {
    if (ref_put.status().IsAlreadyExists()) {
      return Status(StatusCode::kTableBranchAlreadyExists,
                    fmt::format("branch '{}' already exists", name));
    }
    return ref_put.status();
  }
  return info;
}

Status DeleteBranch(const std::shared_ptr<ObjectStore>& root, const std::string& name) {
  QV_RETURN_IF_ERROR(ValidateBranchName(name));
  QV_RETURN_IF_ERROR(GetBranch(*root, name).status());
  QV_ASSIGN_OR_RETURN(auto branches, ListBranches(*root));
  for (const auto& [other, info] : branches) {
    if (info.parent_branch == name) {
      return Status(StatusCode::kInvalidTableState,
                    fmt::format("branch '{}' is forked from '{}'; delete it first", other, name));
    }
  }
  QV_ASSIGN_OR_RETURN(auto tags, ListTags(*root));
  for (const auto& [tag, info] : tags) {
    if (info.branch == name) {
      return Status(StatusCode::kInvalidTableState,
                    fmt::format("tag '{}' points into branch '{}'; delete it first", tag, name));
    }
  }
  QV_RETURN_IF_ERROR(root->Delete(BranchRefKey(name)));
  // The branch's own dataset directories only: tree/<name>/<other>/ may be another branch.
  const std::string tree = BranchRootKey(name) + "/";
  for (std::string_view dir : format::kDatasetDirs) {
    QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> files, root->ListAll(tree + std::string(dir)));
    for (const ObjectMeta& f : files) QV_RETURN_IF_ERROR(root->Delete(f.key));
  }
  return Status::OK();
}

}  // namespace quiver::table
