#include "server/identity.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace quiver::server {

namespace {
Status Unauthenticated() {
  return Status(StatusCode::kUnauthenticated,
                "authentication required: send a valid x-api-key or Authorization: Bearer token");
}
}  // namespace

Result<std::string> Authenticator::Authenticate(Principal& principal, std::string* reason) const {
  principal.expires_at_ms.reset();
  principal.key_id.clear();
  if (!enabled_) return std::string(kAnonymousPrincipal);
  switch (principal.kind) {
    case Principal::Kind::kAnonymous:
      if (reason != nullptr) *reason = "no credentials";
      return Unauthenticated();
    case Principal::Kind::kApiKey: {
      auto verified = keys_.VerifyKey(principal.credential, reason);
      if (!verified.ok()) {
        if (verified.status().code() == StatusCode::kUnauthenticated) return Unauthenticated();
        return verified.status();
      }
      principal.expires_at_ms = verified->expires_at_ms;
      principal.key_id = verified->key_id;
      return std::move(verified->principal);
    }
    case Principal::Kind::kBearer: {
      if (!jwt_) {
        if (reason != nullptr) *reason = "bearer token sent but no JWKS is configured";
        return Unauthenticated();
      }
      auto claims = jwt_->Verify(principal.credential, reason);
      if (!claims.ok()) return Unauthenticated();
      std::string subject = "user:" + claims->subject;
      if (!catalog::ValidatePrincipal(subject).ok()) {
        if (reason != nullptr) *reason = "token subject is not a usable principal name";
        return Unauthenticated();
      }
      // Saturated: an `exp` beyond what milliseconds hold is still a bound.
      constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000;
      principal.expires_at_ms = std::min(claims->expires_at, kMaxSeconds) * 1000;
      return subject;
    }
  }
  return Unauthenticated();
}

}  // namespace quiver::server
