// NamespaceService: the request pipeline of the Lance Namespace REST API.
//
// For each request: request id (the client's `x-request-id` when usable, else a new ULID) →
// route (routes.h) → parse (call.h) → identity (identity.h, 401) → the tenant (project) from the
// principal → ids scoped to it → the door checks (internal/authorize.h) → the operation's
// handler (internal/) → response, with
// every failure turned into the spec's error body (error_response.h). Operations without a
// handler answer Unsupported (406, code 0). Every response echoes `x-request-id`; every request
// is counted and timed (metrics.h) and logged in one line.
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "server/http_server.h"
#include "server/http_types.h"
#include "server/identity.h"
#include "server/metrics.h"
#include "store/counting_store.h"

namespace quiver::server {

class NamespaceService {
 public:
  // `counts` (may be null) is the counting layer over the catalog's root store, for /metrics.
  // REQUIRES: catalog, access and auth outlive the service.
  NamespaceService(catalog::Catalog& catalog, catalog::AccessControl& access,
                   const Authenticator& auth, std::shared_ptr<CountingStore> counts,
                   const Clock* clock = nullptr);
  ~NamespaceService();

  HttpResponse Handle(HttpRequest& request);
  HttpResponse HandleTransportError(TransportError error, const std::string& message);

  // Names of the operations with a handler (the rest answer Unsupported).
  std::set<std::string> BackedOperations() const;
  Metrics& metrics() { return metrics_; }

 private:
  struct Handlers;
  HttpResponse Dispatch(HttpRequest& request, const std::string& request_id,
                        std::string* operation);
  std::string RenderMetrics();
  // The tenant of an authenticated call: the `x-quiver-project` header when the principal may
  // see that project, else the principal's only project (or `default` among several).
  Result<std::string> ResolveProject(const Call& call);

  catalog::Catalog& catalog_;
  catalog::AccessControl& access_;
  const Authenticator& auth_;
  std::shared_ptr<CountingStore> counts_;
  const Clock* clock_;
  Metrics metrics_;
  std::unique_ptr<Handlers> handlers_;
};

}  // namespace quiver::server
