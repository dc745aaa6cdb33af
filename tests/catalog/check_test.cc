// The consistency check as `quiver catalog check` runs it (Catalog::CheckRoot): it only reads,
// it tells operations in progress from the leftovers of crashed ones, and it reports an object
// left without an owner. And a table drop on a full disk, which is how space is freed.
#include <cerrno>
#include <map>
#include <utility>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/logging.h"
#include "scoped_ids.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "testing/synthetic_dataset.h"

namespace quiver::catalog {
namespace {

using nlohmann::json;

// Every key with its etag and bytes.
std::map<std::string, std::pair<std::string, std::string>> Snapshot(MemoryObjectStore& store) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  auto all = store.ListAll("");
  EXPECT_TRUE(all.ok());
  for (const ObjectMeta& m : *all) out[m.key] = {m.etag, store.Get(m.key)->data};
  return out;
}

class CheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Logger::Default().SetLevel(LogLevel::kError);  // injected failures are expected
    CatalogOptions options;
    options.clock = &clock_;
    auto opened = Catalog::Open(faults_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    catalog_ = std::move(*opened);
  }

  ManualClock clock_;
  std::shared_ptr<MemoryObjectStore> memory_ = MemoryObjectStore::Create({.clock = &clock_});
  std::shared_ptr<FaultInjectingStore> faults_ = std::make_shared<FaultInjectingStore>(memory_);
  std::unique_ptr<Catalog> catalog_;
  Actor alice_{"user:alice", "r1"};
};

// A check over a root leaves every object byte-identical (same keys, etags, bytes), also on a
// root whose default project was deleted (a check used to re-create it, with a grant for
// user:anonymous), and writes nothing on a root that is not a catalog.
TEST_F(CheckTest, ACheckOnlyReads) {
  ASSERT_TRUE(catalog_->CreateProject("p", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateWarehouse("p", "w", "", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateNamespace({"p", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  auto table = catalog_->DeclareTable({"p", "ns", "t"}, {}, alice_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*memory_, table->location, true).ok());
  for (bool deleted_default : {false, true}) {
    if (deleted_default) {
      ASSERT_TRUE(catalog_->DeleteWarehouse("default", "default", alice_).ok());
      ASSERT_TRUE(catalog_->DeleteProject("default", alice_).ok());
    }
    catalog_->registry().FlushLog();
    auto before = Snapshot(*memory_);
    auto report = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->problems.empty()) << ::testing::PrintToString(report->problems);
    EXPECT_EQ(report->projects, deleted_default ? 1u : 2u);
    EXPECT_EQ(report->tables, 1u);
    EXPECT_EQ(Snapshot(*memory_), before) << "deleted default: " << deleted_default;
  }
  auto empty = MemoryObjectStore::Create({.clock = &clock_});
  EXPECT_FALSE(Catalog::CheckRoot(empty, kRecoveryMinAge, &clock_).ok());
  EXPECT_TRUE(empty->ListAll("")->empty());
}

// What an operation in progress leaves for a moment (here a rename whose last step has not
// happened: its intent, the retired source, two records at one location; and a namespace marked
// as being dropped) is in flight while younger than the recovery age, and a problem only after.
TEST_F(CheckTest, AnOperationInProgressIsInFlightUntilItIsOld) {
  ASSERT_TRUE(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateNamespace(S({"gone"}), CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable(S({"ns", "t"}), {}, alice_).ok());
  faults_->FailNth(StoreOp::kDelete, 1, Status::IOError("injected: the source stays"));
  ASSERT_TRUE(catalog_->RenameTable(S({"ns", "t"}), std::nullopt, "u", alice_).ok());
  faults_->Clear();
  auto ns = catalog_->registry().Get(RecordKind::kNamespace, S({"gone"}));
  ASSERT_TRUE(ns.ok());
  json marked = ns->body;
  marked["dropping_since"] = clock_.NowNanos();
  ASSERT_TRUE(
      catalog_->registry().Replace(RecordKind::kNamespace, S({"gone"}), marked, ns->etag).ok());

  auto young = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
  ASSERT_TRUE(young.ok()) << young.status().ToString();
  EXPECT_TRUE(young->problems.empty()) << ::testing::PrintToString(young->problems);
  EXPECT_EQ(young->in_flight.size(), 4u) << ::testing::PrintToString(young->in_flight);

  clock_.Advance(kRecoveryMinAge + std::chrono::seconds(1));
  auto old = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_TRUE(old->in_flight.empty()) << ::testing::PrintToString(old->in_flight);
  // The retired source, the shared location, the unfinished intent (an old drop mark is
  // ignored by every reader).
  EXPECT_EQ(old->problems.size(), 3u) << ::testing::PrintToString(old->problems);
  // A younger age makes them problems at once.
  auto strict = catalog_->CheckConsistency(Duration(0));
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(strict->problems.size(), 3u);
}

// A create that raced its namespace's drop has written its record and not yet withdrawn it
// (its re-check sees the namespace gone): in flight while the record is young, an orphan after.
TEST_F(CheckTest, ARecordWhoseParentJustWentIsInFlightUntilItIsOld) {
  ASSERT_TRUE(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable(S({"ns", "t"}), {}, alice_).ok());
  auto ns = catalog_->registry().Get(RecordKind::kNamespace, S({"ns"}));
  ASSERT_TRUE(ns.ok());
  ASSERT_TRUE(catalog_->registry().Delete(RecordKind::kNamespace, S({"ns"}), ns->etag).ok());
  auto young = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
  ASSERT_TRUE(young.ok());
  EXPECT_TRUE(young->problems.empty()) << ::testing::PrintToString(young->problems);
  ASSERT_EQ(young->in_flight.size(), 1u) << ::testing::PrintToString(young->in_flight);
  EXPECT_NE(young->in_flight[0].find("has no namespace record"), std::string::npos);
  clock_.Advance(kRecoveryMinAge);
  auto old = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->in_flight.empty()) << ::testing::PrintToString(old->in_flight);
  EXPECT_EQ(old->problems.size(), 1u) << ::testing::PrintToString(old->problems);
}

// An object whose record holds grants but no owner (only readers, say) is a problem.
TEST_F(CheckTest, AnObjectWithoutAnOwnerIsAProblem) {
  ASSERT_TRUE(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable(S({"ns", "t"}), {}, alice_).ok());
  auto record = catalog_->registry().Get(RecordKind::kTable, S({"ns", "t"}));
  ASSERT_TRUE(record.ok());
  json body = record->body;
  body["grants"] = json::array({{{"subject", "user:bob"}, {"relation", "reader"}}});
  ASSERT_TRUE(
      catalog_->registry().Replace(RecordKind::kTable, S({"ns", "t"}), body, record->etag).ok());
  auto report = Catalog::CheckRoot(memory_, kRecoveryMinAge, &clock_);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u) << ::testing::PrintToString(report->problems);
  EXPECT_NE(report->problems[0].find("no owner grant"), std::string::npos);
}

// With the storage full nothing can be written, but a table can still be dropped (that is how
// space is freed): its record and bytes go, its change-log event waits for the next append that
// fits, and the catalog stays consistent.
TEST_F(CheckTest, ATableDropFreesSpaceOnAFullDisk) {
  ASSERT_TRUE(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_).ok());
  auto table = catalog_->DeclareTable(S({"ns", "t"}), {}, alice_);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*memory_, table->location, true).ok());
  catalog_->registry().FlushLog();
  faults_->FailAlways(StoreOp::kPut, StatusFromErrno(ENOSPC, "writing"));
  Status full = catalog_->DeclareTable(S({"ns", "u"}), {}, alice_).status();
  EXPECT_TRUE(full.IsStorageFull()) << full.ToString();
  EXPECT_EQ(full.code(), StatusCode::kServiceUnavailable);
  EXPECT_TRUE(full.retryable());

  auto dropped = catalog_->DropTable(S({"ns", "t"}), alice_);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(catalog_->GetTable(S({"ns", "t"})).status().code(), StatusCode::kTableNotFound);
  EXPECT_TRUE(memory_->ListAll(table->location + "/")->empty());
  catalog_->registry().FlushLog();

  faults_->Clear();
  ASSERT_TRUE(catalog_->CreateNamespace(S({"ns2"}), CreateMode::kCreate, {}, alice_).ok());
  auto events = catalog_->registry().ReadLog(0, 1000);
  ASSERT_TRUE(events.ok());
  ASSERT_GE(events->size(), 2u);
  EXPECT_EQ((*events)[events->size() - 2].value("action", ""), "drop_table");
  EXPECT_EQ(events->back().value("action", ""), "create_namespace");
  auto report = catalog_->CheckConsistency();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->problems.empty()) << ::testing::PrintToString(report->problems);
  EXPECT_TRUE(report->in_flight.empty()) << ::testing::PrintToString(report->in_flight);
}

}  // namespace
}  // namespace quiver::catalog
