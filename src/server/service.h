// NamespaceService: the request pipeline of the Lance Namespace REST API. What it knows about an
// operation comes from the operation's row of the operation table (operation_table.h): its
// route, body kind, auth, door and handler. No operation is named here.
//
// Admit runs on the header alone, before the transport reads the body: request id (the client's
// `x-request-id` when usable, else a new ULID) → route (routes.h; 404/405 now) → the body's
// limit by the row's body kind: the transport's max_body_bytes for Arrow bodies read whole,
// max_streamed_body_bytes for streamed ones (BodyKind::kArrowStream, handed to the handler as
// they arrive), else max_json_body_bytes → with auth on: an open row (Auth::kOpen: Healthz) reads
// no credential and gets max_unauthenticated_body_bytes; a header credential (x-api-key,
// Authorization: Bearer) is authenticated now (401 now, unread); without one, a JSON body may still
// authenticate with its `identity` object, so it gets max_unauthenticated_body_bytes (over it:
// 401). Handle, once the body is read: an open row's handler answers at once (nothing parsed, no
// identity looked at) → parse (call.h) → identity (identity.h, 401; unless Admit authenticated
// the headers) → a server-admin row (Auth::kServerAdmin: Metrics) refuses everyone else (403) →
// for a spec row, the tenant (project) from the principal, ids scoped to it, and the row's door
// (internal/authorize.h) → the row's handler (internal/handlers.h), given a HandlerContext →
// response (the row's success status for a 200), with every failure turned into the spec's error
// body (error_response.h). Rows without a handler answer Unsupported (406, code 0). Every response
// echoes `x-request-id`; every request is counted and timed (metrics.h) and logged in one line.
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
  // A streamed Arrow body (BodyKind::kArrowStream: CreateTable, InsertIntoTable), read as it is
  // written to data files; not bounded by the transport's max_body_bytes.
  uint64_t max_streamed_body_bytes = 64ull << 30;
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

  // Names of the operations whose row has a handler (the rest answer Unsupported).
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
