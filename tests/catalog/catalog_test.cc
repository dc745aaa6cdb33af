// The catalog's namespace and table operations over a memory store: every mode, every error
// code, and the invariants (one name per parent, fresh locations, rename moves the pointer).
#include "catalog/catalog.h"

#include <regex>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "store/memory_store.h"
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
    auto created = catalog_->CreateNamespace(id, CreateMode::kCreate, props, actor_);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  TableInfo Declare(const ObjectId& id) {
    auto declared = catalog_->DeclareTable(id, {}, actor_);
    EXPECT_TRUE(declared.ok()) << declared.status().ToString();
    return declared.ValueOr(TableInfo{});
  }
  bool KeyExists(const std::string& key) { return store_->Head(key).ok(); }

  ManualClock clock_;
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create({.clock = &clock_});
  std::unique_ptr<Catalog> catalog_;
  Actor actor_{"tester", "req-1"};
};

TEST_F(CatalogTest, CreateNamespaceModes) {
  MakeNamespace({"prod"}, {{"team", "ml"}});
  auto again = catalog_->CreateNamespace({"prod"}, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(again.status().code(), StatusCode::kNamespaceAlreadyExists);
  auto exist_ok = catalog_->CreateNamespace({"prod"}, CreateMode::kExistOk, {{"x", "y"}}, actor_);
  ASSERT_TRUE(exist_ok.ok());
  EXPECT_EQ(exist_ok->properties, (Properties{{"team", "ml"}}));  // the existing one, unchanged
  auto overwrite =
      catalog_->CreateNamespace({"prod"}, CreateMode::kOverwrite, {{"new", "1"}}, actor_);
  ASSERT_TRUE(overwrite.ok());
  EXPECT_EQ(catalog_->DescribeNamespace({"prod"})->properties, (Properties{{"new", "1"}}));
  // Overwrite never drops contents implicitly.
  MakeNamespace({"prod", "child"});
  auto refused = catalog_->CreateNamespace({"prod"}, CreateMode::kOverwrite, {}, actor_);
  EXPECT_EQ(refused.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_TRUE(catalog_->DescribeNamespace({"prod", "child"}).ok());
}

TEST_F(CatalogTest, ParentsMustExistAndTheRootIsSpecial) {
  auto orphan = catalog_->CreateNamespace({"missing", "x"}, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(orphan.status().code(), StatusCode::kNamespaceNotFound);
  EXPECT_NE(orphan.status().message().find("'missing'"), std::string::npos);
  EXPECT_EQ(catalog_->DeclareTable({"missing", "t"}, {}, actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->CreateNamespace({}, CreateMode::kCreate, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
  EXPECT_TRUE(catalog_->CreateNamespace({}, CreateMode::kExistOk, {}, actor_).ok());
  EXPECT_EQ(catalog_->DropNamespace({}, {}, actor_).status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(catalog_->DescribeNamespace({}).ok());
  EXPECT_EQ(catalog_->DescribeNamespace({"nope"}).status().code(), StatusCode::kNamespaceNotFound);
  // Nothing was written by the refused requests.
  EXPECT_EQ(store_->ListAll("_quiver/ns/")->size(), 0u);
  EXPECT_EQ(store_->ListAll("_quiver/tables/")->size(), 0u);
}

TEST_F(CatalogTest, ListsAreSortedDirectChildrenWithStartAfterTokens) {
  for (std::string n : {"c", "a", "b", "d", "e"}) MakeNamespace({n});
  MakeNamespace({"a", "nested"});
  auto all = catalog_->ListNamespaces({}, "", std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_FALSE(all->page_token);
  auto first = catalog_->ListNamespaces({}, "", 2);
  EXPECT_EQ(first->names, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(first->page_token);
  EXPECT_EQ(*first->page_token, "b");
  auto last = catalog_->ListNamespaces({}, "c", 2);
  EXPECT_EQ(last->names, (std::vector<std::string>{"d", "e"}));
  EXPECT_FALSE(last->page_token);  // exactly filled, nothing follows
  EXPECT_TRUE(catalog_->ListNamespaces({}, "", 0)->names.empty());
  EXPECT_EQ(catalog_->ListNamespaces({"zz"}, "", std::nullopt).status().code(),
            StatusCode::kNamespaceNotFound);

  for (std::string t : {"t2", "t1", "t3"}) Declare({"a", t});
  auto tables = catalog_->ListTables({"a"}, "", std::nullopt, true);
  EXPECT_EQ(tables->names, (std::vector<std::string>{"t1", "t2", "t3"}));
  EXPECT_EQ(catalog_->ListTables({"a"}, "t1", 1, true)->names, (std::vector<std::string>{"t2"}));
  EXPECT_TRUE(
      catalog_->ListTables({"a"}, "", std::nullopt, false)->names.empty());  // declared only
  auto everything = catalog_->ListAllTables("", std::nullopt, true);
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->ids.size(), 3u);
  auto paged = catalog_->ListAllTables("", 2, true);
  ASSERT_TRUE(paged->page_token);
  auto rest = catalog_->ListAllTables(*paged->page_token, 2, true);
  EXPECT_EQ(rest->ids, (std::vector<ObjectId>{{"a", "t3"}}));
}

TEST_F(CatalogTest, DeclareVendsAFreshLocationWithAReservedMarker) {
  MakeNamespace({"prod"});
  TableInfo t = Declare({"prod", "users"});
  EXPECT_TRUE(std::regex_match(t.location, std::regex("[0-9a-f]{8}_prod\\$users"))) << t.location;
  EXPECT_TRUE(t.declared);
  EXPECT_TRUE(KeyExists(t.location + "/.lance-reserved"));
  EXPECT_EQ(catalog_->ExternalLocation(t), store_->ExternalPath(t.location));
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(t));
  EXPECT_EQ(catalog_->DeclareTable({"prod", "users"}, {}, actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  EXPECT_EQ(catalog_->GetTable({"prod", "nope"}).status().code(), StatusCode::kTableNotFound);
  EXPECT_EQ(catalog_->GetTable({"nope", "t"}).status().code(), StatusCode::kNamespaceNotFound);
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  EXPECT_FALSE(*catalog_->IsOnlyDeclared(t));
  EXPECT_EQ(catalog_->ListTables({"prod"}, "", std::nullopt, false)->names,
            (std::vector<std::string>{"users"}));
}

TEST_F(CatalogTest, TablesAndNamespacesNeverShareAName) {
  MakeNamespace({"x"});
  EXPECT_EQ(catalog_->DeclareTable({"x"}, {}, actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  Declare({"t"});
  EXPECT_EQ(catalog_->CreateNamespace({"t"}, CreateMode::kCreate, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
  EXPECT_EQ(catalog_->CreateNamespace({"t"}, CreateMode::kExistOk, {}, actor_).status().code(),
            StatusCode::kNamespaceAlreadyExists);
}

TEST_F(CatalogTest, DropRemovesTheRecordThenTheBytesAndTheNameComesBackFresh) {
  TableInfo first = Declare({"t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, first.location).ok());
  auto dropped = catalog_->DropTable({"t"}, actor_);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped->location, first.location);
  EXPECT_EQ(catalog_->GetTable({"t"}).status().code(), StatusCode::kTableNotFound);
  EXPECT_TRUE(store_->ListAll(first.location + "/")->empty());
  TableInfo second = Declare({"t"});
  EXPECT_NE(second.location, first.location);
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(second));
  EXPECT_EQ(catalog_->DropTable({"gone"}, actor_).status().code(), StatusCode::kTableNotFound);
}

TEST_F(CatalogTest, DeregisterKeepsTheBytesAndRegisterPointsANameAtThem) {
  TableInfo t = Declare({"t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  ASSERT_TRUE(catalog_->DeregisterTable({"t"}, actor_).ok());
  EXPECT_FALSE(store_->ListAll(t.location + "/")->empty());
  for (std::string bad :
       {"/abs/path", "s3://bucket/x", "../outside", "a/../../b", "", "_quiver/x"}) {
    EXPECT_EQ(catalog_->RegisterTable({"r"}, bad, CreateMode::kCreate, {}, actor_).status().code(),
              StatusCode::kInvalidInput)
        << bad;
  }
  EXPECT_EQ(catalog_->RegisterTable({"r"}, "no_dataset_here", CreateMode::kCreate, {}, actor_)
                .status()
                .code(),
            StatusCode::kInvalidInput);
  auto registered =
      catalog_->RegisterTable({"r"}, t.location, CreateMode::kCreate, {{"k", "v"}}, actor_);
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_FALSE(registered->declared);
  auto same = catalog_->RegisterTable({"r"}, t.location, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(same.status().code(), StatusCode::kTableAlreadyExists);
  EXPECT_NE(same.status().message().find("already registered at"), std::string::npos);
  // One location, one name.
  auto twice = catalog_->RegisterTable({"r2"}, t.location, CreateMode::kCreate, {}, actor_);
  EXPECT_EQ(twice.status().code(), StatusCode::kTableAlreadyExists);
  EXPECT_TRUE(
      catalog_->RegisterTable({"r"}, t.location + "/", CreateMode::kOverwrite, {}, actor_).ok());
}

TEST_F(CatalogTest, RenameMovesThePointerNeverTheBytes) {
  MakeNamespace({"a"});
  MakeNamespace({"b"});
  TableInfo t = Declare({"a", "old"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  auto renamed = catalog_->RenameTable({"a", "old"}, std::nullopt, "new", actor_);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(catalog_->GetTable({"a", "new"})->location, t.location);
  EXPECT_EQ(catalog_->GetTable({"a", "old"}).status().code(), StatusCode::kTableNotFound);
  // The old name gets a new location, never the renamed table's.
  TableInfo reused = Declare({"a", "old"});
  EXPECT_NE(reused.location, t.location);
  // Across namespaces, and onto a taken name.
  ASSERT_TRUE(catalog_->RenameTable({"a", "new"}, ObjectId{"b"}, "moved", actor_).ok());
  EXPECT_EQ(catalog_->GetTable({"b", "moved"})->location, t.location);
  EXPECT_EQ(catalog_->RenameTable({"a", "old"}, ObjectId{"b"}, "moved", actor_).status().code(),
            StatusCode::kTableAlreadyExists);
  EXPECT_EQ(catalog_->RenameTable({"a", "old"}, ObjectId{"zz"}, "x", actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->RenameTable({"a", "ghost"}, std::nullopt, "x", actor_).status().code(),
            StatusCode::kTableNotFound);
  EXPECT_TRUE(store_->ListAll("_quiver/intents/")->empty());
}

TEST_F(CatalogTest, DropNamespaceRestrictSkipAndCascade) {
  MakeNamespace({"p"});
  MakeNamespace({"p", "c"});
  TableInfo t = Declare({"p", "c", "t"});
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, t.location).ok());
  Declare({"p", "u"});
  auto restrict = catalog_->DropNamespace({"p"}, {}, actor_);
  EXPECT_EQ(restrict.status().code(), StatusCode::kNamespaceNotEmpty);
  EXPECT_NE(restrict.status().message().find("tables u"), std::string::npos);
  EXPECT_NE(restrict.status().message().find("namespaces c"), std::string::npos);
  // The refused drop left the namespace usable (its dropping mark was withdrawn).
  Declare({"p", "v"});
  auto skipped = catalog_->DropNamespace({"nope"}, {.skip_missing = true}, actor_);
  ASSERT_TRUE(skipped.ok());
  EXPECT_FALSE(skipped->has_value());
  EXPECT_EQ(catalog_->DropNamespace({"nope"}, {}, actor_).status().code(),
            StatusCode::kNamespaceNotFound);
  auto cascade = catalog_->DropNamespace({"p"}, {.cascade = true}, actor_);
  ASSERT_TRUE(cascade.ok()) << cascade.status().ToString();
  EXPECT_EQ(catalog_->DescribeNamespace({"p"}).status().code(), StatusCode::kNamespaceNotFound);
  EXPECT_TRUE(store_->ListAll("_quiver/ns/")->empty());
  EXPECT_TRUE(store_->ListAll("_quiver/tables/")->empty());
  EXPECT_TRUE(store_->ListAll(t.location + "/")->empty());
}

TEST_F(CatalogTest, EveryMutationAdvancesTheGeneration) {
  EXPECT_EQ(*catalog_->Generation(), 0u);
  MakeNamespace({"a"});
  Declare({"a", "t"});
  ASSERT_TRUE(catalog_->RenameTable({"a", "t"}, std::nullopt, "u", actor_).ok());
  ASSERT_TRUE(catalog_->DropTable({"a", "u"}, actor_).ok());
  ASSERT_TRUE(catalog_->DropNamespace({"a"}, {}, actor_).ok());
  EXPECT_EQ(*catalog_->Generation(), 5u);
  auto events = catalog_->registry().ReadLog(0, 10);
  ASSERT_EQ(events->size(), 5u);
  EXPECT_EQ((*events)[0]["action"], "create_namespace");
  EXPECT_EQ((*events)[2]["action"], "rename_table");
  EXPECT_EQ((*events)[2]["actor"], "tester");
  EXPECT_EQ((*events)[4]["action"], "drop_namespace");
  // Reads and refused requests append nothing.
  (void)catalog_->DescribeNamespace({"zz"});
  (void)catalog_->DeclareTable({"zz", "t"}, {}, actor_);
  EXPECT_EQ(*catalog_->Generation(), 5u);
}

TEST_F(CatalogTest, ManagedVersioningPerTableOrForAll) {
  auto managed = catalog_->DeclareTable({"m"}, {{"managed_versioning", "true"}}, actor_);
  ASSERT_TRUE(managed.ok());
  EXPECT_TRUE(managed->managed_versioning);
  EXPECT_FALSE(Declare({"plain"}).managed_versioning);
  CatalogOptions all;
  all.managed_versioning = true;
  auto catalog = *Catalog::Open(store_, all);
  EXPECT_TRUE(catalog->GetTable({"plain"})->managed_versioning);
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
                    ->Put("_quiver/intents/" + id[0] + ".json",
                          nlohmann::json({{"op", "rename"},
                                          {"source", id},
                                          {"dest", dest},
                                          {"location", rec->body["location"]}})
                              .dump())
                    .ok());
  };
  auto done_rec = catalog_->registry().Get(RecordKind::kTable, {"done"});
  nlohmann::json moved = done_rec->body;
  moved["id"] = ObjectId{"done2"};
  ASSERT_TRUE(catalog_->registry().Create(RecordKind::kTable, {"done2"}, moved).ok());
  retire({"done"}, {"done2"});
  retire({"undone"}, {"undone2"});
  EXPECT_EQ(catalog_->GetTable({"done"}).status().code(), StatusCode::kTableNotFound);
  EXPECT_EQ(catalog_->GetTable({"undone"}).status().code(), StatusCode::kTableNotFound);
  // Young intents belong to a live server: left alone.
  ASSERT_TRUE(catalog_->Recover(std::chrono::hours(1)).ok());
  EXPECT_EQ(store_->ListAll("_quiver/intents/")->size(), 2u);
  clock_.Advance(std::chrono::hours(2));
  ASSERT_TRUE(catalog_->Recover(std::chrono::minutes(1)).ok());
  EXPECT_TRUE(store_->ListAll("_quiver/intents/")->empty());
  EXPECT_FALSE(catalog_->registry().Get(RecordKind::kTable, {"done"}).ok());
  EXPECT_EQ(catalog_->GetTable({"done2"})->location, done.location);
  EXPECT_EQ(catalog_->GetTable({"undone"})->location, undone.location);
  EXPECT_EQ(catalog_->GetTable({"undone2"}).status().code(), StatusCode::kTableNotFound);
}

}  // namespace
}  // namespace quiver::catalog
