// table/staged_write.h: the multipart write protocol. Parts are invisible until complete commits
// them as one version; a complete retried (after a failure at any put, after a lost answer, or
// concurrently) never commits twice; abort deletes what the parts wrote; and every decision is
// taken once (no part after a finish, no abort after a complete, no complete after an abort).
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "format/lance_proto.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/staged_write.h"
#include "table/write.h"

namespace quiver::table {
namespace {

std::shared_ptr<const arrow::Schema> PartSchema() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  return schema;
}

std::unique_ptr<arrow::BatchStream> PartStream(int64_t first, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(first + i);
  arrow::RecordBatch batch;
  batch.schema = PartSchema();
  batch.length = n;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids)};
  return arrow::MakeVectorStream(PartSchema(), n > 0 ? std::vector<arrow::RecordBatch>{batch}
                                                     : std::vector<arrow::RecordBatch>{});
}

class StagedWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    faults_ = std::make_shared<FaultInjectingStore>(memory_);
    root_ = faults_;
    auto created = WriteData(Target(), *PartStream(0, 10), WriteOptions{WriteMode::kCreate});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  CommitTarget Target() const { return CommitTarget{root_, std::nullopt}; }

  // (version, rows) of the latest version.
  std::pair<uint64_t, uint64_t> Latest() const {
    auto ds = Dataset::Open(root_);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    if (!ds.ok()) return {0, 0};
    uint64_t rows = 0;
    for (const auto& f : (*ds)->manifest().fragments()) rows += f.physical_rows();
    return {(*ds)->version(), rows};
  }
  std::set<std::string> DataFiles() const {
    std::set<std::string> out;
    auto all = memory_->ListAll("data/");
    EXPECT_TRUE(all.ok());
    for (const ObjectMeta& m : *all) out.insert(m.key);
    return out;
  }
  std::string Begin() {
    auto id = BeginStagedWrite(Target());
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : "";
  }
  void Part(const std::string& id, int64_t first, int64_t n, WriteMode mode = WriteMode::kAppend) {
    auto rows = StageWritePart(Target(), id, mode, *PartStream(first, n));
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, static_cast<uint64_t>(n));
  }

  std::shared_ptr<MemoryObjectStore> memory_ = MemoryObjectStore::Create();
  std::shared_ptr<FaultInjectingStore> faults_;
  std::shared_ptr<ObjectStore> root_;
};

TEST_F(StagedWriteTest, PartsAreInvisibleUntilCompleteCommitsThemAsOneVersion) {
  std::string id = Begin();
  Part(id, 10, 5);
  Part(id, 15, 0);  // a partition without rows (the client sends a schema and EOS)
  Part(id, 15, 7);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{1, 10}));
  auto done = CompleteStagedWrite(Target(), id);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->version, 2u);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 22}));
  // Retried: the same version, nothing committed again.
  auto again = CompleteStagedWrite(Target(), id);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->version, 2u);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 22}));
  // Decided once: no more parts, no abort.
  auto late = StageWritePart(Target(), id, WriteMode::kAppend, *PartStream(99, 1));
  EXPECT_EQ(late.status().code(), StatusCode::kInvalidTableState) << late.status().ToString();
  EXPECT_EQ(AbortStagedWrite(Target(), id).code(), StatusCode::kInvalidTableState);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 22}));
}

TEST_F(StagedWriteTest, OverwritingPartsReplaceTheRows) {
  std::string id = Begin();
  Part(id, 100, 3, WriteMode::kOverwrite);
  Part(id, 103, 2, WriteMode::kOverwrite);
  ASSERT_TRUE(CompleteStagedWrite(Target(), id).ok());
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 5}));
  // Mixed modes are refused, and the upload can still be aborted afterwards.
  std::string mixed = Begin();
  Part(mixed, 0, 1, WriteMode::kAppend);
  Part(mixed, 1, 1, WriteMode::kOverwrite);
  EXPECT_EQ(CompleteStagedWrite(Target(), mixed).status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(AbortStagedWrite(Target(), mixed).ok());
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 5}));
}

TEST_F(StagedWriteTest, AbortDeletesWhatThePartsWroteAndIsFinal) {
  std::set<std::string> before = DataFiles();
  std::string id = Begin();
  Part(id, 10, 5);
  Part(id, 15, 5);
  EXPECT_EQ(DataFiles().size(), before.size() + 2);
  ASSERT_TRUE(AbortStagedWrite(Target(), id).ok());
  EXPECT_EQ(DataFiles(), before);
  EXPECT_TRUE(AbortStagedWrite(Target(), id).ok());  // retried: still aborted
  EXPECT_EQ(CompleteStagedWrite(Target(), id).status().code(), StatusCode::kInvalidTableState);
  auto late = StageWritePart(Target(), id, WriteMode::kAppend, *PartStream(99, 1));
  EXPECT_FALSE(late.ok());
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{1, 10}));
}

TEST_F(StagedWriteTest, BadInputIsRefusedAndChangesNothing) {
  EXPECT_EQ(CompleteStagedWrite(Target(), "../../_versions").status().code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(CompleteStagedWrite(Target(), "0b5c8a3e-0000-4000-8000-000000000000").status().code(),
            StatusCode::kInvalidInput);
  std::string id = Begin();
  auto other = std::make_shared<arrow::Schema>();
  other->fields.emplace_back("name", arrow::DataType::Utf8(), true);
  auto wrong = arrow::MakeVectorStream(other, {});
  EXPECT_EQ(StageWritePart(Target(), id, WriteMode::kAppend, *wrong).status().code(),
            StatusCode::kInvalidInput);
  auto branch = StageWritePart(CommitTarget{root_, std::string("dev")}, id, WriteMode::kAppend,
                               *PartStream(0, 1));
  EXPECT_EQ(branch.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{1, 10}));
}

// A failure at each put of complete (claim, transaction file, manifest, hint, the recorded
// version) leaves either nothing committed or the one version; a retried complete then commits
// the rows exactly once.
TEST_F(StagedWriteTest, CompleteFailingAtEveryPutCommitsExactlyOnceWhenRetried) {
  for (uint64_t n = 1; n <= 6; ++n) {
    SCOPED_TRACE(n);
    auto [version, rows] = Latest();
    std::string id = Begin();
    Part(id, 1000, 4);
    faults_->FailNth(StoreOp::kPut, n, Status::IOError("injected put failure"));
    auto first = CompleteStagedWrite(Target(), id);
    faults_->Clear();
    auto retried = CompleteStagedWrite(Target(), id);
    ASSERT_TRUE(retried.ok()) << retried.status().ToString();
    if (first.ok()) {
      EXPECT_EQ(first->version, retried->version);
    }
    EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{version + 1, rows + 4}));
    EXPECT_EQ(retried->version, version + 1);
  }
}

// The answer of a complete that committed was lost (finish.json never got its version): the
// retry finds the version by the upload's id in the manifests.
TEST_F(StagedWriteTest, ARetryAfterALostAnswerFindsTheCommittedVersion) {
  std::string id = Begin();
  Part(id, 10, 3);
  ASSERT_TRUE(CompleteStagedWrite(Target(), id).ok());
  std::string key = std::string(kUploadsDir) + "/" + id + "/finish.json";
  ASSERT_TRUE(memory_->Put(key, R"({"action":"complete","owner":"elsewhere"})").ok());
  auto retried = CompleteStagedWrite(Target(), id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->version, 2u);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 13}));
}

// Another server claimed the complete and has not committed: this one does not commit too.
TEST_F(StagedWriteTest, ACompleteClaimedElsewhereIsRetryableAndCommitsNothing) {
  std::string id = Begin();
  Part(id, 10, 3);
  std::string key = std::string(kUploadsDir) + "/" + id + "/finish.json";
  ASSERT_TRUE(
      memory_->Put(key, R"({"action":"complete","owner":"elsewhere"})", PutOptions::CreateOnly())
          .ok());
  auto result = CompleteStagedWrite(Target(), id);
  EXPECT_EQ(result.status().code(), StatusCode::kServiceUnavailable);
  EXPECT_TRUE(result.status().retryable());
  EXPECT_EQ(AbortStagedWrite(Target(), id).code(), StatusCode::kInvalidTableState);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{1, 10}));
}

// Completes racing on one upload: one version, every caller that succeeds answers it.
TEST_F(StagedWriteTest, ConcurrentCompletesCommitOnce) {
  std::string id = Begin();
  Part(id, 10, 6);
  std::atomic<int> ok{0};
  std::vector<uint64_t> versions(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto done = CompleteStagedWrite(Target(), id);
      if (done.ok()) {
        versions[static_cast<size_t>(t)] = done->version;
        ++ok;
      } else {
        EXPECT_TRUE(done.status().retryable()) << done.status().ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(ok.load(), 1);
  for (uint64_t v : versions) EXPECT_TRUE(v == 0 || v == 2) << v;
  auto settled = CompleteStagedWrite(Target(), id);
  ASSERT_TRUE(settled.ok());
  EXPECT_EQ(settled->version, 2u);
  EXPECT_EQ(Latest(), (std::pair<uint64_t, uint64_t>{2, 16}));
}

}  // namespace
}  // namespace quiver::table
