#include "server/identity.h"

#include <fmt/format.h>

namespace quiver::server {

namespace {
Status Unauthenticated() {
  return Status(StatusCode::kUnauthenticated,
                "authentication required: send a valid x-api-key or Authorization: Bearer token");
}
}  // namespace

Result<std::string> Authenticator::Authenticate(const Principal& principal,
                                                std::string* reason) const {
  if (!enabled_) return std::string(kAnonymousPrincipal);
  switch (principal.kind) {
    case Principal::Kind::kAnonymous:
      if (reason != nullptr) *reason = "no credentials";
      return Unauthenticated();
    case Principal::Kind::kApiKey: {
      auto subject = keys_.Verify(principal.credential, reason);
      if (!subject.ok() && subject.status().code() == StatusCode::kUnauthenticated) {
        return Unauthenticated();
      }
      return subject;
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
      return subject;
    }
  }
  return Unauthenticated();
}

}  // namespace quiver::server
