// The admission step over HTTP: a request is authenticated from its header before its body is
// read, bodies have limits by what they are (JSON, Arrow, unauthenticated), and the server's
// budget of body bytes in flight answers 503 with Retry-After once spent.
#include <string>

#include "server_fixture.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

constexpr const char* kRootPrincipal = "user:root";

// A POST header announcing `length` body bytes (the body is sent separately).
std::string PostHeader(const std::string& target, uint64_t length,
                       const std::string& extra_lines = "") {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(length) + "\r\n" + extra_lines + "\r\n";
}

// A JSON object of exactly `size` bytes (size ≥ 20).
std::string JsonOfSize(size_t size, json fields = json::object()) {
  fields["properties"] = {{"pad", ""}};
  std::string text = fields.dump();
  fields["properties"]["pad"] = std::string(size - text.size(), 'p');
  return fields.dump();
}

class AdmissionTest : public ServerFixture {
 protected:
  void SetUp() override { Logger::Default().SetLevel(LogLevel::kWarn); }  // tests start theirs

  // Authentication on, user:root an admin with the API key key_.
  void StartAuthServer(HttpServerOptions options = {}) {
    StartServer(options, /*managed=*/false, /*auth=*/true, kRootPrincipal);
    auto created = access_->api_keys().Create(kRootPrincipal, std::nullopt, "", "test");
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    key_ = created->key;
  }

  std::string key_;
};

// A 40 MiB body without a credential, or with one that does not verify, is answered 401 after
// its header: the answer arrives while the client has sent 64 KiB of it, and the connection
// ends (nothing of the body is kept).
TEST_F(AdmissionTest, UnauthenticatedBigBodyGets401BeforeItIsRead) {
  HttpServerOptions options;
  // Code that waits for the whole body would wait this long, then close without an answer.
  options.read_timeout = std::chrono::milliseconds(3000);
  StartAuthServer(options);
  const uint64_t kAnnounced = 40ull << 20;
  for (const std::string& credential :
       {std::string(), std::string("x-api-key: qv_not_a_key_at_all\r\n"),
        std::string("Authorization: Bearer not.a.token\r\n")}) {
    for (const std::string& target :
         {std::string("/v1/namespace/big/create"), std::string("/v1/table/big%24t/insert")}) {
      RawConnection conn(http_->port());
      ASSERT_TRUE(conn.Send(PostHeader(target, kAnnounced, credential)));
      conn.Send(std::string(64 * 1024, ' '));  // may fail once the server has answered
      Reply reply = conn.Read();
      ExpectError(reply, 401, 16, credential + target);
      EXPECT_FALSE(reply.keep_alive);
    }
  }
  // None of it got past the door.
  ExpectError(client_->Send("POST", "/v1/namespace/big/describe", "{}", {{"x-api-key", key_}}), 404,
              1);
}

// What authenticates still works: a key in the header with a body up to the JSON limit, and the
// body's `identity` object in a small body; a body too big for that is 401, not read.
TEST_F(AdmissionTest, HeaderAndBodyCredentialsStillAuthenticate) {
  StartAuthServer();
  std::string big = JsonOfSize(1 << 20);  // over the unauthenticated limit, under the JSON one
  EXPECT_EQ(
      client_->Send("POST", "/v1/namespace/by_header/create", big, {{"x-api-key", key_}}).status,
      200);
  json identity = {{"identity", {{"api_key", key_}}}};
  auto small = client_->Send("POST", "/v1/namespace/by_body/create", identity.dump());
  EXPECT_EQ(small.status, 200) << small.body;
  ExpectError(
      client_->Send("POST", "/v1/namespace/by_body_big/create", JsonOfSize(128 * 1024, identity)),
      401, 16);
  // A bad key in the header wins over a good one in the body, as before.
  ExpectError(client_->Send("POST", "/v1/namespace/mixed/create", identity.dump(),
                            {{"x-api-key", "qv_wrong"}}),
              401, 16);
  auto listed = client_->Send("GET", "/v1/namespace/%24/list", "", {{"x-api-key", key_}}, "");
  EXPECT_EQ(listed.Json()["namespaces"], json({"by_body", "by_header"})) << listed.body;
}

// JSON-bodied operations have their own, smaller limit (Content-Length or chunked); the
// Arrow-bodied ones keep max_body_bytes.
TEST_F(AdmissionTest, JsonBodyOverItsLimitGets413) {
  service_options_.max_json_body_bytes = 4096;
  StartServer(HttpServerOptions{});
  auto over = client_->Send("POST", "/v1/namespace/x/create", JsonOfSize(8192));
  ExpectError(over, 413, 13);
  EXPECT_NE(over.Json().value("error", "").find("4096"), std::string::npos) << over.body;
  EXPECT_EQ(client_->Send("POST", "/v1/namespace/x/create", JsonOfSize(4096)).status, 200);

  RawConnection chunked(http_->port());
  std::string chunk(3000, ' ');
  ASSERT_TRUE(chunked.Send(
      "POST /v1/namespace/y/create HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
      "\r\nbb8\r\n" +
      chunk + "\r\nbb8\r\n" + chunk + "\r\n0\r\n\r\n"));
  ExpectError(chunked.Read(), 413, 13);

  // An Arrow body of the same size is read (and found to be no Arrow stream).
  auto arrow = client_->Send("POST", "/v1/table/x%24t/insert", std::string(8192, 'a'), {},
                             "application/vnd.apache.arrow.stream");
  EXPECT_NE(arrow.status, 413) << arrow.body;
  EXPECT_GE(arrow.status, 400);
}

// Bodies being received count against one budget: a request that does not fit is answered 503
// with Retry-After at once, unread; once the other is done it goes through.
TEST_F(AdmissionTest, SpentBodyBudgetGets503WithRetryAfter) {
  HttpServerOptions options;
  options.max_body_bytes = 4096;
  options.max_inflight_body_bytes = 4096;
  StartServer(options);
  std::string held_body = JsonOfSize(3000);
  RawConnection held(http_->port());
  ASSERT_TRUE(held.Send(
      PostHeader("/v1/namespace/held/create", held_body.size(), "Expect: 100-continue\r\n")));
  ASSERT_EQ(held.Read().status, 100);  // admitted: its 3000 bytes are set aside

  auto refused = client_->Send("POST", "/v1/namespace/other/create", JsonOfSize(2000));
  ExpectError(refused, 503, 17);
  EXPECT_EQ(refused.headers["retry-after"], "1");
  EXPECT_EQ(client_->Get("/v1/namespace/%24/list").status, 200);  // no body: fits

  ASSERT_TRUE(held.Send(held_body));
  EXPECT_EQ(held.Read().status, 200);
  EXPECT_EQ(client_->Send("POST", "/v1/namespace/other/create", JsonOfSize(2000)).status, 200);
}

// Unauthenticated bodies share a quarter of the budget: many of them cannot crowd out the
// authenticated requests.
TEST_F(AdmissionTest, UnauthenticatedBodiesShareAQuarterOfTheBudget) {
  HttpServerOptions options;
  options.max_body_bytes = 256 * 1024;
  options.max_inflight_body_bytes = 256 * 1024;  // a quarter: 64 KiB
  StartAuthServer(options);
  json identity = {{"identity", {{"api_key", key_}}}};
  std::string held_body = JsonOfSize(60 * 1024, identity);
  RawConnection held(http_->port());
  ASSERT_TRUE(held.Send(
      PostHeader("/v1/namespace/held/create", held_body.size(), "Expect: 100-continue\r\n")));
  ASSERT_EQ(held.Read().status, 100);

  auto refused = client_->Send("POST", "/v1/namespace/other/create", JsonOfSize(8192, identity));
  ExpectError(refused, 503, 17);
  EXPECT_EQ(refused.headers["retry-after"], "1");
  EXPECT_EQ(client_
                ->Send("POST", "/v1/namespace/keyed/create", JsonOfSize(128 * 1024),
                       {{"x-api-key", key_}})
                .status,
            200);

  ASSERT_TRUE(held.Send(held_body));
  EXPECT_EQ(held.Read().status, 200);
  EXPECT_EQ(client_->Send("POST", "/v1/namespace/other/create", JsonOfSize(8192, identity)).status,
            200);
}

// A chunked body (how LanceDB clients send Arrow) has no length to reserve: it holds a step
// (1 MiB) ahead of what has arrived, not its whole limit, so concurrent uploads fit.
TEST_F(AdmissionTest, ChunkedBodiesReserveAsTheyArrive) {
  HttpServerOptions options;
  options.max_body_bytes = 4 << 20;
  options.max_inflight_body_bytes = 4 << 20;
  StartServer(options);
  auto chunked_header = [](const std::string& target) {
    return "POST " + target +
           " HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
           "Expect: 100-continue\r\n\r\n";
  };
  RawConnection held(http_->port());
  ASSERT_TRUE(held.Send(chunked_header("/v1/namespace/held/create")));
  ASSERT_EQ(held.Read().status, 100);  // admitted, 1 MiB set aside

  RawConnection second(http_->port());
  ASSERT_TRUE(second.Send(chunked_header("/v1/namespace/second/create")));
  ASSERT_EQ(second.Read().status, 100);
  ASSERT_TRUE(second.Send("2\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(second.Read().status, 200);

  // What the held one has set aside still counts.
  ExpectError(client_->Send("POST", "/v1/namespace/third/create", JsonOfSize(7 << 19)), 503, 17);
  ASSERT_TRUE(held.Send("2\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(held.Read().status, 200);
  EXPECT_EQ(client_->Send("POST", "/v1/namespace/third/create", JsonOfSize(7 << 19)).status, 200);
}

}  // namespace
}  // namespace quiver::server::testing
