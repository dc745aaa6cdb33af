// The HTTP transport: keep-alive, request ids, size limits, malformed requests, unknown routes,
// bad input that must change nothing, and graceful shutdown with a request in flight.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
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

// The status line's code of a raw reply ("HTTP/1.1 501 ..." → 501).
int StatusOf(const std::string& raw) {
  return raw.size() >= 12 && raw.compare(0, 5, "HTTP/") == 0 ? std::stoi(raw.substr(9, 3)) : 0;
}

// quiver decodes no transfer coding but chunked and no content coding: refused before the body
// is read (501, code 0: not implemented; 415, code 13: the body is unusable as sent). Read as
// unencoded, a `Transfer-Encoding: gzip` body has no length and its bytes would be taken for
// the next request.
TEST_F(TransportTest, UnsupportedCodingsAreRefusedUnread) {
  for (std::string coding : {"gzip", "gzip, chunked", "chunked, chunked", "identity"}) {
    std::string raw = SendRaw(http_->port(),
                              "POST /v1/namespace/coded/create HTTP/1.1\r\nHost: x\r\n"
                              "Transfer-Encoding: " +
                                  coding + "\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    EXPECT_EQ(StatusOf(raw), 501) << coding << ": " << raw;
    EXPECT_NE(raw.find("\"code\":0"), std::string::npos) << raw;
    EXPECT_NE(raw.find("Transfer-Encoding"), std::string::npos) << raw;
  }
  for (std::string coding : {"gzip", "identity, br", "deflate"}) {
    std::string raw = SendRaw(http_->port(),
                              "POST /v1/namespace/coded/create HTTP/1.1\r\nHost: x\r\n"
                              "Content-Encoding: " +
                                  coding + "\r\nContent-Length: 2\r\n\r\n{}");
    EXPECT_EQ(StatusOf(raw), 415) << coding << ": " << raw;
    EXPECT_NE(raw.find("\"code\":13"), std::string::npos) << raw;
  }
  ExpectError(client_->Post("/v1/namespace/coded/describe", json::object()), 404, 1);
  // What is understood still works.
  std::string chunked = SendRaw(http_->port(),
                                "POST /v1/namespace/coded/create HTTP/1.1\r\nHost: x\r\n"
                                "Transfer-Encoding: chunked\r\nContent-Encoding: identity\r\n"
                                "Connection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  EXPECT_EQ(StatusOf(chunked), 200) << chunked;
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

// A SyncPoints callback that counts arrivals and lets a test wait (boundedly) for a count.
class Arrivals {
 public:
  SyncPoints::Callback AsCallback() {
    return [this](std::string_view) {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
      cv_.notify_all();
      return Status::OK();
    };
  }
  // false when `n` arrivals did not come within a generous deadline (a failure, not a hang).
  bool WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return count_ >= n; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

Result<std::unique_ptr<HttpServer>> StartOkServer(HttpServerOptions options) {
  options.host = "127.0.0.1";
  options.port = 0;
  options.threads = 2;
  return HttpServer::Start(
      options,
      [](HttpRequest&) {
        HttpResponse r;
        r.body = "{\"ok\":true}";
        return r;
      },
      [](TransportError, const std::string&) {
        return HttpResponse{400, "", "", {}};
      });
}

// At max_connections the server stops accepting (no accept is attempted: nothing spins), keeps
// serving the open connections, and accepts the waiting one when another closes.
TEST(HttpServerConnectionsTest, AtTheCapAcceptingWaitsForAConnectionToClose) {
  SyncPoints sync;
  Arrivals paused;
  sync.Set("http.accept.paused", paused.AsCallback());
  HttpServerOptions options;
  options.max_connections = 2;
  options.sync_points = &sync;
  auto server = StartOkServer(options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  uint16_t port = (*server)->port();
  auto first = std::make_unique<TestClient>(port);
  auto second = std::make_unique<TestClient>(port);
  EXPECT_EQ(first->Get("/a").status, 200);
  EXPECT_EQ(second->Get("/b").status, 200);
  ASSERT_TRUE(paused.WaitFor(1));

  RawConnection waiting(port);  // connected in the kernel's backlog, not accepted
  ASSERT_TRUE(waiting.Send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n"));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(first->Get("/a").status, 200);
  EXPECT_EQ(sync.HitCount("http.accept"), 2u);

  second.reset();  // closes: one place is free
  Reply reply = waiting.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(sync.HitCount("http.accept"), 3u);
  EXPECT_EQ(first->Get("/a").status, 200);
}

// Restores the descriptor limit however the test ends.
struct DescriptorLimit {
  rlimit saved{};
  DescriptorLimit() { getrlimit(RLIMIT_NOFILE, &saved); }
  ~DescriptorLimit() { Restore(); }
  // No descriptor numbered `lowest_free` or above can be opened.
  bool Exhaust() {
    int lowest_free = open("/dev/null", O_RDONLY);
    if (lowest_free < 0) return false;
    close(lowest_free);
    rlimit low = saved;
    low.rlim_cur = static_cast<rlim_t>(lowest_free);
    return setrlimit(RLIMIT_NOFILE, &low) == 0;
  }
  void Restore() { setrlimit(RLIMIT_NOFILE, &saved); }
};

// Out of descriptors (EMFILE) the accept loop does not spin: every failed accept waits for a
// backoff timer before the next; the open connections are served meanwhile, and the waiting
// connection is accepted once descriptors are free again.
TEST(HttpServerConnectionsTest, OutOfDescriptorsBacksOffAndKeepsServing) {
#if defined(QUIVER_UBSAN)
  // UBSan's vptr check reads a vtable only after asking the kernel whether the memory is
  // readable, by writing it into a pipe (sanitizer_common's IsAccessibleMemoryRange): with no
  // descriptor left the pipe cannot be made and it reports "object has invalid vptr" for a
  // sound object (seen on the Clock the accept loop's log line calls). Its suppressions cannot
  // match (they name the dynamic type, which it could not read), so the test runs in the
  // Release tree only.
  GTEST_SKIP() << "UBSan's vptr check needs free descriptors (see the comment)";
#endif
  SyncPoints sync;
  Arrivals backoffs;
  sync.Set("http.accept.backoff", backoffs.AsCallback());
  HttpServerOptions options;
  options.max_connections = 1000;
  options.sync_points = &sync;
  auto server = StartOkServer(options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  uint16_t port = (*server)->port();
  TestClient open(port);
  ASSERT_EQ(open.Get("/a").status, 200);
  ASSERT_EQ(sync.HitCount("http.accept"), 1u);

  int pending = socket(AF_INET, SOCK_STREAM, 0);  // opened while descriptors remain
  ASSERT_GE(pending, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  DescriptorLimit limit;
  ASSERT_TRUE(limit.Exhaust());
  ASSERT_EQ(connect(pending, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);

  ASSERT_TRUE(backoffs.WaitFor(3));  // 10, 20, 40 ms: the loop is waiting, not spinning
  uint64_t attempts = sync.HitCount("http.accept") - 1;
  EXPECT_LE(attempts, static_cast<uint64_t>(backoffs.count()) + 1);
  EXPECT_EQ(open.Get("/a").status, 200);  // the open connection is still served

  limit.Restore();
  std::string request = "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(write(pending, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = read(pending, buf, sizeof(buf))) > 0;) reply.append(buf, n);
  close(pending);
  EXPECT_EQ(StatusOf(reply), 200) << reply;
}

}  // namespace
}  // namespace quiver::server::testing
