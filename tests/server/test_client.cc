#include "test_client.h"

#include <optional>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace quiver::server::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

nlohmann::json Reply::Json() const { return nlohmann::json::parse(body, nullptr, false); }

struct TestClient::Impl {
  asio::io_context ioc;
  uint16_t port;
  std::unique_ptr<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  int connections = 0;

  void Connect() {
    stream = std::make_unique<beast::tcp_stream>(ioc);
    stream->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    buffer.clear();
    ++connections;
  }
};

TestClient::TestClient(uint16_t port) : impl_(std::make_unique<Impl>()) { impl_->port = port; }
TestClient::~TestClient() = default;
int TestClient::connections() const { return impl_->connections; }

Reply TestClient::Send(const std::string& method, const std::string& target,
                       const std::string& body, const std::map<std::string, std::string>& headers,
                       const std::string& content_type) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!impl_->stream) impl_->Connect();
    http::request<http::string_body> req(http::string_to_verb(method), target, 11);
    if (req.method() == http::verb::unknown) req.method_string(method);
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(true);
    if (!content_type.empty()) req.set(http::field::content_type, content_type);
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    req.prepare_payload();
    beast::error_code ec;
    http::write(*impl_->stream, req, ec);
    std::optional<http::response_parser<http::string_body>> parser_slot;
    // An interim "100 Continue" may precede the real response.
    for (int interim = 0; interim < 2 && !ec; ++interim) {
      parser_slot.emplace();
      parser_slot->body_limit(1ull << 30);
      http::read(*impl_->stream, impl_->buffer, *parser_slot, ec);
      if (ec || parser_slot->get().result_int() != 100) break;
    }
    auto& parser = *parser_slot;
    if (ec) {
      impl_->stream.reset();  // the server closed an idle connection: reconnect once
      continue;
    }
    auto& res = parser.get();
    Reply reply;
    reply.status = static_cast<int>(res.result_int());
    for (const auto& f : res) {
      std::string name(f.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      reply.headers[name] = std::string(f.value());
    }
    reply.body = res.body();
    reply.keep_alive = res.keep_alive();
    if (!reply.keep_alive) impl_->stream.reset();
    return reply;
  }
  return Reply{};
}

struct RawConnection::Impl {
  asio::io_context ioc;
  tcp::socket socket{ioc};
  beast::flat_buffer buffer;
};

RawConnection::RawConnection(uint16_t port) : impl_(std::make_unique<Impl>()) {
  impl_->socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}
RawConnection::~RawConnection() = default;

bool RawConnection::Send(const std::string& bytes) {
  beast::error_code ec;
  asio::write(impl_->socket, asio::buffer(bytes), ec);
  return !ec;
}

Reply RawConnection::Read() {
  http::response_parser<http::string_body> parser;
  parser.body_limit(1ull << 30);
  beast::error_code ec;
  http::read(impl_->socket, impl_->buffer, parser, ec);
  Reply reply;
  if (ec) return reply;
  auto& res = parser.get();
  reply.status = static_cast<int>(res.result_int());
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(f.value());
  }
  reply.body = res.body();
  reply.keep_alive = res.keep_alive();
  return reply;
}

std::string SendRaw(uint16_t port, const std::string& raw) {
  asio::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  asio::write(socket, asio::buffer(raw));
  socket.shutdown(tcp::socket::shutdown_send);
  std::string out;
  beast::error_code ec;
  char buf[4096];
  while (true) {
    size_t n = socket.read_some(asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

}  // namespace quiver::server::testing
