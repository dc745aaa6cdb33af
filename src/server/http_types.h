// The HTTP request and response as quiver's handlers see them: plain values, no Beast types, so
// that handlers, the router and their tests compile without Boost.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace quiver::server {

// A request body the handler reads while it arrives (HttpServer hands one over for the requests
// its admission step marks Admission::stream_body): the body is never held whole, and the
// client's sending is paced by the handler's reading (TCP back-pressure).
// Thread-safety: used by the handler's thread only.
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  // Blocks until some of the body arrives: 1 to `max` more bytes, or empty at its end. An error
  // (the client sent more than the body's limit, malformed chunking, went away or stopped
  // sending for the read timeout) ends the body; the transport then answers the request itself
  // (413, 400) or closes the connection, whatever the handler returns.
  virtual Result<std::string> Read(size_t max) = 0;
  // Body bytes handed out so far.
  virtual uint64_t bytes_read() const = 0;
};

// Where a streamed response body goes (HttpResponse::stream).
// Thread-safety: used by the producer's thread only.
class BodyWriter {
 public:
  virtual ~BodyWriter() = default;
  // Appends to the body; blocks while the client is slow to read. An error: the client is gone
  // or stopped reading for the write timeout (the producer should stop).
  virtual Status Write(std::string_view bytes) = 0;
};

struct HttpRequest {
  std::string method;                             // "GET", "POST", ... as sent
  std::string target;                             // path + query, raw
  std::string path;                               // raw (still percent-encoded) path
  std::multimap<std::string, std::string> query;  // decoded (form rules: '+' is a space)
  std::map<std::string, std::string> headers;     // lower-case names; repeats joined by ", "
  std::string body;                               // empty when the body is streamed (body_reader)
  std::string remote;                             // "ip:port" of the peer
  // Set when the body is streamed: read it from here (then `body` is empty).
  std::shared_ptr<BodyReader> body_reader;

  // Set by the admission step (HttpServer's AdmissionHandler), which sees the request before
  // its body is read, for the handler; the transport neither reads nor changes them.
  struct Admitted {
    std::string subject;                   // authenticated from the headers
    std::optional<int64_t> expires_at_ms;  // when that credential stops being valid
    std::string key_id;                    // an API key's id
  };
  std::string request_id;            // empty: not assigned yet
  std::optional<Admitted> admitted;  // the header credential, once verified

  // The header's value or "".
  const std::string& Header(const std::string& lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";  // empty: no Content-Type header
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Set: the body is produced by this call, on a transport thread after the status and headers
  // are sent, and sent as it is written (chunked; `body` is not sent). It returns an error to
  // give up: the headers are gone, so the connection is cut before the body's end and the client
  // sees an incomplete answer, never a complete wrong one.
  std::function<Status(BodyWriter&)> stream;
};

// Parses "a=1&b=x+y&c=%24" into decoded pairs. Malformed escapes are kept literally.
std::multimap<std::string, std::string> ParseQueryString(std::string_view query);
// Percent-decodes `s`; with form_plus, '+' becomes a space. false on a malformed escape.
bool PercentDecode(std::string_view s, bool form_plus, std::string* out);

}  // namespace quiver::server
