// The JWKS fetch: which URLs are accepted (https anywhere, clear text on loopback only), and
// HTTPS against a local TLS server: the certificate must chain to the trusted CAs and name the
// host.
#include "server/internal/jwks_fetch.h"

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/status_matchers.h"
#include "testing/temp_dir.h"
#include "tls_test_server.h"

namespace quiver::server {
namespace {

using internal::FetchJwksUrl;
using internal::FetchOptions;
using internal::ParseJwksUrl;
using server::testing::MakeSelfSignedCertificate;
using server::testing::TestCertificate;
using server::testing::TlsTestServer;

TEST(JwksUrlTest, HttpsAnywhereAndHttpOnLoopbackParse) {
  struct Case {
    std::string url;
    bool tls;
    std::string host;
    uint16_t port;
    std::string target;
  };
  for (const Case& c : std::vector<Case>{
           {"https://idp.example.com/.well-known/jwks.json", true, "idp.example.com", 443,
            "/.well-known/jwks.json"},
           {"HTTPS://IdP.Example.COM:8443/k?x=1#frag", true, "idp.example.com", 8443, "/k?x=1"},
           {"https://10.0.0.1", true, "10.0.0.1", 443, "/"},
           {"https://[2001:db8::1]:9443/keys", true, "2001:db8::1", 9443, "/keys"},
           {"https://127.0.0.1/", true, "127.0.0.1", 443, "/"},
           {"http://127.0.0.1:8080/jwks.json", false, "127.0.0.1", 8080, "/jwks.json"},
           {"http://127.0.0.1", false, "127.0.0.1", 80, "/"},
           {"HTTP://LocalHost/x?y=1#frag", false, "127.0.0.1", 80, "/x?y=1"},
           {"http://localhost:9?q", false, "127.0.0.1", 9, "/?q"},
           {"http://[::1]:9000", false, "::1", 9000, "/"},
       }) {
    auto parsed = ParseJwksUrl(c.url);
    ASSERT_OK(parsed.status()) << c.url;
    EXPECT_EQ(parsed->tls, c.tls) << c.url;
    EXPECT_EQ(parsed->host, c.host) << c.url;
    EXPECT_EQ(parsed->port, c.port) << c.url;
    EXPECT_EQ(parsed->target, c.target) << c.url;
  }
  EXPECT_EQ(ParseJwksUrl("https://IdP.Example.COM:8443/k")->host_header, "IdP.Example.COM:8443");

  for (std::string url :
       {// clear text off the loopback interface
        "http://example.com/", "http://10.0.0.1/", "http://127.0.0.2/", "http://0.0.0.0/",
        "http://localhost.evil.test/", "http://localhost./", "http://127.0.0.1.nip.io/",
        "http://[::2]/", "http://[::ffff:127.0.0.1]/", "http://0x7f000001/", "http://2130706433/",
        // malformed
        "ftp://127.0.0.1/", "127.0.0.1/jwks", "http://", "https://", "https:///keys",
        "https://user@idp.example.com/", "https://127.0.0.1@evil.test/",
        "https://idp.example.com:0/", "https://idp.example.com:70000/", "https://idp.example.com:/",
        "https://idp.example.com:8o/", "https://[::1/", "https://[::1]x/", "https://[1.2.3.4]/",
        "https://bad_host/", "https://-lead.example/", "https://idp.example.com/a b",
        "https://idp.example.com/\r\nX: 1"}) {
    auto parsed = ParseJwksUrl(url);
    EXPECT_STATUS(StatusCode::kInvalidInput, parsed.status()) << url;
  }
  // The clear-text refusal says what to do instead.
  auto remote = ParseJwksUrl("http://idp.example.com/keys");
  ASSERT_FALSE(remote.ok());
  EXPECT_NE(remote.status().message().find("use https://"), std::string::npos)
      << remote.status().ToString();
  // Refused before any connection is attempted.
  EXPECT_STATUS(StatusCode::kInvalidInput,
                FetchJwksUrl("http://example.com/", FetchOptions{}).status());
}

class JwksHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    certificate_ = MakeSelfSignedCertificate({"DNS:localhost", "IP:127.0.0.1"});
    ca_file_ = WriteFile("ca.pem", certificate_.cert_pem);
    server_ = TlsTestServer::Start(certificate_, "/keys", R"({"keys":[]})");
    ASSERT_NE(server_, nullptr);
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string Url(const std::string& host, const std::string& path = "/keys") {
    return "https://" + host + ":" + std::to_string(server_->port()) + path;
  }
  FetchOptions Trusting(const std::string& ca_file) {
    FetchOptions options;
    options.timeout_ms = 10'000;
    options.ca_file = ca_file;
    return options;
  }

  quiver::testing::TempDir dir_{"qv-jwks"};
  TestCertificate certificate_;
  std::string ca_file_;
  std::unique_ptr<TlsTestServer> server_;
};

TEST_F(JwksHttpsTest, TrustedCertificateNamingTheHostIsFetched) {
  ASSERT_OK_AND_ASSIGN(std::string body, FetchJwksUrl(Url("127.0.0.1"), Trusting(ca_file_)));
  EXPECT_EQ(body, R"({"keys":[]})");
  // By name: resolved, sent as SNI, matched against the certificate's DNS name.
  server_->SetBody(R"({"keys":[1]})");
  ASSERT_OK_AND_ASSIGN(body, FetchJwksUrl(Url("localhost"), Trusting(ca_file_)));
  EXPECT_EQ(body, R"({"keys":[1]})");
  EXPECT_EQ(server_->hits(), 2);
}

TEST_F(JwksHttpsTest, UntrustedOrMisnamedCertificatesAreRefused) {
  // The system's CA store does not know a self-signed certificate.
  FetchOptions system;
  system.timeout_ms = 10'000;
  auto untrusted = FetchJwksUrl(Url("127.0.0.1"), system);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_TRUE(untrusted.status().IsIOError()) << untrusted.status().ToString();
  EXPECT_NE(untrusted.status().message().find("TLS handshake"), std::string::npos)
      << untrusted.status().ToString();

  // Trusted, but for another name: host name verification refuses it.
  TestCertificate other = MakeSelfSignedCertificate({"DNS:other.test"});
  std::string other_ca = WriteFile("other.pem", other.cert_pem);
  auto misnamed_server = TlsTestServer::Start(other, "/keys", "{}");
  ASSERT_NE(misnamed_server, nullptr);
  auto misnamed = FetchJwksUrl(
      "https://127.0.0.1:" + std::to_string(misnamed_server->port()) + "/keys", Trusting(other_ca));
  ASSERT_FALSE(misnamed.ok());
  EXPECT_TRUE(misnamed.status().IsIOError()) << misnamed.status().ToString();
  EXPECT_NE(misnamed.status().message().find("TLS handshake"), std::string::npos)
      << misnamed.status().ToString();
  EXPECT_EQ(misnamed_server->hits(), 0);  // nothing was sent
  EXPECT_EQ(server_->hits(), 0);
}

TEST_F(JwksHttpsTest, StatusesAndBadCaFilesAreReported) {
  auto missing = FetchJwksUrl(Url("127.0.0.1", "/nothing"), Trusting(ca_file_));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsIOError()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("404"), std::string::npos);

  std::string garbage = WriteFile("garbage.pem", "not a certificate");
  EXPECT_STATUS(StatusCode::kInvalidInput,
                FetchJwksUrl(Url("127.0.0.1"), Trusting(garbage)).status());
  EXPECT_STATUS(StatusCode::kInvalidInput,
                FetchJwksUrl(Url("127.0.0.1"), Trusting(dir_.path() + "/absent.pem")).status());
}

TEST(JwksFetchTest, ConnectionFailuresAreIoErrors) {
  // Port 1 on loopback: nothing listens there. (No test resolves a name other than localhost,
  // which /etc/hosts answers: tests send nothing off the machine.)
  auto refused = FetchJwksUrl("https://127.0.0.1:1/keys", FetchOptions{});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsIOError()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("connect"), std::string::npos);
}

}  // namespace
}  // namespace quiver::server
