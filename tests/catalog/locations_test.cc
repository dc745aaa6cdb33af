// Where a table's bytes are, and which locations a catalog accepts, over a local root: locations
// are compared canonically (every spelling of a warehouse root is one place; "inside" by whole
// segments), no table lies inside another (any project), and links below a root are neither
// accepted at RegisterTable nor followed later.
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "store/local_store.h"
#include "store/store_uri.h"
#include "testing/synthetic_dataset.h"
#include "testing/temp_dir.h"

namespace quiver::catalog {
namespace {

using nlohmann::json;

// Named for this file in $TMPDIR.
class TempDir : public ::quiver::testing::TempDir {
 public:
  TempDir() : ::quiver::testing::TempDir("qv-locations") {}
};

class LocationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = LocalObjectStore::Open(dir_.path() + "/cat");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
    auto opened = Catalog::Open(store_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    catalog_ = std::move(*opened);
    for (const char* project : {"alpha", "beta"}) {
      ASSERT_TRUE(catalog_->CreateProject(project, {}, admin_).ok());
    }
    ASSERT_TRUE(catalog_->CreateWarehouse("beta", "default", "", {}, admin_).ok());
  }

  // Beta's table `name` with a dataset, in the catalog root.
  TableInfo BetaTable(const std::string& name) {
    auto t = catalog_->DeclareTable({"beta", name}, {}, admin_);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_TRUE(testing::WriteSyntheticDataset(*store_, t->location).ok());
    return *t;
  }
  size_t Files(const std::string& prefix) { return store_->ListAll(prefix)->size(); }
  std::vector<std::string> Problems() {
    auto report = catalog_->CheckConsistency();
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? report->problems : std::vector<std::string>{};
  }

  TempDir dir_;
  std::shared_ptr<LocalObjectStore> store_;
  std::unique_ptr<Catalog> catalog_;
  Actor admin_{"user:root", ""};
};

// The catalog root under other spellings (as a server admin might give another project's
// warehouse) is the same place: another project's table there stays invisible.
TEST_F(LocationsTest, EverySpellingOfAnotherProjectsRootIsTheSamePlace) {
  TableInfo bt = BetaTable("bt");
  const std::string cat = dir_.path() + "/cat";
  ASSERT_EQ(::symlink(cat.c_str(), (dir_.path() + "/cat-link").c_str()), 0);
  char old_cwd[PATH_MAX];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, bt.location + "/tree/b").ok());
  ASSERT_EQ(::chdir(dir_.path().c_str()), 0);
  int n = 0;
  for (const std::string& root :
       {"file://" + cat, cat + "/", dir_.path() + "//cat", dir_.path() + "/x/../cat",
        "file://" + cat + "/./", std::string("cat"), std::string("./cat/"),
        dir_.path() + "/cat-link", "file://localhost" + cat}) {
    std::string wh = "w" + std::to_string(n++);
    auto created = catalog_->CreateWarehouse("alpha", wh, root, {}, admin_);
    ASSERT_TRUE(created.ok()) << root << ": " << created.status().ToString();
    ASSERT_TRUE(
        catalog_->CreateNamespace({"alpha", wh}, CreateMode::kCreate, {{"warehouse", wh}}, admin_)
            .ok());
    auto stolen = catalog_->RegisterTable({"alpha", wh, "stolen"}, bt.location, CreateMode::kCreate,
                                          {}, admin_);
    EXPECT_EQ(stolen.status().code(), StatusCode::kInvalidInput) << root;
    EXPECT_NE(stolen.status().message().find("holds no Lance dataset"), std::string::npos)
        << root << ": " << stolen.status().message();
    // Inside it (a branch's tree) too.
    auto inside = catalog_->RegisterTable({"alpha", wh, "inside"}, bt.location + "/tree/b",
                                          CreateMode::kCreate, {}, admin_);
    EXPECT_EQ(inside.status().code(), StatusCode::kInvalidInput) << root;
  }
  ASSERT_EQ(::chdir(old_cwd), 0);
  EXPECT_TRUE(catalog_->ListAllTables("alpha", "", std::nullopt, true)->ids.empty());
  EXPECT_TRUE(Problems().empty()) << ::testing::PrintToString(Problems());
}

// A warehouse root inside the catalog root sees another project's table under a shorter
// location: still the same place.
TEST_F(LocationsTest, ARootInsideTheCatalogRootIsComparedByPlace) {
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "shared/bt").ok());
  ASSERT_TRUE(
      catalog_->RegisterTable({"beta", "bt"}, "shared/bt", CreateMode::kCreate, {}, admin_).ok());
  ASSERT_TRUE(
      catalog_->CreateWarehouse("alpha", "w", "file://" + dir_.path() + "/cat/shared", {}, admin_)
          .ok());
  auto stolen = catalog_->RegisterTable({"alpha", "stolen"}, "bt", CreateMode::kCreate, {}, admin_);
  EXPECT_EQ(stolen.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(stolen.status().message().find("holds no Lance dataset"), std::string::npos);
  // A root inside the catalog's records, or inside a table, is refused outright.
  for (const std::string& root :
       {dir_.path() + "/cat/_quiver", dir_.path() + "/cat/_quiver/tables",
        dir_.path() + "/cat/shared/bt", dir_.path() + "/cat/shared/bt/tree",
        dir_.path() + "/cat/.qv-store"}) {
    auto created = catalog_->CreateWarehouse("alpha", "bad", root, {}, admin_);
    EXPECT_EQ(created.status().code(), StatusCode::kInvalidInput) << root;
  }
  ASSERT_TRUE(catalog_->DropTable({"beta", "bt"}, admin_).ok());
  EXPECT_EQ(Files("shared/bt/"), 0u);
}

// A table cannot be registered inside another table (its branches' tree/, its _versions/) or
// around one: a drop of either would delete the other's files.
TEST_F(LocationsTest, NoTableInsideAnotherOfTheSameProject) {
  TableInfo outer = BetaTable("outer");
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, outer.location + "/tree/main").ok());
  auto nested = catalog_->RegisterTable({"beta", "nested"}, outer.location + "/tree/main",
                                        CreateMode::kCreate, {}, admin_);
  EXPECT_EQ(nested.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(nested.status().message().find("inside the location of another registered table"),
            std::string::npos)
      << nested.status().message();
  EXPECT_EQ(nested.status().message().find("'outer'"), std::string::npos)
      << "names no other table: " << nested.status().message();
  // And around one: "data" holds a registered table, then "data" itself is offered.
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "data/inner").ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "data").ok());
  ASSERT_TRUE(
      catalog_->RegisterTable({"beta", "inner"}, "data/inner", CreateMode::kCreate, {}, admin_)
          .ok());
  auto around =
      catalog_->RegisterTable({"beta", "around"}, "data/", CreateMode::kCreate, {}, admin_);
  EXPECT_EQ(around.status().code(), StatusCode::kInvalidInput);
  // A prefix by characters is not "inside": "data-2" is a place of its own.
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "data-2").ok());
  EXPECT_TRUE(
      catalog_->RegisterTable({"beta", "d2"}, "data-2", CreateMode::kCreate, {}, admin_).ok());
  EXPECT_TRUE(Problems().empty()) << ::testing::PrintToString(Problems());
  // The outer table's drop deletes only its own files.
  ASSERT_TRUE(catalog_->DropTable({"beta", "outer"}, admin_).ok());
  EXPECT_EQ(Files(outer.location + "/"), 0u);
  EXPECT_GT(Files("data/inner/"), 0u);
}

// A deregistered table's bytes stay its project's: another project cannot register them, nor a
// location holding them; neither can a project created later under the same name. A drop (whose
// bytes go) files nothing.
TEST_F(LocationsTest, ReleasedLocationsStayTheProjectsThatReleasedThem) {
  ASSERT_TRUE(catalog_->CreateWarehouse("alpha", "default", "", {}, admin_).ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "shared").ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "shared/bt").ok());
  ASSERT_TRUE(
      catalog_->RegisterTable({"beta", "bt"}, "shared/bt", CreateMode::kCreate, {}, admin_).ok());
  ASSERT_TRUE(catalog_->DeregisterTable({"beta", "bt"}, admin_).ok());
  EXPECT_EQ(Files("_quiver/released/"), 1u);
  for (const char* location : {"shared/bt", "shared", "shared/bt/_versions"}) {
    auto stolen =
        catalog_->RegisterTable({"alpha", "stolen"}, location, CreateMode::kCreate, {}, admin_);
    EXPECT_EQ(stolen.status().code(), StatusCode::kInvalidInput) << location;
    EXPECT_NE(stolen.status().message().find("holds no Lance dataset"), std::string::npos)
        << location << ": " << stolen.status().message();
  }
  EXPECT_TRUE(catalog_->ListAllTables("alpha", "", std::nullopt, true)->ids.empty());
  // Beta, deleted and created again, is another project.
  ASSERT_TRUE(catalog_->DeleteWarehouse("beta", "default", admin_).ok());
  ASSERT_TRUE(catalog_->DeleteProject("beta", admin_).ok());
  ASSERT_TRUE(catalog_->CreateProject("beta", {}, admin_).ok());
  ASSERT_TRUE(catalog_->CreateWarehouse("beta", "default", "", {}, admin_).ok());
  auto reborn =
      catalog_->RegisterTable({"beta", "bt"}, "shared/bt", CreateMode::kCreate, {}, admin_);
  EXPECT_EQ(reborn.status().code(), StatusCode::kInvalidInput) << reborn.status().ToString();
  EXPECT_GT(Files("shared/bt/"), 0u);
  // A dropped table's location is free again (its bytes are gone); no record is filed.
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "alpha-t").ok());
  ASSERT_TRUE(
      catalog_->RegisterTable({"alpha", "t"}, "alpha-t", CreateMode::kCreate, {}, admin_).ok());
  ASSERT_TRUE(catalog_->DropTable({"alpha", "t"}, admin_).ok());
  EXPECT_EQ(Files("_quiver/released/"), 1u);
  EXPECT_TRUE(Problems().empty()) << ::testing::PrintToString(Problems());
}

// The releasing project takes its location back by registering it again (under any name); the
// record goes with that, and a location inside it is also its own to register.
TEST_F(LocationsTest, TheReleasingProjectTakesItsLocationBack) {
  ASSERT_TRUE(catalog_->CreateWarehouse("alpha", "default", "", {}, admin_).ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "mine").ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, "mine/tree/b").ok());
  ASSERT_TRUE(catalog_->RegisterTable({"beta", "m"}, "mine", CreateMode::kCreate, {}, admin_).ok());
  ASSERT_TRUE(catalog_->DeregisterTable({"beta", "m"}, admin_).ok());
  ASSERT_TRUE(
      catalog_->RegisterTable({"beta", "inside"}, "mine/tree/b", CreateMode::kCreate, {}, admin_)
          .ok());
  EXPECT_EQ(Files("_quiver/released/"), 1u);
  ASSERT_TRUE(catalog_->DeregisterTable({"beta", "inside"}, admin_).ok());
  EXPECT_EQ(Files("_quiver/released/"), 2u);
  ASSERT_TRUE(
      catalog_->RegisterTable({"beta", "again"}, "mine/", CreateMode::kCreate, {}, admin_).ok());
  EXPECT_EQ(Files("_quiver/released/"), 1u);  // "mine/tree/b" is still released, not taken
  auto stolen =
      catalog_->RegisterTable({"alpha", "stolen"}, "mine/tree/b", CreateMode::kCreate, {}, admin_);
  EXPECT_EQ(stolen.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(Problems().empty()) << ::testing::PrintToString(Problems());
}

// `catalog check` reports tables inside other tables (records written past the checks, as an
// older quiver or a tool could have left them), whatever spelling their roots use.
TEST_F(LocationsTest, CheckReportsNestedAndSharedLocations) {
  TableInfo outer = BetaTable("outer");
  auto record = catalog_->registry().Get(RecordKind::kTable, {"beta", "outer"});
  ASSERT_TRUE(record.ok());
  json nested = record->body;
  nested["id"] = json::array({"beta", "nested"});
  nested["location"] = outer.location + "/tree/main";
  ASSERT_TRUE(catalog_->registry().Create(RecordKind::kTable, {"beta", "nested"}, nested).ok());
  ASSERT_TRUE(
      catalog_->CreateWarehouse("alpha", "w", "file://" + dir_.path() + "/cat/", {}, admin_).ok());
  json shared = record->body;
  shared["id"] = json::array({"alpha", "shared"});
  shared["warehouse"] = "w";
  shared["root"] = "file://" + dir_.path() + "/cat/";
  ASSERT_TRUE(catalog_->registry().Create(RecordKind::kTable, {"alpha", "shared"}, shared).ok());
  std::vector<std::string> problems = Problems();
  std::string all = ::testing::PrintToString(problems);
  EXPECT_NE(all.find("'beta/nested' at"), std::string::npos) << all;
  EXPECT_NE(all.find("/tree/main' is inside table '"), std::string::npos) << all;
  EXPECT_NE(all.find("share location"), std::string::npos) << all;
}

// Links below a root are refused at RegisterTable, into another project's table and out of the
// root alike.
TEST_F(LocationsTest, RegisterRefusesLocationsThroughLinks) {
  ASSERT_TRUE(catalog_->CreateWarehouse("alpha", "default", "", {}, admin_).ok());
  TableInfo bt = BetaTable("bt");
  const std::string cat = dir_.path() + "/cat";
  // Into another project's table, as the location itself and as a component on the way.
  ASSERT_EQ(::symlink((cat + "/" + bt.location).c_str(), (cat + "/evil").c_str()), 0);
  ASSERT_EQ(::mkdir((cat + "/a").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(cat.c_str(), (cat + "/a/up").c_str()), 0);
  // Out of the root entirely: a dataset somewhere else on disk.
  TempDir outside;
  auto other = LocalObjectStore::Open(outside.path());
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(**other, "ds").ok());
  ASSERT_EQ(::symlink((outside.path() + "/ds").c_str(), (cat + "/out").c_str()), 0);
  for (const std::string& location :
       {std::string("evil"), "a/up/" + bt.location, std::string("out"), std::string("out/")}) {
    auto registered =
        catalog_->RegisterTable({"alpha", "t"}, location, CreateMode::kCreate, {}, admin_);
    EXPECT_EQ(registered.status().code(), StatusCode::kInvalidInput) << location;
    EXPECT_NE(registered.status().message().find("symbolic link"), std::string::npos)
        << location << ": " << registered.status().message();
  }
  EXPECT_TRUE(catalog_->ListAllTables("alpha", "", std::nullopt, true)->ids.empty());
  EXPECT_GT(Files(bt.location + "/"), 0u);
}

// A link planted inside a registered table later (its _versions/ pointing at another table's,
// or the table's directory itself replaced by a link) is not followed by reads or by a drop.
TEST_F(LocationsTest, LinksPlantedLaterAreNotFollowed) {
  ASSERT_TRUE(catalog_->CreateWarehouse("alpha", "default", "", {}, admin_).ok());
  TableInfo bt = BetaTable("bt");
  const size_t beta_files = Files(bt.location + "/");
  ASSERT_GT(beta_files, 0u);
  const std::string cat = dir_.path() + "/cat";
  auto mine = catalog_->DeclareTable({"alpha", "mine"}, {}, admin_);
  ASSERT_TRUE(mine.ok());
  ASSERT_TRUE(testing::WriteSyntheticDataset(*store_, mine->location).ok());
  // _versions -> beta's.
  const std::string versions = cat + "/" + mine->location + "/_versions";
  ASSERT_EQ(::rename(versions.c_str(), (versions + ".moved").c_str()), 0);
  ASSERT_EQ(::symlink((cat + "/" + bt.location + "/_versions").c_str(), versions.c_str()), 0);
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(*mine)) << "beta's versions were read through the link";
  auto table = catalog_->TableStore(*mine);
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE((*table)->ListAll("_versions/")->empty());
  ASSERT_TRUE(catalog_->DropTable({"alpha", "mine"}, admin_).ok());
  EXPECT_EQ(Files(bt.location + "/"), beta_files);
  // The whole table directory replaced by a link to beta's.
  auto again = catalog_->DeclareTable({"alpha", "again"}, {}, admin_);
  ASSERT_TRUE(again.ok());
  const std::string dir = cat + "/" + again->location;
  ASSERT_EQ(::unlink((dir + "/.lance-reserved").c_str()), 0);
  ASSERT_EQ(::rmdir(dir.c_str()), 0);
  ASSERT_EQ(::symlink((cat + "/" + bt.location).c_str(), dir.c_str()), 0);
  EXPECT_TRUE(*catalog_->IsOnlyDeclared(*again));
  // `catalog check` reports the link.
  std::string problems = ::testing::PrintToString(Problems());
  EXPECT_NE(problems.find("table 'alpha/again' at '" + again->location + "'"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find("is a symbolic link"), std::string::npos) << problems;
  ASSERT_TRUE(catalog_->DropTable({"alpha", "again"}, admin_).ok());
  EXPECT_EQ(Files(bt.location + "/"), beta_files);
  struct stat st;
  EXPECT_EQ(::stat((cat + "/" + bt.location + "/_versions").c_str(), &st), 0);
}

}  // namespace
}  // namespace quiver::catalog
