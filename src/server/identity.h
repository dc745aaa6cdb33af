// Authenticator: turns a request's credentials into a principal ("user:<name>").
//
//   x-api-key: qv_...            an API key (catalog/api_keys.h) → the principal it is bound to
//   Authorization: Bearer <jwt>  a JWT verified against the configured JWKS (jwt.h) → user:<sub>
//   (the body's `identity` object carries the same two, for clients that cannot set headers)
//
// With authentication on, a request without credentials, or with credentials that do not
// verify, is Unauthenticated (401, code 16) with one message for every reason; the reason goes
// to the log only. With authentication off every request is `user:anonymous`, whatever it
// sends, so plain spec clients work unchanged.
// Thread-safety: safe for concurrent use.
#pragma once

#include <memory>
#include <string>

#include "catalog/api_keys.h"
#include "common/result.h"
#include "server/call.h"
#include "server/jwt.h"

namespace quiver::server {

inline constexpr std::string_view kAnonymousPrincipal = "user:anonymous";

class Authenticator {
 public:
  // `jwt` may be null (bearer tokens are then refused).
  Authenticator(bool enabled, catalog::ApiKeyStore& keys, std::shared_ptr<const JwtVerifier> jwt)
      : enabled_(enabled), keys_(keys), jwt_(std::move(jwt)) {}

  bool enabled() const { return enabled_; }
  // `*reason` (may be null) gets why a credential was refused, for the log. Sets the
  // principal's expires_at_ms and key_id from the verified credential.
  Result<std::string> Authenticate(Principal& principal, std::string* reason) const;

 private:
  bool enabled_;
  catalog::ApiKeyStore& keys_;
  std::shared_ptr<const JwtVerifier> jwt_;
};

}  // namespace quiver::server
