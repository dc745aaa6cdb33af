// Test support: a blocking HTTP/1.1 client over one keep-alive connection (Beast, test-only),
// and a raw-bytes sender for requests no well-behaved client would produce.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace quiver::server::testing {

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  nlohmann::json Json() const;  // discarded value when the body is not JSON
  bool keep_alive = true;
};

class TestClient {
 public:
  explicit TestClient(uint16_t port);
  ~TestClient();
  // `content_type` empty: no Content-Type header.
  Reply Send(const std::string& method, const std::string& target, const std::string& body = "",
             const std::map<std::string, std::string>& headers = {},
             const std::string& content_type = "application/json");
  Reply Post(const std::string& target, const nlohmann::json& body) {
    return Send("POST", target, body.dump());
  }
  Reply Get(const std::string& target) { return Send("GET", target, "", {}, ""); }
  // Number of TCP connections opened so far (keep-alive reuses one).
  int connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One connection driven byte by byte: send part of a request, read the answer, send more.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port);
  ~RawConnection();
  // false once the server has stopped reading (closed or reset).
  bool Send(const std::string& bytes);
  // Reads one response (status 0 when the connection ends first). An interim 100 Continue is
  // returned as such.
  Reply Read();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Sends `raw` on a fresh connection and returns everything the server sent back before closing
// (or until a full response arrived).
std::string SendRaw(uint16_t port, const std::string& raw);

}  // namespace quiver::server::testing
