#include "server/server.h"

#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "common/logging.h"
#include "server/http_server.h"
#include "server/identity.h"
#include "server/jwt.h"
#include "server/service.h"
#include "store/counting_store.h"
#include "store/store_uri.h"

namespace quiver::server {

struct Server::Impl {
  std::shared_ptr<CountingStore> store;
  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<catalog::AccessControl> access;
  std::unique_ptr<Authenticator> auth;
  std::unique_ptr<NamespaceService> service;
  std::unique_ptr<HttpServer> http;
  std::string host;
  std::string root;
};

namespace {

// The server admins a configuration names, validated (InvalidInput names the bad one).
Result<std::vector<std::string>> ParseAdmins(const Config& config) {
  std::vector<std::string> out;
  std::string_view admins = config.admins;
  while (!admins.empty()) {
    size_t comma = admins.find(',');
    std::string_view one = admins.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
    if (!one.empty()) {
      Status valid = catalog::ValidatePrincipal(one);
      if (!valid.ok()) return Status::InvalidInput(fmt::format("admins: {}", valid.message()));
      out.emplace_back(one);
    }
    if (comma == std::string_view::npos) break;
    admins.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<catalog::AccessControl>> OpenAccessControl(catalog::Catalog& catalog,
                                                                  const Config& config) {
  catalog::AccessOptions options;
  QV_ASSIGN_OR_RETURN(options.server_admins, ParseAdmins(config));
  // With authentication off every caller is user:anonymous, and may do everything.
  if (!config.auth) options.server_admins.emplace_back(kAnonymousPrincipal);
  options.refresh_interval = std::chrono::milliseconds(config.authz_refresh_ms);
  return catalog::AccessControl::Open(catalog, options);
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  if (impl_->http) {
    impl_->http->Shutdown();
    impl_->http->Wait();
  }
}

Result<std::unique_ptr<Server>> Server::Start(const Config& config) {
  auto impl = std::make_unique<Impl>();
  QV_ASSIGN_OR_RETURN(auto listen, ParseListenAddress(config.listen));
  // Bound before the root is opened: a bad or taken address must not create (or touch) it.
  HttpServerOptions http;
  http.host = listen.first;
  http.port = listen.second;
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  http.threads = config.workers > 0 ? config.workers : 4 * cores;
  http.max_header_bytes = config.max_header_bytes;
  http.max_body_bytes = config.max_body_bytes;
  http.max_inflight_body_bytes = config.max_inflight_body_bytes;
  http.max_connections = config.max_connections;
  http.read_timeout = std::chrono::milliseconds(config.read_timeout_ms);
  http.write_timeout = std::chrono::milliseconds(config.write_timeout_ms);
  QV_ASSIGN_OR_RETURN(impl->http, HttpServer::Listen(http));
  // So is the rest of the configuration that can be wrong (admins, the JWKS).
  QV_RETURN_IF_ERROR(ParseAdmins(config).status());
  std::shared_ptr<const JwtVerifier> jwt;
  if (!config.jwks_file.empty() || !config.jwks_url.empty()) {
    JwtOptions jwt_options;
    jwt_options.jwks_file = config.jwks_file;
    jwt_options.jwks_url = config.jwks_url;
    jwt_options.jwks_ca_file = config.jwks_ca_file;
    jwt_options.issuer = config.jwt_issuer;
    jwt_options.audience = config.jwt_audience;
    QV_ASSIGN_OR_RETURN(jwt, JwtVerifier::Create(jwt_options));
  }

  QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, OpenStore(config.root));
  impl->store = std::make_shared<CountingStore>(root);
  catalog::CatalogOptions options;
  options.managed_versioning = config.managed_versioning;
  QV_ASSIGN_OR_RETURN(impl->catalog, catalog::Catalog::Open(impl->store, options));
  Status recovered = impl->catalog->Recover(std::chrono::seconds(60));
  if (!recovered.ok()) {
    QV_LOG_WARN("recovery of interrupted catalog operations failed",
                {{"error", recovered.ToString()}});
  }
  (void)impl->catalog->Generation();  // primes the generation /metrics reports
  QV_ASSIGN_OR_RETURN(impl->access, OpenAccessControl(*impl->catalog, config));
  impl->auth = std::make_unique<Authenticator>(config.auth, impl->access->api_keys(), jwt);
  ServiceOptions service_options;
  service_options.max_json_body_bytes = config.max_json_body_bytes;
  service_options.max_streamed_body_bytes = config.max_streamed_body_bytes;
  service_options.max_unauthenticated_body_bytes = config.max_unauthenticated_body_bytes;
  impl->service = std::make_unique<NamespaceService>(*impl->catalog, *impl->access, *impl->auth,
                                                     impl->store, nullptr, service_options);

  NamespaceService* service = impl->service.get();
  impl->http->Serve([service](HttpRequest& req) { return service->Handle(req); },
                    [service](TransportError e, const std::string& m) {
                      return service->HandleTransportError(e, m);
                    },
                    [service](HttpRequest& req) { return service->Admit(req); });
  impl->host = listen.first;
  impl->root = root->Describe();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

uint16_t Server::port() const { return impl_->http->port(); }

std::string Server::url() const {
  bool v6 = impl_->host.find(':') != std::string::npos;
  return v6 ? fmt::format("http://[{}]:{}", impl_->host, port())
            : fmt::format("http://{}:{}", impl_->host, port());
}

std::string Server::root() const { return impl_->root; }

void Server::Shutdown() { impl_->http->Shutdown(); }

void Server::Wait() { impl_->http->Wait(); }

}  // namespace quiver::server
