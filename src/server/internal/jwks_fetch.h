// A loopback-only HTTP/1.1 GET, used to read a JWKS document from an identity provider (or a
// sidecar) on the same machine. Only 127.0.0.1, localhost (taken to mean 127.0.0.1, never
// looked up in DNS) and [::1] are accepted, so no configuration can make quiver send traffic
// off the machine; plain http only, since the bytes never leave the host.
//
// Boost.Beast stays inside jwks_fetch.cc; this header compiles without Boost.
// Thread-safety: free functions without shared state; callable from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace quiver::server::internal {

struct LoopbackUrl {
  std::string host;         // "127.0.0.1" or "::1": the address connected to
  uint16_t port = 80;       // when the URL names none
  std::string target;       // path (+ query), starts with '/'
  std::string host_header;  // the Host header as written in the URL ("localhost:8080")
};

// Parses "http://HOST[:PORT][/PATH[?QUERY]]". InvalidInput for another scheme, a host that is
// not loopback, user info, a bad port, or control characters / spaces anywhere in the URL.
Result<LoopbackUrl> ParseLoopbackUrl(const std::string& url);

// GETs `url` and returns the body of a 200 response (at most 1 MiB). InvalidInput for a URL
// ParseLoopbackUrl refuses; IOError for a connection failure, a timeout (retryable), a body
// that is too large, or a status other than 200 (the message names the status).
// REQUIRES: timeout_ms > 0; it bounds the whole exchange (connect, send, receive).
Result<std::string> FetchLoopbackUrl(const std::string& url, int timeout_ms);

}  // namespace quiver::server::internal
