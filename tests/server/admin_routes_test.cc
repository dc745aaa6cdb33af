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

}  // namespace
}  // namespace quiver::server::testing
