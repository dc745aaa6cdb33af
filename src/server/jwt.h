// JwtVerifier: checks bearer JWTs (compact JWS) against a JSON Web Key Set, for the server's
// identity layer.
//
// Accepted: RS256 (RSA keys of at least 2048 bits) and ES256 (P-256). Refused: "none", every
// HMAC alg (a verifier that holds only public keys must never treat one as a shared secret),
// and any alg the chosen key's type or declared `alg` does not allow. Claims checked: `exp`
// (required), `nbf` and `iat` when present (each with clock_skew_seconds of slack), `sub`
// (required), and `iss` / `aud` when configured.
//
// Every rejection is the same Status (kUnauthenticated, "invalid bearer token") so that a caller
// learns nothing about why; the reason goes to the server's log through Verify's `reason`.
//
// Keys come from a file or from a URL (https, or http on loopback; internal/jwks_fetch.h). A token
// naming an unknown `kid` makes Verify re-read the key set (at most once per 30 s of the clock), so
// key rotation needs no restart.
//
// Thread-safety: Verify and Reload may be called concurrently from any threads. Verify works on
// a snapshot of the key set; Reload swaps in a new one. The options' clock must outlive the
// verifier.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace quiver::server {

struct JwtOptions {
  std::string jwks_file;  // path to a JWKS JSON document ({"keys":[...]})
  // https://HOST[:PORT]/path (an OIDC issuer's jwks_uri; the certificate is verified), or plain
  // http on the loopback interface only (internal/jwks_fetch.h says why).
  std::string jwks_url;
  std::string jwks_ca_file;  // https: PEM CA certificates to trust instead of the system's
  std::string issuer;        // when non-empty, `iss` must equal it
  std::string audience;      // when non-empty, `aud` (string or array of strings) must contain it
  int64_t clock_skew_seconds = 60;  // allowance for exp / nbf / iat; 0..86400
  const Clock* clock = nullptr;     // nullptr = Clock::Real()
};

struct JwtClaims {
  std::string subject;     // `sub` (required, non-empty string)
  std::string issuer;      // `iss`, or "" when absent
  int64_t expires_at = 0;  // `exp` seconds since the epoch (required)
  nlohmann::json claims;   // the whole payload
};

class JwtVerifier {
 public:
  // Loads the key set. Exactly one of jwks_file / jwks_url must be set, else InvalidInput; a
  // URL jwks_fetch.h refuses (plain http off the loopback interface, say), a CA file without an
  // https URL, or a skew outside 0..86400 is InvalidInput. A JWKS that does not parse or
  // holds no usable key is InvalidInput naming the source; an unreadable file or unreachable
  // URL is IOError.
  static Result<std::unique_ptr<JwtVerifier>> Create(const JwtOptions& options);
  ~JwtVerifier();
  JwtVerifier(const JwtVerifier&) = delete;
  JwtVerifier& operator=(const JwtVerifier&) = delete;

  // Verifies a compact JWS (header.payload.signature, base64url without padding, at most
  // 16 KiB). Any failure is Status(kUnauthenticated, "invalid bearer token"); the specific
  // reason is stored in `*reason` (may be null), for the server's log only.
  Result<JwtClaims> Verify(std::string_view token, std::string* reason = nullptr) const;

  // Re-reads the key set and swaps it in; on failure the current keys stay in use. Not rate
  // limited (an operator's explicit request), but it restarts the 30 s window of Verify's own
  // reloads.
  Status Reload();

 private:
  struct KeySet;  // the parsed keys (jwt.cc)

  JwtVerifier(JwtOptions options, const Clock* clock);

  // Reads and parses the configured source and swaps the result into keys_. Const so that
  // Verify can call it: the key set is the only state it changes, and that sits behind mu_.
  Status LoadKeysLocked() const REQUIRES(load_mu_);
  // Verify's reload for an unknown kid: loads unless a load started less than 30 s ago (by the
  // clock). `*note` says what happened, for the rejection reason if the kid stays unknown.
  void ReloadForUnknownKid(std::string* note) const;
  std::shared_ptr<const KeySet> Snapshot() const;

  const JwtOptions options_;
  const Clock* const clock_;

  mutable SharedMutex mu_;
  mutable std::shared_ptr<const KeySet> keys_ GUARDED_BY(mu_);  // never null after Create

  // Serializes loads (so that a burst of unknown kids costs one fetch) and rate-limits them.
  mutable Mutex load_mu_;
  mutable int64_t last_load_nanos_ GUARDED_BY(load_mu_) = 0;  // clock_->MonotonicNanos()
};

}  // namespace quiver::server
