#include "server/routes.h"

#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

namespace quiver::server {
namespace {

Result<RouteMatch> Match(std::string_view method, std::string_view path,
                         std::string_view delimiter = "$", int* status = nullptr,
                         Dialect dialect = Dialect::kSpec) {
  int s = 0;
  std::string allow;
  auto m = MatchRoute(method, path, delimiter, &s, &allow, dialect);
  if (status != nullptr) *status = s;
  return m;
}

// Every pattern routes to its own operation when {id} is filled in.
TEST(RoutesTest, EveryOperationIsReachableAtItsSpecPath) {
  for (const Operation& op : Operations()) {
    std::string path =
        std::regex_replace(std::string(op.pattern), std::regex("\\{id\\}"), "ns%24t");
    path = std::regex_replace(path, std::regex("\\{index_name\\}"), "idx");
    auto m = Match(op.method, path, "$", nullptr, op.remote ? Dialect::kRemote : Dialect::kSpec);
    ASSERT_TRUE(m.ok()) << op.name << " " << m.status().ToString();
    EXPECT_EQ(m->op->name, op.name) << path;
    if (op.pattern.find("{id}") != std::string_view::npos) {
      EXPECT_EQ(*m->id, "ns$t");
    }
  }
}

// The remote protocol's own routes exist only in its dialect; the spec's routes in both.
TEST(RoutesTest, RemoteRoutesAreRoutedOnlyInTheRemoteDialect) {
  int status = 0;
  auto spec = Match("POST", "/v1/table/t/multipart_write/create", "$", &status);
  EXPECT_FALSE(spec.ok());
  EXPECT_EQ(status, 404);
  auto remote = Match("POST", "/v1/table/t/multipart_write/create", "$", nullptr, Dialect::kRemote);
  ASSERT_TRUE(remote.ok());
  EXPECT_EQ(remote->op->name, "CreateMultipartWrite");
  auto describe = Match("POST", "/v1/table/t/describe/", "$", nullptr, Dialect::kRemote);
  ASSERT_TRUE(describe.ok());
  EXPECT_EQ(describe->op->name, "DescribeTable");
}

TEST(RoutesTest, LiteralRoutesWinOverIdRoutes) {
  EXPECT_EQ(Match("POST", "/v1/table/version/batch-create")->op->name, "BatchCreateTableVersions");
  EXPECT_EQ(Match("POST", "/v1/table/batch-commit")->op->name, "BatchCommitTables");
  // A table literally named "version" still reaches its own routes.
  EXPECT_EQ(Match("POST", "/v1/table/version/version/list")->op->name, "ListTableVersions");
}

TEST(RoutesTest, ClientDeviationsAreAccepted) {
  for (std::string_view op : {"count_rows", "tags/list", "stats"}) {
    auto m = Match("GET", std::string("/v1/table/t/") + std::string(op));
    ASSERT_TRUE(m.ok()) << op;
  }
  EXPECT_EQ(Match("GET", "/v1/table/t/index/i/stats")->op->name, "DescribeTableIndexStats");
  EXPECT_EQ(Match("POST", "/v1/table/t/describe/")->op->name, "DescribeTable");  // trailing slash
  EXPECT_EQ(Match("GET", "/v1/table/")->op->name, "ListAllTables");
  EXPECT_EQ(*Match("POST", "/v1/table/a+b%24c/describe")->id, "a b$c");  // '+' is a space
  EXPECT_EQ(*Match("POST", "/v1/table/a%2Bb/describe")->id, "a+b");
  EXPECT_EQ(*Match("GET", "/v1/namespace/$/list")->id, "$");
  EXPECT_EQ(*Match("GET", "/v1/namespace/%24/list")->id, "$");
  // delimiter=. : the client's normalisation dropped the root id.
  auto root_list = Match("GET", "/v1/namespace/list", ".");
  ASSERT_TRUE(root_list.ok());
  EXPECT_EQ(root_list->op->name, "ListNamespaces");
  EXPECT_EQ(*root_list->id, ".");
  EXPECT_EQ(Match("GET", "/v1/namespace/table/list", ".")->op->name, "ListTables");
  // Without delimiter=. a namespace called "table" is listed as usual.
  EXPECT_EQ(*Match("GET", "/v1/namespace/table/list")->id, "table");
}

TEST(RoutesTest, UnknownRoutesAndWrongMethodsAreReported) {
  int status = 0;
  auto missing = Match("POST", "/v1/nothing/here", "$", &status);
  EXPECT_EQ(missing.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(status, 404);
  auto wrong = Match("DELETE", "/v1/table/t/describe", "$", &status);
  EXPECT_EQ(wrong.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(status, 405);
  EXPECT_EQ(Match("POST", "/v1/table/bad%zz/describe").status().code(), StatusCode::kInvalidInput);
}

// docs/COVERAGE.md lists every spec operation exactly once, with the router's method and path.
TEST(RoutesTest, CoverageDocumentListsEveryOperation) {
  std::ifstream in(QUIVER_COVERAGE_MD);
  ASSERT_TRUE(in) << QUIVER_COVERAGE_MD;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  std::regex row(R"(\|\s*\d+\s*\|\s*(\w+)\s*\|\s*(GET|POST)[^`]*`([^`]+)`\s*\|\s*([a-z ]+?)\s*\|)");
  std::map<std::string, std::pair<std::string, std::string>> listed;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator();
       ++it) {
    listed[(*it)[1]] = {std::string((*it)[2]) + " " + std::string((*it)[3]), (*it)[4]};
  }
  for (const Operation& op : Operations()) {
    if (!op.spec) continue;
    auto found = listed.find(std::string(op.name));
    ASSERT_NE(found, listed.end()) << op.name << " missing from COVERAGE.md";
    EXPECT_EQ(found->second.first, std::string(op.method) + " " + std::string(op.pattern))
        << op.name;
  }
  EXPECT_EQ(listed.size(), 54u);
}

}  // namespace
}  // namespace quiver::server
