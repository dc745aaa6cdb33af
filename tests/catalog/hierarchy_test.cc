// The hierarchy layer of the catalog: projects and warehouses, tables under a warehouse's own
// root, bottom-up deletes, deactivation, grants stored in records, and the consistency scan.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "store/memory_store.h"
#include "store/store_uri.h"
#include "testing/synthetic_dataset.h"

namespace quiver::catalog {
namespace {

using nlohmann::json;

class HierarchyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CatalogOptions options;
    options.clock = &clock_;
    auto opened = Catalog::Open(store_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    catalog_ = std::move(*opened);
  }

  void ExpectConsistent() {
    auto report = catalog_->CheckConsistency();
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->problems.empty()) << ::testing::PrintToString(report->problems);
  }

  ManualClock clock_;
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create({.clock = &clock_});
  std::unique_ptr<Catalog> catalog_;
  Actor alice_{"user:alice", "r1"};
};

TEST_F(HierarchyTest, AFreshRootHasTheDefaultProjectAndWarehouseOnce) {
  auto project = catalog_->DescribeProject("default");
  ASSERT_TRUE(project.ok());
  auto warehouse = catalog_->DescribeWarehouse("default", "default");
  ASSERT_TRUE(warehouse.ok());
  EXPECT_EQ(warehouse->root, "");
  EXPECT_TRUE(warehouse->active);
  // Reopening changes nothing.
  auto before = store_->ListAll("_quiver/ns/");
  ASSERT_TRUE(Catalog::Open(store_).ok());
  EXPECT_EQ(store_->ListAll("_quiver/ns/")->size(), before->size());
  EXPECT_EQ(*catalog_->Generation(), 2u);
  ExpectConsistent();
}

TEST_F(HierarchyTest, ProjectRecordAndOwnerGrantAreOneWrite) {
  auto created = catalog_->CreateProject("sales", {{"team", "s"}}, alice_);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->grants, json::parse(R"([{"subject":"user:alice","relation":"admin"}])"));
  auto record = store_->Get(Registry::RecordKey(RecordKind::kNamespace, {"sales"}));
  ASSERT_TRUE(record.ok());
  EXPECT_NE(record->data.find("\"user:alice\""), std::string::npos);
  EXPECT_EQ(catalog_->CreateProject("sales", {}, alice_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
  EXPECT_EQ(catalog_->CreateProject("a/b", {}, alice_).status().code(), StatusCode::kInvalidInput);
  auto listed = catalog_->ListProjects("", std::nullopt);
  EXPECT_EQ(listed->names, (std::vector<std::string>{"default", "sales"}));
  ExpectConsistent();
}

TEST_F(HierarchyTest, TablesLiveUnderTheirWarehousesRoot) {
  std::string uri = "memory://hierarchy-test-wh2";
  auto opened = OpenStore(uri);
  ASSERT_TRUE(opened.ok());
  ASSERT_TRUE(catalog_->CreateProject("p", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateWarehouse("p", "w1", "", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateWarehouse("p", "w2", uri, {}, alice_).ok());
  // Two warehouses and none is "default": a top-level namespace must name one.
  EXPECT_EQ(catalog_->CreateNamespace({"p", "x"}, CreateMode::kCreate, {}, alice_).status().code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(
      catalog_->CreateNamespace({"p", "x"}, CreateMode::kCreate, {{"warehouse", "nope"}}, alice_)
          .status()
          .code(),
      StatusCode::kNamespaceNotFound);
  auto ns =
      catalog_->CreateNamespace({"p", "a"}, CreateMode::kCreate, {{"warehouse", "w2"}}, alice_);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_TRUE(ns->properties.empty());  // the choice is recorded, not kept as a property
  ASSERT_TRUE(catalog_->CreateNamespace({"p", "a", "b"}, CreateMode::kCreate, {}, alice_).ok());
  auto table = catalog_->DeclareTable({"p", "a", "b", "t"}, {}, alice_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->warehouse, "w2");
  EXPECT_EQ(table->root, uri);
  // The reservation marker is in the warehouse's store, not the catalog root.
  EXPECT_TRUE((*opened)->Head(table->location + "/.lance-reserved").ok());
  EXPECT_FALSE(store_->Head(table->location + "/.lance-reserved").ok());
  // A registered dataset is found relative to the warehouse's root too.
  ASSERT_TRUE(testing::WriteSyntheticDataset(**opened, "data/ds", false).ok());
  auto registered =
      catalog_->RegisterTable({"p", "a", "r"}, "data/ds", CreateMode::kCreate, {}, alice_);
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_EQ(catalog_->WarehouseOfNamespace({"p", "a", "b"}).ValueOr(""), "w2");
  // Renames move no bytes, so a table stays in its warehouse.
  ASSERT_TRUE(
      catalog_->CreateNamespace({"p", "c"}, CreateMode::kCreate, {{"warehouse", "w1"}}, alice_)
          .ok());
  EXPECT_EQ(
      catalog_->RenameTable({"p", "a", "b", "t"}, ObjectId{"p", "c"}, "t", alice_).status().code(),
      StatusCode::kInvalidInput);
  EXPECT_TRUE(catalog_->RenameTable({"p", "a", "b", "t"}, ObjectId{"p", "a"}, "t2", alice_).ok());
  // Dropping deletes the bytes in the warehouse's store.
  ASSERT_TRUE(catalog_->DropTable({"p", "a", "t2"}, alice_).ok());
  EXPECT_FALSE((*opened)->Head(table->location + "/.lance-reserved").ok());
  ExpectConsistent();
}

TEST_F(HierarchyTest, DeletesAreBottomUpAndNeverCascade) {
  ASSERT_TRUE(catalog_->CreateProject("p", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateWarehouse("p", "w", "", {}, alice_).ok());
  ASSERT_TRUE(catalog_->CreateNamespace({"p", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  auto project = catalog_->DeleteProject("p", alice_);
  EXPECT_EQ(project.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_NE(project.status().message().find("warehouses w"), std::string::npos)
      << project.status().message();
  EXPECT_NE(project.status().message().find("namespaces ns"), std::string::npos);
  auto warehouse = catalog_->DeleteWarehouse("p", "w", alice_);
  EXPECT_EQ(warehouse.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_NE(warehouse.status().message().find("ns"), std::string::npos);
  // The refusals left no drop marks: creates still work.
  ASSERT_TRUE(catalog_->CreateNamespace({"p", "ns2"}, CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DropNamespace({"p", "ns"}, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DropNamespace({"p", "ns2"}, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeleteWarehouse("p", "w", alice_).ok());
  ASSERT_TRUE(catalog_->DeleteProject("p", alice_).ok());
  EXPECT_EQ(catalog_->DescribeProject("p").status().code(), StatusCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->DeleteProject("p", alice_).status().code(), StatusCode::kNamespaceNotFound);
  ExpectConsistent();
}

TEST_F(HierarchyTest, ADeactivatedWarehouseRefusesNewTables) {
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  auto off = catalog_->SetWarehouseActive("default", "default", false, alice_);
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->active);
  EXPECT_EQ(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(
      catalog_->CreateNamespace({"default", "n2"}, CreateMode::kCreate, {}, alice_).status().code(),
      StatusCode::kPermissionDenied);
  ASSERT_TRUE(catalog_->SetWarehouseActive("default", "default", true, alice_).ok());
  EXPECT_TRUE(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).ok());
}

TEST_F(HierarchyTest, GrantsAreEditedInTheRecordAndLogged) {
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).ok());
  json bob = {{"subject", "user:bob"}, {"relation", "reader"}};
  auto grants = catalog_->UpdateGrants(
      Catalog::GrantTarget::kTable, {"default", "ns", "t"},
      [&](json& g) {
        g.push_back(bob);
        return Status::OK();
      },
      alice_);
  ASSERT_TRUE(grants.ok()) << grants.status().ToString();
  EXPECT_EQ(grants->size(), 2u);
  EXPECT_EQ(*catalog_->ReadGrants(Catalog::GrantTarget::kTable, {"default", "ns", "t"}), *grants);
  // An edit that fails writes nothing.
  auto refused = catalog_->UpdateGrants(
      Catalog::GrantTarget::kTable, {"default", "ns", "t"},
      [](json&) { return Status::InvalidInput("no"); }, alice_);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(catalog_->ReadGrants(Catalog::GrantTarget::kTable, {"default", "ns", "t"})->size(), 2u);
  // Missing objects have no grants to edit.
  EXPECT_EQ(catalog_
                ->UpdateGrants(
                    Catalog::GrantTarget::kTable, {"default", "ns", "ghost"},
                    [](json&) { return Status::OK(); }, alice_)
                .status()
                .code(),
            StatusCode::kTableNotFound);
  // A rename carries the grants with the record.
  ASSERT_TRUE(catalog_->RenameTable({"default", "ns", "t"}, std::nullopt, "u", alice_).ok());
  EXPECT_EQ(*catalog_->ReadGrants(Catalog::GrantTarget::kTable, {"default", "ns", "u"}), *grants);
  catalog_->registry().FlushLog();
  auto events = catalog_->registry().ReadLog(0, 100);
  ASSERT_TRUE(events.ok());
  bool logged = false;
  for (const json& e : *events) {
    if (e.value("action", "") == "set_grants") logged = e["grants"] == *grants;
  }
  EXPECT_TRUE(logged);
  ExpectConsistent();
}

TEST_F(HierarchyTest, TheConsistencyScanFindsARecordWithoutItsOwner) {
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).ok());
  auto record = catalog_->registry().Get(RecordKind::kTable, {"default", "ns", "t"});
  json body = record->body;
  body.erase("grants");
  ASSERT_TRUE(catalog_->registry()
                  .Replace(RecordKind::kTable, {"default", "ns", "t"}, body, record->etag)
                  .ok());
  auto report = catalog_->CheckConsistency();
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("no owner grant"), std::string::npos);
}

// Grant records are whatever a writer to the root put there. A grant whose subject is not a
// string made json::value() throw, and AccessControl::Open (server start) with it; now the grant
// is skipped with a warning, and so is a server record nested past the JSON bound (Corruption).
TEST_F(HierarchyTest, AccessControlOpensOverHostileGrantRecords) {
  ASSERT_TRUE(store_
                  ->Put("_quiver/server.json",
                        R"({"grants":[{"subject":5,"relation":"admin"},)"
                        R"({"subject":"user:ops","relation":"admin"}]})",
                        PutOptions())
                  .ok());
  AccessOptions options;
  options.clock = &clock_;
  auto access = AccessControl::Open(*catalog_, options);
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  EXPECT_TRUE((*access)->IsServerAdmin("user:ops"));
  access->reset();
  const std::string deep =
      R"({"grants":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  ASSERT_TRUE(store_->Put("_quiver/server.json", deep, PutOptions()).ok());
  auto refused = AccessControl::Open(*catalog_, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().subcode(), Subcode::kCorruption) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("nested deeper than"), std::string::npos)
      << refused.status().ToString();
}

// Two servers over one root: each one's AccessControl learns the other's grants from the records
// (Reconcile, on a refusal) and from the change log (Refresh).
TEST_F(HierarchyTest, AccessControlFollowsAnotherServersGrants) {
  auto other = Catalog::Open(store_);
  ASSERT_TRUE(other.ok());
  AccessOptions options;
  options.clock = &clock_;
  options.refresh_interval = std::chrono::hours(1);  // only explicit refreshes
  auto mine = AccessControl::Open(*catalog_, options);
  auto theirs = AccessControl::Open(**other, options);
  ASSERT_TRUE(mine.ok() && theirs.ok());
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).ok());
  auto table = authz::ObjectRef::Table({"default", "ns", "t"});
  // This server saw its own mutation synchronously; the other has not read anything yet.
  EXPECT_TRUE((*mine)->Check("user:alice", authz::Permission::kDrop, table));
  EXPECT_FALSE((*theirs)->Check("user:alice", authz::Permission::kDrop, table));
  ASSERT_TRUE((*theirs)->Reconcile(table).ok());
  EXPECT_TRUE((*theirs)->Check("user:alice", authz::Permission::kDrop, table));
  // Namespace ownership inherits; the creator of the namespace is its owner.
  EXPECT_TRUE((*theirs)->Check("user:alice", authz::Permission::kCreateTable,
                               authz::ObjectRef::Namespace({"default", "ns"})));
  // A grant and a revocation made here reach the other server through the change log.
  auto edit = [&](bool add) {
    return catalog_->UpdateGrants(
        Catalog::GrantTarget::kTable, {"default", "ns", "t"},
        [&](json& g) {
          json bob = {{"subject", "user:bob"}, {"relation", "reader"}};
          if (add) {
            g.push_back(bob);
          } else {
            g.erase(std::remove(g.begin(), g.end(), bob), g.end());
          }
          return Status::OK();
        },
        alice_);
  };
  ASSERT_TRUE(edit(true).ok());
  catalog_->registry().FlushLog();
  ASSERT_TRUE((*theirs)->Refresh().ok());
  EXPECT_TRUE((*theirs)->Check("user:bob", authz::Permission::kReadData, table));
  EXPECT_FALSE((*theirs)->Check("user:bob", authz::Permission::kWriteData, table));
  ASSERT_TRUE(edit(false).ok());
  catalog_->registry().FlushLog();
  ASSERT_TRUE((*theirs)->Refresh().ok());
  EXPECT_FALSE((*theirs)->Check("user:bob", authz::Permission::kReadData, table));
  // A drop there removes the grants here once read.
  ASSERT_TRUE(catalog_->DropTable({"default", "ns", "t"}, alice_).ok());
  catalog_->registry().FlushLog();
  ASSERT_TRUE((*theirs)->Refresh().ok());
  EXPECT_TRUE((*theirs)->index().GrantsOn(table).empty());
  // Server admins hold everything; the configured ones need no grant.
  AccessOptions with_admin = options;
  with_admin.server_admins = {"user:ops"};
  auto admin = AccessControl::Open(**other, with_admin);
  ASSERT_TRUE(admin.ok());
  EXPECT_TRUE(
      (*admin)->Check("user:ops", authz::Permission::kCreateProject, authz::ObjectRef::Server()));
  EXPECT_FALSE(
      (*admin)->Check("user:alice", authz::Permission::kCreateProject, authz::ObjectRef::Server()));
}

// Events can reach the log out of order with the writes they describe; a grant change is
// applied from the record, never from an older event's snapshot, so a revocation sticks.
TEST_F(HierarchyTest, AStaleGrantEventCannotUndoARevocation) {
  AccessOptions options;
  options.refresh_interval = std::chrono::hours(1);
  auto access = AccessControl::Open(*catalog_, options);
  ASSERT_TRUE(access.ok());
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  ASSERT_TRUE(catalog_->DeclareTable({"default", "ns", "t"}, {}, alice_).ok());
  auto table = authz::ObjectRef::Table({"default", "ns", "t"});
  // The stored grants: alice only (bob was granted and revoked).
  json stale = {{"action", "set_grants"},
                {"kind", "table"},
                {"object", {"default", "ns", "t"}},
                {"grants",
                 {{{"subject", "user:alice"}, {"relation", "owner"}},
                  {{"subject", "user:bob"}, {"relation", "reader"}}}}};
  (*access)->OnEvent(stale);  // the grant's event, arriving after the revocation's
  EXPECT_FALSE((*access)->Check("user:bob", authz::Permission::kReadData, table));
  EXPECT_TRUE((*access)->Check("user:alice", authz::Permission::kDrop, table));
  // The same for a warehouse's state: the record says active.
  (*access)->OnEvent({{"action", "deactivate_warehouse"},
                      {"kind", "warehouse"},
                      {"object", {"default", "default"}},
                      {"active", false}});
  EXPECT_TRUE((*access)->WarehouseActive("default", "default"));
}

// Requests check grants while another request edits them and a third replays the change log:
// a grant nobody touches is always honoured, and once everything is written and read the index
// holds exactly what the records hold.
TEST_F(HierarchyTest, AccessControlStaysConsistentUnderConcurrentEditsAndRefreshes) {
  AccessOptions options;
  options.refresh_interval = std::chrono::nanoseconds(0);  // every check may replay the log
  auto access = AccessControl::Open(*catalog_, options);
  ASSERT_TRUE(access.ok());
  ASSERT_TRUE(catalog_->CreateNamespace({"default", "ns"}, CreateMode::kCreate, {}, alice_).ok());
  constexpr int kTables = 8;
  for (int i = 0; i < kTables; ++i) {
    ASSERT_TRUE(
        catalog_->DeclareTable({"default", "ns", "t" + std::to_string(i)}, {}, alice_).ok());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> violations{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      while (!stop.load()) {
        (*access)->MaybeRefresh();
        auto table = authz::ObjectRef::Table({"default", "ns", "t" + std::to_string(r)});
        // alice owns every table and the namespace; nobody touches her grants.
        if (!(*access)->Check("user:alice", authz::Permission::kDrop, table)) ++violations;
        (void)(*access)->VisibleChildren("user:bob", authz::ObjectRef::Namespace({"default", "ns"}),
                                         authz::ChildKind::kTable, "", 0);
      }
    });
  }
  std::thread refresher([&] {
    while (!stop.load()) ASSERT_TRUE((*access)->Refresh().ok());
  });
  for (int round = 0; round < 200; ++round) {
    ObjectId id = {"default", "ns", "t" + std::to_string(round % kTables)};
    bool add = (round / kTables) % 2 == 0;
    auto edited = catalog_->UpdateGrants(
        Catalog::GrantTarget::kTable, id,
        [&](json& g) {
          json bob = {{"subject", "user:bob"}, {"relation", "reader"}};
          g.erase(std::remove(g.begin(), g.end(), bob), g.end());
          if (add) g.push_back(bob);
          return Status::OK();
        },
        alice_);
    ASSERT_TRUE(edited.ok()) << edited.status().ToString();
  }
  stop = true;
  for (auto& t : readers) t.join();
  refresher.join();
  EXPECT_EQ(violations.load(), 0);
  catalog_->registry().FlushLog();
  ASSERT_TRUE((*access)->Refresh().ok());
  for (int i = 0; i < kTables; ++i) {
    ObjectId id = {"default", "ns", "t" + std::to_string(i)};
    auto stored = catalog_->ReadGrants(Catalog::GrantTarget::kTable, id);
    ASSERT_TRUE(stored.ok());
    auto indexed = (*access)->index().GrantsOn(authz::ObjectRef::Table(id));
    EXPECT_EQ(indexed.size(), stored->size()) << JoinId(id);
  }
}

}  // namespace
}  // namespace quiver::catalog
