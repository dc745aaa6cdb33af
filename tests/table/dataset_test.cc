// Dataset opening at the manifest level over synthetic datasets in a memory store: version
// resolution (V1, V2, detached, garbage), tags, branches, flags and error codes. Datasets written
// by the real LanceDB are checked by tests/interop.
#include "table/dataset.h"
#include "table/stats.h"

#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "store/counting_store.h"
#include "store/memory_store.h"
#include "table/refs.h"

namespace quiver::table {
namespace {

using format::ManifestFileName;
using format::ManifestNaming;

class DatasetTest : public ::testing::Test {
 protected:
  // Writes a manifest for `version` with `rows` rows in one fragment.
  void Commit(uint64_t version, uint64_t rows, ManifestNaming naming = ManifestNaming::kV2,
              const std::string& prefix = "", uint64_t reader_flags = 0) {
    lance::table::Manifest m;
    m.set_version(version);
    auto* f = m.add_fields();
    f->set_name("id");
    f->set_parent_id(-1);
    f->set_logical_type("int64");
    auto* frag = m.add_fragments();
    frag->set_physical_rows(rows);
    frag->add_files()->set_file_size_bytes(100);
    m.set_reader_feature_flags(reader_flags);
    m.mutable_timestamp()->set_seconds(1'700'000'000 + static_cast<int64_t>(version));
    m.mutable_data_format()->set_version("2.1");
    lance::table::Transaction txn;
    txn.set_read_version(version - 1);
    std::string bytes = format::EncodeManifestFile(m, &txn, nullptr);
    ASSERT_TRUE(store_->Put(prefix + "_versions/" + ManifestFileName(version, naming), bytes).ok());
  }

  void PutJson(const std::string& key, const std::string& json) {
    ASSERT_TRUE(store_->Put(key, json).ok());
  }

  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create();
};

TEST_F(DatasetTest, OpensTheLatestV2VersionWithOneListAndOneGet) {
  for (uint64_t v = 1; v <= 12; ++v) Commit(v, v * 10);
  PutJson("_versions/latest_version_hint.json", R"({"version":12})");
  PutJson("_versions/18446744073709551603.manifest#1", "a crashed writer's temp");
  auto counting = std::make_shared<CountingStore>(store_);
  auto ds = Dataset::Open(counting);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 12u);
  EXPECT_EQ((*ds)->Stats().num_rows, 120u);
  EXPECT_EQ((*ds)->DataStorageVersion(), "2.1");
  EXPECT_EQ((*ds)->TimestampMillis(), (1'700'000'000 + 12) * 1000LL);
  StoreCounts counts = counting->Snapshot();
  EXPECT_EQ(counts.Calls(StoreOp::kList), 1u);
  EXPECT_EQ(counts.Calls(StoreOp::kGet), 1u);
  EXPECT_EQ(counts.TotalCalls(), 2u);
}

TEST_F(DatasetTest, OpensV1DatasetsByTheHighestVersion) {
  for (uint64_t v : {1, 2, 10, 9}) Commit(v, v, ManifestNaming::kV1);
  auto ds = Dataset::Open(store_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 10u) << "numerically, not lexically (\"9\" > \"10\")";
  auto v2 = Dataset::Open(store_, OpenOptions{2, std::nullopt, std::nullopt});
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)->version(), 2u);
  EXPECT_EQ((*v2)->version_ref().path, "_versions/2.manifest");
  auto versions = ListVersionRefs(*store_);
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 4u);
  EXPECT_EQ(versions->front().version, 1u);
  EXPECT_EQ(versions->back().version, 10u);
}

TEST_F(DatasetTest, MixedNamingSchemesAreRefused) {
  Commit(1, 1, ManifestNaming::kV1);
  Commit(2, 2, ManifestNaming::kV2);
  EXPECT_EQ(Dataset::Open(store_).status().subcode(), Subcode::kCorruption);
  EXPECT_EQ(ListVersionRefs(*store_).status().subcode(), Subcode::kCorruption);
}

TEST_F(DatasetTest, DetachedVersionsAreNeverLatest) {
  Commit(1, 1);
  Commit(2, 2);
  uint64_t detached = (uint64_t{1} << 63) | 5;
  PutJson("_versions/d" + std::to_string(detached) + ".manifest", "not even parsed");
  auto ds = Dataset::Open(store_);
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ((*ds)->version(), 2u);
  EXPECT_EQ(ListVersionRefs(*store_)->size(), 2u);
}

TEST_F(DatasetTest, MissingDatasetsAndVersionsHaveTheirCodes) {
  EXPECT_EQ(Dataset::Open(store_).status().code(), StatusCode::kTableNotFound);
  PutJson("_versions/garbage.txt", "x");
  EXPECT_EQ(Dataset::Open(store_).status().code(), StatusCode::kTableNotFound);
  Commit(1, 1);
  EXPECT_EQ(Dataset::Open(store_, OpenOptions{7, std::nullopt, std::nullopt}).status().code(),
            StatusCode::kTableVersionNotFound);
}

TEST_F(DatasetTest, CorruptManifestsAndUnknownFlagsNameTheFile) {
  Commit(1, 1);
  PutJson("_versions/" + ManifestFileName(2, ManifestNaming::kV2), "truncated garbage LANC");
  auto corrupt = Dataset::Open(store_);
  EXPECT_EQ(corrupt.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(corrupt.status().message().find(ManifestFileName(2, ManifestNaming::kV2)),
            std::string::npos);
  Commit(3, 3, ManifestNaming::kV2, "", /*reader_flags=*/64);
  auto unknown = Dataset::Open(store_);
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(unknown.status().message().find("64"), std::string::npos);
}

TEST_F(DatasetTest, AManifestWhoseVersionDisagreesWithItsNameIsCorrupt) {
  Commit(1, 1);
  auto v1 = store_->Get("_versions/" + ManifestFileName(1, ManifestNaming::kV2));
  ASSERT_TRUE(store_->Put("_versions/" + ManifestFileName(5, ManifestNaming::kV2), v1->data).ok());
  EXPECT_EQ(Dataset::Open(store_).status().subcode(), Subcode::kCorruption);
}

TEST_F(DatasetTest, TagsResolveToTheirBranchAndVersion) {
  Commit(1, 10);
  Commit(2, 20);
  PutJson("_refs/tags/v1.json",
          R"({"branch":null,"version":1,"createdAt":"2026-11-29T06:18:36.098648930Z",)"
          R"("manifestSize":100,"metadata":{},"someFutureKey":1})");
  PutJson("_refs/tags/old.json", R"({"version":2,"manifestSize":90})");  // 1.0-era tag
  auto tagged = Dataset::Open(store_, OpenOptions{std::nullopt, "v1", std::nullopt});
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ((*tagged)->version(), 1u);
  auto tags = ListTags(*store_);
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 2u);
  EXPECT_EQ(tags->at("old").version, 2u);
  EXPECT_FALSE(tags->at("v1").branch.has_value());
  EXPECT_EQ(Dataset::Open(store_, OpenOptions{std::nullopt, "nope", std::nullopt}).status().code(),
            StatusCode::kTableTagNotFound);
  EXPECT_EQ(Dataset::Open(store_, OpenOptions{1, "v1", std::nullopt}).status().code(),
            StatusCode::kInvalidInput);
  PutJson("_refs/tags/bad.json", R"({"version":"two"})");
  EXPECT_EQ(ListTags(*store_).status().subcode(), Subcode::kCorruption);
}

TEST_F(DatasetTest, BranchesLiveUnderTree) {
  Commit(1, 10);
  Commit(2, 20);
  Commit(2, 20, ManifestNaming::kV2, "tree/feat/x/");
  Commit(3, 25, ManifestNaming::kV2, "tree/feat/x/");
  PutJson("_refs/branches/feat%2Fx.json",
          R"({"parentBranch":null,"identifier":{"version_mapping":[[2,"1205a761990f49ce"]]},)"
          R"("parentVersion":2,"createAt":1795933280,"manifestSize":545,"metadata":{}})");
  PutJson("_refs/tags/tip.json", R"({"branch":"feat/x","version":3,"manifestSize":1})");
  auto branch = Dataset::Open(store_, OpenOptions{std::nullopt, std::nullopt, "feat/x"});
  ASSERT_TRUE(branch.ok()) << branch.status().ToString();
  EXPECT_EQ((*branch)->version(), 3u);
  EXPECT_EQ((*branch)->Stats().num_rows, 25u);
  EXPECT_EQ(*(*branch)->branch(), "feat/x");
  auto by_tag = Dataset::Open(store_, OpenOptions{std::nullopt, "tip", std::nullopt});
  ASSERT_TRUE(by_tag.ok()) << by_tag.status().ToString();
  EXPECT_EQ(*(*by_tag)->branch(), "feat/x");
  auto branches = ListBranches(*store_);
  ASSERT_TRUE(branches.ok());
  ASSERT_EQ(branches->count("feat/x"), 1u);
  EXPECT_EQ(branches->at("feat/x").parent_version, 2u);
  EXPECT_EQ(branches->at("feat/x").create_at, 1795933280);
  EXPECT_EQ(Dataset::Open(store_, OpenOptions{std::nullopt, std::nullopt, "nope"}).status().code(),
            StatusCode::kTableBranchNotFound);
  EXPECT_EQ((*Dataset::Open(store_))->version(), 2u) << "main is unaffected";
}

TEST_F(DatasetTest, VersionsPageInBothDirections) {
  for (uint64_t v = 1; v <= 7; ++v) Commit(v, v);
  auto collect = [&](bool descending, size_t limit) {
    std::vector<uint64_t> seen;
    VersionListOptions options{descending, std::nullopt, limit};
    while (true) {
      auto page = ListVersions(*store_, options);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      EXPECT_LE(page->versions.size(), limit);
      for (const VersionInfo& v : page->versions) {
        seen.push_back(v.ref.version);
        EXPECT_EQ(v.timestamp_millis, (1'700'000'000 + static_cast<int64_t>(v.ref.version)) * 1000);
        EXPECT_FALSE(v.ref.etag.empty());
        EXPECT_GT(v.ref.size, 0u);
      }
      if (!page->next) break;
      options.after = page->next;
    }
    return seen;
  };
  EXPECT_EQ(collect(false, 3), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(collect(true, 2), (std::vector<uint64_t>{7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(collect(false, 100), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(
      ListVersions(*store_, VersionListOptions{false, std::nullopt, 0}).status().IsInvalidInput());
}

TEST(RefsTest, BranchFileNamesEncodeSlashes) {
  EXPECT_EQ(EncodeBranchFileName("feat/x"), "feat%2Fx");
  EXPECT_EQ(DecodeBranchFileName("feat%2Fx"), "feat/x");
  EXPECT_EQ(DecodeBranchFileName(EncodeBranchFileName("a%2Fb/c")), "a%2Fb/c");
  EXPECT_EQ(BranchRootKey("feat/x"), "tree/feat/x");
}

// Index kinds by their details' type URL, FM indices under both of Lance's message names; an
// unknown kind shows its URL rather than a guess.
TEST(IndexTypeFromUrl, NamesEveryKindLanceWrites) {
  EXPECT_EQ(IndexTypeFromUrl("/lance.table.BTreeIndexDetails"), "BTREE");
  EXPECT_EQ(IndexTypeFromUrl("/lance.index.pb.VectorIndexDetails"), "VECTOR");
  EXPECT_EQ(IndexTypeFromUrl("/lance.index.pb.FMIndexDetails"), "FMINDEX");
  EXPECT_EQ(IndexTypeFromUrl("/lance.index.pb.FMIndexIndexDetails"), "FMINDEX");
  EXPECT_EQ(IndexTypeFromUrl("/lance.table.RTreeIndexDetails"), "RTREE");
  EXPECT_EQ(IndexTypeFromUrl("/lance.table.BloomFilterIndexDetails"), "BLOOMFILTER");
  EXPECT_EQ(IndexTypeFromUrl("/lance.index.pb.JsonIndexDetails"), "JSON");
  EXPECT_EQ(IndexTypeFromUrl("/lance.index.pb.SomethingNewDetails"),
            "/lance.index.pb.SomethingNewDetails");
}

}  // namespace
}  // namespace quiver::table
