#include "server/internal/jwks_fetch.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "common/numbers.h"

namespace quiver::server::internal {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
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

// A DNS name as RFC 1123 spells one: letters, digits, '-' and '.', at most 253 characters.
bool IsDnsName(std::string_view host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' || host.front() == '-') {
    return false;
  }
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  });
}

bool IsIpLiteral(const std::string& host) {
  beast::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Runs the io_context until its handlers are done, then makes it runnable again.
void Run(asio::io_context& ioc) {
  ioc.run();
  ioc.restart();
}

Status StepFailed(const std::string& url, std::string_view step, const beast::error_code& ec) {
  bool timed_out = ec == beast::error::timeout || ec == asio::error::operation_aborted;
  return Status::IOError(
      fmt::format("GET {}: {}: {}", url, step, timed_out ? "timed out" : ec.message()), timed_out);
}

// The addresses to try: the literal itself, or what the resolver answers before the deadline.
Result<std::vector<tcp::endpoint>> Resolve(asio::io_context& ioc, const JwksUrl& parsed,
                                           const std::string& url,
                                           std::chrono::steady_clock::time_point deadline) {
  beast::error_code literal_error;
  auto literal = asio::ip::make_address(parsed.host, literal_error);
  if (!literal_error) return std::vector<tcp::endpoint>{tcp::endpoint(literal, parsed.port)};
  tcp::resolver resolver(ioc);
  asio::steady_timer timer(ioc);
  timer.expires_at(deadline);
  beast::error_code ec;
  tcp::resolver::results_type results;
  resolver.async_resolve(parsed.host, std::to_string(parsed.port),
                         [&](beast::error_code e, tcp::resolver::results_type r) {
                           ec = e;
                           results = std::move(r);
                           timer.cancel();
                         });
  timer.async_wait([&](beast::error_code e) {
    if (!e) resolver.cancel();
  });
  Run(ioc);
  if (ec) return StepFailed(url, fmt::format("resolving {}", parsed.host), ec);
  std::vector<tcp::endpoint> out;
  for (const auto& entry : results) out.push_back(entry.endpoint());
  return out;
}

// Sends the GET and reads the response over an open stream (plain or TLS).
template <typename Stream>
Result<std::string> Exchange(Stream& stream, asio::io_context& ioc, const JwksUrl& parsed,
                             const std::string& url) {
  beast::error_code ec;
  http::request<http::empty_body> request(http::verb::get, parsed.target, 11);
  request.set(http::field::host, parsed.host_header);
  request.set(http::field::accept, "application/json");
  request.set(http::field::user_agent, "quiver/" QUIVER_VERSION);
  request.set(http::field::connection, "close");
  http::async_write(stream, request, [&ec](beast::error_code e, size_t) { ec = e; });
  Run(ioc);
  if (ec) return StepFailed(url, "send", ec);

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBodyBytes);
  http::async_read(stream, buffer, parser, [&ec](beast::error_code e, size_t) { ec = e; });
  Run(ioc);
  if (ec) return StepFailed(url, "receive", ec);
  auto& response = parser.get();
  if (response.result_int() != 200) {
    return Status::IOError(fmt::format("GET {}: HTTP status {}", url, response.result_int()));
  }
  return std::move(response.body());
}

}  // namespace

Result<JwksUrl> ParseJwksUrl(const std::string& url) {
  // Spaces and control characters could split the request line or inject headers.
  for (char c : url) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return Refuse(url, "contains a space or control character");
  }
  JwksUrl out;
  std::string_view rest;
  if (url.size() >= 8 && IEquals(std::string_view(url).substr(0, 8), "https://")) {
    out.tls = true;
    rest = std::string_view(url).substr(8);
  } else if (url.size() >= 7 && IEquals(std::string_view(url).substr(0, 7), "http://")) {
    rest = std::string_view(url).substr(7);
  } else {
    return Refuse(url, "the scheme must be https:// (or http:// on the loopback interface)");
  }
  size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? "" : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) return Refuse(url, "user info is not allowed");

  std::string_view host;
  std::string_view port_text;
  bool has_port = false;
  bool bracketed = !authority.empty() && authority.front() == '[';
  if (bracketed) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Refuse(url, "unterminated IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return Refuse(url, "bad authority");
    has_port = !after.empty();
    if (has_port) port_text = after.substr(1);
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    has_port = colon != std::string_view::npos;
    if (has_port) port_text = authority.substr(colon + 1);
  }
  if (host.empty()) return Refuse(url, "no host");
  out.host = Lower(host);
  if (bracketed) {
    beast::error_code ec;
    auto address = asio::ip::make_address(out.host, ec);
    if (ec || !address.is_v6()) return Refuse(url, "not an IPv6 address");
  } else if (!IsDnsName(out.host)) {
    return Refuse(url, "bad host name");
  }
  if (!out.tls) {
    // Clear text only where the bytes never leave the machine.
    if (out.host == "localhost") {
      out.host = "127.0.0.1";  // never resolved: a hosts file could point it away
    } else if (out.host != "127.0.0.1" && out.host != "::1") {
      return Refuse(url,
                    "plain http is accepted on the loopback interface only (127.0.0.1, "
                    "localhost, [::1]); use https:// for an identity provider elsewhere");
    }
  }
  out.port = out.tls ? 443 : 80;
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

Result<std::string> FetchJwksUrl(const std::string& url, const FetchOptions& options) {
  QV_ASSIGN_OR_RETURN(JwksUrl parsed, ParseJwksUrl(url));
  // Beast's timeouts apply only to asynchronous operations, so each step is started
  // asynchronously and the io_context is run to completion on this thread: the call is
  // synchronous for the caller and one deadline bounds the whole exchange.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(options.timeout_ms, 1));
  asio::io_context ioc;
  beast::error_code ec;

  QV_ASSIGN_OR_RETURN(std::vector<tcp::endpoint> endpoints, Resolve(ioc, parsed, url, deadline));

  if (!parsed.tls) {
    beast::tcp_stream stream(ioc);
    stream.expires_at(deadline);
    stream.async_connect(endpoints, [&ec](beast::error_code e, const tcp::endpoint&) { ec = e; });
    Run(ioc);
    if (ec) return StepFailed(url, "connect", ec);
    auto body = Exchange(stream, ioc, parsed, url);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return body;
  }

  ssl::context context(ssl::context::tls_client);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  if (!options.ca_file.empty()) {
    context.load_verify_file(options.ca_file, ec);
    if (ec) {
      return Status::InvalidInput(fmt::format("JWKS CA file '{}': cannot load certificates: {}",
                                              options.ca_file, ec.message()));
    }
  } else {
    context.set_default_verify_paths(ec);
    if (ec) {
      return Status::IOError(
          fmt::format("GET {}: cannot load the system's CA certificates: {}", url, ec.message()));
    }
  }
  beast::ssl_stream<beast::tcp_stream> stream(ioc, context);
  stream.set_verify_mode(ssl::verify_peer);
  stream.set_verify_callback(ssl::host_name_verification(parsed.host));
  // SNI: a name, never an address (RFC 6066 §3).
  if (!IsIpLiteral(parsed.host) &&
      SSL_set_tlsext_host_name(stream.native_handle(), parsed.host.c_str()) != 1) {
    return Status::Internal(fmt::format("GET {}: cannot set the TLS server name", url));
  }
  beast::get_lowest_layer(stream).expires_at(deadline);
  beast::get_lowest_layer(stream).async_connect(
      endpoints, [&ec](beast::error_code e, const tcp::endpoint&) { ec = e; });
  Run(ioc);
  if (ec) return StepFailed(url, "connect", ec);
  stream.async_handshake(ssl::stream_base::client, [&ec](beast::error_code e) { ec = e; });
  Run(ioc);
  if (ec) return StepFailed(url, "TLS handshake (is the server's certificate trusted?)", ec);
  auto body = Exchange(stream, ioc, parsed, url);
  // The response is complete (Content-Length or chunked framing): a peer that closes without
  // close_notify loses nothing, so the shutdown's outcome is not looked at.
  stream.async_shutdown([](beast::error_code) {});
  Run(ioc);
  return body;
}

}  // namespace quiver::server::internal
