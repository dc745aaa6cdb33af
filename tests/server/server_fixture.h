// Test support: a namespace service on an ephemeral 127.0.0.1 port over a memory root, with a
// fault-injecting layer under the catalog so that any storage failure (and so any error code)
// can be provoked over HTTP.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "common/logging.h"
#include "server/http_server.h"
#include "server/identity.h"
#include "server/server.h"
#include "server/service.h"
#include "store/counting_store.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "test_client.h"
#include "testing/synthetic_dataset.h"

namespace quiver::server::testing {

class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    Logger::Default().SetLevel(LogLevel::kWarn);  // one line per request is noise here
    StartServer(HttpServerOptions{});
  }
  void TearDown() override { StopServer(); }

  // `auth`: authentication on, with `admins` as server admins. `root`: the store under the
  // fault layer (default: the fresh memory store memory_).
  void StartServer(HttpServerOptions options, bool managed = false, bool auth = false,
                   const std::string& admins = "", std::shared_ptr<ObjectStore> root = nullptr) {
    memory_ = MemoryObjectStore::Create();
    faults_ = std::make_shared<FaultInjectingStore>(root ? root : memory_);
    counts_ = std::make_shared<CountingStore>(faults_);
    catalog::CatalogOptions catalog_options;
    catalog_options.managed_versioning = managed;
    auto catalog = catalog::Catalog::Open(counts_, catalog_options);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    Config config;
    config.auth = auth;
    config.admins = admins;
    config.authz_refresh_ms = 0;
    auto access = OpenAccessControl(*catalog_, config);
    ASSERT_TRUE(access.ok()) << access.status().ToString();
    access_ = std::move(*access);
    auth_ = std::make_unique<Authenticator>(auth, access_->api_keys(), nullptr);
    service_ = std::make_unique<NamespaceService>(*catalog_, *access_, *auth_, counts_,
                                                  service_clock_, service_options_);
    options.host = "127.0.0.1";
    options.port = 0;
    options.threads = 4;
    NamespaceService* service = service_.get();
    auto http = HttpServer::Start(
        options, [service](HttpRequest& r) { return service->Handle(r); },
        [service](TransportError e, const std::string& m) {
          return service->HandleTransportError(e, m);
        },
        [service](HttpRequest& r) { return service->Admit(r); });
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::move(*http);
    client_ = std::make_unique<TestClient>(http_->port());
  }

  void StopServer() {
    client_.reset();
    if (http_) {
      http_->Shutdown();
      http_->Wait();
      http_.reset();
    }
    service_.reset();
    auth_.reset();
    access_.reset();
    catalog_.reset();
  }

  // The catalog's id of a spec id in the default project.
  static catalog::ObjectId Scoped(const catalog::ObjectId& spec) {
    catalog::ObjectId out = {std::string(catalog::kDefaultProject)};
    out.insert(out.end(), spec.begin(), spec.end());
    return out;
  }

  // Declares `id` (a spec id, in the default project) and writes a synthetic version 1 at its
  // location.
  catalog::TableInfo MakeTable(const catalog::ObjectId& id, bool with_index = false) {
    auto t = catalog_->DeclareTable(Scoped(id), {}, {});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_TRUE(quiver::testing::WriteSyntheticDataset(*memory_, t->location, with_index).ok());
    return *t;
  }

  // Every key and its bytes under the root (to prove that a request changed nothing).
  std::map<std::string, std::string> Snapshot() {
    catalog_->registry().FlushLog();  // change-log events are written behind the responses
    std::map<std::string, std::string> out;
    auto all = memory_->ListAll("");
    EXPECT_TRUE(all.ok());
    for (const ObjectMeta& m : *all) out[m.key] = memory_->Get(m.key)->data;
    return out;
  }

  ServiceOptions service_options_;        // for the next StartServer
  const Clock* service_clock_ = nullptr;  // for the next StartServer; null: the real clock
  std::shared_ptr<MemoryObjectStore> memory_;
  std::shared_ptr<FaultInjectingStore> faults_;
  std::shared_ptr<CountingStore> counts_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<catalog::AccessControl> access_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<NamespaceService> service_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<TestClient> client_;
};

// Asserts the spec's error body with `code` and `http` status.
inline void ExpectError(const Reply& reply, int http, int code, const std::string& where = "") {
  EXPECT_EQ(reply.status, http) << where << " " << reply.body;
  nlohmann::json body = reply.Json();
  ASSERT_TRUE(body.is_object()) << where << " " << reply.body;
  EXPECT_EQ(body.value("code", -1), code) << where << " " << reply.body;
  EXPECT_TRUE(body.contains("error") && body["error"].is_string()) << where;
  EXPECT_TRUE(body.contains("detail")) << where;
  EXPECT_EQ(body.value("status", 0), http) << where;
  EXPECT_TRUE(body.contains("type") && body.contains("title")) << where;
  auto rid = reply.headers.find("x-request-id");
  ASSERT_NE(rid, reply.headers.end()) << where;
  EXPECT_EQ(body.value("instance", ""), rid->second) << where;
  EXPECT_EQ(reply.headers.count("content-type") ? reply.headers.at("content-type") : "",
            "application/json")
      << where;
}

}  // namespace quiver::server::testing
