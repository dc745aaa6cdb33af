#include "server/http_server.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace quiver::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

class Session;

// State shared by the acceptor and every session.
struct Shared {
  HttpServerOptions options;
  HttpServer::Handler handler;
  HttpServer::TransportErrorHandler transport_error;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::set<std::shared_ptr<Session>> sessions;  // guarded by mu
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    beast::error_code ec;
    auto remote = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = fmt::format("{}:{}", remote.address().to_string(), remote.port());
  }

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
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(shared_->options.max_header_bytes));
    parser_->body_limit(shared_->options.max_body_bytes);
    stream_.expires_after(shared_->options.read_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& req = parser_->get();
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      stream_.expires_after(shared_->options.write_timeout);
      http::async_write(stream_, *cont,
                        [self = shared_from_this(), cont](beast::error_code wec, size_t) {
                          if (wec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(shared_->options.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->OnReadError(ec);
                       self->Handle();
                     });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::body_limit || ec == http::error::header_limit ||
        ec == http::error::buffer_overflow) {
      std::string what = ec == http::error::body_limit
                             ? fmt::format("the request body exceeds the limit of {} bytes",
                                           shared_->options.max_body_bytes)
                             : fmt::format("the request header exceeds the limit of {} bytes",
                                           shared_->options.max_header_bytes);
      return Respond(shared_->transport_error(TransportError::kTooLarge, what), false);
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
          false);
    }
    Close();
  }

  void Handle() {
    busy_ = true;
    auto& raw = parser_->get();
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
    req.body = std::move(raw.body());
    req.remote = remote_;
    bool keep_alive = raw.keep_alive();
    HttpResponse response = shared_->handler(req);
    Respond(std::move(response), keep_alive);
  }

  void Respond(HttpResponse response, bool keep_alive) {
    busy_ = true;
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
                      [self = shared_from_this(), res, keep](beast::error_code ec, size_t) {
                        self->busy_ = false;
                        if (ec || !keep) return self->Close();
                        self->ReadHeader();
                      });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->sessions.erase(shared_from_this());
  }

  beast::tcp_stream stream_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string remote_;
  bool busy_ = false;    // on the strand only
  bool closed_ = false;  // on the strand only
};

}  // namespace

struct HttpServer::Impl {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  std::vector<std::thread> threads;
  uint16_t port = 0;
  std::once_flag shutdown_once;
  std::once_flag wait_once;

  void Accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        return Accept();  // e.g. too many open files: keep serving the others
      }
      if (shared->stopping) return;
      auto session = std::make_shared<Session>(std::move(socket), shared);
      {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->sessions.insert(session);
      }
      session->Run();
      Accept();
    });
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  Shutdown();
  Wait();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      Handler handler,
                                                      TransportErrorHandler transport_error) {
  auto impl = std::make_unique<Impl>();
  impl->shared->options = options;
  impl->shared->handler = std::move(handler);
  impl->shared->transport_error = std::move(transport_error);
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
  impl->Accept();
  int threads = std::max(1, options.threads);
  for (int i = 0; i < threads; ++i) {
    impl->threads.emplace_back([ioc = &impl->ioc] { ioc->run(); });
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

uint16_t HttpServer::port() const { return impl_->port; }

void HttpServer::Shutdown() {
  std::call_once(impl_->shutdown_once, [this] {
    impl_->shared->stopping = true;
    asio::post(impl_->ioc, [impl = impl_.get()] {
      beast::error_code ec;
      impl->acceptor.close(ec);
      std::vector<std::shared_ptr<Session>> sessions;
      {
        std::lock_guard<std::mutex> lock(impl->shared->mu);
        sessions.assign(impl->shared->sessions.begin(), impl->shared->sessions.end());
      }
      for (auto& session : sessions) session->Stop();
    });
  });
}

void HttpServer::Wait() {
  std::call_once(impl_->wait_once, [this] {
    for (auto& t : impl_->threads) t.join();
  });
}

}  // namespace quiver::server
