// Server::Start, the serve path of `quiver serve`: the listen address is bound before the root
// is opened, so a bad or taken address fails without creating anything.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/config.h"
#include "common/logging.h"
#include "server/http_server.h"
#include "server/server.h"
#include "test_client.h"

namespace quiver::server::testing {
namespace {

class ServerStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Logger::Default().SetLevel(LogLevel::kWarn);
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/quiver-start-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool Exists(const std::string& path) { return std::filesystem::exists(path); }

  std::string dir_;
};

TEST_F(ServerStartTest, ABadListenAddressCreatesNoRoot) {
  Config config;
  config.root = dir_ + "/new-root";
  config.listen = "999.1.1.1:1";
  auto server = Server::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidInput) << server.status().ToString();
  EXPECT_FALSE(Exists(config.root));
}

TEST_F(ServerStartTest, AnAddressInUseCreatesNoRoot) {
  HttpServerOptions taken;
  taken.host = "127.0.0.1";
  taken.port = 0;
  auto holder = HttpServer::Listen(taken);
  ASSERT_TRUE(holder.ok()) << holder.status().ToString();
  Config config;
  config.root = dir_ + "/new-root";
  config.listen = "127.0.0.1:" + std::to_string((*holder)->port());
  auto server = Server::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kServiceUnavailable) << server.status().ToString();
  EXPECT_FALSE(Exists(config.root));
}

// The rest of what can be wrong in the configuration is checked before the root, too.
TEST_F(ServerStartTest, ABadAdminOrKeySetCreatesNoRoot) {
  Config bad_admins;
  bad_admins.root = dir_ + "/new-root";
  bad_admins.listen = "127.0.0.1:0";
  bad_admins.admins = "user:ops, not a principal";
  auto server = Server::Start(bad_admins);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidInput) << server.status().ToString();
  EXPECT_FALSE(Exists(bad_admins.root));

  Config bad_jwks;
  bad_jwks.root = dir_ + "/new-root";
  bad_jwks.listen = "127.0.0.1:0";
  bad_jwks.auth = true;
  bad_jwks.jwks_file = dir_ + "/no-such-jwks.json";
  server = Server::Start(bad_jwks);
  ASSERT_FALSE(server.ok());
  EXPECT_FALSE(Exists(bad_jwks.root));
}

// The whole serve path, admission included: with auth on, a request without a credential is
// 401; health needs none.
TEST_F(ServerStartTest, AGoodAddressServesOverANewRoot) {
  Config config;
  config.root = dir_ + "/new-root";
  config.listen = "127.0.0.1:0";
  config.auth = true;
  auto server = Server::Start(config);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_TRUE(Exists(config.root + "/_quiver"));
  TestClient client((*server)->port());
  EXPECT_EQ(client.Get("/healthz").status, 200);
  EXPECT_EQ(client.Get("/v1/namespace/%24/list").status, 401);
  (*server)->Shutdown();
  (*server)->Wait();
}

}  // namespace
}  // namespace quiver::server::testing
