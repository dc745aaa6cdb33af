// HttpServer: HTTP/1.1 over Boost.Beast/Asio (kept out of this header: pimpl).
//
// Keep-alive connections, bounded header and body sizes (oversize → 413), read/write timeouts,
// `Expect: 100-continue`, and a pool of threads that run the handler (handlers block on storage,
// so the pool is larger than the core count). Shutdown() stops accepting, closes idle
// connections, lets requests being handled finish and answers them with `Connection: close`.
//
// Nothing is read past a request's header before it is admitted: the transport refuses a
// transfer coding other than `chunked` (501) and a content coding other than `identity` (415),
// then asks the `admission` callback, which may answer the request at once (e.g. 401 for a
// refused credential) and sets the body's limit; then the body is counted against a server-wide
// budget of body bytes in flight: its Content-Length before it is read (over budget → 503,
// unread); a chunked body 1 MiB ahead of what has arrived, up to its limit (over budget → 503
// where it is).
// A request answered without its body being read ends its connection (after a short lingering
// read that discards what the client is still sending, so that it sees the answer).
//
// Streaming, both ways. A request the admission marks `stream_body` is handed to the handler
// right after its header, on a worker thread, with a BodyReader (HttpRequest::body_reader) that
// reads the body as the handler asks for it: the body is never held whole (a multi-GB insert is
// written to data files as it arrives), it reserves one step of the budget whatever its length,
// and the read timeout applies to each read (a client that stops sending for that long is cut
// off). A response with HttpResponse::stream set is sent with `Transfer-Encoding: chunked`: its
// status and headers first, then the producer runs on a worker thread and its bytes go out in
// chunks of up to 256 KiB as it writes them (each write waits for the previous chunk to be
// sent, so a slow reader paces the producer; the write timeout applies per chunk). A producer
// that fails after the headers cuts the connection before the final chunk.
// Workers are a separate pool of `threads` threads, so handlers blocked on a body or a slow
// client never hold the threads that do the I/O.
//
// Connections are capped (max_connections): at the cap the server stops accepting and resumes
// when one closes; a failed accept (EMFILE, ENFILE, ...) is retried after a backoff that doubles
// from 10 ms to 1 s, logged once per burst, while the open connections keep being served.
//
// Errors the transport itself detects (oversize, unparsable HTTP, codings, the budget) are
// answered through the `transport_error` callback, so they carry the same JSON error body as
// handler errors.
// Thread-safety: Listen/Serve/Shutdown/Wait may be called from any thread (Serve once); the
// callbacks are called concurrently from the pool's threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "server/http_types.h"

namespace quiver {
class SyncPoints;
}

namespace quiver::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 2333;  // 0 = an ephemeral port (see HttpServer::port())
  int threads = 8;
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 256ull * 1024 * 1024;  // any body; admission may lower it per request
  // Body bytes of all requests being received or handled at once. REQUIRES: ≥ max_body_bytes.
  uint64_t max_inflight_body_bytes = 1ull << 30;
  size_t max_connections = 0;                      // 0 = DefaultMaxConnections()
  std::chrono::milliseconds read_timeout{30'000};  // per request, and idle keep-alive
  std::chrono::milliseconds write_timeout{30'000};
  // Tests: reached at "http.accept" (every completed accept, failed or not),
  // "http.accept.paused" (at the connection cap) and "http.accept.backoff" (a failed accept
  // waits). May be null.
  SyncPoints* sync_points = nullptr;
};

// The descriptor limit (RLIMIT_NOFILE) less a quarter of it (at least 64) for the storage
// files, the listener and the logs.
size_t DefaultMaxConnections();

// What the transport reports to `transport_error`.
enum class TransportError {
  kTooLarge,                   // header or body over its limit
  kBadRequest,                 // unparsable HTTP
  kUnauthenticated,            // a body over the limit the admission set for unauthenticated
  kUnsupportedTransferCoding,  // Transfer-Encoding other than chunked
  kUnsupportedContentCoding,   // Content-Encoding other than identity
  kOverloaded,                 // the budget of body bytes in flight is spent
};

// The admission step's verdict on a request whose header has been read and whose body has not.
struct Admission {
  // Answered at once; the body is not read.
  std::optional<HttpResponse> refusal;
  // The body's limit; 0 (or, unless streamed, more than max_body_bytes): max_body_bytes.
  uint64_t max_body_bytes = 0;
  // What a body over that limit is reported as.
  TransportError over_limit = TransportError::kTooLarge;
  // The caller is not authenticated yet: its body also counts against the quarter of
  // max_inflight_body_bytes that such bodies share (they cannot crowd out the others).
  bool unauthenticated = false;
  // Hand the body to the handler as it arrives (HttpRequest::body_reader) instead of reading it
  // first. Its limit (max_body_bytes above) may then exceed HttpServerOptions::max_body_bytes:
  // no more than one step of it is in memory at once.
  bool stream_body = false;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(HttpRequest&)>;
  using TransportErrorHandler = std::function<HttpResponse(TransportError, const std::string&)>;
  // Sees the request with its header only (`body` empty); may set the fields HttpRequest keeps
  // for the handler. Null: every request is admitted with max_body_bytes.
  using AdmissionHandler = std::function<Admission(HttpRequest&)>;

  // Binds and listens, without serving yet (connections wait in the backlog until Serve), so
  // that a caller can check the address before doing anything else. InvalidInput for a bad
  // host or options; ServiceUnavailable when the address cannot be bound (in use, no
  // permission).
  static Result<std::unique_ptr<HttpServer>> Listen(const HttpServerOptions& options);
  // Starts serving. REQUIRES: called once.
  void Serve(Handler handler, TransportErrorHandler transport_error,
             AdmissionHandler admission = nullptr);
  // Listen, then Serve.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   Handler handler,
                                                   TransportErrorHandler transport_error,
                                                   AdmissionHandler admission = nullptr);
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
