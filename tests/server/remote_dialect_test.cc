// LanceDB's remote protocol on the same server (server/remote_dialect.h): how a request is told
// apart, the remote shapes of describe, the root table list, versions and tags, errors classified
// by status (never a retried 409 for a permanent conflict), read-your-writes headers, the
// database header as the project, and multipart writes over HTTP. The spec's answers to the same
// operations stay as they were.
#include "server/remote_dialect.h"
#include "data_plane_fixture.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

TEST(RemoteDialect, IsToldApartByTheDatabaseHeaderOrATrailingSlashOnATableRoute) {
  auto dialect = [](std::string path, std::map<std::string, std::string> headers = {}) {
    HttpRequest request;
    request.path = std::move(path);
    request.headers = std::move(headers);
    return DetectDialect(request);
  };
  EXPECT_EQ(dialect("/v1/table/t/describe/"), Dialect::kRemote);
  EXPECT_EQ(dialect("/v1/table/"), Dialect::kRemote);
  EXPECT_EQ(dialect("/v1/table/t/describe"), Dialect::kSpec);
  EXPECT_EQ(dialect("/v1/table"), Dialect::kSpec);
  EXPECT_EQ(dialect("/v1/namespace/ns/list/"), Dialect::kSpec);
  EXPECT_EQ(dialect("/v1/tables/"), Dialect::kSpec);
  EXPECT_EQ(dialect("/v1/namespace/ns/list", {{"x-lancedb-database", "default"}}),
            Dialect::kRemote);
}

TEST(RemoteDialect, PermanentConflictsAre400AndOnlyRetryableOnes409) {
  EXPECT_EQ(
      RemoteErrorStatus(Status(StatusCode::kTableAlreadyExists, "x already exists"), "CreateTable"),
      400);
  EXPECT_EQ(RemoteErrorStatus(Status(StatusCode::kTableTagAlreadyExists, "t"), "CreateTableTag"),
            400);
  EXPECT_EQ(RemoteErrorStatus(Status(StatusCode::kNamespaceNotEmpty, "n"), "DropNamespace"), 400);
  EXPECT_EQ(RemoteErrorStatus(Status::Conflict("lost a race"), "UpdateTable"), 409);
  EXPECT_EQ(
      RemoteErrorStatus(Status(StatusCode::kTableBranchAlreadyExists, "b"), "CreateTableBranch"),
      409);
  EXPECT_EQ(RemoteErrorStatus(Status(StatusCode::kTableColumnNotFound, "c"), "QueryTable"), 400);
  EXPECT_EQ(RemoteErrorStatus(Status(StatusCode::kTableNotFound, "t"), "QueryTable"), 404);
  EXPECT_EQ(RemoteErrorStatus(Status::ServiceUnavailable("busy"), "QueryTable"), 503);
  EXPECT_EQ(RemoteErrorStatus(Status::InvalidInput("bad"), "QueryTable"), 400);
}

class RemoteDialectTest : public DataPlaneTest {
 protected:
  // A request as LanceDB's remote client sends it (db://default: the database header).
  Reply Remote(const std::string& target, const std::string& body = "",
               std::map<std::string, std::string> headers = {},
               const std::string& content_type = "application/json",
               const std::string& method = "POST") {
    headers.emplace("x-lancedb-database", "default");
    return client_->Send(method, target, body, headers, body.empty() ? "" : content_type);
  }
  Reply RemoteArrow(const std::string& target, const std::string& body) {
    return Remote(target, body, {}, "application/vnd.apache.arrow.stream");
  }
  static std::string Header(const Reply& reply, const std::string& name) {
    auto it = reply.headers.find(name);
    return it == reply.headers.end() ? "" : it->second;
  }
};

TEST_F(RemoteDialectTest, DescribeAnswersVersionAndLanceTypeNames) {
  auto remote = Remote("/v1/table/d/describe/");  // openTable: no body at all
  ASSERT_EQ(remote.status, 200) << remote.body;
  EXPECT_EQ(Header(remote, "phalanx-version"), std::string(kPhalanxVersion));
  json body = remote.Json();
  EXPECT_EQ(body["version"], 2);
  EXPECT_TRUE(body["location"].is_string());
  const json& fields = body["schema"]["fields"];
  ASSERT_EQ(fields.size(), 3u) << body.dump();
  EXPECT_EQ(fields[0]["type"], json({{"type", "int64"}}));
  EXPECT_EQ(fields[0]["nullable"], false);
  EXPECT_EQ(fields[1]["type"], json({{"type", "string"}}));
  EXPECT_EQ(fields[2]["type"]["type"], "fixed_size_list");
  EXPECT_EQ(fields[2]["type"]["length"], 2);
  EXPECT_EQ(fields[2]["type"]["fields"][0]["type"], json({{"type", "float"}}));
  // checkout(1): the version asked for.
  EXPECT_EQ(Remote("/v1/table/d/describe/", R"({"version":1})").Json()["version"], 1);
  // The spec's describe keeps its vocabulary and carries no phalanx-version.
  auto spec = client_->Send("POST", "/v1/table/d/describe?load_detailed_metadata=true", "{}");
  ASSERT_EQ(spec.status, 200) << spec.body;
  EXPECT_EQ(Header(spec, "phalanx-version"), "");
  EXPECT_EQ(spec.Json()["schema"]["fields"][1]["type"], json({{"type", "utf8"}}));
  // A missing table and a missing version are 404, which the client reads as "not found".
  ExpectError(Remote("/v1/table/nope/describe/"), 404, 4);
  ExpectError(Remote("/v1/table/d/describe/", R"({"version":9})"), 404, 11);
}

TEST_F(RemoteDialectTest, TheRootListIsTheRootsTablesByNameWithoutDeclaredOnes) {
  ASSERT_TRUE(catalog_->CreateNamespace(Scoped({"ns"}), catalog::CreateMode::kCreate, {}, {}).ok());
  MakeTable({"ns", "inner"});
  ASSERT_TRUE(catalog_->DeclareTable(Scoped({"declared"}), {}, {}).ok());
  Write(table_, 100, 1, table::WriteMode::kAppend);
  auto listed = Remote("/v1/table/", "", {}, "", "GET");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.Json()["tables"], json({"d"}));
  EXPECT_EQ(Remote("/v1/table/?limit=5&page_token=d", "", {}, "", "GET").Json()["tables"],
            json::array());
  auto spec = client_->Get("/v1/table");  // the spec's ListAllTables: every id, declared too
  ASSERT_EQ(spec.status, 200) << spec.body;
  EXPECT_EQ(spec.Json()["tables"].size(), 3u) << spec.body;
}

TEST_F(RemoteDialectTest, ConflictsThatRetryingCannotFixAre400) {
  auto again = RemoteArrow("/v1/table/d/create/?mode=create", Stream(0, 1));
  ExpectError(again, 400, 5);
  EXPECT_NE(again.body.find("already exists"), std::string::npos) << again.body;
  ExpectError(SendArrow("/v1/table/d/create?mode=create", Stream(0, 1)), 409, 5);  // the spec's
  ASSERT_EQ(Remote("/v1/table/d/tags/create/", R"({"tag":"v1","version":1})").status, 200);
  ExpectError(Remote("/v1/table/d/tags/create/", R"({"tag":"v1","version":1})"), 400, 9);
  ASSERT_EQ(Remote("/v1/table/d/branches/create/", R"({"name":"exp"})").status, 200);
  ExpectError(Remote("/v1/table/d/branches/create/", R"({"name":"exp"})"), 409, 23);
  auto unknown_column = Remote("/v1/table/d/count_rows/", R"({"predicate":"nope > 1"})");
  EXPECT_EQ(unknown_column.status, 400) << unknown_column.body;
  EXPECT_EQ(Count("d"), "100");
}

TEST_F(RemoteDialectTest, VersionsAndTagsInTheRemoteShapes) {
  ASSERT_EQ(Remote("/v1/table/d/tags/create/", R"({"tag":"first","version":1})").status, 200);
  auto tags = Remote("/v1/table/d/tags/list/");
  ASSERT_EQ(tags.status, 200) << tags.body;
  EXPECT_EQ(tags.Json()["first"]["version"], 1) << tags.body;  // the bare map
  EXPECT_TRUE(client_->Post("/v1/table/d/tags/list", json::object()).Json().contains("tags"));
  auto versions = Remote("/v1/table/d/version/list/");
  ASSERT_EQ(versions.status, 200) << versions.body;
  json answered = versions.Json();
  const json& list = answered["versions"];
  ASSERT_EQ(list.size(), 2u) << versions.body;
  for (const json& v : list) {
    EXPECT_TRUE(v["timestamp"].is_string() && v["timestamp"].get<std::string>().back() == 'Z');
    EXPECT_TRUE(v["metadata"].is_object());
    EXPECT_TRUE(v.contains("manifest_path"));  // the spec's fields stay alongside
  }
}

TEST_F(RemoteDialectTest, ReadsHonourTheVersionTheClientHasSeen) {
  auto ok =
      Remote("/v1/table/d/count_rows/", R"({"version":null})", {{"x-lancedb-min-version", "2"}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.body, "100");
  EXPECT_EQ(Header(ok, "x-lancedb-version"), "2");
  // A version this server cannot see yet: retryable, never a stale answer.
  auto ahead = Remote("/v1/table/d/count_rows/", "{}", {{"x-lancedb-min-read-version", "3"}});
  ExpectError(ahead, 503, 17);
  EXPECT_EQ(Header(ahead, "retry-after"), "1");
  // A pinned version is what it is.
  EXPECT_EQ(
      Remote("/v1/table/d/count_rows/", R"({"version":1})", {{"x-lancedb-min-version", "3"}}).body,
      "60");
  ExpectError(Remote("/v1/table/d/count_rows/", "{}", {{"x-lancedb-min-version", "soon"}}), 400,
              13);
}

TEST_F(RemoteDialectTest, TheDatabaseIsTheProject) {
  auto other =
      client_->Send("POST", "/v1/table/d/describe/", "", {{"x-lancedb-database", "nosuch"}}, "");
  ExpectError(other, 404, 1);
  auto mismatch =
      client_->Send("POST", "/v1/table/d/describe/", "",
                    {{"x-lancedb-database", "default"}, {"x-quiver-project", "other"}}, "");
  ExpectError(mismatch, 400, 13);
  ExpectError(Remote("/v1/table/d/describe/", "", {{"x-lancedb-database-prefix", "p"}}), 406, 0);
}

TEST_F(RemoteDialectTest, MultipartWritesCommitTheirPartsAsOneVersion) {
  // Not a route of the spec's dialect.
  ExpectError(client_->Post("/v1/table/d/multipart_write/create", json::object()), 404, 0);
  auto created = Remote("/v1/table/d/multipart_write/create");
  ASSERT_EQ(created.status, 200) << created.body;
  std::string upload = created.Json()["upload_id"];
  ASSERT_EQ(RemoteArrow("/v1/table/d/insert/?upload_id=" + upload, Stream(100, 30)).status, 200);
  ASSERT_EQ(RemoteArrow("/v1/table/d/insert/?upload_id=" + upload, Stream(130, 20)).status, 200);
  EXPECT_EQ(Count("d"), "100");  // staged, not committed
  auto done = Remote("/v1/table/d/multipart_write/complete?upload_id=" + upload);
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(done.Json()["version"], 3);
  EXPECT_EQ(Count("d"), "150");
  EXPECT_EQ(Remote("/v1/table/d/multipart_write/complete?upload_id=" + upload).Json()["version"],
            3);
  ExpectError(Remote("/v1/table/d/multipart_write/abort?upload_id=" + upload), 400, 19);
  // An aborted upload leaves the table as it was and its data files gone.
  std::string aborted = Remote("/v1/table/d/multipart_write/create").Json()["upload_id"];
  auto before = Snapshot();
  ASSERT_EQ(RemoteArrow("/v1/table/d/insert/?upload_id=" + aborted, Stream(200, 5)).status, 200);
  ASSERT_EQ(Remote("/v1/table/d/multipart_write/abort?upload_id=" + aborted).status, 200);
  auto after = Snapshot();
  size_t data_before = 0, data_after = 0;
  for (const auto& [key, bytes] : before) data_before += key.find("/data/") != std::string::npos;
  for (const auto& [key, bytes] : after) data_after += key.find("/data/") != std::string::npos;
  EXPECT_EQ(data_after, data_before);
  EXPECT_EQ(Count("d"), "150");
  ExpectError(Remote("/v1/table/d/multipart_write/complete?upload_id=" + aborted), 400, 19);
  ExpectError(Remote("/v1/table/d/multipart_write/complete"), 400, 13);
  ExpectError(RemoteArrow("/v1/table/d/insert/?upload_id=not-an-upload", Stream(0, 1)), 400, 13);
}

TEST_F(RemoteDialectTest, RenameTakesTheRemoteDestinationField) {
  ASSERT_TRUE(catalog_->CreateNamespace(Scoped({"ns"}), catalog::CreateMode::kCreate, {}, {}).ok());
  auto renamed =
      Remote("/v1/table/d/rename/", R"({"new_table_name":"moved","new_namespace":["ns"]})");
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(client_->Post("/v1/table/ns%24moved/count_rows", json::object()).body, "100");
}

}  // namespace
}  // namespace quiver::server::testing
