// The HTTP(S) GET that reads a JWKS document from an identity provider (an OIDC issuer's
// `jwks_uri`, or a sidecar on the same machine).
//
// Which URLs are accepted, and why:
//   https://HOST[:PORT]/PATH   any host (DNS name or IP literal). The server's certificate must
//                              chain to a trusted CA (the system's, or `ca_file` when given) and
//                              name HOST (host name verification, SNI); TLS 1.2 or newer.
//   http://HOST[:PORT]/PATH    the loopback interface only (127.0.0.1, [::1], and localhost,
//                              which is taken to mean 127.0.0.1 and never looked up): keys
//                              fetched in clear text from another machine could be replaced on
//                              the way, and whoever replaces them can mint tokens.
// Redirects are not followed (the status is reported). No user info, no control characters.
//
// Boost.Asio/Beast and OpenSSL's TLS stay inside jwks_fetch.cc; this header compiles without.
// Thread-safety: free functions without shared state; callable from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace quiver::server::internal {

struct JwksUrl {
  bool tls = false;         // https
  std::string host;         // what is connected to: a DNS name, or an IP literal (no brackets)
  uint16_t port = 0;        // 443 / 80 when the URL names none
  std::string target;       // path (+ query), starts with '/'
  std::string host_header;  // the Host header as written in the URL ("idp.example.com:8443")
};

// Parses the URL under the rules above. InvalidInput naming the URL and the reason otherwise.
Result<JwksUrl> ParseJwksUrl(const std::string& url);

struct FetchOptions {
  int timeout_ms = 5000;  // bounds the whole exchange (resolve, connect, handshake, send, receive)
  std::string ca_file;    // https: PEM CA certificates to trust instead of the system's
};

// GETs `url` and returns the body of a 200 response (at most 1 MiB). InvalidInput for a URL
// ParseJwksUrl refuses or an unreadable `ca_file`; IOError for a failure to resolve, connect or
// verify the server's certificate, a timeout (retryable), a body that is too large, or a status
// other than 200 (the message names the status).
Result<std::string> FetchJwksUrl(const std::string& url, const FetchOptions& options);

}  // namespace quiver::server::internal
