// The HTTP request and response as quiver's handlers see them: plain values, no Beast types, so
// that handlers, the router and their tests compile without Boost.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace quiver::server {

struct HttpRequest {
  std::string method;                             // "GET", "POST", ... as sent
  std::string target;                             // path + query, raw
  std::string path;                               // raw (still percent-encoded) path
  std::multimap<std::string, std::string> query;  // decoded (form rules: '+' is a space)
  std::map<std::string, std::string> headers;     // lower-case names; repeats joined by ", "
  std::string body;
  std::string remote;  // "ip:port" of the peer

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
};

// Parses "a=1&b=x+y&c=%24" into decoded pairs. Malformed escapes are kept literally.
std::multimap<std::string, std::string> ParseQueryString(std::string_view query);
// Percent-decodes `s`; with form_plus, '+' becomes a space. false on a malformed escape.
bool PercentDecode(std::string_view s, bool form_plus, std::string* out);

}  // namespace quiver::server
