// HttpServer: HTTP/1.1 over Boost.Beast/Asio (kept out of this header: pimpl).
//
// Keep-alive connections, bounded header and body sizes (oversize → 413), read/write timeouts,
// `Expect: 100-continue`, and a pool of threads that run the handler (handlers block on storage,
// so the pool is larger than the core count). Shutdown() stops accepting, closes idle
// connections, lets requests being handled finish and answers them with `Connection: close`.
//
// Errors the transport itself detects (oversize, unparsable HTTP) are answered through the
// `transport_error` callback, so they carry the same JSON error body as handler errors.
// Thread-safety: Start/Shutdown/Wait may be called from any thread; the handler is called
// concurrently from the pool's threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "server/http_types.h"

namespace quiver::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 2333;  // 0 = an ephemeral port (see HttpServer::port())
  int threads = 8;
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 256ull * 1024 * 1024;
  std::chrono::milliseconds read_timeout{30'000};  // per request, and idle keep-alive
  std::chrono::milliseconds write_timeout{30'000};
};

// What the transport reports to `transport_error`.
enum class TransportError { kTooLarge, kBadRequest };

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(HttpRequest&)>;
  using TransportErrorHandler = std::function<HttpResponse(TransportError, const std::string&)>;

  // Binds and starts serving. InvalidInput for a bad host; ServiceUnavailable when the address
  // cannot be bound (in use, no permission).
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   Handler handler,
                                                   TransportErrorHandler transport_error);
  ~HttpServer();

  uint16_t port() const;
  // Begins a graceful shutdown; returns at once. Idempotent.
  void Shutdown();
  // Blocks until every connection is closed and the threads have exited.
  void Wait();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::server
