// NamespaceService: the request pipeline of the Lance Namespace REST API.
//
// Admit runs on the header alone, before the transport reads the body: request id (the client's
// `x-request-id` when usable, else a new ULID) → route (routes.h; 404/405 now) → with auth on, a
// header credential (x-api-key, Authorization: Bearer) is authenticated now (401 now, unread)
// → the body's limit: max_json_body_bytes for JSON-bodied operations, the transport's
// max_body_bytes for Arrow-bodied ones, and max_unauthenticated_body_bytes (over it: 401) for
// a request that may still authenticate with the body's `identity` object.
// Handle, once the body is read: parse (call.h) → identity (identity.h, 401; unless Admit
// authenticated the headers) → the tenant (project) from the
// principal → ids scoped to it → the door checks (internal/authorize.h) → the operation's
// handler (internal/) → response, with
// every failure turned into the spec's error body (error_response.h). Operations without a
// handler answer Unsupported (406, code 0). Every response echoes `x-request-id`; every request
// is counted and timed (metrics.h) and logged in one line.
// Thread-safety: Admit and Handle may be called concurrently.
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

namespace internal {
struct HandlerContext;  // internal/handlers.h
}

// Body limits by what the request is (the transport's max_body_bytes bounds them all).
struct ServiceOptions {
  uint64_t max_json_body_bytes = 8ull * 1024 * 1024;
  uint64_t max_unauthenticated_body_bytes = 64 * 1024;  // auth on, no header credential
};

class NamespaceService {
 public:
  // `counts` (may be null) is the counting layer over the catalog's root store, for /metrics.
  // REQUIRES: catalog, access and auth outlive the service.
  NamespaceService(catalog::Catalog& catalog, catalog::AccessControl& access,
                   const Authenticator& auth, std::shared_ptr<CountingStore> counts,
                   const Clock* clock = nullptr, ServiceOptions options = {});
  ~NamespaceService();

  // The admission step (HttpServer::AdmissionHandler): `request` has its header only.
  Admission Admit(HttpRequest& request);
  HttpResponse Handle(HttpRequest& request);
  HttpResponse HandleTransportError(TransportError error, const std::string& message);

  // Names of the operations with a handler (the rest answer Unsupported).
  std::set<std::string> BackedOperations() const;
  Metrics& metrics() { return metrics_; }

 private:
  Admission AdmitRequest(HttpRequest& request);  // Admit without its exception barrier
  HttpResponse Dispatch(HttpRequest& request, const std::string& request_id,
                        std::string* operation);
  // The call's operation's handler (Unsupported without one), its Status as the error body.
  HttpResponse Run(const internal::HandlerContext& ctx, Call& call);
  // Adds the request id, counts, times and logs the response.
  HttpResponse Finish(const HttpRequest& request, const std::string& operation, int64_t start,
                      HttpResponse response);
  // The tenant of an authenticated call: the `x-quiver-project` header when the principal may
  // see that project, else the principal's only project (or `default` among several).
  Result<std::string> ResolveProject(const Call& call);

  catalog::Catalog& catalog_;
  catalog::AccessControl& access_;
  const Authenticator& auth_;
  std::shared_ptr<CountingStore> counts_;
  const Clock* clock_;
  ServiceOptions options_;
  Metrics metrics_;
};

}  // namespace quiver::server
