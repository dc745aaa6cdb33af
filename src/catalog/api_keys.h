// ApiKeyStore: API keys bound to principals, kept in the registry as salted hashes only.
//
//   _quiver/access/keys/<key id>.json   {"key_id", "principal", "salt", "hash", "created_at",
//                                         "created_by", "expires_at_ms"?, "revoked_at"?,
//                                         "description", "minted_with"?}
//
// A key minted with another key records that key's chain ("minted_with": the parent key first,
// then its parent, ...; at most kMaxKeyChain) and expires no later than its parent: revoking
// (or deleting) any key of the chain makes the key invalid too, checked at every verification.
//
// A key is shown once, at creation: "qv_<key id: 16 hex>_<secret: 43 base64url chars>". The
// record holds SHA-256(salt || secret) with a random 16-byte salt, so a copy of the root reveals
// no usable key. Verification looks the record up by the key id (one GET), compares hashes in
// constant time and checks expiry and revocation. Verified records are cached for `cache_ttl`
// so a busy key costs no storage request; a revocation made by this process takes effect at
// once, one made by another server on the same root within `cache_ttl`.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver::catalog {

struct ApiKeyInfo {
  std::string key_id;
  std::string principal;  // "user:<name>"
  std::string description;
  std::string created_at;
  std::string created_by;
  std::optional<int64_t> expires_at_ms;  // unix milliseconds
  std::optional<std::string> revoked_at;
  // The keys this one was minted with, its parent first (empty: minted with no key).
  std::vector<std::string> minted_with;
};

// What a verified key stands for.
struct VerifiedApiKey {
  std::string principal;
  std::string key_id;
  std::optional<int64_t> expires_at_ms;  // unix milliseconds
};

// How many keys deep a chain of keys minted with keys may go.
inline constexpr size_t kMaxKeyChain = 8;

struct CreatedApiKey {
  ApiKeyInfo info;
  std::string key;  // the secret text; never stored, never shown again
};

class ApiKeyStore {
 public:
  // `root` is the catalog root (the registry's store).
  ApiKeyStore(std::shared_ptr<ObjectStore> root, const Clock* clock,
              Duration cache_ttl = std::chrono::seconds(5));

  // InvalidInput for a principal that is not "user:<name>" or an expiry in the past.
  // `minted_with` (may be empty) is the id of the key the request was authenticated with: the
  // new key joins its chain, and expires no later than it (no expiry given: the parent's;
  // a later one, or a chain already kMaxKeyChain long: InvalidInput).
  Result<CreatedApiKey> Create(const std::string& principal, std::optional<int64_t> expires_at_ms,
                               const std::string& description, const std::string& created_by,
                               const std::string& minted_with = "");
  // A valid key: unknown, wrong, expired and revoked keys, and keys minted with a key of their
  // chain that is revoked, expired or gone, are Unauthenticated (code 16, one message for every
  // reason); `*reason` (may be null) gets the specific reason for the log.
  Result<VerifiedApiKey> VerifyKey(std::string_view key, std::string* reason = nullptr);
  // VerifyKey's principal.
  Result<std::string> Verify(std::string_view key, std::string* reason = nullptr);
  // Marks the key revoked (idempotent). NamespaceNotFound-free: an unknown key id is
  // InvalidInput "no API key '<id>'" (keys are not catalog objects).
  Result<ApiKeyInfo> Revoke(const std::string& key_id, const std::string& revoked_by);
  Result<ApiKeyInfo> Describe(const std::string& key_id);
  // Every key (optionally of one principal), by key id.
  Result<std::vector<ApiKeyInfo>> List(const std::optional<std::string>& principal);

 private:
  struct Cached {
    std::string principal;
    std::string salt;
    std::string hash;
    std::optional<int64_t> expires_at_ms;
    bool revoked = false;
    std::vector<std::string> minted_with;
    int64_t fetched_at = 0;  // monotonic nanos
  };
  // The record of `key_id` (cached), and the secret last verified against it ("" if none), so
  // that a busy key is hashed once per cache lifetime, not once per request.
  Result<std::shared_ptr<const Cached>> Load(const std::string& key_id, std::string* verified);

  std::shared_ptr<ObjectStore> root_;
  const Clock* clock_;
  Duration cache_ttl_;
  Mutex mu_;
  std::map<std::string, std::shared_ptr<const Cached>> cache_ GUARDED_BY(mu_);
  std::map<std::string, std::string> verified_ GUARDED_BY(mu_);  // key id -> verified secret
};

// "user:<name>" with a non-empty name of printable text (no control characters), at most 256
// bytes; "user:*" (everyone) and "user:anonymous" (the identity of every request when
// authentication is off) are not principals a credential may carry.
Status ValidatePrincipal(std::string_view principal);

}  // namespace quiver::catalog
