// Healthz (open to all, before authentication) and Metrics (server admins only): their rows in
// the operation table say who may call them; the handlers only answer.
#include <fmt/format.h>

#include "server/internal/handlers.h"

namespace quiver::server::internal {

Result<HttpResponse> HandleHealthz(const HandlerContext& /*ctx*/, Call& /*call*/) {
  return JsonReply({{"status", "ok"}, {"version", QUIVER_VERSION}});
}

// The Prometheus exposition: the service's request metrics, then object-store requests by kind
// and the registry generation. Its counters move with what requests touched (store calls per
// operation), which would tell a tenant whether another's object exists: server admins only
// (Auth::kServerAdmin).
Result<HttpResponse> HandleMetrics(const HandlerContext& ctx, Call& /*call*/) {
  std::vector<Metrics::Sample> extra;
  if (ctx.counts != nullptr) {
    StoreCounts counts = ctx.counts->Snapshot();
    for (int i = 0; i < kNumStoreOps; ++i) {
      auto op = static_cast<StoreOp>(i);
      extra.push_back({"quiver_store_requests_total", fmt::format("kind=\"{}\"", StoreOpName(op)),
                       static_cast<double>(counts.Calls(op)),
                       "Object-store requests made by the catalog, by kind.", "counter"});
    }
  }
  // What this server has seen (no storage request, so scraping does not count itself), once its
  // own queued events are written.
  ctx.catalog.registry().FlushLog();
  extra.push_back(
      {"quiver_registry_generation", "",
       static_cast<double>(ctx.catalog.registry().LastKnownGeneration()),
       "The catalog generation (newest change-log sequence number this server has seen).",
       "gauge"});
  HttpResponse response;
  response.content_type = "text/plain; version=0.0.4";
  response.body = ctx.metrics.Render(extra);
  return response;
}

}  // namespace quiver::server::internal
