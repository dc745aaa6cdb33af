// Test support for HTTPS clients: a self-signed certificate made on the spot, and a small HTTPS
// server on 127.0.0.1 that answers GETs of one path with a fixed body (404 otherwise).
// The server runs one connection at a time on its own thread; a client that refuses the
// certificate simply ends that connection.
// Thread-safety: SetBody and hits() may be called while the server runs; one owner otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quiver::server::testing {

struct TestCertificate {
  std::string cert_pem;  // the certificate (its own issuer)
  std::string key_pem;   // its private key (P-256)
};

// A self-signed certificate whose subjectAltName lists `names`: "DNS:localhost",
// "IP:127.0.0.1", ... Valid from a minute ago for an hour.
TestCertificate MakeSelfSignedCertificate(const std::vector<std::string>& names);

class TlsTestServer {
 public:
  // Serves `body` at `path` with `certificate`. Fails the test (and returns null) when it
  // cannot listen.
  static std::unique_ptr<TlsTestServer> Start(const TestCertificate& certificate, std::string path,
                                              std::string body);
  ~TlsTestServer();
  TlsTestServer(const TlsTestServer&) = delete;
  TlsTestServer& operator=(const TlsTestServer&) = delete;

  uint16_t port() const;
  void SetBody(std::string body);
  // Requests answered (after a completed handshake).
  int hits() const;

 private:
  struct Impl;
  explicit TlsTestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::server::testing
