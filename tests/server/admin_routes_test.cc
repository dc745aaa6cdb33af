// Operator-facing surfaces with authentication on: /metrics is for server admins (its counters
// move with what requests touched), /healthz is open, and a warehouse root of its own is storage
// configuration that only a server admin may give.
#include "authz_fixture.h"

namespace quiver::server::testing {
namespace {

class AdminRoutesTest : public AuthzFixture {};

TEST_F(AdminRoutesTest, MetricsNeedAServerAdminHealthzNothing) {
  StartAuthServer({"user:alice"});
  Grant({"user:alice#admin@project:default"});
  EXPECT_EQ(client_->Send("GET", "/healthz", "", {}, "").status, 200);
  ExpectError(client_->Send("GET", "/metrics", "", {}, ""), 401, 16);
  ExpectError(As("user:alice", {"GET", "/metrics", ""}), 403, 15);
  Reply metrics = Root({"GET", "/metrics", ""});
  EXPECT_NE(metrics.body.find("quiver_requests_total"), std::string::npos);
}

TEST_F(AdminRoutesTest, OnlyServerAdminsGiveAWarehouseItsOwnRoot) {
  StartAuthServer({"user:alice"});
  Grant({"user:alice#admin@project:default"});
  auto before = Snapshot();
  ExpectError(As("user:alice",
                 {"POST", "/v1/warehouses", R"({"name":"w2","root":"memory://admin-routes-w2"})"}),
              403, 15);
  EXPECT_EQ(Snapshot(), before);
  // On the catalog root a project admin may.
  EXPECT_EQ(As("user:alice", {"POST", "/v1/warehouses", R"({"name":"w3"})"}).status, 200);
  Root({"POST", "/v1/warehouses", R"({"name":"w4","root":"memory://admin-routes-w4"})"});
  auto described = As("user:alice", {"GET", "/v1/warehouses/w4/describe", ""});
  EXPECT_EQ(described.status, 200) << described.body;
  EXPECT_EQ(described.Json().value("root", ""), "memory://admin-routes-w4");
}

// A grant someone else writes for a principal never moves its requests into that project, and a
// project admin cannot write one for another project's principal at all (access_hardening_test
// has the rest): with several projects, granted by a server admin, and no x-quiver-project header
// the request is refused (400), not redirected.
TEST_F(AdminRoutesTest, AnotherProjectsGrantDoesNotRedirectAPrincipal) {
  StartAuthServer({"user:alice", "user:mallory"});
  Root({"POST", "/v1/projects", R"({"name":"q"})"});
  Grant({"user:alice#admin@project:q", "user:mallory#admin@project:default"});
  std::map<std::string, std::string> in_q = {{"x-quiver-project", "q"}};
  Root({"POST", "/v1/warehouses", R"({"name":"w"})"}, 200, in_q);
  EXPECT_EQ(As("user:alice", {"POST", "/v1/namespace/mine/create"}).status, 200);
  // mallory (admin of default) cannot grant alice something in default ...
  ExpectError(As("user:mallory", {"POST", "/v1/access/tuples",
                                  R"({"writes":["user:alice#writer@project:default"]})"}),
              403, 15);
  EXPECT_EQ(As("user:alice", {"POST", "/v1/namespace/more/create"}).status, 200);
  // ... a server admin can; alice must then choose.
  Grant({"user:alice#writer@project:default"});
  Reply ambiguous = As("user:alice", {"POST", "/v1/namespace/again/create"});
  ExpectError(ambiguous, 400, 13);
  EXPECT_NE(ambiguous.body.find("x-quiver-project"), std::string::npos) << ambiguous.body;
  EXPECT_EQ(As("user:alice", {"POST", "/v1/namespace/again/create"}, in_q).status, 200);
  // Nothing of alice's landed in default.
  Reply listed = Root({"GET", "/v1/namespace/%24/list", ""});
  EXPECT_EQ(listed.Json()["namespaces"], nlohmann::json::array()) << listed.body;
  // Grants to everyone are a server admin's decision.
  ExpectError(As("user:mallory",
                 {"POST", "/v1/access/tuples", R"({"writes":["user:*#reader@project:default"]})"}),
              403, 15);
}

// ExistOk answers, and Overwrite replaces, an existing object: the permission on the parent (for
// a top-level namespace, the warehouse the request names) does not cover either.
TEST_F(AdminRoutesTest, CreateDoorsDoNotActOnAnExistingObjectTheCallerCannotSee) {
  StartAuthServer({"user:alice"});
  Root({"POST", "/v1/warehouses", R"({"name":"w1"})"});
  Root({"POST", "/v1/namespace/secret/create",
        R"({"properties":{"warehouse":"default","code":"hidden-code-42"}})"});
  Grant({"user:alice#owner@warehouse:default/w1"});
  for (const char* mode : {"ExistOk", "Overwrite"}) {
    std::string body = std::string(R"({"mode":")") + mode + R"(","properties":{"warehouse":"w1"}})";
    Reply reply = As("user:alice", {"POST", "/v1/namespace/secret/create", body});
    ExpectError(reply, 409, 2, mode);
    // (A marker no request id can hold by chance: the reply's instance id is random base32.)
    EXPECT_EQ(reply.body.find("hidden-code"), std::string::npos) << reply.body;
  }
  Reply kept = Root({"POST", "/v1/namespace/secret/describe"});
  EXPECT_EQ(kept.Json()["properties"]["code"], "hidden-code-42");
}

// A rename creates a name in its destination, the same namespace by default: that needs
// can_create_table there, which owning only the table does not give.
TEST_F(AdminRoutesTest, RenameNeedsCreateTableInTheDestination) {
  StartAuthServer({"user:alice"});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  Grant({"user:alice#owner@table:default/ns/t"});
  ExpectError(As("user:alice", {"POST", "/v1/table/ns%24t/rename", R"({"new_table_name":"u"})"}),
              403, 15);
  Grant({"user:alice#writer@namespace:default/ns"});
  EXPECT_EQ(
      As("user:alice", {"POST", "/v1/table/ns%24t/rename", R"({"new_table_name":"u"})"}).status,
      200);
}

TEST_F(AdminRoutesTest, GrantsAreShownOnlyToThoseWhoMayChangeThem) {
  StartAuthServer({"user:alice"});
  Grant({"user:alice#reader@project:default"});
  Reply seen = As("user:alice", {"GET", "/v1/projects/default/describe", ""});
  EXPECT_EQ(seen.status, 200) << seen.body;
  EXPECT_FALSE(seen.Json().contains("grants")) << seen.body;
  EXPECT_TRUE(Root({"GET", "/v1/projects/default/describe", ""}).Json().contains("grants"));
}

}  // namespace
}  // namespace quiver::server::testing
