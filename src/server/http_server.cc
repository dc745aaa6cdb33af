#include "server/http_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/logging.h"
#include "common/mutex.h"
#include "common/sync_point.h"

namespace quiver::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(10);
constexpr auto kLastBackoff = std::chrono::milliseconds(1000);
// How long a connection whose request was answered unread keeps discarding what the client
// still sends (closing with unread bytes sends a reset, which can destroy the answer).
constexpr auto kLingerTime = std::chrono::milliseconds(2000);
// A chunked body's reservation stays this far ahead of what has arrived (a read adds at most
// 64 KiB); a streamed body reserves this much whatever its length.
constexpr uint64_t kChunkedStep = 1 << 20;
// A streamed response goes out in chunks of about this size.
constexpr size_t kResponseChunkBytes = 256 * 1024;

void Reach(SyncPoints* sync_points, std::string_view point) {
  // The transport has no way to stop at a point: a test's status is not used.
  if (sync_points != nullptr) (void)sync_points->Reach(point);
}

class Session;

// State shared by the acceptor and every session.
struct Shared {
  HttpServerOptions options;
  size_t max_connections = 0;
  HttpServer::Handler handler;
  HttpServer::TransportErrorHandler transport_error;
  HttpServer::AdmissionHandler admission;
  // Handlers of streamed bodies, and producers of streamed responses: two pools, so that slow
  // uploads cannot keep answers that have started from being sent.
  asio::thread_pool* handler_workers = nullptr;
  asio::thread_pool* producer_workers = nullptr;
  std::function<void()> on_session_closed;  // set before the first accept
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> inflight_body_bytes{0};
  std::atomic<uint64_t> unauthenticated_body_bytes{0};  // a part of inflight_body_bytes
  Mutex mu;
  std::set<std::shared_ptr<Session>> sessions GUARDED_BY(mu);

  // Takes `n` bytes of the body budget; false (nothing taken) when they do not fit. The bodies
  // of unauthenticated requests share a quarter of it, so that they cannot spend it all.
  bool Reserve(uint64_t n, bool unauthenticated) {
    uint64_t budget = options.max_inflight_body_bytes;
    if (unauthenticated && !Add(unauthenticated_body_bytes, budget / 4, n)) return false;
    if (Add(inflight_body_bytes, budget, n)) return true;
    if (unauthenticated) unauthenticated_body_bytes.fetch_sub(n);
    return false;
  }
  void Release(uint64_t n, bool unauthenticated) {
    inflight_body_bytes.fetch_sub(n);
    if (unauthenticated) unauthenticated_body_bytes.fetch_sub(n);
  }

 private:
  static bool Add(std::atomic<uint64_t>& counter, uint64_t limit, uint64_t n) {
    uint64_t current = counter.load();
    do {
      if (current > limit || n > limit - current) return false;
    } while (!counter.compare_exchange_weak(current, current + n));
    return true;
  }
};

// A transfer coding other than a single, final `chunked`, or a content coding other than
// `identity`: quiver decodes neither, so such a body cannot be read as what it claims to be
// (and a non-chunked transfer coding has no length: its bytes would be read as the next
// request).
std::optional<std::pair<TransportError, std::string>> RefusedCoding(
    const http::request<http::string_body>& raw) {
  if (auto te = raw.find(http::field::transfer_encoding); te != raw.end()) {
    int codings = 0;
    bool only_chunked = true;
    for (auto coding : http::token_list(te->value())) {
      ++codings;
      if (!beast::iequals(coding, "chunked")) only_chunked = false;
    }
    if (codings != 1 || !only_chunked) {
      return std::make_pair(
          TransportError::kUnsupportedTransferCoding,
          fmt::format("Transfer-Encoding '{}' is not supported: send the body with "
                      "Content-Length or 'Transfer-Encoding: chunked'",
                      std::string(te->value())));
    }
  }
  for (auto it = raw.find(http::field::content_encoding);
       it != raw.end() && it->name() == http::field::content_encoding; ++it) {
    for (auto coding : http::token_list(it->value())) {
      if (!beast::iequals(coding, "identity")) {
        return std::make_pair(TransportError::kUnsupportedContentCoding,
                              fmt::format("Content-Encoding '{}' is not supported: send the body "
                                          "unencoded",
                                          std::string(it->value())));
      }
    }
  }
  return std::nullopt;
}

HttpRequest RequestFromHeader(const http::request<http::string_body>& raw,
                              const std::string& remote) {
  HttpRequest req;
  req.method = std::string(raw.method_string());
  req.target = std::string(raw.target());
  size_t q = req.target.find('?');
  req.path = req.target.substr(0, q);
  if (q != std::string::npos)
    req.query = ParseQueryString(std::string_view(req.target).substr(q + 1));
  for (const auto& field : raw) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, inserted] = req.headers.emplace(name, std::string(field.value()));
    if (!inserted) it->second += ", " + std::string(field.value());
  }
  req.remote = remote;
  return req;
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    beast::error_code ec;
    auto remote = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = fmt::format("{}:{}", remote.address().to_string(), remote.port());
  }
  ~Session() { ReleaseBudget(); }

  void Run() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // Called on shutdown: idle connections close now, busy ones after their response.
  void Stop() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_) self->Close();
    });
  }

 private:
  void ReadHeader() {
    if (shared_->stopping) return Close();
    request_ = HttpRequest{};
    streamed_.reset();
    body_error_ = BodyError::kNone;
    streamed_bytes_ = 0;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(
        std::min<size_t>(shared_->options.max_header_bytes, UINT32_MAX)));  // Beast's type
    // The body's limit is set once the request is admitted (a Content-Length is checked then,
    // not while the header is read: an unauthenticated caller learns nothing from a 413).
    parser_->body_limit(std::numeric_limits<uint64_t>::max());
    stream_.expires_after(shared_->options.read_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& raw = parser_->get();
    http_version_ = raw.version();
    request_ = RequestFromHeader(raw, remote_);
    if (auto refused = RefusedCoding(raw)) {
      // Its framing is unknown (a coding hides the length): the connection cannot go on.
      return Refuse(shared_->transport_error(refused->first, refused->second),
                    /*framed=*/false);
    }
    body_limit_ = shared_->options.max_body_bytes;
    over_limit_ = TransportError::kTooLarge;
    unauthenticated_ = false;
    bool stream_body = false;
    if (shared_->admission) {
      Admission admission = shared_->admission(request_);
      if (admission.refusal) return Refuse(std::move(*admission.refusal));
      if (admission.max_body_bytes != 0) {
        body_limit_ = std::min<uint64_t>(body_limit_, admission.max_body_bytes);
      }
      over_limit_ = admission.over_limit;
      unauthenticated_ = admission.unauthenticated;
      stream_body = admission.stream_body;
      if (stream_body && admission.max_body_bytes != 0) body_limit_ = admission.max_body_bytes;
    }
    auto length = parser_->content_length();
    if (length && *length > body_limit_) return Refuse(BodyOverLimit());
    parser_->body_limit(body_limit_);  // counts a chunked body as it arrives
    // A chunked body (every LanceDB Arrow upload) has no length: it reserves a step ahead of
    // what has arrived, up to its limit (ReadChunkedBody), not the whole limit up front. A
    // streamed body holds one step at most, whatever its length.
    uint64_t body_bytes = length.value_or(0);
    if (stream_body) {
      body_bytes = std::min({body_limit_, kChunkedStep, length.value_or(kChunkedStep)});
    } else if (!length && parser_->chunked()) {
      body_bytes = std::min(body_limit_, kChunkedStep);
    }
    if (!shared_->Reserve(body_bytes, unauthenticated_)) return Refuse(Overloaded());
    reserved_ = body_bytes;
    auto next = [self = shared_from_this(), stream_body] {
      stream_body ? self->StartStreamedHandler() : self->ReadBody();
    };
    if (beast::iequals(raw[http::field::expect], "100-continue")) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      stream_.expires_after(shared_->options.write_timeout);
      http::async_write(stream_, *cont,
                        [self = shared_from_this(), cont, next](beast::error_code wec, size_t) {
                          if (wec) return self->Close();
                          next();
                        });
      return;
    }
    next();
  }

  HttpResponse BodyOverLimit() {
    return shared_->transport_error(
        over_limit_, fmt::format("the request body exceeds the limit of {} bytes", body_limit_));
  }

  // Answers a request whose body is unread: a keep-alive connection goes on only when it has
  // none (and its framing is known).
  void Refuse(HttpResponse response, bool framed = true) {
    bool unread = !framed || !parser_->is_done();
    Respond(std::move(response), !unread && parser_->get().keep_alive(), unread);
  }

  HttpResponse Overloaded() {
    return shared_->transport_error(
        TransportError::kOverloaded,
        fmt::format("the server is receiving as many request bodies as it may at once ({} "
                    "bytes); retry later",
                    shared_->options.max_inflight_body_bytes));
  }

  void ReadBody() {
    stream_.expires_after(shared_->options.read_timeout);  // for the whole body
    if (parser_->chunked()) return ReadChunkedBody();
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->OnReadError(ec);
                       self->Handle();
                     });
  }

  // One read (at most 64 KiB) at a time, the reservation kept a step ahead of the body.
  void ReadChunkedBody() {
    http::async_read_some(stream_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, size_t) {
                            if (ec) return self->OnReadError(ec);
                            if (self->parser_->is_done()) return self->Handle();
                            if (!self->ReserveAhead()) {
                              self->ReleaseBudget();
                              return self->Respond(self->Overloaded(), false, true);
                            }
                            self->ReadChunkedBody();
                          });
  }

  bool ReserveAhead() {
    uint64_t want = std::min(body_limit_, parser_->get().body().size() + kChunkedStep);
    if (want <= reserved_) return true;
    if (!shared_->Reserve(want - reserved_, unauthenticated_)) return false;
    reserved_ = want;
    return true;
  }

  void OnReadError(beast::error_code ec) {
    ReleaseBudget();
    if (ec == http::error::body_limit) return Respond(BodyOverLimit(), false, true);
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return Respond(
          shared_->transport_error(TransportError::kTooLarge,
                                   fmt::format("the request header exceeds the limit of {} bytes",
                                               shared_->options.max_header_bytes)),
          false, true);
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::eof || ec == http::error::partial_message) {
      return Close();
    }
    if (ec.category() == beast::error_code(http::error::bad_method).category()) {
      return Respond(
          shared_->transport_error(TransportError::kBadRequest,
                                   fmt::format("malformed HTTP request: {}", ec.message())),
          false, true);
    }
    Close();
  }

  void Handle() {
    busy_ = true;
    auto& raw = parser_->get();
    request_.body = std::move(raw.body());
    bool keep_alive = raw.keep_alive();
    HttpResponse response = shared_->handler(request_);
    request_ = HttpRequest{};  // the body's memory goes back before its budget does
    ReleaseBudget();
    Respond(std::move(response), keep_alive);
  }

  // `unread`: the client may still be sending bytes nobody will read (so: no keep-alive, and
  // a lingering close).
  void Respond(HttpResponse response, bool keep_alive, bool unread = false) {
    busy_ = true;
    if (response.stream) return RespondStreamed(std::move(response), keep_alive, unread);
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), 11);
    res->set(http::field::server, "quiver/" QUIVER_VERSION);
    if (!response.content_type.empty()) res->set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) res->set(name, value);
    res->body() = std::move(response.body);
    bool keep = keep_alive && !shared_->stopping;
    res->keep_alive(keep);
    res->prepare_payload();
    stream_.expires_after(shared_->options.write_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, keep, unread](beast::error_code ec, size_t) {
                        self->busy_ = false;
                        if (ec) return self->Close();
                        if (!keep) return unread ? self->Linger() : self->Close();
                        self->ReadHeader();
                      });
  }

  // ---- Streamed request bodies (Admission::stream_body) ----

  // On the strand, the header read (and any 100 Continue sent): the handler runs on a worker
  // and reads the body through a StreamedBody while it arrives.
  void StartStreamedHandler() {
    busy_ = true;
    streamed_.emplace(std::move(*parser_));  // the header is read, nothing of the body yet
    streamed_->body_limit(body_limit_);
    request_.body_reader = std::make_shared<StreamedBody>(weak_from_this());
    asio::post(*shared_->handler_workers, [self = shared_from_this(),
                                           work = asio::make_work_guard(stream_.get_executor())] {
      HttpResponse response = self->shared_->handler(self->request_);
      asio::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->FinishStreamed(std::move(response));
      });
    });
  }

  // On a worker, for the handler: 1 to `max` bytes of the body, or empty at its end.
  Result<std::string> ReadStreamed(size_t max) {
    if (body_error_ != BodyError::kNone) return BodyErrorStatus();
    if (max == 0) return std::string();
    std::string out(max, '\0');
    while (true) {
      size_t got = 0;
      bool done = false;
      beast::error_code ec = AwaitOnStrand([&](auto complete) {
        if (streamed_->is_done()) {
          done = true;
          return complete(beast::error_code{});
        }
        auto& body = streamed_->get().body();
        body.data = out.data();
        body.size = max;
        body.more = true;
        stream_.expires_after(shared_->options.read_timeout);  // per read: the body may be long
        http::async_read_some(stream_, buffer_, *streamed_,
                              [this, max, &got, &done, complete](beast::error_code rec, size_t) {
                                if (rec == http::error::need_buffer) rec = {};  // `out` is full
                                got = max - streamed_->get().body().size;
                                done = streamed_->is_done();
                                complete(rec);
                              });
      });
      if (ec) {
        body_error_ = ClassifyBodyError(ec);
        body_error_message_ = ec.message();
        return BodyErrorStatus();
      }
      if (got > 0 || done) {
        out.resize(got);
        streamed_bytes_ += got;
        return out;
      }
    }
  }

  enum class BodyError { kNone, kTooLarge, kMalformed, kGone };

  static BodyError ClassifyBodyError(beast::error_code ec) {
    if (ec == http::error::body_limit) return BodyError::kTooLarge;
    if (ec.category() == beast::error_code(http::error::bad_method).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return BodyError::kMalformed;
    }
    return BodyError::kGone;  // reset, end of stream, timeout, the connection closed
  }

  Status BodyErrorStatus() const {
    switch (body_error_) {
      case BodyError::kTooLarge:
        return Status::InvalidInput(
            fmt::format("the request body exceeds the limit of {} bytes", body_limit_));
      case BodyError::kMalformed:
        return Status::InvalidInput("malformed request body: " + body_error_message_);
      default:
        return Status::InvalidInput("the request body ended before it was complete: " +
                                    body_error_message_);
    }
  }

  // On the strand, the handler done: a body that could not be read is answered by the
  // transport (or, the client gone, not at all); a body left unread ends the connection.
  void FinishStreamed(HttpResponse response) {
    request_ = HttpRequest{};
    ReleaseBudget();
    switch (body_error_) {
      case BodyError::kTooLarge:
        return Respond(BodyOverLimit(), false, true);
      case BodyError::kMalformed:
        return Respond(
            shared_->transport_error(TransportError::kBadRequest, BodyErrorStatus().message()),
            false, true);
      case BodyError::kGone:
        return Close();
      case BodyError::kNone:
        break;
    }
    bool read_all = streamed_->is_done();
    Respond(std::move(response), read_all && streamed_->get().keep_alive(), !read_all);
  }

  // On a worker: runs `start(complete)` on the strand and waits until it calls `complete`
  // (once) with the outcome. The strand's own threads never wait here.
  template <class Start>
  beast::error_code AwaitOnStrand(Start&& start) {
    // Shared: set_value may still be returning on the I/O thread when the waiter wakes.
    auto promise = std::make_shared<std::promise<beast::error_code>>();
    auto future = promise->get_future();
    asio::post(stream_.get_executor(), [&start, promise] {
      start([promise](beast::error_code ec) { promise->set_value(ec); });
    });
    return future.get();
  }

  class StreamedBody final : public BodyReader {
   public:
    explicit StreamedBody(std::weak_ptr<Session> session) : session_(std::move(session)) {}
    Result<std::string> Read(size_t max) override {
      auto session = session_.lock();
      if (!session) return Status::InvalidInput("the request has ended");
      return session->ReadStreamed(max);
    }
    uint64_t bytes_read() const override {
      auto session = session_.lock();
      return session ? session->streamed_bytes_ : 0;
    }

   private:
    std::weak_ptr<Session> session_;
  };

  // ---- Streamed responses (HttpResponse::stream) ----

  struct ChunkedHeader {
    http::response<http::empty_body> res;
    http::response_serializer<http::empty_body> serializer{res};
  };

  // On the strand: the status and headers now, then the producer on a worker.
  void RespondStreamed(HttpResponse response, bool keep_alive, bool unread) {
    auto header = std::make_shared<ChunkedHeader>();
    header->res.version(11);
    header->res.result(static_cast<http::status>(response.status));
    header->res.set(http::field::server, "quiver/" QUIVER_VERSION);
    if (!response.content_type.empty()) {
      header->res.set(http::field::content_type, response.content_type);
    }
    std::string request_id;
    for (auto& [name, value] : response.headers) {
      header->res.set(name, value);
      if (beast::iequals(name, "x-request-id")) request_id = value;
    }
    // HTTP/1.0 has no chunked coding: its body ends where the connection does.
    const bool chunked = http_version_ >= 11;
    bool keep = chunked && keep_alive && !unread && !shared_->stopping;
    header->res.version(chunked ? 11 : 10);
    header->res.keep_alive(keep);
    header->res.chunked(chunked);
    stream_.expires_after(shared_->options.write_timeout);
    http::async_write_header(
        stream_, header->serializer,
        [self = shared_from_this(), header, keep, unread, chunked,
         producer = std::move(response.stream), request_id](beast::error_code ec, size_t) mutable {
          if (ec) {
            self->busy_ = false;
            return self->Close();
          }
          asio::post(*self->shared_->producer_workers,
                     [self, keep, unread, chunked, producer = std::move(producer), request_id,
                      work = asio::make_work_guard(self->stream_.get_executor())] {
                       self->Produce(producer, keep, unread, chunked, request_id);
                     });
        });
  }

  // On a worker: runs the producer, sends its bytes in chunks and the final chunk, then goes
  // back to the strand for the next request (or to close).
  void Produce(const std::function<Status(BodyWriter&)>& producer, bool keep, bool unread,
               bool chunked, const std::string& request_id) {
    ChunkWriter writer(this, chunked);
    Status status;
    try {
      status = producer(writer);
    } catch (const std::exception& e) {
      status = Status::Internal(fmt::format("unexpected failure: {}", e.what()));
    }
    if (status.ok()) status = writer.Finish();
    if (!status.ok()) {
      QV_LOG_WARN("streaming a response failed; its connection is cut",
                  {{"error", status.ToString()},
                   {"bytes_sent", static_cast<int64_t>(writer.sent())},
                   {"request_id", request_id}});
    }
    asio::post(stream_.get_executor(), [self = shared_from_this(), ok = status.ok(), keep, unread] {
      self->busy_ = false;
      if (!ok) return self->Close();
      if (!keep) return unread ? self->Linger() : self->Close();
      self->ReadHeader();
    });
  }

  class ChunkWriter final : public BodyWriter {
   public:
    // `chunked`: HTTP/1.1 chunks; else the bytes as they are (an HTTP/1.0 body, ended by the
    // connection's end).
    ChunkWriter(Session* session, bool chunked) : session_(session), chunked_(chunked) {}
    Status Write(std::string_view bytes) override {
      if (!error_.ok()) return error_;
      pending_.append(bytes);
      if (pending_.size() >= kResponseChunkBytes) return Flush();
      return Status::OK();
    }
    // The last bytes and the final chunk.
    Status Finish() {
      QV_RETURN_IF_ERROR(Flush());
      return chunked_ ? Send(http::make_chunk_last()) : Status::OK();
    }
    uint64_t sent() const { return sent_; }

   private:
    Status Flush() {
      if (!error_.ok() || pending_.empty()) return error_;
      QV_RETURN_IF_ERROR(chunked_ ? Send(http::make_chunk(asio::buffer(pending_)))
                                  : Send(asio::buffer(pending_)));
      sent_ += pending_.size();
      pending_.clear();
      return Status::OK();
    }
    template <class Buffers>
    Status Send(const Buffers& buffers) {
      beast::error_code ec = session_->AwaitOnStrand([&](auto complete) {
        session_->stream_.expires_after(session_->shared_->options.write_timeout);
        asio::async_write(session_->stream_, buffers,
                          [complete](beast::error_code wec, size_t) { complete(wec); });
      });
      if (ec) error_ = Status::InvalidInput("the client stopped reading: " + ec.message());
      return error_;
    }

    Session* session_;
    bool chunked_;
    std::string pending_;
    uint64_t sent_ = 0;
    Status error_;
  };

  // The client may still be sending the body nobody will read: stop sending, discard what
  // arrives for a moment, then close.
  void Linger() {
    ReleaseBudget();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return Close();
    buffer_.clear();
    stream_.expires_after(
        std::min<std::chrono::milliseconds>(kLingerTime, shared_->options.read_timeout));
    Discard();
  }

  void Discard() {
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              self->buffer_.clear();
                              if (ec) return self->Close();
                              self->Discard();
                            });
  }

  void ReleaseBudget() {
    if (reserved_ == 0) return;
    shared_->Release(reserved_, unauthenticated_);
    reserved_ = 0;
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    ReleaseBudget();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
    {
      MutexLock lock(&shared_->mu);
      shared_->sessions.erase(shared_from_this());
    }
    if (shared_->on_session_closed) shared_->on_session_closed();
  }

  beast::tcp_stream stream_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  // A streamed body's parser (the header parser's state moved into it).
  std::optional<http::request_parser<http::buffer_body>> streamed_;
  BodyError body_error_ = BodyError::kNone;  // of the streamed body, set by the handler's reads
  std::string body_error_message_;
  uint64_t streamed_bytes_ = 0;
  HttpRequest request_;  // the request being read or handled
  std::string remote_;
  uint64_t body_limit_ = 0;  // of the request being read
  TransportError over_limit_ = TransportError::kTooLarge;
  bool unauthenticated_ = false;  // of the request being read or handled
  uint64_t reserved_ = 0;         // of the body budget, by the request being read or handled
  unsigned http_version_ = 11;    // of the request being read or handled (10: HTTP/1.0)
  bool busy_ = false;             // on the strand only
  bool closed_ = false;           // on the strand only
};

}  // namespace

size_t DefaultMaxConnections() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 512;
  uint64_t soft = limit.rlim_cur == RLIM_INFINITY ? (1u << 20) : limit.rlim_cur;
  soft = std::min<uint64_t>(soft, 1u << 20);
  uint64_t headroom = std::max<uint64_t>(64, soft / 4);
  return soft > headroom ? static_cast<size_t>(soft - headroom) : 1;
}

// The acceptor, its backoff timer and the accept state live on one strand.
struct HttpServer::Impl {
  asio::io_context ioc;
  asio::strand<asio::io_context::executor_type> strand = asio::make_strand(ioc);
  tcp::acceptor acceptor{strand};
  asio::steady_timer backoff_timer{strand};
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  std::vector<std::thread> threads;
  std::optional<asio::thread_pool> handler_workers;
  std::optional<asio::thread_pool> producer_workers;
  uint16_t port = 0;
  std::once_flag serve_once;
  std::once_flag shutdown_once;
  std::once_flag wait_once;
  // On the strand only:
  bool paused = false;      // at the connection cap, no accept pending
  bool cap_logged = false;  // the cap was logged in this burst
  int failed_accepts = 0;   // in the current burst of failures
  std::chrono::milliseconds backoff = kFirstBackoff;

  void Accept() {
    if (shared->stopping) return;
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      OnAccept(ec, std::move(socket));
    });
  }

  void OnAccept(beast::error_code ec, tcp::socket socket) {
    Reach(shared->options.sync_points, "http.accept");
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      // A connection that failed on its own way in took itself out of the backlog: the next
      // one may be accepted at once. Anything else (out of descriptors, buffers, memory) stays
      // until something is freed: wait, and keep serving the open connections meanwhile.
      if (ec == asio::error::connection_aborted || ec == asio::error::connection_reset ||
          ec == beast::error_code(EPROTO, asio::error::get_system_category())) {
        return Accept();
      }
      return BackOff(ec);
    }
    if (failed_accepts > 0) {
      QV_LOG_INFO("accepting connections again", {{"failed_accepts", failed_accepts}});
      failed_accepts = 0;
      backoff = kFirstBackoff;
    }
    if (shared->stopping) return;
    auto session = std::make_shared<Session>(std::move(socket), shared);
    size_t open = 0;
    {
      MutexLock lock(&shared->mu);
      shared->sessions.insert(session);
      open = shared->sessions.size();
    }
    session->Run();
    if (open >= shared->max_connections) return Pause(open);
    Accept();
  }

  // At the cap: accept again when a connection closes (OnSessionClosed).
  void Pause(size_t open) {
    paused = true;
    if (!cap_logged) {
      cap_logged = true;
      QV_LOG_WARN("at the connection limit: new connections wait until one closes",
                  {{"open", static_cast<int64_t>(open)},
                   {"max_connections", static_cast<int64_t>(shared->max_connections)}});
    }
    Reach(shared->options.sync_points, "http.accept.paused");
  }

  // From any session's strand.
  void OnSessionClosed() {
    asio::post(strand, [this] {
      size_t open = 0;
      {
        MutexLock lock(&shared->mu);
        open = shared->sessions.size();
      }
      // The burst is over once the pressure has clearly gone (no log line per close).
      if (open <= shared->max_connections / 2) cap_logged = false;
      if (!paused || open >= shared->max_connections || shared->stopping) return;
      paused = false;
      Accept();
    });
  }

  void BackOff(beast::error_code ec) {
    if (failed_accepts++ == 0) {
      QV_LOG_WARN("cannot accept connections; retrying with backoff, still serving the open ones",
                  {{"error", ec.message()}});
    }
    Reach(shared->options.sync_points, "http.accept.backoff");
    backoff_timer.expires_after(backoff);
    backoff = std::min(backoff * 2, kLastBackoff);
    backoff_timer.async_wait([this](beast::error_code wait_ec) {
      if (wait_ec || shared->stopping) return;
      Accept();
    });
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  Shutdown();
  Wait();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Listen(const HttpServerOptions& options) {
  if (options.max_inflight_body_bytes < options.max_body_bytes) {
    return Status::InvalidInput(
        fmt::format("max_inflight_body_bytes ({}) must be at least max_body_bytes ({})",
                    options.max_inflight_body_bytes, options.max_body_bytes));
  }
  auto impl = std::make_unique<Impl>();
  impl->shared->options = options;
  impl->shared->max_connections =
      options.max_connections > 0 ? options.max_connections : DefaultMaxConnections();
  beast::error_code ec;
  auto address = asio::ip::make_address(options.host, ec);
  if (ec)
    return Status::InvalidInput(
        fmt::format("'{}' is not an IP address to listen on", options.host));
  tcp::endpoint endpoint(address, options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::ServiceUnavailable(
        fmt::format("cannot listen on {}:{}: {}", options.host, options.port, ec.message()));
  }
  impl->port = impl->acceptor.local_endpoint().port();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::Serve(Handler handler, TransportErrorHandler transport_error,
                       AdmissionHandler admission) {
  std::call_once(impl_->serve_once, [&] {
    Impl* impl = impl_.get();
    impl->shared->handler = std::move(handler);
    impl->shared->transport_error = std::move(transport_error);
    impl->shared->admission = std::move(admission);
    impl->shared->on_session_closed = [impl] { impl->OnSessionClosed(); };
    asio::post(impl->strand, [impl] { impl->Accept(); });
    int threads = std::max(1, impl->shared->options.threads);
    impl->handler_workers.emplace(static_cast<size_t>(threads));
    impl->producer_workers.emplace(static_cast<size_t>(threads));
    impl->shared->handler_workers = &*impl->handler_workers;
    impl->shared->producer_workers = &*impl->producer_workers;
    for (int i = 0; i < threads; ++i) {
      impl->threads.emplace_back([ioc = &impl->ioc] { ioc->run(); });
    }
  });
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      Handler handler,
                                                      TransportErrorHandler transport_error,
                                                      AdmissionHandler admission) {
  QV_ASSIGN_OR_RETURN(auto server, Listen(options));
  server->Serve(std::move(handler), std::move(transport_error), std::move(admission));
  return server;
}

uint16_t HttpServer::port() const { return impl_->port; }

void HttpServer::Shutdown() {
  std::call_once(impl_->shutdown_once, [this] {
    impl_->shared->stopping = true;
    asio::post(impl_->strand, [impl = impl_.get()] {
      beast::error_code ec;
      impl->acceptor.close(ec);
      impl->backoff_timer.cancel();
      std::vector<std::shared_ptr<Session>> sessions;
      {
        MutexLock lock(&impl->shared->mu);
        sessions.assign(impl->shared->sessions.begin(), impl->shared->sessions.end());
      }
      for (auto& session : sessions) session->Stop();
    });
  });
}

void HttpServer::Wait() {
  std::call_once(impl_->wait_once, [this] {
    // A worker's task holds a work guard on the I/O context: the I/O threads end after the
    // last handler and producer, and the workers are idle by then.
    for (auto& t : impl_->threads) t.join();
    if (impl_->handler_workers) impl_->handler_workers->join();
    if (impl_->producer_workers) impl_->producer_workers->join();
  });
}

}  // namespace quiver::server
