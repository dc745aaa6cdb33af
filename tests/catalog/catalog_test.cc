// The catalog's namespace and table operations over a memory store: every mode, every error
// code, and the invariants (one name per parent, fresh locations, rename moves the pointer).
#include "catalog/catalog.h"
#include "scoped_ids.h"

#include <regex>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "store/memory_store.h"
#include "testing/status_matchers.h"
#include "testing/synthetic_dataset.h"

namespace quiver::catalog {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CatalogOptions options;
    options.clock = &clock_;
    auto opened = Catalog::Open(store_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    catalog_ = std::move(*opened);
  }

  void MakeNamespace(const ObjectId& id, Properties props = {}) {
    auto created = catalog_->CreateNamespace(S(id), CreateMode::kCreate, props, actor_);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  TableInfo Declare(const ObjectId& id) {
    auto declared = catalog_->DeclareTable(S(id), {}, actor_);
    EXPECT_TRUE(declared.ok()) << declared.status().ToString();
    return declared.ValueOr(TableInfo{});
  }
  bool KeyExists(const std::string& key) { return store_->Head(key).ok(); }

  ManualClock clock_;
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create({.clock = &clock_});
  std::unique_ptr<Catalog> catalog_;
  Actor actor_{"tester", "req-1"};
};

// Any writer to the root can plant a record; one whose fields have the wrong types must not end
// the process (recovery runs at every server start): nlohmann's typed reads throw on them.
TEST_F(CatalogTest, AMistypedRecoveryIntentIsCorruptionNotACrash) {
  for (const char* planted :
       {R"({"op": 5})", R"({"op": "drop", "location": 7, "id": ["x"]})",
        R"({"op": "rename", "source": ["a"], "dest": ["b"], "location": []})"}) {
    SCOPED_TRACE(planted);
    ASSERT_OK(store_->Put("_quiver/intents/planted.json", planted));
    clock_.Advance(std::chrono::hours(1));
    Status recovered = catalog_->Recover(std::chrono::seconds(0));
    EXPECT_EQ(recovered.subcode(), Subcode::kCorruption) << recovered.ToString();
    // Check reports it (or says the record is corrupt); it never ends the process either.
    auto checked = catalog_->CheckConsistency(std::chrono::seconds(0));
    if (checked.ok()) {
      std::string problems = nlohmann::json(checked->problems).dump();
      EXPECT_NE(problems.find("planted"), std::string::npos) << problems;
    } else {
      EXPECT_EQ(checked.status().subcode(), Subcode::kCorruption) << checked.status().ToString();
    }
  }
}

TEST_F(CatalogTest, CreateNamespaceModes) {
  MakeNamespace({"prod"}, {{"team", "ml"}});
  auto again = catalog_->CreateNamespace(S({"prod"}), CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(again.status().code(), StatusCode::kNamespaceAlreadyExists);
  auto exist_ok =
      catalog_->CreateNamespace(S({"prod"}), CreateMode::kExistOk, {{"x", "y"}}, actor_);
  ASSERT_TRUE(exist_ok.ok());
  EXPECT_EQ(exist_ok->properties, (Properties{{"team", "ml"}}));  // the existing one, unchanged
  auto overwrite =
      catalog_->CreateNamespace(S({"prod"}), CreateMode::kOverwrite, {{"new", "1"}}, actor_);
  ASSERT_TRUE(overwrite.ok());
  EXPECT_EQ(catalog_->DescribeNamespace(S({"prod"}))->properties, (Properties{{"new", "1"}}));
  // Overwrite never drops contents implicitly.
  MakeNamespace({"prod", "child"});
  auto refused = catalog_->CreateNamespace(S({"prod"}), CreateMode::kOverwrite, {}, actor_);
  EXPECT_EQ(refused.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_TRUE(catalog_->DescribeNamespace(S({"prod", "child"})).ok());
}

TEST_F(CatalogTest, ParentsMustExistAndTheRootIsSpecial) {
  auto orphan = catalog_->CreateNamespace(S({"missing", "x"}), CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(orphan.status().code(), StatusCode::kNamespaceNotFound);
  EXPECT_NE(orphan.status().message().find("'missing'"), std::string::npos);
  EXPECT_EQ(catalog_->DeclareTable(S({"missing", "t"}), {}, actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->CreateNamespace(S({}), CreateMode::kCreate, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
  EXPECT_TRUE(catalog_->CreateNamespace(S({}), CreateMode::kExistOk, {}, actor_).ok());
  EXPECT_EQ(catalog_->DropNamespace(S({}), {}, actor_).status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(catalog_->DescribeNamespace(S({})).ok());
  EXPECT_EQ(catalog_->DescribeNamespace(S({"nope"})).status().code(),
            StatusCode::kNamespaceNotFound);
  // Nothing was written by the refused requests (the default project's record is the one
  // namespace-kind record).
  EXPECT_EQ(store_->ListAll("_quiver/ns/")->size(), 1u);
  EXPECT_EQ(store_->ListAll("_quiver/tables/")->size(), 0u);
}

TEST_F(CatalogTest, ListsAreSortedDirectChildrenWithStartAfterTokens) {
  for (std::string n : {"c", "a", "b", "d", "e"}) MakeNamespace({n});
  MakeNamespace({"a", "nested"});
  auto all = catalog_->ListNamespaces(S({}), "", std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_FALSE(all->page_token);
  auto first = catalog_->ListNamespaces(S({}), "", 2);
  EXPECT_EQ(first->names, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(first->page_token);
  EXPECT_EQ(*first->page_token, "b");
  auto last = catalog_->ListNamespaces(S({}), "c", 2);
  EXPECT_EQ(last->names, (std::vector<std::string>{"d", "e"}));
  EXPECT_FALSE(last->page_token);  // exactly filled, nothing follows
  EXPECT_TRUE(catalog_->ListNamespaces(S({}), "", 0)->names.empty());
  EXPECT_EQ(catalog_->ListNamespaces(S({"zz"}), "", std::nullopt).status().code(),
            StatusCode::kNamespaceNotFound);

  for (std::string t : {"t2", "t1", "t3"}) Declare({"a", t});
  auto tables = catalog_->ListTables(S({"a"}), "", std::nullopt, true);
  EXPECT_EQ(tables->names, (std::vector<std::string>{"t1", "t2", "t3"}));
  EXPECT_EQ(catalog_->ListTables(S({"a"}), "t1", 1, true)->names, (std::vector<std::string>{"t2"}));
  EXPECT_TRUE(
      catalog_->ListTables(S({"a"}), "", std::nullopt, false)->names.empty());  // declared only
  auto everything = catalog_->ListAllTables("default", "", std::nullopt, true);
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->ids.size(), 3u);
  auto paged = catalog_->ListAllTables("default", "", 2, true);
  ASSERT_TRUE(paged->page_token);
  auto rest = catalog_->ListAllTables("default", *paged->page_token, 2, true);
  EXPECT_EQ(rest->ids, (std::vector<ObjectId>{S({"a", "t3"})}));
}

TEST_F(CatalogTest, DeclareVendsAFreshLocationWithAReservedMarker) {
  MakeNamespace({"prod"});
  TableInfo t = Declare({"prod", "users"});
  EXPECT_TRUE(std::regex_match(t.location, std::regex("[0-9a-f]{8}_default\\$prod\\$users")))
      << t.location;
  EXPECT_TRUE(t.declared);
  EXPECT_TRUE(KeyExists(t.location + "/.lance-reserved"));
  EXPECT_EQ(catalog_->ExternalLocation(t), store_->ExternalPath(t.location));
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(t));
  EXPECT_EQ(catalog_->DeclareTable(S({"prod", "users"}), {}, actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  EXPECT_EQ(catalog_->GetTable(S({"prod", "nope"})).status().code(), StatusCode::kTableNotFound);
  EXPECT_EQ(catalog_->GetTable(S({"nope", "t"})).status().code(), StatusCode::kNamespaceNotFound);
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  EXPECT_FALSE(*catalog_->IsOnlyDeclared(t));
  EXPECT_EQ(catalog_->ListTables(S({"prod"}), "", std::nullopt, false)->names,
            (std::vector<std::string>{"users"}));
}

TEST_F(CatalogTest, TablesAndNamespacesNeverShareAName) {
  MakeNamespace({"x"});
  EXPECT_EQ(catalog_->DeclareTable(S({"x"}), {}, actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  Declare({"t"});
  EXPECT_EQ(catalog_->CreateNamespace(S({"t"}), CreateMode::kCreate, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
  EXPECT_EQ(catalog_->CreateNamespace(S({"t"}), CreateMode::kExistOk, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
}

TEST_F(CatalogTest, DropRemovesTheRecordThenTheBytesAndTheNameComesBackFresh) {
  TableInfo first = Declare({"t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, first.location).ok());
  auto dropped = catalog_->DropTable(S({"t"}), actor_);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped->location, first.location);
  EXPECT_EQ(catalog_->GetTable(S({"t"})).status().code(), StatusCode::kTableNotFound);
  EXPECT_TRUE(store_->ListAll(first.location + "/")->empty());
  TableInfo second = Declare({"t"});
  EXPECT_NE(second.location, first.location);
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(second));
  EXPECT_EQ(catalog_->DropTable(S({"gone"}), actor_).status().code(), StatusCode::kTableNotFound);
}

TEST_F(CatalogTest, DeregisterKeepsTheBytesAndRegisterPointsANameAtThem) {
  TableInfo t = Declare({"t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  ASSERT_TRUE(catalog_->DeregisterTable(S({"t"}), actor_).ok());
  EXPECT_FALSE(store_->ListAll(t.location + "/")->empty());
  for (std::string bad :
       {"/abs/path", "s3://bucket/x", "../outside", "a/../../b", "", "_quiver/x"}) {
    EXPECT_EQ(
        catalog_->RegisterTable(S({"r"}), bad, CreateMode::kCreate, {}, actor_).status().code(),
        StatusCode::kInvalidInput)
        << bad;
  }
  EXPECT_EQ(catalog_->RegisterTable(S({"r"}), "no_dataset_here", CreateMode::kCreate, {}, actor_)
                .status()
                .code(),
            StatusCode::kInvalidInput);
  auto registered =
      catalog_->RegisterTable(S({"r"}), t.location, CreateMode::kCreate, {{"k", "v"}}, actor_);
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_FALSE(registered->declared);
  auto same = catalog_->RegisterTable(S({"r"}), t.location, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(same.status().code(), StatusCode::kTableAlreadyExists);
  EXPECT_NE(same.status().message().find("already registered at"), std::string::npos);
  // One location, one name.
  auto twice = catalog_->RegisterTable(S({"r2"}), t.location, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(twice.status().code(), StatusCode::kTableAlreadyExists);
  EXPECT_TRUE(
      catalog_->RegisterTable(S({"r"}), t.location + "/", CreateMode::kOverwrite, {}, actor_).ok());
}

TEST_F(CatalogTest, RenameMovesThePointerNeverTheBytes) {
  MakeNamespace({"a"});
  MakeNamespace({"b"});
  TableInfo t = Declare({"a", "old"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  auto renamed = catalog_->RenameTable(S({"a", "old"}), std::nullopt, "new", actor_);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(catalog_->GetTable(S({"a", "new"}))->location, t.location);
  EXPECT_EQ(catalog_->GetTable(S({"a", "old"})).status().code(), StatusCode::kTableNotFound);
  // The old name gets a new location, never the renamed table's.
  TableInfo reused = Declare({"a", "old"});
  EXPECT_NE(reused.location, t.location);
  // Across namespaces, and onto a taken name.
  ASSERT_TRUE(catalog_->RenameTable(S({"a", "new"}), S({"b"}), "moved", actor_).ok());
  EXPECT_EQ(catalog_->GetTable(S({"b", "moved"}))->location, t.location);
  EXPECT_EQ(catalog_->RenameTable(S({"a", "old"}), S({"b"}), "moved", actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  EXPECT_EQ(catalog_->RenameTable(S({"a", "old"}), S({"zz"}), "x", actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->RenameTable(S({"a", "ghost"}), std::nullopt, "x", actor_).status().code(),
            StatusCode::kTableNotFound);
  EXPECT_TRUE(store_->ListAll("_quiver/intents/")->empty());
}

TEST_F(CatalogTest, DropNamespaceRestrictSkipAndCascade) {
  MakeNamespace({"p"});
  MakeNamespace({"p", "c"});
  TableInfo t = Declare({"p", "c", "t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  Declare({"p", "u"});
  auto restrict = catalog_->DropNamespace(S({"p"}), {}, actor_);
  EXPECT_EQ(restrict.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_NE(restrict.status().message().find("tables u"), std::string::npos);
  EXPECT_NE(restrict.status().message().find("namespaces c"), std::string::npos);
  // The refused drop left the namespace usable (its dropping mark was withdrawn).
  Declare({"p", "v"});
  auto skipped = catalog_->DropNamespace(S({"nope"}), {.skip_missing = true}, actor_);
  ASSERT_TRUE(skipped.ok());
  EXPECT_FALSE(skipped->has_value());
  EXPECT_EQ(catalog_->DropNamespace(S({"nope"}), {}, actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  auto cascade = catalog_->DropNamespace(S({"p"}), {.cascade = true}, actor_);
  ASSERT_TRUE(cascade.ok()) << cascade.status().ToString();
  EXPECT_EQ(catalog_->DescribeNamespace(S({"p"})).status().code(), StatusCode::kNamespaceNotFound);
  EXPECT_EQ(store_->ListAll("_quiver/ns/")->size(), 1u);  // the default project's record
  EXPECT_TRUE(store_->ListAll("_quiver/tables/")->empty());
  EXPECT_TRUE(store_->ListAll(t.location + "/")->empty());
}

TEST_F(CatalogTest, EveryMutationAdvancesTheGeneration) {
  // Opening a fresh root created the default project and warehouse.
  EXPECT_EQ(*catalog_->Generation(), 2u);
  MakeNamespace({"a"});
  Declare({"a", "t"});
  ASSERT_TRUE(catalog_->RenameTable(S({"a", "t"}), std::nullopt, "u", actor_).ok());
  ASSERT_TRUE(catalog_->DropTable(S({"a", "u"}), actor_).ok());
  ASSERT_TRUE(catalog_->DropNamespace(S({"a"}), {}, actor_).ok());
  EXPECT_EQ(*catalog_->Generation(), 7u);
  auto events = catalog_->registry().ReadLog(2, 10);
  ASSERT_EQ(events->size(), 5u);
  EXPECT_EQ((*events)[0]["action"], "create_namespace");
  EXPECT_EQ((*events)[2]["action"], "rename_table");
  EXPECT_EQ((*events)[2]["actor"], "tester");
  EXPECT_EQ((*events)[4]["action"], "drop_namespace");
  // Reads and refused requests append nothing.
  (void)catalog_->DescribeNamespace(S({"zz"}));
  (void)catalog_->DeclareTable(S({"zz", "t"}), {}, actor_);
  EXPECT_EQ(*catalog_->Generation(), 7u);
}

TEST_F(CatalogTest, ManagedVersioningPerTableOrForAll) {
  auto managed = catalog_->DeclareTable(S({"m"}), {{"managed_versioning", "true"}}, actor_);
  ASSERT_TRUE(managed.ok());
  EXPECT_TRUE(managed->managed_versioning);
  EXPECT_FALSE(Declare({"plain"}).managed_versioning);
  CatalogOptions all;
  all.managed_versioning = true;
  auto catalog = *Catalog::Open(store_, all);
  EXPECT_TRUE(catalog->GetTable(S({"plain"}))->managed_versioning);
}

TEST_F(CatalogTest, RecoverFinishesOrRollsBackInterruptedRenames) {
  TableInfo done = Declare({"done"});
  TableInfo undone = Declare({"undone"});
  // A rename that crashed after creating the destination, and one that crashed right after
  // retiring its source.
  auto retire = [&](const ObjectId& id, const ObjectId& dest) {
    auto rec = catalog_->registry().Get(RecordKind::kTable, id);
    nlohmann::json body = rec->body;
    body["state"] = "retired";
    ASSERT_TRUE(catalog_->registry().Replace(RecordKind::kTable, id, body, rec->etag).ok());
    ASSERT_TRUE(store_
                    ->Put("_quiver/intents/" + id.back() + ".json",
                          nlohmann::json({{"op", "rename"},
                                          {"source", id},
                                          {"dest", dest},
                                          {"location", rec->body["location"]}})
                              .dump())
                    .ok());
  };
  auto done_rec = catalog_->registry().Get(RecordKind::kTable, S({"done"}));
  nlohmann::json moved = done_rec->body;
  moved["id"] = S({"done2"});
  ASSERT_TRUE(catalog_->registry().Create(RecordKind::kTable, S({"done2"}), moved).ok());
  retire(S({"done"}), S({"done2"}));
  retire(S({"undone"}), S({"undone2"}));
  EXPECT_EQ(catalog_->GetTable(S({"done"})).status().code(), StatusCode::kTableNotFound);
  EXPECT_EQ(catalog_->GetTable(S({"undone"})).status().code(), StatusCode::kTableNotFound);
  // Young intents belong to a live server: left alone.
  ASSERT_TRUE(catalog_->Recover(std::chrono::hours(1)).ok());
  EXPECT_EQ(store_->ListAll("_quiver/intents/")->size(), 2u);
  clock_.Advance(std::chrono::hours(2));
  ASSERT_TRUE(catalog_->Recover(std::chrono::minutes(1)).ok());
  EXPECT_TRUE(store_->ListAll("_quiver/intents/")->empty());
  EXPECT_FALSE(catalog_->registry().Get(RecordKind::kTable, S({"done"})).ok());
  EXPECT_EQ(catalog_->GetTable(S({"done2"}))->location, done.location);
  EXPECT_EQ(catalog_->GetTable(S({"undone"}))->location, undone.location);
  EXPECT_EQ(catalog_->GetTable(S({"undone2"})).status().code(), StatusCode::kTableNotFound);
}

}  // namespace
}  // namespace quiver::catalog
