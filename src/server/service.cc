#include "server/service.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "common/ids.h"
#include "common/logging.h"
#include "server/call.h"
#include "server/error_response.h"
#include "server/internal/authorize.h"
#include "server/internal/handlers.h"
#include "server/routes.h"

namespace quiver::server {

namespace {

// A client-supplied request id is used when it is short printable ASCII (it is echoed into
// headers and logs).
bool UsableRequestId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (unsigned char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

// An error answered in the request's dialect: the remote protocol reads statuses, not codes
// (remote_dialect.h, invariant 3). `http_status` (a transport-level status: 404 no route, 405)
// wins.
HttpResponse ErrorReply(Dialect dialect, const Status& status, std::string_view operation,
                        const std::string& request_id, int http_status = 0) {
  if (dialect == Dialect::kRemote && http_status == 0) {
    http_status = RemoteErrorStatus(status, operation);
  }
  return MakeErrorResponse(status, request_id, http_status);
}

}  // namespace

NamespaceService::NamespaceService(catalog::Catalog& catalog, catalog::AccessControl& access,
                                   const Authenticator& auth, std::shared_ptr<CountingStore> counts,
                                   const Clock* clock, ServiceOptions options)
    : catalog_(catalog),
      access_(access),
      auth_(auth),
      counts_(std::move(counts)),
      clock_(clock != nullptr ? clock : Clock::Real()),
      options_(options) {}

NamespaceService::~NamespaceService() = default;

std::set<std::string> NamespaceService::BackedOperations() const {
  std::set<std::string> out;
  for (const Operation& op : Operations()) {
    if (op.handler != nullptr) out.insert(std::string(op.name));
  }
  return out;
}

// Admit runs on the transport's I/O threads, where an escaping exception would end the process
// (a mistyped record read while authenticating, say): it is answered as a 500 instead, as
// Handle's failures are.
Admission NamespaceService::Admit(HttpRequest& request) {
  try {
    return AdmitRequest(request);
  } catch (const std::exception& e) {
    Admission admission;
    if (request.request_id.empty()) request.request_id = NewUlid(clock_);
    admission.refusal =
        Finish(request, "Unrouted", clock_->MonotonicNanos(),
               MakeErrorResponse(Status::Internal(fmt::format("unexpected failure: {}", e.what())),
                                 request.request_id));
    return admission;
  }
}

Admission NamespaceService::AdmitRequest(HttpRequest& request) {
  int64_t start = clock_->MonotonicNanos();
  const std::string& client_id = request.Header("x-request-id");
  request.request_id = UsableRequestId(client_id) ? client_id : NewUlid(clock_);
  auto refuse = [&](const std::string& operation, HttpResponse response) {
    Admission admission;
    admission.refusal = Finish(request, operation, start, std::move(response));
    return admission;
  };
  std::string delimiter = "$";
  if (auto d = request.query.find("delimiter"); d != request.query.end()) delimiter = d->second;
  const Dialect dialect = DetectDialect(request);
  int http_status = 0;
  std::string allow;
  auto match = MatchRoute(request.method, request.path, delimiter, &http_status, &allow, dialect);
  if (!match.ok()) {
    HttpResponse response =
        ErrorReply(dialect, match.status(), "", request.request_id, http_status);
    if (!allow.empty()) response.headers.emplace_back("Allow", allow);
    return refuse("Unrouted", std::move(response));
  }
  const Operation& op = *match->op;
  std::string operation(op.name);
  bool arrow = IsArrowBody(op.body);
  Admission admission;
  admission.max_body_bytes = arrow ? 0 : options_.max_json_body_bytes;  // 0: the transport's
  if (op.body == BodyKind::kArrowStream) {
    admission.stream_body = true;
    admission.max_body_bytes = options_.max_streamed_body_bytes;
  }
  if (!auth_.enabled()) return admission;
  if (op.auth == Auth::kOpen) {  // open to all (Healthz), and reads no body: give it no room
    admission.max_body_bytes = options_.max_unauthenticated_body_bytes;
    admission.unauthenticated = true;
    return admission;
  }
  Principal principal = HeaderPrincipal(request);
  if (principal.kind == Principal::Kind::kAnonymous && !arrow) {
    // The body's `identity` object may still authenticate it: a small body only, and one
    // over that is answered as what it is, unauthenticated.
    admission.max_body_bytes =
        std::min(admission.max_body_bytes, options_.max_unauthenticated_body_bytes);
    admission.over_limit = TransportError::kUnauthenticated;
    admission.unauthenticated = true;
    return admission;
  }
  // Identity first: nothing past the header is read for a caller it refuses.
  std::string reason;
  auto subject = auth_.Authenticate(principal, &reason);
  if (!subject.ok()) {
    if (!reason.empty()) {
      QV_LOG_INFO("authentication refused",
                  {{"reason", reason}, {"request_id", request.request_id}});
    }
    return refuse(operation, ErrorReply(dialect, subject.status(), operation, request.request_id));
  }
  request.admitted =
      HttpRequest::Admitted{std::move(*subject), principal.expires_at_ms, principal.key_id};
  return admission;
}

HttpResponse NamespaceService::Handle(HttpRequest& request) {
  int64_t start = clock_->MonotonicNanos();
  if (request.request_id.empty()) {  // not admitted (a transport without the admission step)
    const std::string& client_id = request.Header("x-request-id");
    request.request_id = UsableRequestId(client_id) ? client_id : NewUlid(clock_);
  }
  const std::string& request_id = request.request_id;
  std::string operation = "Unrouted";
  HttpResponse response;
  try {
    response = Dispatch(request, request_id, &operation);
  } catch (const std::exception& e) {
    response = ErrorReply(DetectDialect(request),
                          Status::Internal(fmt::format("unexpected failure: {}", e.what())),
                          operation, request_id);
  }
  return Finish(request, operation, start, std::move(response));
}

HttpResponse NamespaceService::Finish(const HttpRequest& request, const std::string& operation,
                                      int64_t start, HttpResponse response) {
  response.headers.emplace_back("x-request-id", request.request_id);
  // What the remote client may use (remote_dialect.h, invariant 4).
  if (DetectDialect(request) == Dialect::kRemote) {
    response.headers.emplace_back("phalanx-version", std::string(kPhalanxVersion));
  }
  double seconds = static_cast<double>(clock_->MonotonicNanos() - start) / 1e9;
  metrics_.Record(operation, response.status, seconds);
  QV_LOG_INFO("request", {{"method", request.method},
                          {"path", request.path},
                          {"op", operation},
                          {"status", response.status},
                          {"ms", std::round(seconds * 1e6) / 1e3},
                          {"request_id", request.request_id}});
  return response;
}

HttpResponse NamespaceService::HandleTransportError(TransportError error,
                                                    const std::string& message) {
  std::string request_id = NewUlid(clock_);
  Status status;
  int http_status = 0;  // 0: the status code's own HTTP status
  switch (error) {
    case TransportError::kTooLarge:
      status = Status::InvalidInput(message);
      http_status = 413;
      break;
    case TransportError::kBadRequest:
      status = Status::InvalidInput(message);
      http_status = 400;
      break;
    case TransportError::kUnauthenticated:
      status = Status(StatusCode::kUnauthenticated,
                      fmt::format("authentication required: send a valid x-api-key or "
                                  "Authorization: Bearer token ({} without one)",
                                  message));
      break;
    case TransportError::kUnsupportedTransferCoding:
      // RFC 9112 §6.1: an unknown transfer coding is 501; quiver cannot do it (code 0).
      status = Status::Unsupported(message);
      http_status = 501;
      break;
    case TransportError::kUnsupportedContentCoding:
      // RFC 9110 §15.5.16: 415; the body is unusable as sent (code 13).
      status = Status::InvalidInput(message);
      http_status = 415;
      break;
    case TransportError::kOverloaded:
      status = Status::ServiceUnavailable(message);
      break;
  }
  HttpResponse response = MakeErrorResponse(status, request_id, http_status);
  response.headers.emplace_back("x-request-id", request_id);
  metrics_.Record("Unrouted", response.status, 0);
  QV_LOG_INFO("request rejected by the transport",
              {{"status", response.status}, {"error", message}, {"request_id", request_id}});
  return response;
}

HttpResponse NamespaceService::Dispatch(HttpRequest& request, const std::string& request_id,
                                        std::string* operation) {
  std::string delimiter = "$";
  if (auto d = request.query.find("delimiter"); d != request.query.end()) delimiter = d->second;
  const Dialect dialect = DetectDialect(request);
  int http_status = 0;
  std::string allow;
  auto match = MatchRoute(request.method, request.path, delimiter, &http_status, &allow, dialect);
  if (!match.ok()) {
    HttpResponse response = ErrorReply(dialect, match.status(), "", request_id, http_status);
    if (!allow.empty()) response.headers.emplace_back("Allow", allow);
    return response;
  }
  const Operation& op = *match->op;
  *operation = std::string(op.name);
  auto fail = [&](const Status& status) {
    return ErrorReply(dialect, status, op.name, request_id);
  };
  internal::HandlerContext ctx{catalog_, access_, metrics_, counts_.get(), clock_};
  if (op.auth == Auth::kOpen) {
    // Open to all (Healthz): answered before anything of the request is parsed or authenticated.
    Call call;
    call.http = &request;
    call.op = &op;
    call.request_id = request_id;
    return Run(ctx, call);
  }
  auto call = ParseCall(request, *match, request_id);
  if (!call.ok()) return fail(call.status());
  // Identity first: nothing about the request is looked at for an unauthenticated caller.
  // A header credential was authenticated by Admit; a body `identity` is, now.
  if (request.admitted) {
    call->subject = request.admitted->subject;
    // What bounds the credential, for the keys it mints (CreateApiKey).
    call->principal.expires_at_ms = request.admitted->expires_at_ms;
    call->principal.key_id = request.admitted->key_id;
  } else {
    std::string reason;
    auto subject = auth_.Authenticate(call->principal, &reason);
    if (!subject.ok()) {
      if (!reason.empty()) {
        QV_LOG_INFO("authentication refused", {{"reason", reason}, {"request_id", request_id}});
      }
      return fail(subject.status());
    }
    call->subject = std::move(*subject);
  }
  if (op.auth == Auth::kServerAdmin && !access_.IsServerAdmin(call->subject)) {
    return fail(
        Status(StatusCode::kPermissionDenied, fmt::format("{} is for server admins", op.pattern)));
  }
  if (op.spec || op.remote) {
    auto project = ResolveProject(*call);
    if (!project.ok()) return fail(project.status());
    call->project = std::move(*project);
    call->spec_id = call->id;
    call->id = call->Scoped(call->spec_id);
    Status allowed = internal::AuthorizeSpecCall(catalog_, access_, *call);
    if (!allowed.ok()) return fail(allowed);
  }
  return Run(ctx, *call);
}

HttpResponse NamespaceService::Run(const internal::HandlerContext& ctx, Call& call) {
  const Operation& op = *call.op;
  if (op.handler == nullptr) {
    return ErrorReply(call.dialect,
                      Status::Unsupported(
                          fmt::format("{} is not supported by quiver {} yet (see docs/COVERAGE.md)",
                                      op.name, QUIVER_VERSION)),
                      op.name, call.request_id);
  }
  auto result = op.handler(ctx, call);
  if (!result.ok()) return ErrorReply(call.dialect, result.status(), op.name, call.request_id);
  HttpResponse response = std::move(*result);
  if (response.status == 200) response.status = op.success_status;
  return response;
}

Result<std::string> NamespaceService::ResolveProject(const Call& call) {
  return internal::ResolveProject(catalog_, access_, call);
}

}  // namespace quiver::server
