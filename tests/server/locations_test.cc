// Table locations over HTTP, on a local root shared by two projects: a RegisterTable through a
// symbolic link (into the other project's table, or out of the root) is refused, a link planted
// in a registered table later is followed neither by reads nor by a drop, another spelling of
// the root is the same place, and no table goes inside another.
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "server_fixture.h"
#include "store/local_store.h"
#include "testing/temp_dir.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

// Named for this file in $TMPDIR.
class TempDir : public ::quiver::testing::TempDir {
 public:
  TempDir() : ::quiver::testing::TempDir("qv-srv-loc") {}
};

class LocationsHttpTest : public ServerFixture {
 protected:
  void SetUp() override {
    Logger::Default().SetLevel(LogLevel::kError);
    cat_ = dir_.path() + "/cat";
    auto local = LocalObjectStore::Open(cat_);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    local_ = *local;
    StartServer(HttpServerOptions{}, /*managed=*/false, /*auth=*/true, "user:root", local_);
    for (const char* project : {"alpha", "beta"}) {
      catalog::Actor admin{std::string("user:") + project + "-admin", ""};
      ASSERT_TRUE(catalog_->CreateProject(project, {}, admin).ok());
      ASSERT_TRUE(catalog_->CreateWarehouse(project, "default", "", {}, admin).ok());
      auto key = access_->api_keys().Create(admin.principal, std::nullopt, "test", "user:root");
      ASSERT_TRUE(key.ok()) << key.status().ToString();
      keys_[project] = key->key;
    }
    auto bt = catalog_->DeclareTable({"beta", "bt"}, {}, {"user:beta-admin", ""});
    ASSERT_TRUE(bt.ok()) << bt.status().ToString();
    beta_table_ = *bt;
    ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*local_, bt->location).ok());
    beta_files_ = BetaFiles();
    ASSERT_GT(beta_files_, 0u);
  }

  Reply As(const std::string& project, const std::string& target, const json& body) {
    return client_->Send("POST", target, body.dump(), {{"x-api-key", keys_[project]}});
  }
  Reply Register(const std::string& table, const std::string& location) {
    return As("alpha", "/v1/table/" + table + "/register", {{"location", location}});
  }
  size_t BetaFiles() { return local_->ListAll(beta_table_.location + "/")->size(); }
  // Alpha's table `name` with a dataset.
  catalog::TableInfo AlphaTable(const std::string& name) {
    auto t = catalog_->DeclareTable({"alpha", name}, {}, {"user:alpha-admin", ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_TRUE(quiver::testing::WriteSyntheticDataset(*local_, t->location).ok());
    return *t;
  }
  bool AlphaHasTables() {
    return !catalog_->ListAllTables("alpha", "", std::nullopt, true)->ids.empty();
  }

  TempDir dir_;
  TempDir outside_;
  std::string cat_;
  std::shared_ptr<LocalObjectStore> local_;
  std::map<std::string, std::string> keys_;
  catalog::TableInfo beta_table_;
  size_t beta_files_ = 0;
};

TEST_F(LocationsHttpTest, RegisterThroughALinkIntoAnotherProjectsTableIsRefused) {
  ASSERT_EQ(::symlink((cat_ + "/" + beta_table_.location).c_str(), (cat_ + "/evil").c_str()), 0);
  ASSERT_EQ(::mkdir((cat_ + "/a").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(cat_.c_str(), (cat_ + "/a/up").c_str()), 0);
  for (const std::string& location :
       {std::string("evil"), std::string("evil/"), "a/up/" + beta_table_.location}) {
    Reply reply = Register("stolen", location);
    ExpectError(reply, 400, 13, location);
    EXPECT_NE(reply.Json().value("error", "").find("is a symbolic link"), std::string::npos)
        << reply.body;
  }
  EXPECT_FALSE(AlphaHasTables());
  EXPECT_EQ(BetaFiles(), beta_files_);
}

TEST_F(LocationsHttpTest, RegisterThroughALinkOutOfTheRootIsRefused) {
  auto other = LocalObjectStore::Open(outside_.path());
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(**other, "ds").ok());
  ASSERT_EQ(::symlink((outside_.path() + "/ds").c_str(), (cat_ + "/out").c_str()), 0);
  ASSERT_EQ(::symlink(outside_.path().c_str(), (cat_ + "/up").c_str()), 0);
  for (std::string location : {"out", "up/ds"}) {
    Reply reply = Register("outside", location);
    ExpectError(reply, 400, 13, location);
    EXPECT_NE(reply.Json().value("error", "").find("is a symbolic link"), std::string::npos)
        << reply.body;
  }
  EXPECT_FALSE(AlphaHasTables());
}

// A link planted after registration: the table's _versions/ pointing at beta's, then the whole
// table directory replaced by a link to beta's. Reads see nothing through it; a drop deletes
// nothing through it.
TEST_F(LocationsHttpTest, ALinkPlantedInARegisteredTableIsNotFollowed) {
  catalog::TableInfo mine = AlphaTable("mine");
  const std::string versions = cat_ + "/" + mine.location + "/_versions";
  ASSERT_EQ(::rename(versions.c_str(), (versions + ".moved").c_str()), 0);
  ASSERT_EQ(::symlink((cat_ + "/" + beta_table_.location + "/_versions").c_str(), versions.c_str()),
            0);
  Reply listed = As("alpha", "/v1/table/mine/version/list", json::object());
  EXPECT_FALSE(listed.status == 200 && !listed.Json().value("versions", json::array()).empty())
      << "beta's versions were read through the link: " << listed.body;
  ASSERT_EQ(As("alpha", "/v1/table/mine/drop", json::object()).status, 200);
  EXPECT_EQ(BetaFiles(), beta_files_);

  catalog::TableInfo again = AlphaTable("again");
  const std::string dir = cat_ + "/" + again.location;
  ASSERT_EQ(::rename(dir.c_str(), (dir + ".moved").c_str()), 0);
  ASSERT_EQ(::symlink((cat_ + "/" + beta_table_.location).c_str(), dir.c_str()), 0);
  Reply described = As("alpha", "/v1/table/again/describe", json::object());
  EXPECT_EQ(described.body.find("\"version\":1"), std::string::npos) << described.body;
  ASSERT_EQ(As("alpha", "/v1/table/again/drop", json::object()).status, 200);
  EXPECT_EQ(BetaFiles(), beta_files_);
  // Beta's table is whole: it still reads.
  Reply beta = As("beta", "/v1/table/bt/version/list", json::object());
  EXPECT_EQ(beta.status, 200) << beta.body;
  EXPECT_FALSE(beta.Json().value("versions", json::array()).empty()) << beta.body;
}

// The catalog root under another spelling (a server admin's warehouse for alpha) is the same
// place: beta's table there still looks empty to alpha.
TEST_F(LocationsHttpTest, AnotherSpellingOfTheRootIsTheSamePlace) {
  int n = 0;
  for (const std::string& root :
       {"file://" + cat_, "file://" + cat_ + "/", dir_.path() + "//cat//", cat_ + "/x/.."}) {
    std::string wh = "w" + std::to_string(n++);
    ASSERT_TRUE(catalog_->CreateWarehouse("alpha", wh, root, {}, {"user:root", ""}).ok()) << root;
    ASSERT_EQ(As("alpha", "/v1/namespace/" + wh + "/create", {{"properties", {{"warehouse", wh}}}})
                  .status,
              200);
    Reply reply = Register(wh + "%24stolen", beta_table_.location);
    ExpectError(reply, 400, 13, root);
    EXPECT_EQ(reply.Json().value("error", ""),
              fmt::format("location '{}' holds no Lance dataset (no manifest under _versions/)",
                          beta_table_.location))
        << reply.body;
  }
  EXPECT_FALSE(AlphaHasTables());
}

// No table inside another of the same project: the nested one's drop would not matter, but the
// outer one's would delete it, and `catalog check` would say nothing.
TEST_F(LocationsHttpTest, NoTableInsideAnother) {
  catalog::TableInfo outer = AlphaTable("outer");
  ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*local_, outer.location + "/tree/b").ok());
  Reply reply = Register("nested", outer.location + "/tree/b");
  ExpectError(reply, 400, 13, "inside");
  EXPECT_NE(reply.Json().value("error", "").find("inside the location of another registered table"),
            std::string::npos)
      << reply.body;
  EXPECT_EQ(reply.body.find("table 'outer'"), std::string::npos) << reply.body;
  auto root_key = access_->api_keys().Create("user:root", std::nullopt, "t", "user:root");
  ASSERT_TRUE(root_key.ok());
  Reply check = client_->Send("GET", "/v1/admin/consistency", "", {{"x-api-key", root_key->key}});
  EXPECT_EQ(check.status, 200) << check.body;
  EXPECT_EQ(check.Json().value("ok", false), true) << check.body;
}

// A deregister leaves the bytes, and they stay the project's: another project sharing the root
// cannot register them (at, or inside, the location) and learns nothing from trying, while the
// project that released them can take them back.
TEST_F(LocationsHttpTest, DeregisteredBytesStayTheirProjects) {
  Reply deregistered = As("beta", "/v1/table/bt/deregister", json::object());
  ASSERT_EQ(deregistered.status, 200) << deregistered.body;
  for (const std::string& location :
       {beta_table_.location, beta_table_.location + "/", beta_table_.location + "/_versions"}) {
    Reply reply = Register("stolen", location);
    ExpectError(reply, 400, 13, location);
    // Word for word what a location that never held anything answers.
    std::string spelled = location;
    while (spelled.back() == '/') spelled.pop_back();
    EXPECT_EQ(
        reply.Json().value("error", ""),
        fmt::format("location '{}' holds no Lance dataset (no manifest under _versions/)", spelled))
        << reply.body;
  }
  EXPECT_FALSE(AlphaHasTables());
  EXPECT_EQ(BetaFiles(), beta_files_);
  // Beta takes them back; its record of the release goes with that.
  Reply back = As("beta", "/v1/table/again/register", {{"location", beta_table_.location}});
  ASSERT_EQ(back.status, 200) << back.body;
  EXPECT_TRUE(local_->ListAll("_quiver/released/")->empty());
  Reply described = As("beta", "/v1/table/again/describe", json::object());
  EXPECT_EQ(described.status, 200) << described.body;
  auto root_key = access_->api_keys().Create("user:root", std::nullopt, "t", "user:root");
  ASSERT_TRUE(root_key.ok());
  Reply check = client_->Send("GET", "/v1/admin/consistency", "", {{"x-api-key", root_key->key}});
  EXPECT_EQ(check.Json().value("ok", false), true) << check.body;
}

}  // namespace
}  // namespace quiver::server::testing
