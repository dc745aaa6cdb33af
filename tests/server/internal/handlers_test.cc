// The operation handlers called directly, without HTTP, routing or doors: a HandlerContext over
// a Catalog on a MemoryStore and a Call as the pipeline would hand it over (parsed, scoped to
// the default project).
#include "server/internal/handlers.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "common/config.h"
#include "server/metrics.h"
#include "server/server.h"
#include "store/memory_store.h"
#include "testing/status_matchers.h"

namespace quiver::server::internal {
namespace {

using nlohmann::json;

class HandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(catalog_, catalog::Catalog::Open(MemoryObjectStore::Create()));
    ASSERT_OK_AND_ASSIGN(access_, OpenAccessControl(*catalog_, Config{}));
    ctx_ = std::make_unique<HandlerContext>(HandlerContext{*catalog_, *access_, metrics_});
  }

  // A call of `op` on `spec_id` (the client's id) in the default project, as a server admin
  // would make it with authentication off.
  Call MakeCall(std::string_view op, const catalog::ObjectId& spec_id, json body = json::object()) {
    Call call;
    call.http = &http_;
    call.op = FindOperation(op);
    EXPECT_NE(call.op, nullptr) << op;
    call.request_id = "test";
    call.project = std::string(catalog::kDefaultProject);
    call.spec_id = spec_id;
    call.id = call.Scoped(spec_id);
    call.body = std::move(body);
    return call;
  }

  // Runs `op`'s handler as its row names it.
  Result<HttpResponse> Run(Call call) { return call.op->handler(*ctx_, call); }

  HttpRequest http_;
  Metrics metrics_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<catalog::AccessControl> access_;
  std::unique_ptr<HandlerContext> ctx_;
};

TEST_F(HandlersTest, CreateNamespaceThenDescribeAndExists) {
  Call create = MakeCall("CreateNamespace", {"sales"}, {{"properties", {{"owner", "ana"}}}});
  ASSERT_OK_AND_ASSIGN(HttpResponse created, HandleCreateNamespace(*ctx_, create));
  EXPECT_EQ(created.status, 200);
  EXPECT_EQ(json::parse(created.body)["properties"]["owner"], "ana");

  Call describe = MakeCall("DescribeNamespace", {"sales"});
  ASSERT_OK_AND_ASSIGN(HttpResponse described, HandleDescribeNamespace(*ctx_, describe));
  EXPECT_EQ(json::parse(described.body)["properties"]["owner"], "ana");

  Call exists = MakeCall("NamespaceExists", {"sales"});
  ASSERT_OK_AND_ASSIGN(HttpResponse reply, HandleNamespaceExists(*ctx_, exists));
  EXPECT_TRUE(reply.body.empty());

  // The handler named by the row is the same function.
  ASSERT_OK_AND_ASSIGN(HttpResponse again, Run(MakeCall("DescribeNamespace", {"sales"})));
  EXPECT_EQ(again.body, described.body);
}

TEST_F(HandlersTest, ErrorsAreStatusesWithTheSpecsCodes) {
  ASSERT_STATUS(StatusCode::kNamespaceNotFound, Run(MakeCall("DescribeNamespace", {"nowhere"})));
  ASSERT_STATUS(StatusCode::kNamespaceNotFound, Run(MakeCall("NamespaceExists", {"nowhere"})));
  ASSERT_OK(Run(MakeCall("CreateNamespace", {"sales"})));
  ASSERT_STATUS(StatusCode::kNamespaceAlreadyExists, Run(MakeCall("CreateNamespace", {"sales"})));
  ASSERT_OK(Run(MakeCall("CreateNamespace", {"sales"}, {{"mode", "exist_ok"}})));
  ASSERT_STATUS(StatusCode::kInvalidInput,
                Run(MakeCall("CreateNamespace", {"other"}, {{"mode", "sometimes"}})));
  ASSERT_STATUS(StatusCode::kInvalidInput,
                Run(MakeCall("DropNamespace", {"sales"}, {{"mode", "Maybe"}})));
  ASSERT_STATUS(StatusCode::kTableNotFound, Run(MakeCall("DescribeTable", {"sales", "t"})));
}

TEST_F(HandlersTest, DeclaredTableIsListedAndDescribed) {
  ASSERT_OK(Run(MakeCall("CreateNamespace", {"sales"})));
  ASSERT_OK(Run(MakeCall("DeclareTable", {"sales", "orders"})));
  ASSERT_OK_AND_ASSIGN(HttpResponse listed, Run(MakeCall("ListTables", {"sales"})));
  EXPECT_EQ(json::parse(listed.body)["tables"], json({"orders"}));
  ASSERT_OK_AND_ASSIGN(HttpResponse described, Run(MakeCall("DescribeTable", {"sales", "orders"})));
  json body = json::parse(described.body);
  EXPECT_EQ(body["table"], "orders");
  EXPECT_EQ(body["namespace"], json({"sales"}));
  ASSERT_OK(Run(MakeCall("DropTable", {"sales", "orders"})));
  ASSERT_STATUS(StatusCode::kTableNotFound, Run(MakeCall("TableExists", {"sales", "orders"})));
}

TEST_F(HandlersTest, HealthzAndMetricsAnswerWithoutTheService) {
  Call call;  // neither looks at its call
  ASSERT_OK_AND_ASSIGN(HttpResponse health, HandleHealthz(*ctx_, call));
  EXPECT_EQ(json::parse(health.body)["status"], "ok");
  metrics_.Record("DescribeTable", 200, 0.001);
  ASSERT_OK_AND_ASSIGN(HttpResponse scraped, HandleMetrics(*ctx_, call));
  EXPECT_EQ(scraped.content_type, "text/plain; version=0.0.4");
  EXPECT_NE(scraped.body.find("operation=\"DescribeTable\""), std::string::npos) << scraped.body;
  EXPECT_NE(scraped.body.find("quiver_registry_generation"), std::string::npos);
  // Without a counting store there are no store samples.
  EXPECT_EQ(scraped.body.find("quiver_store_requests_total"), std::string::npos);
}

}  // namespace
}  // namespace quiver::server::internal
