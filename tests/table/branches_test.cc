// Branch creation and deletion over a synthetic dataset. LanceDB's use of quiver's branches is
// checked by tests/interop/check_branches.mjs.
#include "table/branches.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/operations.h"
#include "table/tags.h"

namespace quiver::table {
namespace {

class BranchesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (uint64_t v = 1; v <= 2; ++v) {
      lance::table::Manifest m;
      m.set_version(v);
      for (uint64_t f = 0; f < v; ++f) {
        auto* frag = m.add_fragments();
        frag->set_id(f);
        frag->set_physical_rows(10);
        frag->add_files()->set_path("f" + std::to_string(f) + ".lance");
      }
      m.mutable_fragments(0)->mutable_deletion_file()->set_num_deleted_rows(1);
      m.set_max_fragment_id(static_cast<uint32_t>(v - 1));
      lance::table::Transaction txn;
      txn.set_read_version(v - 1);
      txn.mutable_update_config();
      ASSERT_TRUE(root_
                      ->Put("_versions/" + format::ManifestFileName(v, format::ManifestNaming::kV2),
                            format::EncodeManifestFile(m, &txn, nullptr))
                      .ok());
    }
  }

  std::shared_ptr<const Dataset> Open(const std::string& branch) {
    auto ds = Dataset::Open(root_, OpenOptions{std::nullopt, std::nullopt, branch});
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return *ds;
  }

  std::shared_ptr<ObjectStore> root_ = MemoryObjectStore::Create();
  ManualClock clock_{1'795'939'548'000'000'000};
};

TEST_F(BranchesTest, AForkIsAShallowCloneAtTheSourceVersion) {
  auto info = CreateBranch(root_, "dev", BranchSource{std::nullopt, 1}, &clock_);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->parent_version, 1u);
  EXPECT_FALSE(info->parent_branch.has_value());
  auto dev = Open("dev");
  EXPECT_EQ(dev->version(), 1u) << "the first branch version keeps the source's number";
  const auto& m = dev->manifest();
  EXPECT_EQ(m.branch(), "dev");
  ASSERT_EQ(m.base_paths_size(), 1);
  EXPECT_EQ(m.base_paths(0).id(), 0u);
  EXPECT_TRUE(m.base_paths(0).is_dataset_root());
  EXPECT_EQ(m.base_paths(0).path(), root_->ExternalPath(""));
  EXPECT_FALSE(m.base_paths(0).has_name()) << "forked from main";
  EXPECT_EQ(m.fragments(0).files(0).base_id(), 0u);
  EXPECT_EQ(m.fragments(0).deletion_file().base_id(), 0u);
  EXPECT_EQ(dev->ReaderFlags(), 16u | 1u);
  ASSERT_NE(dev->manifest_file().transaction, nullptr);
  const auto& clone = dev->manifest_file().transaction->clone();
  EXPECT_TRUE(clone.is_shallow());
  EXPECT_EQ(clone.ref_version(), 1u);
  EXPECT_EQ(clone.branch_name(), "dev");
  // The ref file, in Lance's shape.
  auto ref = nlohmann::json::parse(root_->Get("_refs/branches/dev.json")->data);
  EXPECT_TRUE(ref["parentBranch"].is_null());
  EXPECT_EQ(ref["parentVersion"], 1);
  EXPECT_EQ(ref["createAt"], 1'795'939'548);
  EXPECT_EQ(ref["identifier"]["version_mapping"].size(), 1u);
  EXPECT_EQ(ref["manifestSize"], dev->version_ref().size);
  // Main did not move.
  EXPECT_EQ((*Dataset::Open(root_))->version(), 2u);
}

TEST_F(BranchesTest, ABranchOfABranchAddsABasePathAndInheritsTheLineage) {
  ASSERT_TRUE(CreateBranch(root_, "dev", BranchSource{}, &clock_).ok());  // main's latest: 2
  ASSERT_TRUE(UpdateSchemaMetadata(CommitTarget{root_, "dev"}, {{"k", "v"}}).ok());  // dev v3
  auto info = CreateBranch(root_, "feat/x", BranchSource{"dev", std::nullopt}, &clock_);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->parent_version, 3u);
  auto feat = Open("feat/x");
  const auto& m = feat->manifest();
  ASSERT_EQ(m.base_paths_size(), 2);
  EXPECT_EQ(m.base_paths(1).id(), 1u);
  EXPECT_EQ(m.base_paths(1).name(), "dev");
  EXPECT_EQ(m.base_paths(1).path(), root_->ExternalPath("tree/dev"));
  EXPECT_EQ(m.fragments(0).files(0).base_id(), 0u) << "main's files keep main's base";
  EXPECT_EQ(m.schema_metadata().at("k"), "v");
  auto ref = nlohmann::json::parse(root_->Get("_refs/branches/feat%2Fx.json")->data);
  EXPECT_EQ(ref["parentBranch"], "dev");
  EXPECT_EQ(ref["identifier"]["version_mapping"].size(), 2u) << "dev's mapping plus its own";
}

TEST_F(BranchesTest, CreationRefusals) {
  ASSERT_TRUE(CreateBranch(root_, "dev", BranchSource{}, &clock_).ok());
  EXPECT_EQ(CreateBranch(root_, "dev", BranchSource{}, &clock_).status().code(),
            StatusCode::kTableBranchAlreadyExists);
  EXPECT_EQ(CreateBranch(root_, "x", BranchSource{"nope", std::nullopt}, &clock_).status().code(),
            StatusCode::kTableBranchNotFound);
  EXPECT_EQ(CreateBranch(root_, "x", BranchSource{std::nullopt, 9}, &clock_).status().code(),
            StatusCode::kTableVersionNotFound);
  for (const char* bad : {"", "main", "/a", "a/", "a//b", "a..b", "x.lock", "sp ace", "a\\b"}) {
    EXPECT_TRUE(ValidateBranchName(bad).IsInvalidInput()) << bad;
  }
  for (const char* good : {"dev", "feat/x", "release-1.2_3"}) {
    EXPECT_TRUE(ValidateBranchName(good).ok()) << good;
  }
}

// A branch ref file is whatever any writer to the table's storage put there: one nested past the
// JSON bound (or repeating a key) is Corruption naming the file, for a fork from it and for the
// listing, instead of a value that later recursive walks would overflow the stack on.
TEST_F(BranchesTest, HostileRefFilesAreCorruption) {
  ASSERT_TRUE(CreateBranch(root_, "dev", BranchSource{}, &clock_).ok());
  auto ref = root_->Get(BranchRefKey("dev"));
  ASSERT_TRUE(ref.ok());
  const std::string body = ref->data.substr(0, ref->data.rfind('}'));
  for (const std::string& planted :
       {body + R"(, "x": )" + std::string(100'000, '[') + std::string(100'000, ']') + "}",
        body + R"(, "parentVersion": 1})"}) {
    ASSERT_TRUE(root_->Put(BranchRefKey("dev"), planted).ok());
    auto fork = CreateBranch(root_, "x", BranchSource{"dev", std::nullopt}, &clock_);
    ASSERT_FALSE(fork.ok());
    EXPECT_EQ(fork.status().subcode(), Subcode::kCorruption) << fork.status().ToString();
    EXPECT_NE(fork.status().message().find(BranchRefKey("dev")), std::string::npos)
        << fork.status().ToString();
    EXPECT_FALSE(ListBranches(*root_).ok());
  }
}

TEST_F(BranchesTest, DeleteRemovesTheRefAndOwnFilesButNotNestedBranches) {
  ASSERT_TRUE(CreateBranch(root_, "a", BranchSource{}, &clock_).ok());
  ASSERT_TRUE(CreateBranch(root_, "a/b", BranchSource{}, &clock_).ok());
  ASSERT_TRUE(CreateTag(root_, "t", TagTarget{2, "a"}).ok());
  EXPECT_EQ(DeleteBranch(root_, "a").code(), StatusCode::kInvalidTableState)
      << "a tag points into it";
  ASSERT_TRUE(DeleteTag(root_, "t").ok());
  ASSERT_TRUE(DeleteBranch(root_, "a").ok());
  EXPECT_EQ(GetBranch(*root_, "a").status().code(), StatusCode::kTableBranchNotFound);
  EXPECT_TRUE(root_->ListAll("tree/a/_versions/")->empty());
  EXPECT_TRUE(root_->ListAll("tree/a/_transactions/")->empty());
  EXPECT_EQ(Open("a/b")->version(), 2u) << "the nested branch a/b is intact";
  EXPECT_EQ(DeleteBranch(root_, "a").code(), StatusCode::kTableBranchNotFound);

  ASSERT_TRUE(CreateBranch(root_, "parent", BranchSource{}, &clock_).ok());
  ASSERT_TRUE(CreateBranch(root_, "child", BranchSource{"parent", std::nullopt}, &clock_).ok());
  EXPECT_EQ(DeleteBranch(root_, "parent").code(), StatusCode::kInvalidTableState)
      << "a branch forks from it";
}

}  // namespace
}  // namespace quiver::table
