// The HTTP transport: keep-alive, request ids, size limits, malformed requests, unknown routes,
// bad input that must change nothing, and graceful shutdown with a request in flight.
#include <future>
#include <thread>

#include "common/sync_point.h"
#include "server_fixture.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

class TransportTest : public ServerFixture {};

TEST_F(TransportTest, KeepAliveReusesOneConnection) {
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(client_->Get("/v1/namespace/%24/list").status, 200);
  }
  EXPECT_EQ(client_->connections(), 1);
}

TEST_F(TransportTest, RequestIdsAreEchoedOrGenerated) {
  auto given =
      client_->Send("POST", "/v1/namespace/x/describe", "{}", {{"x-request-id", "my-id-42"}});
  EXPECT_EQ(given.headers["x-request-id"], "my-id-42");
  EXPECT_EQ(given.Json()["instance"], "my-id-42");
  auto generated = client_->Post("/v1/namespace/x/describe", json::object());
  EXPECT_EQ(generated.headers["x-request-id"].size(), 26u);  // a ULID
  EXPECT_EQ(generated.Json()["instance"], generated.headers["x-request-id"]);
  // An unusable id (spaces) is replaced, not echoed into headers.
  auto replaced =
      client_->Send("POST", "/v1/namespace/x/describe", "{}", {{"x-request-id", "a b"}});
  EXPECT_NE(replaced.headers["x-request-id"], "a b");
}

TEST_F(TransportTest, EveryRoutingFailureIsAnErrorBody) {
  ExpectError(client_->Post("/v1/nothing", json::object()), 404, 0);
  ExpectError(client_->Get("/"), 404, 0);
  auto wrong = client_->Send("DELETE", "/v1/namespace/x/describe");
  ExpectError(wrong, 405, 0);
  EXPECT_EQ(wrong.headers["allow"], "POST");
  ExpectError(client_->Send("POST", "/v1/namespace/x/describe", "{\"id\": [1]}"), 400, 13);
  ExpectError(client_->Send("POST", "/v1/namespace/x/create", "{\"properties\": {\"a\": 1}}"), 400,
              13);
  ExpectError(client_->Send("POST", "/v1/table/a%zz/describe", "{}"), 400, 13);
  ExpectError(client_->Send("POST", "/v1/table/a%24%24b/describe", "{}"), 400, 13);
  ExpectError(client_->Send("POST", "/v1/table/..%2Fetc/declare", "{}"), 400, 13);
  ExpectError(client_->Send("POST", "/v1/table/a%00b/declare", "{}"), 400, 13);
  ExpectError(client_->Send("POST", "/v1/table/%2E%2E/declare", "{}"), 400, 13);
}

TEST_F(TransportTest, OversizeRequestsGet413WithTheErrorBody) {
  StopServer();
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  options.max_header_bytes = 2048;
  StartServer(options);
  auto big = client_->Send("POST", "/v1/namespace/x/create", std::string(4096, ' '));
  ExpectError(big, 413, 13);
  auto huge_header = client_->Send("POST", "/v1/namespace/x/create", "{}",
                                   {{"x-padding", std::string(4096, 'p')}});
  ExpectError(huge_header, 413, 13);
  // The server is still serving.
  EXPECT_EQ(client_->Get("/v1/namespace/%24/list").status, 200);
}

TEST_F(TransportTest, MalformedHttpGetsA400ErrorBody) {
  std::string reply = SendRaw(http_->port(), "THIS IS NOT HTTP\r\n\r\n");
  EXPECT_NE(reply.find("400"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"code\":13"), std::string::npos) << reply;
}

TEST_F(TransportTest, ExpectContinueIsHonoured) {
  auto reply =
      client_->Send("POST", "/v1/namespace/cont/create", "{}", {{"expect", "100-continue"}});
  EXPECT_EQ(reply.status, 200) << reply.body;
}

TEST_F(TransportTest, BadInputChangesNothing) {
  ASSERT_EQ(client_->Post("/v1/namespace/ns/create", json::object()).status, 200);
  MakeTable({"ns", "t"});
  auto before = Snapshot();
  struct Bad {
    std::string method, target, body;
  };
  std::vector<Bad> bad = {
      {"POST", "/v1/namespace/ns/create", "{not json"},
      {"POST", "/v1/namespace/ns%24x/create", "[]"},
      {"POST", "/v1/namespace/ns%24x/create", "{\"mode\": 7}"},
      {"POST", "/v1/namespace/ns%24x/create", "{\"properties\": \"no\"}"},
      {"POST", "/v1/namespace/ns%24x/create", "{\"id\": [\"other\"]}"},
      {"POST", "/v1/namespace/..%24x/create", "{}"},
      {"POST", "/v1/namespace/ns%2Fx/create", "{}"},
      {"POST", "/v1/namespace/ns%00/create", "{}"},
      {"POST", "/v1/namespace/ns%24%24x/create", "{}"},
      {"POST", "/v1/namespace/%FF%FE/create", "{}"},
      {"POST", "/v1/table/ns%24u/declare", "{\"properties\": {\"k\": 1}}"},
      {"POST", "/v1/table/ns%24u/register", "{\"location\": \"../../etc\"}"},
      {"POST", "/v1/table/ns%24u/register", "{\"location\": \"/abs\"}"},
      {"POST", "/v1/table/ns%24t/rename", "{\"new_table_name\": \"a/b\"}"},
      {"POST", "/v1/table/ns%24t/rename", "{\"new_table_name\": 5}"},
      {"POST", "/v1/table/ns%24t/schema_metadata/update", "{\"k\": []}"},
      {"POST", "/v1/table/ns%24t/update_field_metadata", "{\"updates\": [{\"path\": 1}]}"},
      {"POST", "/v1/table/ns%24t/alter_columns",
       "{\"alterations\": [{\"path\": \"id\", \"nullable\": \"x\"}]}"},
      {"POST", "/v1/table/ns%24t/drop_columns", "{\"columns\": \"id\"}"},
      {"POST", "/v1/table/ns%24t/tags/create", "{\"tag\": \"../x\", \"version\": 1}"},
      {"POST", "/v1/table/ns%24t/branches/create", "{\"name\": \"a..b\"}"},
      {"POST", "/v1/table/ns%24t/version/create",
       "{\"version\": 2, \"manifest_path\": \"../../x\"}"},
      {"POST", "/v1/table/ns%24t/version/delete", "{\"ranges\": [{\"start_version\": \"a\"}]}"},
      {"POST", "/v1/table/ns%24t/insert", "\x01\x02truncated arrow"},
      {"POST", "/v1/table/ns%24t/restore", "{\"version\": -1}"},
      {"POST", "/v1/namespace/ns/drop", "{\"behavior\": 3}"},
      {"POST", "/v1/table/ns%24t/drop", "{\"id\": [\"ns\", \"other\"]}"},
  };
  for (const Bad& b : bad) {
    auto reply = client_->Send(b.method, b.target, b.body);
    EXPECT_GE(reply.status, 400) << b.target << " " << b.body;
    EXPECT_TRUE(reply.Json().contains("code")) << b.target << " " << reply.body;
  }
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(TransportTest, MetricsAndHealth) {
  ASSERT_EQ(client_->Post("/v1/namespace/m/create", json::object()).status, 200);
  ExpectError(client_->Post("/v1/namespace/m/create", json::object()), 409, 2);
  auto health = client_->Get("/healthz");
  EXPECT_EQ(health.Json()["status"], "ok");
  auto metrics = client_->Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.headers["content-type"].find("text/plain"), std::string::npos);
  const std::string& text = metrics.body;
  EXPECT_NE(text.find("quiver_requests_total{operation=\"CreateNamespace\",status=\"200\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("quiver_requests_total{operation=\"CreateNamespace\",status=\"409\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("quiver_request_duration_seconds_count{operation=\"CreateNamespace\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("quiver_store_requests_total{kind=\"put\"}"), std::string::npos);
  // The default project and warehouse (2), then the namespace.
  EXPECT_NE(text.find("quiver_registry_generation 3"), std::string::npos);
}

// Shutdown stops accepting, lets the request being handled finish (its client gets the answer)
// and returns once every connection is closed.
TEST(HttpServerShutdownTest, DrainsTheRequestInFlight) {
  Gate entered;
  Gate release;
  HttpServerOptions options;
  options.port = 0;
  options.threads = 2;
  auto server = HttpServer::Start(
      options,
      [&](HttpRequest&) {
        entered.Arrive();  // entered is open: counts and continues
        release.Arrive();  // waits until the test releases it
        HttpResponse r;
        r.body = "{\"done\":true}";
        return r;
      },
      [](TransportError, const std::string&) { return HttpResponse{}; });
  ASSERT_TRUE(server.ok());
  entered.Open();
  uint16_t port = (*server)->port();
  auto in_flight = std::async(std::launch::async, [port] {
    TestClient client(port);
    return client.Post("/slow", json::object());
  });
  entered.WaitForArrivals(1);
  (*server)->Shutdown();
  // New connections are refused once the acceptor is closed.
  release.Open();
  Reply reply = in_flight.get();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "{\"done\":true}");
  EXPECT_FALSE(reply.keep_alive);  // told to close: the server is going away
  (*server)->Wait();
}

}  // namespace
}  // namespace quiver::server::testing
