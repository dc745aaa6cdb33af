// The transport's streaming, both ways (http_server.h): a body the admission marks
// `stream_body` reaches the handler while it arrives, past max_body_bytes and the body budget,
// with its own limit (413) and an unread remainder ending the connection; a response with
// `stream` goes out chunked as the producer writes it, and a producer that fails cuts the
// connection before the final chunk.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>

#include "server/http_server.h"
#include "test_client.h"

namespace quiver::server::testing {
namespace {

// A chunked POST header (how LanceDB sends Arrow bodies).
std::string ChunkedHeader(const std::string& target) {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
}
std::string Chunk(const std::string& bytes) {
  char size[32];
  snprintf(size, sizeof size, "%zx\r\n", bytes.size());
  return size + bytes + "\r\n";
}
const std::string kLastChunk = "0\r\n\r\n";

// Counts what the handler has read and lets the test wait for an amount.
class Progress {
 public:
  void Add(uint64_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += n;
    cv_.notify_all();
  }
  // false when `n` bytes were not read within a generous deadline (a failure, not a hang).
  bool WaitFor(uint64_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return bytes_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t bytes_ = 0;
};

class StreamingTest : public ::testing::Test {
 protected:
  // A server whose /stream/* requests are streamed with `limit`, and whose handler reads a
  // streamed body in reads of at most 4 KiB (all of it, or only `read_only` bytes), answering
  // with the byte count and a checksum.
  void Start(HttpServerOptions options, uint64_t limit, uint64_t read_only = UINT64_MAX) {
    options.host = "127.0.0.1";
    options.port = 0;
    options.threads = 2;
    auto server = HttpServer::Start(
        options,
        [this, read_only](HttpRequest& request) {
          HttpResponse response;
          if (request.path == "/produce") return Produce(request);
          if (!request.body_reader) {
            response.body = "whole:" + std::to_string(request.body.size());
            return response;
          }
          uint64_t total = 0, sum = 0;
          while (total < read_only) {
            auto part = request.body_reader->Read(std::min<uint64_t>(4096, read_only - total));
            if (!part.ok()) {
              response.status = 500;  // the transport answers instead
              response.body = part.status().ToString();
              return response;
            }
            if (part->empty()) break;
            for (unsigned char c : *part) sum += c;
            total += part->size();
            progress_.Add(part->size());
          }
          response.body = std::to_string(total) + ":" + std::to_string(sum);
          return response;
        },
        [](TransportError error, const std::string& message) {
          HttpResponse r;
          r.status = error == TransportError::kTooLarge ? 413 : 400;
          r.body = message;
          return r;
        },
        [limit](HttpRequest& request) {
          Admission admission;
          if (request.path.rfind("/stream/", 0) == 0) {
            admission.stream_body = true;
            admission.max_body_bytes = limit;
          }
          return admission;
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  // A streamed answer: `parts` writes of `part_bytes` bytes ('a' + i % 26), then success or,
  // with ?fail, an error.
  HttpResponse Produce(HttpRequest& request) {
    int parts = std::stoi(request.query.find("parts")->second);
    size_t part_bytes = std::stoul(request.query.find("bytes")->second);
    bool fail = request.query.count("fail") > 0;
    HttpResponse response;
    response.content_type = "application/octet-stream";
    response.headers.emplace_back("x-made", "here");
    response.stream = [parts, part_bytes, fail](BodyWriter& out) -> Status {
      for (int i = 0; i < parts; ++i) {
        QV_RETURN_IF_ERROR(out.Write(std::string(part_bytes, static_cast<char>('a' + i % 26))));
      }
      return fail ? Status::Internal("the producer gave up") : Status::OK();
    };
    return response;
  }

  void TearDown() override {
    if (server_) {
      server_->Shutdown();
      server_->Wait();
    }
  }

  std::unique_ptr<HttpServer> server_;
  Progress progress_;
};

std::string Bytes(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 + 3);
  return s;
}
uint64_t Sum(const std::string& s) {
  uint64_t sum = 0;
  for (unsigned char c : s) sum += c;
  return sum;
}

// The handler reads the body while it arrives: it has read the first part before the client
// sends the rest, and the whole body (over max_body_bytes and over the budget of body bytes in
// flight) arrives intact.
TEST_F(StreamingTest, StreamedBodyReachesTheHandlerAsItArrives) {
  HttpServerOptions options;
  options.max_body_bytes = 64 * 1024;
  options.max_inflight_body_bytes = 1 << 20;
  Start(options, /*limit=*/64 << 20);
  RawConnection conn(server_->port());
  std::string first = Bytes(100 * 1024);
  ASSERT_TRUE(conn.Send(ChunkedHeader("/stream/a") + Chunk(first)));
  ASSERT_TRUE(progress_.WaitFor(first.size()));  // read before the body is complete
  std::string rest = Bytes(3 << 20);
  for (size_t at = 0; at < rest.size(); at += 200 * 1024) {
    ASSERT_TRUE(conn.Send(Chunk(rest.substr(at, 200 * 1024))));
  }
  ASSERT_TRUE(conn.Send(kLastChunk));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, std::to_string(first.size() + rest.size()) + ":" +
                            std::to_string(Sum(first) + Sum(rest)));
  EXPECT_TRUE(reply.keep_alive);
  // The connection goes on: a body read whole, then another streamed one with a length.
  std::string small = "0123456789";
  ASSERT_TRUE(conn.Send("POST /whole HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n" + small));
  EXPECT_EQ(conn.Read().body, "whole:10");
  ASSERT_TRUE(
      conn.Send("POST /stream/b HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n" + small));
  EXPECT_EQ(conn.Read().body, "10:" + std::to_string(Sum(small)));
}

// A streamed body over its limit is answered 413 by the transport, whatever the handler
// returns; the connection ends (the rest is unread).
TEST_F(StreamingTest, StreamedBodyOverItsLimitGets413) {
  Start(HttpServerOptions{}, /*limit=*/10000);
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(ChunkedHeader("/stream/big") + Chunk(Bytes(8000)) + Chunk(Bytes(8000))));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 413);
  EXPECT_NE(reply.body.find("10000"), std::string::npos) << reply.body;
  EXPECT_FALSE(reply.keep_alive);
  // A Content-Length over the limit is refused before the handler runs.
  RawConnection second(server_->port());
  ASSERT_TRUE(second.Send("POST /stream/c HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n"));
  EXPECT_EQ(second.Read().status, 413);
}

// A handler that answers without reading the whole body gets its answer through, and the
// connection ends (its remainder is never parsed as a next request).
TEST_F(StreamingTest, BodyLeftUnreadEndsTheConnection) {
  Start(HttpServerOptions{}, /*limit=*/64 << 20, /*read_only=*/4096);
  RawConnection conn(server_->port());
  std::string body = Bytes(64 * 1024);
  ASSERT_TRUE(conn.Send(ChunkedHeader("/stream/x") + Chunk(body)));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "4096:" + std::to_string(Sum(body.substr(0, 4096))));
  EXPECT_FALSE(reply.keep_alive);
}

// A malformed chunked body is the transport's 400, not whatever the handler made of it.
TEST_F(StreamingTest, MalformedChunkingGets400) {
  Start(HttpServerOptions{}, /*limit=*/64 << 20);
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(ChunkedHeader("/stream/x") + "zz\r\nnot a chunk\r\n"));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 400);
  EXPECT_FALSE(reply.keep_alive);
}

// A streamed response arrives whole, chunked, with its headers; the connection is kept for the
// next request.
TEST_F(StreamingTest, StreamedResponseIsSentChunked) {
  Start(HttpServerOptions{}, 0);
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("GET /produce?parts=40&bytes=100000 HTTP/1.1\r\nHost: x\r\n\r\n"));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.headers["transfer-encoding"], "chunked");
  EXPECT_EQ(reply.headers["x-made"], "here");
  EXPECT_EQ(reply.headers["content-type"], "application/octet-stream");
  ASSERT_EQ(reply.body.size(), 4'000'000u);
  EXPECT_EQ(reply.body[0], 'a');
  EXPECT_EQ(reply.body[3'999'999], static_cast<char>('a' + 39 % 26));
  EXPECT_TRUE(reply.keep_alive);
  ASSERT_TRUE(conn.Send("GET /produce?parts=0&bytes=1 HTTP/1.1\r\nHost: x\r\n\r\n"));
  Reply empty = conn.Read();
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(empty.body, "");
}

// An HTTP/1.0 client has no chunked coding: the streamed body is sent as it is and ends with the
// connection.
TEST_F(StreamingTest, StreamedResponseToHttp10EndsWithTheConnection) {
  Start(HttpServerOptions{}, 0);
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("GET /produce?parts=3&bytes=100000 HTTP/1.0\r\nHost: x\r\n\r\n"));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.headers.count("transfer-encoding"), 0u);
  EXPECT_EQ(reply.body.size(), 300'000u);
  EXPECT_FALSE(reply.keep_alive);
}

// A producer that fails after the headers cuts the connection before the final chunk: the
// client never takes a partial body for a whole one.
TEST_F(StreamingTest, FailingProducerCutsTheConnection) {
  Start(HttpServerOptions{}, 0);
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("GET /produce?parts=5&bytes=100000&fail HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(conn.Read().status, 0);  // no complete response
  // The server goes on serving others.
  TestClient client(server_->port());
  EXPECT_EQ(client.Send("GET", "/produce?parts=1&bytes=3", "", {}, "").body, "aaa");
}

// Shutdown waits for a streamed body being read: the handler's answer still arrives.
TEST_F(StreamingTest, ShutdownLetsAStreamedRequestFinish) {
  Start(HttpServerOptions{}, /*limit=*/64 << 20);
  RawConnection conn(server_->port());
  std::string first = Bytes(1000);
  ASSERT_TRUE(conn.Send(ChunkedHeader("/stream/a") + Chunk(first)));
  ASSERT_TRUE(progress_.WaitFor(first.size()));
  server_->Shutdown();
  ASSERT_TRUE(conn.Send(Chunk(first) + kLastChunk));
  Reply reply = conn.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "2000:" + std::to_string(2 * Sum(first)));
  EXPECT_FALSE(reply.keep_alive);
  server_->Wait();
}

}  // namespace
}  // namespace quiver::server::testing
