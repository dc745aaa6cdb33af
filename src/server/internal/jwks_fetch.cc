#include "server/internal/jwks_fetch.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string_view>

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/numbers.h"

namespace quiver::server::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr size_t kMaxBodyBytes = 1024 * 1024;  // a JWKS is a few KiB; anything larger is wrong

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

Status Refuse(const std::string& url, std::string_view why) {
  return Status::InvalidInput(fmt::format("JWKS URL '{}': {}", url, why));
}

}  // namespace

Result<LoopbackUrl> ParseLoopbackUrl(const std::string& url) {
  // Spaces and control characters could split the request line or inject headers.
  for (char c : url) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return Refuse(url, "contains a space or control character");
  }
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() ||
      !IEquals(std::string_view(url).substr(0, kScheme.size()), kScheme)) {
    return Refuse(url, "only http:// URLs on the loopback interface are supported");
  }
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? "" : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) return Refuse(url, "user info is not allowed");

  LoopbackUrl out;
  std::string_view host;
  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Refuse(url, "unterminated IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return Refuse(url, "bad authority");
    has_port = !after.empty();
    if (has_port) port_text = after.substr(1);
    if (host != "::1") return Refuse(url, "host is not loopback (127.0.0.1, localhost, [::1])");
    out.host = "::1";
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    has_port = colon != std::string_view::npos;
    if (has_port) port_text = authority.substr(colon + 1);
    if (host == "127.0.0.1" || IEquals(host, "localhost")) {
      out.host = "127.0.0.1";  // localhost is never resolved: a hosts file could point it away
    } else {
      return Refuse(url, "host is not loopback (127.0.0.1, localhost, [::1])");
    }
  }
  if (has_port) {
    auto port = ParseUint64(port_text, 1, 65535);
    if (!port.ok()) return Refuse(url, "bad port");
    out.port = static_cast<uint16_t>(*port);
  }
  out.host_header = std::string(authority);

  tail = tail.substr(0, tail.find('#'));  // a fragment is never sent
  out.target = tail.empty() || tail.front() != '/' ? "/" + std::string(tail) : std::string(tail);
  return out;
}

Result<std::string> FetchLoopbackUrl(const std::string& url, int timeout_ms) {
  QV_ASSIGN_OR_RETURN(LoopbackUrl parsed, ParseLoopbackUrl(url));
  auto fail = [&url](std::string_view step, const beast::error_code& ec) {
    bool timed_out = ec == beast::error::timeout;
    return Status::IOError(fmt::format("GET {}: {}: {}", url, step, ec.message()), timed_out);
  };

  // Beast's timeouts apply only to asynchronous operations, so each step is started
  // asynchronously and the io_context is run to completion on this thread: the call is
  // synchronous for the caller and one deadline bounds the whole exchange.
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::milliseconds(std::max(timeout_ms, 1)));
  beast::error_code ec;
  auto run = [&ioc] {
    ioc.run();
    ioc.restart();
  };

  tcp::endpoint endpoint(asio::ip::make_address(parsed.host), parsed.port);
  stream.async_connect(endpoint, [&ec](beast::error_code e) { ec = e; });
  run();
  if (ec) return fail("connect", ec);

  http::request<http::empty_body> request(http::verb::get, parsed.target, 11);
  request.set(http::field::host, parsed.host_header);
  request.set(http::field::accept, "application/json");
  request.set(http::field::connection, "close");
  http::async_write(stream, request, [&ec](beast::error_code e, size_t) { ec = e; });
  run();
  if (ec) return fail("send", ec);

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBodyBytes);
  http::async_read(stream, buffer, parser, [&ec](beast::error_code e, size_t) { ec = e; });
  run();
  if (ec) return fail("receive", ec);

  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  auto& response = parser.get();
  if (response.result_int() != 200) {
    return Status::IOError(fmt::format("GET {}: HTTP status {}", url, response.result_int()));
  }
  return std::move(response.body());
}

}  // namespace quiver::server::internal
