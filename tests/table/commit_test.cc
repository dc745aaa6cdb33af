// The commit protocol and the metadata operations over synthetic datasets: conflicts, lost races,
// rebases, restore and project semantics, feature flags. LanceDB's view of these commits is
// checked by tests/interop/check_commits.mjs.
#include "table/commit.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "store/counting_store.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/operations.h"

namespace quiver::table {
namespace {

using format::ManifestFileName;
using format::ManifestNaming;
using lance::table::Transaction;

class CommitTest : public ::testing::Test {
 protected:
  // Version 1: fields id(0), name(1), vec(2); two fragments, one file each with all fields and a
  // second file holding only vec.
  void SetUp() override {
    lance::table::Manifest m;
    m.set_version(1);
    AddField(m, 0, "id");
    AddField(m, 1, "name");
    AddField(m, 2, "vec");
    for (uint64_t id = 0; id < 2; ++id) {
      auto* frag = m.add_fragments();
      frag->set_id(id);
      frag->set_physical_rows(100);
      auto* file = frag->add_files();
      file->set_path("f" + std::to_string(id) + ".lance");
      file->add_fields(0);
      file->add_fields(1);
      file->set_file_size_bytes(10);
      auto* vec_file = frag->add_files();
      vec_file->set_path("v" + std::to_string(id) + ".lance");
      vec_file->add_fields(2);
      vec_file->set_file_size_bytes(5);
    }
    m.set_max_fragment_id(1);
    (*m.mutable_schema_metadata())["a"] = "1";
    Transaction txn;
    txn.set_uuid("00000000-0000-4000-8000-000000000001");
    txn.mutable_overwrite();
    ASSERT_TRUE(store_
                    ->Put("_versions/" + ManifestFileName(1, ManifestNaming::kV2),
                          format::EncodeManifestFile(m, &txn, nullptr))
                    .ok());
  }

  static void AddField(lance::table::Manifest& m, int32_t id, const std::string& name) {
    auto* f = m.add_fields();
    f->set_id(id);
    f->set_parent_id(-1);
    f->set_name(name);
    f->set_logical_type("int64");
    f->set_nullable(true);
  }

  std::shared_ptr<const Dataset> Latest() {
    auto ds = Dataset::Open(store_);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return *ds;
  }

  Transaction SchemaMetadataTxn(uint64_t read_version, const std::string& key) {
    Transaction txn;
    txn.set_read_version(read_version);
    auto* e = txn.mutable_update_config()->mutable_schema_metadata_updates()->add_update_entries();
    e->set_key(key);
    e->set_value("v");
    return txn;
  }

  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create();
  CommitTarget target_{store_, std::nullopt};
  ManualClock clock_{1'795'932'875'000'000'000};
  CommitOptions options_{20, &clock_};
};

TEST_F(CommitTest, ACommitWritesManifestTransactionFileAndHint) {
  auto result = UpdateSchemaMetadata(target_, {{"b", "2"}, {"a", std::nullopt}}, false, options_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->version, 2u);
  EXPECT_EQ(result->attempts, 1);
  EXPECT_EQ(result->manifest_path, "_versions/" + ManifestFileName(2, ManifestNaming::kV2));
  auto ds = Latest();
  const auto& m = ds->manifest();
  EXPECT_EQ(m.version(), 2u);
  EXPECT_EQ(m.schema_metadata().size(), 1u);
  EXPECT_EQ(m.schema_metadata().at("b"), "2");
  EXPECT_EQ(m.writer_version().library(), "quiver");
  EXPECT_EQ(m.timestamp().seconds(), 1'795'932'875);
  EXPECT_EQ(m.max_fragment_id(), 1u) << "carried forward";
  EXPECT_EQ(m.fragments_size(), 2);
  ASSERT_NE(ds->manifest_file().transaction, nullptr);
  EXPECT_EQ(ds->manifest_file().transaction->read_version(), 1u);
  EXPECT_EQ(m.transaction_file(), result->transaction_file);
  auto txn_file = store_->Get("_transactions/" + result->transaction_file);
  ASSERT_TRUE(txn_file.ok());
  EXPECT_EQ(txn_file->data, ds->manifest_file().transaction->SerializeAsString())
      << "the .txn file holds the same bytes as the inline transaction";
  EXPECT_EQ(store_->Get("_versions/latest_version_hint.json")->data, R"({"version":2})");
}

TEST_F(CommitTest, DisjointConcurrentUpdatesAllCommitInOrder) {
  // Eight writers built their transactions against version 1 and race: every one lands, each on
  // its own version, after re-checking the others' transactions.
  constexpr int kWriters = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto r = CommitTransaction(*store_, SchemaMetadataTxn(1, "k" + std::to_string(i)), options_);
      if (!r.ok()) failures.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto ds = Latest();
  EXPECT_EQ(ds->version(), 1u + kWriters);
  EXPECT_EQ(ds->manifest().schema_metadata().size(), 1u + kWriters) << "no update was lost";
  auto versions = ListVersionRefs(*store_);
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 1u + kWriters);
}

TEST_F(CommitTest, OverlappingUpdatesConflictRetryably) {
  ASSERT_TRUE(CommitTransaction(*store_, SchemaMetadataTxn(1, "same"), options_).ok());
  auto second = CommitTransaction(*store_, SchemaMetadataTxn(1, "same"), options_);
  EXPECT_EQ(second.status().code(), StatusCode::kConcurrentModification);
  EXPECT_TRUE(second.status().retryable());
  EXPECT_EQ(Latest()->version(), 2u) << "the loser wrote no version";
  // Rebuilt against the new latest, it commits.
  EXPECT_TRUE(CommitTransaction(*store_, SchemaMetadataTxn(2, "same"), options_).ok());
}

TEST_F(CommitTest, ProjectAfterARestoreIsIncompatible) {
  ASSERT_TRUE(RestoreVersion(target_, 1, options_).ok());
  Transaction project;
  project.set_read_version(1);
  *project.mutable_project()->mutable_schema() = Latest()->manifest().fields();
  auto r = CommitTransaction(*store_, project, options_);
  EXPECT_EQ(r.status().code(), StatusCode::kConcurrentModification);
  EXPECT_FALSE(r.status().retryable());
}

TEST_F(CommitTest, AVersionWithoutATransactionCannotBeCommittedOver) {
  lance::table::Manifest m = Latest()->manifest();
  m.set_version(2);
  ASSERT_TRUE(store_
                  ->Put("_versions/" + ManifestFileName(2, ManifestNaming::kV2),
                        format::EncodeManifestFile(m, nullptr, nullptr))
                  .ok());
  auto r = CommitTransaction(*store_, SchemaMetadataTxn(1, "x"), options_);
  EXPECT_EQ(r.status().code(), StatusCode::kConcurrentModification);
  EXPECT_NE(r.status().message().find("version 2 has no transaction"), std::string::npos);
}

TEST_F(CommitTest, LostRacesAreRetriedUntilTheyWin) {
  // Puts go: the .txn file, then one manifest put per attempt. The manifest puts of attempts
  // 1-3 find their name taken.
  auto faults = std::make_shared<FaultInjectingStore>(store_);
  for (int i = 1; i <= 3; ++i)
    faults->FailNth(StoreOp::kPut, 1 + i, Status::AlreadyExists("taken"));
  auto r = CommitTransaction(*faults, SchemaMetadataTxn(1, "k"), options_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->attempts, 4);
  EXPECT_EQ(r->version, 2u);
}

TEST_F(CommitTest, GivingUpIsARetryableConcurrentModification) {
  auto faults = std::make_shared<FaultInjectingStore>(store_);
  faults->FailAlways(StoreOp::kPut, Status::AlreadyExists("taken"));
  auto r = CommitTransaction(*faults, SchemaMetadataTxn(1, "k"), CommitOptions{3, &clock_});
  EXPECT_EQ(r.status().code(), StatusCode::kConcurrentModification);
}

TEST_F(CommitTest, RestoreBringsBackContentButIdsKeepGrowing) {
  ASSERT_TRUE(DropColumns(target_, {"vec"}, options_).ok());  // v2
  Transaction reserve;
  reserve.set_read_version(2);
  reserve.mutable_reserve_fragments()->set_num_fragments(5);
  ASSERT_TRUE(CommitTransaction(*store_, reserve, options_).ok());  // v3
  EXPECT_EQ(Latest()->manifest().max_fragment_id(), 6u);
  auto restored = RestoreVersion(target_, 1, options_);  // v4
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  auto ds = Latest();
  EXPECT_EQ(ds->version(), 4u);
  EXPECT_EQ(ds->manifest().fields_size(), 3) << "v1's schema is back";
  EXPECT_EQ(ds->manifest().fragments(0).files_size(), 2);
  EXPECT_EQ(ds->manifest().max_fragment_id(), 6u) << "the high-water mark is kept";
  EXPECT_EQ(RestoreVersion(target_, 42, options_).status().code(),
            StatusCode::kTableVersionNotFound);
}

TEST_F(CommitTest, DropColumnsRemovesFieldsAndFilesLeftWithoutFields) {
  auto r = DropColumns(target_, {"vec"}, options_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto ds = Latest();
  const auto& m = ds->manifest();
  ASSERT_EQ(m.fields_size(), 2);
  EXPECT_EQ(m.fields(1).name(), "name");
  for (const auto& frag : m.fragments()) {
    ASSERT_EQ(frag.files_size(), 1) << "the vec-only file left the manifest";
    EXPECT_EQ(frag.files(0).fields_size(), 2);
  }
  EXPECT_EQ(DropColumns(target_, {"nope"}, options_).status().code(),
            StatusCode::kTableColumnNotFound);
  EXPECT_TRUE(DropColumns(target_, {"id", "name"}, options_).status().IsInvalidInput());
  EXPECT_EQ(Latest()->version(), 2u) << "refused drops commit nothing";
}

TEST_F(CommitTest, AlterColumnsRenamesAndRelaxesNullability) {
  ASSERT_TRUE(AlterColumns(target_, {{"name", "label", std::nullopt}}, options_).ok());
  EXPECT_EQ(Latest()->manifest().fields(1).name(), "label");
  EXPECT_EQ(Latest()->manifest().fields(1).id(), 1) << "a rename keeps the field id";
  EXPECT_TRUE(
      AlterColumns(target_, {{"id", "label", std::nullopt}}, options_).status().IsInvalidInput());
  EXPECT_EQ(AlterColumns(target_, {{"id", std::nullopt, false}}, options_).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(AlterColumns(target_, {{"ghost", "x", std::nullopt}}, options_).status().code(),
            StatusCode::kTableColumnNotFound);
}

TEST_F(CommitTest, FieldMetadataUpdatesMergeAndDelete) {
  ASSERT_TRUE(
      UpdateFieldMetadata(target_, "name", {{"doc", "hi"}, {"unit", "m"}}, false, options_).ok());
  ASSERT_TRUE(UpdateFieldMetadata(target_, "name", {{"unit", std::nullopt}}, false, options_).ok());
  auto ds = Latest();
  const auto& metadata = ds->manifest().fields(1).metadata();
  EXPECT_EQ(metadata.size(), 1u);
  EXPECT_EQ(metadata.at("doc"), "hi");
}

TEST_F(CommitTest, FeatureFlagsAreRecomputedAndUnknownWriterFlagsRefused) {
  lance::table::Manifest m = Latest()->manifest();
  m.set_version(2);
  m.mutable_fragments(0)->mutable_deletion_file()->set_num_deleted_rows(3);
  (*m.mutable_config())["lance.k"] = "v";
  Transaction txn;
  txn.set_read_version(1);
  txn.mutable_update_config();
  ASSERT_TRUE(store_
                  ->Put("_versions/" + ManifestFileName(2, ManifestNaming::kV2),
                        format::EncodeManifestFile(m, &txn, nullptr))
                  .ok());
  ASSERT_TRUE(UpdateSchemaMetadata(target_, {{"x", "y"}}, false, options_).ok());
  EXPECT_EQ(Latest()->ReaderFlags(), format::kFlagDeletionFiles);
  EXPECT_EQ(Latest()->WriterFlags(), format::kFlagDeletionFiles | format::kFlagTableConfig);

  m.set_version(4);
  m.set_writer_feature_flags(128);
  ASSERT_TRUE(store_
                  ->Put("_versions/" + ManifestFileName(4, ManifestNaming::kV2),
                        format::EncodeManifestFile(m, &txn, nullptr))
                  .ok());
  EXPECT_EQ(UpdateSchemaMetadata(target_, {{"x", "z"}}, false, options_).status().code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace quiver::table
