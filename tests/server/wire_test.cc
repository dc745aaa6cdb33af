// One request per spec operation over HTTP (valid and invalid variants): status, body shape and
// Lance error code; every code 0-23 over the wire; the coverage table against the handlers.
#include <fstream>
#include <regex>
#include <sstream>

#include "server/routes.h"
#include "server_fixture.h"
#include "table/versions.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

class WireTest : public ServerFixture {};

TEST_F(WireTest, NamespaceOperations) {
  auto created = client_->Post("/v1/namespace/prod/create",
                               {{"id", {"prod"}}, {"properties", {{"team", "ml"}}}});
  EXPECT_EQ(created.status, 200);
  EXPECT_EQ(created.Json()["properties"]["team"], "ml");
  ExpectError(client_->Post("/v1/namespace/prod/create", json::object()), 409, 2);
  for (std::string mode : {"ExistOk", "exist_ok", "EXISTOK"}) {
    auto ok = client_->Post("/v1/namespace/prod/create", {{"mode", mode}});
    EXPECT_EQ(ok.status, 200) << mode;
    EXPECT_EQ(ok.Json()["properties"]["team"], "ml") << mode;
  }
  ExpectError(client_->Post("/v1/namespace/prod/create", {{"mode", "Sometimes"}}), 400, 13);
  // The root always exists.
  ExpectError(client_->Post("/v1/namespace/%24/create", json::object()), 409, 2);
  EXPECT_EQ(client_->Post("/v1/namespace/%24/create", {{"mode", "ExistOk"}}).status, 200);
  ExpectError(client_->Post("/v1/namespace/nope%24x/create", json::object()), 404, 1);
  EXPECT_EQ(client_->Post("/v1/namespace/prod%24b/create?delimiter=%24", json::object()).status,
            200);
  EXPECT_EQ(client_->Post("/v1/namespace/prod::a/create?delimiter=::", json::object()).status, 200);

  auto root = client_->Get("/v1/namespace/%24/list?delimiter=%24");
  EXPECT_EQ(root.Json(), json({{"namespaces", {"prod"}}}));
  EXPECT_EQ(client_->Get("/v1/namespace/$/list").Json(), root.Json());
  EXPECT_EQ(client_->Get("/v1/namespace/./list?delimiter=.").Json(), root.Json());
  EXPECT_EQ(client_->Get("/v1/namespace/list?delimiter=.").Json(), root.Json());
  auto page = client_->Get("/v1/namespace/prod/list?limit=1");
  EXPECT_EQ(page.Json(), json({{"namespaces", {"a"}}, {"page_token", "a"}}));
  EXPECT_EQ(client_->Get("/v1/namespace/prod/list?limit=1&page_token=a").Json(),
            json({{"namespaces", {"b"}}}));
  ExpectError(client_->Get("/v1/namespace/zz/list"), 404, 1);
  ExpectError(client_->Get("/v1/namespace/prod/list?limit=many"), 400, 13);

  EXPECT_EQ(client_->Post("/v1/namespace/prod/describe", {{"id", {"prod"}}}).Json(),
            json({{"properties", {{"team", "ml"}}}}));
  ExpectError(client_->Post("/v1/namespace/prod/describe", {{"id", {"other"}}}), 400, 13);
  auto exists = client_->Post("/v1/namespace/prod/exists", json::object());
  EXPECT_EQ(exists.status, 200);
  EXPECT_TRUE(exists.body.empty());
  ExpectError(client_->Post("/v1/namespace/zz/exists", json::object()), 404, 1);

  ExpectError(client_->Post("/v1/namespace/prod/drop", json::object()), 409, 3);
  EXPECT_EQ(client_->Post("/v1/namespace/zz/drop", {{"mode", "Skip"}}).Json(), json::object());
  ExpectError(client_->Post("/v1/namespace/zz/drop", {{"mode", "Fail"}}), 404, 1);
  ExpectError(client_->Post("/v1/namespace/prod/drop", {{"behavior", "Sideways"}}), 400, 13);
  EXPECT_EQ(client_->Post("/v1/namespace/prod/drop", {{"behavior", "Cascade"}}).status, 200);
  EXPECT_EQ(client_->Get("/v1/namespace/%24/list").Json(), json({{"namespaces", json::array()}}));
  ExpectError(client_->Post("/v1/namespace/%24/drop", json::object()), 400, 13);
}

TEST_F(WireTest, TableRegistrationOperations) {
  EXPECT_EQ(client_->Post("/v1/namespace/ns/create", json::object()).status, 200);
  auto declared = client_->Post("/v1/table/ns%24t/declare", {{"id", {"ns", "t"}}});
  ASSERT_EQ(declared.status, 200) << declared.body;
  std::string location = declared.Json()["location"];
  EXPECT_TRUE(std::regex_search(location, std::regex("/[0-9a-f]{8}_default\\$ns\\$t$")))
      << location;
  EXPECT_EQ(declared.Json()["managed_versioning"], false);
  ExpectError(client_->Post("/v1/table/ns%24t/declare", json::object()), 409, 5);
  ExpectError(client_->Post("/v1/table/zz%24t/declare", json::object()), 404, 1);
  ExpectError(client_->Post("/v1/table/ns%24u/declare", {{"location", "/elsewhere"}}), 400, 13);

  auto described = client_->Post("/v1/table/ns%24t/describe", {{"id", {"ns", "t"}}});
  EXPECT_EQ(described.Json()["location"], location);
  EXPECT_EQ(described.Json()["table_uri"], location);  // a memory root has no file:// form
  auto declared_only =
      client_->Post("/v1/table/ns%24t/describe?check_declared=true", json::object());
  EXPECT_EQ(declared_only.Json()["is_only_declared"], true);
  ExpectError(client_->Post("/v1/table/ns%24missing/describe", json::object()), 404, 4);
  ExpectError(client_->Post("/v1/table/zz%24t/describe", json::object()), 404, 1);
  EXPECT_EQ(client_->Post("/v1/table/ns%24t/exists", json::object()).status, 200);
  ExpectError(client_->Post("/v1/table/ns%24missing/exists", json::object()), 404, 4);

  catalog::TableInfo data = MakeTable({"ns", "data"});
  auto detailed =
      client_->Post("/v1/table/ns%24data/describe?load_detailed_metadata=true", json::object());
  json d = detailed.Json();
  EXPECT_EQ(d["version"], 1);
  EXPECT_EQ(d["is_only_declared"], false);
  EXPECT_EQ(d["schema"]["fields"][0]["name"], "id");
  EXPECT_EQ(d["schema"]["fields"][1]["type"]["type"], "utf8");
  EXPECT_EQ(d["stats"]["num_fragments"], 2);
  ExpectError(client_->Post("/v1/table/ns%24data/describe", {{"version", 9}}), 404, 11);
  ExpectError(client_->Post("/v1/table/ns%24data/describe", {{"tag", "nope"}}), 404, 8);
  ExpectError(client_->Post("/v1/table/ns%24data/describe", {{"branch", "nope"}}), 404, 22);
  ExpectError(client_->Post("/v1/table/ns%24data/describe", {{"version", "one"}}), 400, 13);

  EXPECT_EQ(client_->Get("/v1/namespace/ns/table/list").Json(), json({{"tables", {"data", "t"}}}));
  EXPECT_EQ(client_->Get("/v1/namespace/ns/table/list?include_declared=false").Json(),
            json({{"tables", {"data"}}}));
  EXPECT_EQ(client_->Get("/v1/namespace/ns/table/list?limit=1").Json(),
            json({{"tables", {"data"}}, {"page_token", "data"}}));
  EXPECT_EQ(client_->Get("/v1/table?delimiter=.").Json()["tables"], json({"ns.data", "ns.t"}));

  // Rename, then the old name is free and gets a new location.
  EXPECT_EQ(client_->Post("/v1/table/ns%24t/rename", {{"new_table_name", "t2"}}).Json(),
            json::object());
  EXPECT_EQ(client_->Post("/v1/table/ns%24t2/describe", json::object()).Json()["location"],
            location);
  ExpectError(client_->Post("/v1/table/ns%24t/describe", json::object()), 404, 4);
  ExpectError(client_->Post("/v1/table/ns%24t2/rename", {{"new_table_name", "data"}}), 409, 5);
  ExpectError(client_->Post("/v1/table/ns%24t2/rename", json::object()), 400, 13);

  // Deregister keeps bytes, register brings them back under a name.
  auto deregistered = client_->Post("/v1/table/ns%24data/deregister", json::object());
  EXPECT_EQ(deregistered.status, 200);
  EXPECT_EQ(deregistered.Json()["id"], json({"ns", "data"}));
  ExpectError(client_->Post("/v1/table/ns%24back/register", {{"location", "../x"}}), 400, 13);
  ExpectError(client_->Post("/v1/table/ns%24back/register", json::object()), 400, 13);
  auto registered = client_->Post("/v1/table/ns%24back/register", {{"location", data.location}});
  EXPECT_EQ(registered.status, 200) << registered.body;
  EXPECT_EQ(registered.Json()["location"], data.location);
  ExpectError(client_->Post("/v1/table/ns%24back/register", {{"location", data.location}}), 409, 5);

  auto dropped = client_->Post("/v1/table/ns%24back/drop", {{"id", {"ns", "back"}}});
  EXPECT_EQ(dropped.status, 200);
  EXPECT_TRUE(memory_->ListAll(data.location + "/")->empty());
  ExpectError(client_->Post("/v1/table/ns%24back/drop", json::object()), 404, 4);
}

TEST_F(WireTest, TableMetadataOperations) {
  MakeTable({"t"});
  auto meta = client_->Post("/v1/table/t/schema_metadata/update", {{"b", "2"}});
  EXPECT_EQ(meta.Json(), json({{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(client_->Post("/v1/table/t/schema_metadata/update", {{"a", nullptr}}).Json(),
            json({{"b", "2"}}));
  ExpectError(client_->Post("/v1/table/t/schema_metadata/update", {{"a", 5}}), 400, 13);

  auto field = client_->Post("/v1/table/t/update_field_metadata",
                             {{"updates", {{{"path", "name"}, {"metadata", {{"unit", "x"}}}}}}});
  EXPECT_EQ(field.status, 200) << field.body;
  EXPECT_EQ(field.Json()["fields"]["name"], json({{"unit", "x"}}));
  ExpectError(client_->Post("/v1/table/t/update_field_metadata",
                            {{"updates", {{{"path", "nope"}, {"metadata", json::object()}}}}}),
              404, 12);

  auto renamed = client_->Post("/v1/table/t/alter_columns",
                               {{"alterations", {{{"path", "name"}, {"rename", "label"}}}}});
  EXPECT_EQ(renamed.status, 200) << renamed.body;
  // A type change casts the values (data_plane_test.cc); a string never casts into an integer,
  // and a type must be a scalar one either vocabulary names.
  ExpectError(client_->Post("/v1/table/t/alter_columns",
                            {{"alterations", {{{"path", "label"}, {"data_type", "int32"}}}}}),
              400, 13);
  ExpectError(client_->Post("/v1/table/t/alter_columns",
                            {{"alterations", {{{"path", "label"}, {"data_type", "varchar"}}}}}),
              400, 13);
  auto stats = client_->Get("/v1/table/t/stats");
  EXPECT_EQ(stats.Json()["num_rows"], 200);
  EXPECT_EQ(stats.Json()["fragment_stats"]["num_fragments"], 2);
  EXPECT_EQ(client_->Post("/v1/table/t/stats", json::object()).Json(), stats.Json());
  EXPECT_EQ(client_->Get("/v1/table/t/count_rows").body, "200");
  EXPECT_EQ(client_->Post("/v1/table/t/count_rows", {{"version", 1}}).body, "200");
  // A predicate needs the data files, which a synthetic table does not have (data_plane_test.cc
  // counts real rows); a bad one is refused before any read.
  ExpectError(client_->Post("/v1/table/t/count_rows", {{"predicate", "id >"}}), 400, 13);

  auto dropped = client_->Post("/v1/table/t/drop_columns", {{"columns", {"label"}}});
  EXPECT_EQ(dropped.status, 200) << dropped.body;
  ExpectError(client_->Post("/v1/table/t/drop_columns", {{"columns", {"nope"}}}), 404, 12);
  ExpectError(client_->Post("/v1/table/t/drop_columns", json::object()), 400, 13);

  auto restored = client_->Post("/v1/table/t/restore", {{"version", 1}});
  EXPECT_EQ(restored.status, 200) << restored.body;
  auto latest =
      client_->Post("/v1/table/t/describe?load_detailed_metadata=true", json::object()).Json();
  EXPECT_EQ(latest["schema"]["fields"].size(), 2u);  // version 1's schema is back
  ExpectError(client_->Post("/v1/table/t/restore", {{"version", 99}}), 404, 11);
  ExpectError(client_->Post("/v1/table/t/restore", {{"version", 0}}), 400, 13);
}

TEST_F(WireTest, VersionOperationsAndManagedCommits) {
  catalog::TableInfo t = MakeTable({"t"});
  auto listed = client_->Send("POST", "/v1/table/t/version/list?delimiter=%24", "null");
  ASSERT_EQ(listed.status, 200) << listed.body;
  json versions = listed.Json()["versions"];
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0]["version"], 1);
  std::string v1_path = versions[0]["manifest_path"];
  EXPECT_NE(v1_path.find(t.location + "/_versions/18446744073709551614.manifest"),
            std::string::npos);

  std::string staging = "_versions/18446744073709551613.manifest-stage";
  auto size = quiver::testing::StageNextManifest(*memory_, t.location, 2, staging);
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  std::string base = v1_path.substr(0, v1_path.find("_versions/"));
  auto created = client_->Post("/v1/table/t/version/create", {{"version", 2},
                                                              {"manifest_path", base + staging},
                                                              {"manifest_size", *size},
                                                              {"naming_scheme", "V2"}});
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(created.Json()["version"]["manifest_path"],
            base + "_versions/18446744073709551613.manifest");
  EXPECT_FALSE(memory_->Head(t.location + "/" + staging).ok());  // staging file removed
  ASSERT_TRUE(quiver::testing::StageNextManifest(*memory_, t.location, 2, staging + "2").ok());
  ExpectError(client_->Post("/v1/table/t/version/create",
                            {{"version", 2}, {"manifest_path", base + staging + "2"}}),
              409, 14);
  ExpectError(client_->Post("/v1/table/t/version/create",
                            {{"version", 3}, {"manifest_path", "/etc/passwd"}}),
              400, 13);

  auto newest = client_->Send("POST", "/v1/table/t/version/list?descending=true&limit=1", "null");
  EXPECT_EQ(newest.Json()["versions"][0]["version"], 2);
  auto paged = client_->Send("POST", "/v1/table/t/version/list?limit=1", "");
  EXPECT_EQ(paged.Json()["versions"][0]["version"], 1);
  EXPECT_EQ(paged.Json()["page_token"], "1");
  auto next = client_->Send("POST", "/v1/table/t/version/list?limit=1&page_token=1", "");
  EXPECT_EQ(next.Json()["versions"][0]["version"], 2);
  EXPECT_EQ(
      client_->Post("/v1/table/t/version/describe", json::object()).Json()["version"]["version"],
      2);
  EXPECT_EQ(
      client_->Post("/v1/table/t/version/describe", {{"version", 1}}).Json()["version"]["version"],
      1);
  ExpectError(client_->Post("/v1/table/t/version/describe", {{"version", 7}}), 404, 11);
  ExpectError(client_->Send("POST", "/v1/table/t/version/list?branch=dev", "null"), 404, 22);

  ExpectError(client_->Post("/v1/table/t/version/delete",
                            {{"ranges", {{{"start_version", 0}, {"end_version", -1}}}}}),
              400, 13);  // would delete the latest
  auto deleted = client_->Post("/v1/table/t/version/delete",
                               {{"ranges", {{{"start_version", 1}, {"end_version", 2}}}}});
  EXPECT_EQ(deleted.Json()["deleted_count"], 1);
  EXPECT_EQ(client_->Send("POST", "/v1/table/t/version/list", "null").Json()["versions"].size(),
            1u);

  // A declared table has no versions yet: an empty list, not an error.
  ASSERT_TRUE(catalog_->DeclareTable(Scoped({"fresh"}), {}, {}).ok());
  EXPECT_EQ(
      client_->Send("POST", "/v1/table/fresh/version/list?descending=true&limit=1", "null").Json(),
      json({{"versions", json::array()}}));
}

TEST_F(WireTest, TagBranchAndIndexOperations) {
  MakeTable({"t"});
  EXPECT_EQ(client_->Post("/v1/table/t/tags/create", {{"tag", "v1"}, {"version", 1}}).status, 200);
  ExpectError(client_->Post("/v1/table/t/tags/create", {{"tag", "v1"}, {"version", 1}}), 409, 9);
  ExpectError(client_->Post("/v1/table/t/tags/create", {{"tag", "v9"}, {"version", 9}}), 404, 11);
  ExpectError(client_->Post("/v1/table/t/tags/create", {{"tag", ""}, {"version", 1}}), 400, 13);
  auto tags = client_->Get("/v1/table/t/tags/list");
  EXPECT_EQ(tags.Json()["tags"]["v1"]["version"], 1);
  EXPECT_TRUE(tags.Json()["tags"]["v1"].contains("manifestSize"));
  EXPECT_EQ(client_->Post("/v1/table/t/tags/version", {{"tag", "v1"}}).Json(),
            json({{"version", 1}}));
  ExpectError(client_->Post("/v1/table/t/tags/version", {{"tag", "zz"}}), 404, 8);
  EXPECT_EQ(client_->Post("/v1/table/t/tags/update", {{"tag", "v1"}, {"version", 1}}).status, 200);
  ExpectError(client_->Post("/v1/table/t/tags/update", {{"tag", "zz"}, {"version", 1}}), 404, 8);

  auto branch = client_->Post("/v1/table/t/branches/create", {{"name", "dev"}});
  EXPECT_EQ(branch.status, 200) << branch.body;
  ExpectError(client_->Post("/v1/table/t/branches/create", {{"name", "dev"}}), 409, 23);
  ExpectError(client_->Post("/v1/table/t/branches/create", {{"name", "x"}, {"from_branch", "zz"}}),
              404, 22);
  ExpectError(client_->Post("/v1/table/t/branches/create", {{"name", "x"}, {"from_version", 0}}),
              400, 13);
  auto branches = client_->Post("/v1/table/t/branches/list", json::object());
  EXPECT_EQ(branches.Json()["branches"]["dev"]["parentVersion"], 1);
  EXPECT_EQ(client_->Send("POST", "/v1/table/t/version/list?branch=dev", "null")
                .Json()["versions"]
                .size(),
            1u);
  EXPECT_EQ(client_
                ->Post("/v1/table/t/tags/create",
                       {{"tag", "onbranch"}, {"version", 1}, {"branch", "dev"}})
                .status,
            200);
  ExpectError(client_->Post("/v1/table/t/branches/delete", {{"name", "dev"}}), 409,
              19);  // tag points into it
  EXPECT_EQ(client_->Post("/v1/table/t/tags/delete", {{"tag", "onbranch"}}).status, 200);
  EXPECT_EQ(client_->Post("/v1/table/t/branches/delete", {{"name", "dev"}}).status, 200);
  ExpectError(client_->Post("/v1/table/t/branches/delete", {{"name", "dev"}}), 404, 22);
  EXPECT_EQ(client_->Post("/v1/table/t/tags/delete", {{"tag", "v1"}}).status, 200);
  ExpectError(client_->Post("/v1/table/t/tags/delete", {{"tag", "v1"}}), 404, 8);

  EXPECT_EQ(client_->Post("/v1/table/t/index/list", json::object()).Json(),
            json({{"indexes", json::array()}}));
  ExpectError(client_->Get("/v1/table/t/index/nope/stats"), 404, 6);
  ExpectError(client_->Post("/v1/table/t/index/nope/drop", json::object()), 404, 6);
}

TEST_F(WireTest, IndicesAreListedDescribedAndDropped) {
  MakeTable({"t"}, /*with_index=*/true);
  auto listed = client_->Post("/v1/table/t/index/list", json::object()).Json();
  ASSERT_EQ(listed["indexes"].size(), 1u) << listed;
  EXPECT_EQ(listed["indexes"][0]["index_name"], "id_idx");
  EXPECT_EQ(listed["indexes"][0]["columns"], json({"id"}));
  EXPECT_EQ(listed["indexes"][0]["index_type"], "BTREE");
  EXPECT_EQ(listed["indexes"][0]["num_segments"], 2);
  auto stats = client_->Post("/v1/table/t/index/id_idx/stats", json::object()).Json();
  EXPECT_EQ(stats["num_indices"], 2);
  EXPECT_EQ(stats["index_type"], "BTREE");
  auto dropped = client_->Post("/v1/table/t/index/id_idx/drop", json::object());
  ASSERT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_EQ(dropped.Json()["version"], 2);
  EXPECT_EQ(client_->Post("/v1/table/t/index/list", json::object()).Json()["indexes"].size(), 0u);
  // The version before the drop still has it.
  EXPECT_EQ(client_->Post("/v1/table/t/index/list", {{"version", 1}}).Json()["indexes"].size(), 1u);
  ExpectError(client_->Post("/v1/table/t/index/id_idx/drop", json::object()), 404, 6);
}

TEST_F(WireTest, UnbackedOperationsAnswerUnsupported) {
  MakeTable({"t"});
  std::set<std::string> backed = service_->BackedOperations();
  int unsupported = 0;
  int backed_spec = 0;
  for (const Operation& op : Operations())
    backed_spec += op.spec && backed.count(std::string(op.name));
  for (const Operation& op : Operations()) {
    if (!op.spec || backed.count(std::string(op.name))) continue;
    std::string path = std::regex_replace(std::string(op.pattern), std::regex("\\{id\\}"), "t");
    path = std::regex_replace(path, std::regex("\\{index_name\\}"), "idx");
    auto reply = client_->Send(std::string(op.method), path, "{}");
    ExpectError(reply, 406, 0, std::string(op.name));
    EXPECT_NE(reply.Json()["error"].get<std::string>().find(op.name), std::string::npos);
    ++unsupported;
  }
  EXPECT_EQ(unsupported + backed_spec, 54);
}

TEST_F(WireTest, CoverageStatesMatchTheHandlers) {
  std::ifstream in(QUIVER_COVERAGE_MD);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  std::set<std::string> backed = service_->BackedOperations();
  std::regex row(R"(\|\s*\d+\s*\|\s*(\w+)\s*\|[^|]*\|\s*(backed|unsupported)\s*\|)");
  int rows = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator();
       ++it) {
    ++rows;
    bool doc_backed = (*it)[2] == "backed";
    EXPECT_EQ(doc_backed, backed.count((*it)[1]) == 1) << (*it)[1];
  }
  EXPECT_EQ(rows, 54);
}

// docs/authorization.md has a row for every operation, naming the permission its door checks.
TEST_F(WireTest, AuthorizationDocMapsEveryOperationToItsPermission) {
  std::ifstream in(QUIVER_AUTHORIZATION_MD);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  std::regex row(R"(\|\s*(\w+)\s*\|[^|]*\|\s*([a-z—-]+)\s*\|\s*([^|]*?)\s*\|)");
  std::map<std::string, std::pair<std::string, std::string>> rows;  // op -> (door, permission)
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator();
       ++it) {
    rows[(*it)[1]] = {(*it)[2], (*it)[3]};
  }
  int checked = 0;
  for (const Operation& op : Operations()) {
    if (op.auth != Auth::kAuthenticated) continue;  // Healthz, Metrics
    auto found = rows.find(std::string(op.name));
    ASSERT_NE(found, rows.end()) << op.name << " has no row in docs/authorization.md";
    if (op.door == Door::kNone) continue;
    EXPECT_EQ(found->second.second,
              "`" + std::string(catalog::authz::PermissionName(op.permission)) + "`")
        << op.name;
    const char* door = op.door == Door::kRead          ? "read"
                       : op.door == Door::kDestructive ? "destructive"
                                                       : "create";
    EXPECT_EQ(found->second.first, door) << op.name;
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

// Every Lance code 0-23 leaves the server with its HTTP status and the error body. Codes the
// catalog has no natural trigger for yet are provoked by a storage layer that fails with them.
TEST_F(WireTest, EveryErrorCodeHasAnHttpStatusAndReachesTheWire) {
  const int expected_http[kNumStatusCodes] = {406, 404, 409, 409, 404, 409, 404, 409,
                                              404, 409, 404, 404, 404, 400, 409, 403,
                                              401, 503, 500, 409, 400, 429, 404, 409};
  MakeTable({"t"});
  for (int code = 0; code < kNumStatusCodes; ++code) {
    auto status_code = static_cast<StatusCode>(code);
    EXPECT_EQ(HttpStatusForCode(status_code), expected_http[code]) << code;
    faults_->FailAlways(StoreOp::kGet, Status(status_code, "injected failure"));
    auto reply = client_->Post("/v1/table/t/describe", json::object());
    faults_->Clear();
    ExpectError(reply, expected_http[code], code, "code " + std::to_string(code));
    if (code == 17 || code == 21) {
      EXPECT_EQ(reply.headers.count("retry-after"), 1u);
    }
  }
}

// A failure of the server's own (an I/O error, a bug) answers 500 without its message, which
// names paths on the server's disks: the client gets the request id, the log gets the rest.
TEST_F(WireTest, AServerFailureDoesNotShowItsMessage) {
  MakeTable({"t"});
  faults_->FailAlways(StoreOp::kGet,
                      Status::IOError("open /srv/secret/quiver-data/_quiver/x.json: EIO"));
  auto reply = client_->Post("/v1/table/t/describe", json::object());
  faults_->Clear();
  ExpectError(reply, 500, 18, "io error");
  EXPECT_EQ(reply.body.find("/srv/secret"), std::string::npos) << reply.body;
  EXPECT_NE(reply.body.find("request id"), std::string::npos) << reply.body;
}

}  // namespace
}  // namespace quiver::server::testing
