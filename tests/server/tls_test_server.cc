#include "tls_test_server.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace quiver::server::testing {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

void AddExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  ASSERT_NE(ext, nullptr) << value;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

TestCertificate MakeSelfSignedCertificate(const std::vector<std::string>& names) {
  static std::atomic<long> serial{1};
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("quiver test"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  std::string san;
  for (const std::string& n : names) san += (san.empty() ? "" : ",") + n;
  AddExtension(cert, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(cert, NID_key_usage, "critical,digitalSignature,keyCertSign");
  AddExtension(cert, NID_subject_alt_name, san);
  EXPECT_GT(X509_sign(cert, key, EVP_sha256()), 0);

  TestCertificate out;
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  out.cert_pem = BioText(bio);
  BIO_free(bio);
  bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  out.key_pem = BioText(bio);
  BIO_free(bio);
  X509_free(cert);
  EVP_PKEY_free(key);
  return out;
}

struct TlsTestServer::Impl {
  asio::io_context ioc;
  ssl::context context{ssl::context::tls_server};
  tcp::acceptor acceptor{ioc};
  std::string path;
  mutable std::mutex mu;
  std::string body;  // guarded by mu
  int hits = 0;      // guarded by mu
  std::atomic<bool> stopping{false};
  std::thread thread;

  void Loop() {
    while (!stopping) {
      tcp::socket socket(ioc);
      beast::error_code ec;
      acceptor.accept(socket, ec);
      if (stopping || ec) break;
      ssl::stream<tcp::socket> stream(std::move(socket), context);
      stream.handshake(ssl::stream_base::server, ec);
      if (ec) continue;  // the client refused the certificate
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(stream, buffer, request, ec);
      if (ec) continue;
      http::response<http::string_body> response;
      response.version(11);
      {
        std::lock_guard lock(mu);
        ++hits;
        if (request.target() == path) {
          response.result(http::status::ok);
          response.body() = body;
        } else {
          response.result(http::status::not_found);
          response.body() = "{}";
        }
      }
      response.set(http::field::content_type, "application/json");
      response.prepare_payload();
      http::write(stream, response, ec);
      stream.shutdown(ec);
    }
  }
};

std::unique_ptr<TlsTestServer> TlsTestServer::Start(const TestCertificate& certificate,
                                                    std::string path, std::string body) {
  auto impl = std::make_unique<Impl>();
  impl->path = std::move(path);
  impl->body = std::move(body);
  beast::error_code ec;
  impl->context.use_certificate_chain(asio::buffer(certificate.cert_pem), ec);
  EXPECT_FALSE(ec) << ec.message();
  impl->context.use_private_key(asio::buffer(certificate.key_pem), ssl::context::pem, ec);
  EXPECT_FALSE(ec) << ec.message();
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(16, ec);
  if (ec) {
    ADD_FAILURE() << "cannot listen: " << ec.message();
    return nullptr;
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->Loop(); });
  return std::unique_ptr<TlsTestServer>(new TlsTestServer(std::move(impl)));
}

TlsTestServer::TlsTestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TlsTestServer::~TlsTestServer() {
  impl_->stopping = true;
  // Wakes the blocking accept.
  asio::io_context ioc;
  tcp::socket poke(ioc);
  beast::error_code ec;
  poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port()), ec);
  impl_->thread.join();
}

uint16_t TlsTestServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void TlsTestServer::SetBody(std::string body) {
  std::lock_guard lock(impl_->mu);
  impl_->body = std::move(body);
}

int TlsTestServer::hits() const {
  std::lock_guard lock(impl_->mu);
  return impl_->hits;
}

}  // namespace quiver::server::testing
