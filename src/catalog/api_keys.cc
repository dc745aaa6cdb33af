#include "catalog/api_keys.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/authz/model.h"
#include "catalog/internal/records.h"
#include "catalog/object_id.h"
#include "common/base64.h"
#include "common/json.h"

namespace quiver::catalog {

namespace {

using internal::ApiKeyRecord;
using nlohmann::json;

constexpr std::string_view kKeysDir = "_quiver/access/keys/";
constexpr std::string_view kKeyPrefix = "qv_";
constexpr size_t kKeyIdBytes = 8;    // 16 hex characters
constexpr size_t kSecretBytes = 32;  // 43 base64url characters
constexpr size_t kSaltBytes = 16;
constexpr size_t kMaxPrincipalBytes = 256;

Status Unauthenticated() { return Status(StatusCode::kUnauthenticated, "invalid API key"); }

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

Result<std::string> SecureRandom(size_t n) {
  std::string bytes(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(n)) != 1) {
    return Status::Internal("the system random generator failed");
  }
  return bytes;
}

// SHA-256(salt || secret) as hex.
std::string SaltedHash(std::string_view salt, std::string_view secret) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // Fetched once: an implicit fetch per call costs more than the hash itself.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, kSha256, nullptr);
  EVP_DigestUpdate(ctx, salt.data(), salt.size());
  EVP_DigestUpdate(ctx, secret.data(), secret.size());
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return Hex(digest, len);
}

bool IsHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string KeyRecord(std::string_view key_id) {
  return fmt::format("{}{}.json", kKeysDir, key_id);
}

// A key record as read back from storage (bounded, common/json.h: anyone with write access to
// the root can plant one), typed: a field of the wrong type is Corruption (records.h).
Result<ApiKeyRecord> ParseKeyRecord(const std::string& data, std::string_view key_id) {
  auto body = ParseJson(data);
  if (!body.ok() || !body->is_object()) {
    return Status::Corruption(
        fmt::format("API key record '{}' is not a JSON object{}", key_id,
                    body.ok() ? std::string() : std::string(": ") + body.status().message()));
  }
  auto record = ApiKeyRecord::FromJson(*body);
  if (!record.ok()) return record.status().WithContext(fmt::format("API key '{}'", key_id));
  return record;
}

ApiKeyInfo InfoFromRecord(const ApiKeyRecord& record) {
  ApiKeyInfo info;
  info.key_id = record.key_id;
  info.principal = record.principal;
  info.description = record.description;
  info.created_at = record.created_at;
  info.created_by = record.created_by;
  info.expires_at_ms = record.expires_at_ms;
  info.revoked_at = record.revoked_at;
  info.minted_with = record.minted_with;
  return info;
}

}  // namespace

Status ValidatePrincipal(std::string_view principal) {
  constexpr std::string_view kUser = "user:";
  if (principal.substr(0, kUser.size()) != kUser || principal.size() == kUser.size()) {
    return Status::InvalidInput(
        fmt::format("principal '{}' must be written user:<name>", principal));
  }
  if (principal.size() > kMaxPrincipalBytes || !IsValidUtf8(principal)) {
    return Status::InvalidInput("a principal is at most 256 bytes of UTF-8 text");
  }
  for (unsigned char c : principal) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidInput("a principal must not contain control characters");
    }
  }
  if (principal == "user:*") {
    return Status::InvalidInput("user:* stands for everyone and is not a principal");
  }
  // A principal must be usable as a tuple's subject (no '#', which ends the subject there),
  // else the owner grants its creates write could never be read back.
  QV_RETURN_IF_ERROR(authz::ValidateSubject(principal));
  // The identity of every request while authentication is off (and so the creator of the
  // default project): no credential may ever claim it.
  if (principal == "user:anonymous") {
    return Status::InvalidInput("user:anonymous is reserved for unauthenticated servers");
  }
  return Status::OK();
}

ApiKeyStore::ApiKeyStore(std::shared_ptr<ObjectStore> root, const Clock* clock, Duration cache_ttl)
    : root_(std::move(root)),
      clock_(clock != nullptr ? clock : Clock::Real()),
      cache_ttl_(cache_ttl) {}

Result<CreatedApiKey> ApiKeyStore::Create(const std::string& principal,
                                          std::optional<int64_t> expires_at_ms,
                                          const std::string& description,
                                          const std::string& created_by,
                                          const std::string& minted_with) {
  QV_RETURN_IF_ERROR(ValidatePrincipal(principal));
  if (expires_at_ms && *expires_at_ms <= clock_->NowMillis()) {
    return Status::InvalidInput("'expires_at_ms' is in the past");
  }
  // A key minted with a key joins its chain and expires no later than it.
  std::vector<std::string> chain;
  if (!minted_with.empty()) {
    QV_ASSIGN_OR_RETURN(ApiKeyInfo parent, Describe(minted_with));
    if (parent.minted_with.size() + 1 > kMaxKeyChain) {
      return Status::InvalidInput(fmt::format(
          "API key {} is the end of a chain of {} keys minted with keys; mint this one with a key "
          "closer to the chain's start",
          minted_with, parent.minted_with.size() + 1));
    }
    if (parent.expires_at_ms) {
      if (!expires_at_ms) {
        expires_at_ms = parent.expires_at_ms;
      } else if (*expires_at_ms > *parent.expires_at_ms) {
        return Status::InvalidInput(
            fmt::format("a key minted with API key {} expires no later than it (at {} ms)",
                        minted_with, *parent.expires_at_ms));
      }
    }
    chain.push_back(minted_with);
    chain.insert(chain.end(), parent.minted_with.begin(), parent.minted_with.end());
  }
  if (description.size() > 1024 || !IsValidUtf8(description)) {
    return Status::InvalidInput("'description' is at most 1024 bytes of UTF-8 text");
  }
  QV_ASSIGN_OR_RETURN(std::string id_bytes, SecureRandom(kKeyIdBytes));
  QV_ASSIGN_OR_RETURN(std::string secret_bytes, SecureRandom(kSecretBytes));
  QV_ASSIGN_OR_RETURN(std::string salt_bytes, SecureRandom(kSaltBytes));
  std::string key_id = Hex(reinterpret_cast<const unsigned char*>(id_bytes.data()), kKeyIdBytes);
  std::string secret = Base64UrlEncode(secret_bytes);
  std::string salt = Hex(reinterpret_cast<const unsigned char*>(salt_bytes.data()), kSaltBytes);
  ApiKeyRecord record;
  record.key_id = key_id;
  record.principal = principal;
  record.salt = salt;
  record.hash = SaltedHash(salt, secret);
  record.description = description;
  record.created_at = FormatIso8601Millis(clock_->NowNanos());
  record.created_by = created_by;
  record.expires_at_ms = expires_at_ms;
  record.minted_with = std::move(chain);
  QV_RETURN_IF_ERROR(
      root_->Put(KeyRecord(key_id), record.ToJson().dump(2) + "\n", PutOptions::CreateOnly())
          .status());
  CreatedApiKey created;
  created.info = InfoFromRecord(record);
  created.key = fmt::format("{}{}_{}", kKeyPrefix, key_id, secret);
  return created;
}

Result<std::shared_ptr<const ApiKeyStore::Cached>> ApiKeyStore::Load(const std::string& key_id,
                                                                     std::string* verified) {
  int64_t now = clock_->MonotonicNanos();
  {
    MutexLock lock(&mu_);
    auto it = cache_.find(key_id);
    if (it != cache_.end() && now - it->second->fetched_at < cache_ttl_.count()) {
      auto v = verified_.find(key_id);
      if (v != verified_.end()) *verified = v->second;
      return it->second;
    }
  }
  QV_ASSIGN_OR_RETURN(GetResult got, root_->Get(KeyRecord(key_id)));
  QV_ASSIGN_OR_RETURN(ApiKeyRecord record, ParseKeyRecord(got.data, key_id));
  auto cached = std::make_shared<Cached>();
  cached->principal = std::move(record.principal);
  cached->salt = std::move(record.salt);
  cached->hash = std::move(record.hash);
  cached->expires_at_ms = record.expires_at_ms;
  cached->revoked = record.revoked_at.has_value();
  cached->minted_with = std::move(record.minted_with);
  cached->fetched_at = now;
  MutexLock lock(&mu_);
  cache_[key_id] = cached;
  verified_.erase(key_id);  // a fresh record is verified afresh
  return std::shared_ptr<const Cached>(cached);
}

Result<std::string> ApiKeyStore::Verify(std::string_view key, std::string* reason) {
  QV_ASSIGN_OR_RETURN(VerifiedApiKey verified, VerifyKey(key, reason));
  return std::move(verified.principal);
}

Result<VerifiedApiKey> ApiKeyStore::VerifyKey(std::string_view key, std::string* reason) {
  auto fail = [&](std::string why) -> Status {
    if (reason != nullptr) *reason = std::move(why);
    return Unauthenticated();
  };
  const size_t id_chars = 2 * kKeyIdBytes;
  if (key.size() != kKeyPrefix.size() + id_chars + 1 + 43 ||
      key.substr(0, kKeyPrefix.size()) != kKeyPrefix || key[kKeyPrefix.size() + id_chars] != '_') {
    return fail("malformed API key");
  }
  std::string key_id(key.substr(kKeyPrefix.size(), id_chars));
  if (!IsHex(key_id)) return fail("malformed API key id");
  std::string_view secret = key.substr(kKeyPrefix.size() + id_chars + 1);
  std::string verified;
  auto cached = Load(key_id, &verified);
  if (!cached.ok()) {
    if (cached.status().IsNotFound()) return fail(fmt::format("unknown API key id {}", key_id));
    return cached.status();  // a storage failure is not the caller's fault
  }
  const Cached& record = **cached;
  bool known = verified.size() == secret.size() &&
               CRYPTO_memcmp(verified.data(), secret.data(), secret.size()) == 0;
  if (!known) {
    std::string hash = SaltedHash(record.salt, secret);
    if (hash.size() != record.hash.size() ||
        CRYPTO_memcmp(hash.data(), record.hash.data(), hash.size()) != 0) {
      return fail(fmt::format("wrong secret for API key {}", key_id));
    }
    MutexLock lock(&mu_);
    auto it = cache_.find(key_id);
    if (it != cache_.end() && it->second == *cached) verified_[key_id] = std::string(secret);
  }
  if (record.revoked) return fail(fmt::format("API key {} is revoked", key_id));
  if (record.expires_at_ms && clock_->NowMillis() >= *record.expires_at_ms) {
    return fail(fmt::format("API key {} expired", key_id));
  }
  // A key dies with every key of its chain (each record is cached like the key's own).
  if (record.minted_with.size() > kMaxKeyChain) {
    return fail(fmt::format("API key {} has a chain longer than {} keys", key_id, kMaxKeyChain));
  }
  for (const std::string& parent_id : record.minted_with) {
    std::string unused;
    auto parent = IsHex(parent_id) && parent_id.size() == id_chars
                      ? Load(parent_id, &unused)
                      : Result<std::shared_ptr<const Cached>>(Status::NotFound(parent_id));
    if (!parent.ok()) {
      if (parent.status().IsNotFound()) {
        return fail(
            fmt::format("API key {} was minted with key {}, which is gone", key_id, parent_id));
      }
      return parent.status();
    }
    if ((*parent)->revoked) {
      return fail(
          fmt::format("API key {} was minted with key {}, which is revoked", key_id, parent_id));
    }
    if ((*parent)->expires_at_ms && clock_->NowMillis() >= *(*parent)->expires_at_ms) {
      return fail(
          fmt::format("API key {} was minted with key {}, which expired", key_id, parent_id));
    }
  }
  return VerifiedApiKey{record.principal, key_id, record.expires_at_ms};
}

Result<ApiKeyInfo> ApiKeyStore::Describe(const std::string& key_id) {
  if (key_id.size() != 2 * kKeyIdBytes || !IsHex(key_id)) {
    return Status::InvalidInput(fmt::format("no API key '{}'", key_id));
  }
  auto got = root_->Get(KeyRecord(key_id));
  if (!got.ok()) {
    if (got.status().IsNotFound()) {
      return Status::InvalidInput(fmt::format("no API key '{}'", key_id));
    }
    return got.status();
  }
  QV_ASSIGN_OR_RETURN(ApiKeyRecord record, ParseKeyRecord(got->data, key_id));
  return InfoFromRecord(record);
}

Result<ApiKeyInfo> ApiKeyStore::Revoke(const std::string& key_id, const std::string& revoked_by) {
  QV_RETURN_IF_ERROR(Describe(key_id).status());
  for (int attempt = 0; attempt < 8; ++attempt) {
    QV_ASSIGN_OR_RETURN(GetResult got, root_->Get(KeyRecord(key_id)));
    QV_ASSIGN_OR_RETURN(ApiKeyRecord record, ParseKeyRecord(got.data, key_id));
    if (!record.revoked_at) {
      record.revoked_at = FormatIso8601Millis(clock_->NowNanos());
      record.revoked_by = revoked_by;
      auto put = root_->Put(KeyRecord(key_id), record.ToJson().dump(2) + "\n",
                            PutOptions::IfMatch(got.meta.etag));
      if (!put.ok()) {
        if (put.status().IsConflict()) continue;
        return put.status();
      }
    }
    MutexLock lock(&mu_);
    cache_.erase(key_id);
    verified_.erase(key_id);
    return InfoFromRecord(record);
  }
  return Status(StatusCode::kConcurrentModification,
                fmt::format("API key '{}' keeps changing; try again", key_id), Subcode::kNone,
                true);
}

Result<std::vector<ApiKeyInfo>> ApiKeyStore::List(const std::optional<std::string>& principal) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> objects, root_->ListAll(kKeysDir));
  std::vector<ApiKeyInfo> out;
  for (const ObjectMeta& object : objects) {
    auto got = root_->Get(object.key);
    if (!got.ok()) continue;
    auto record = ParseKeyRecord(got->data, object.key);
    if (!record.ok()) continue;  // a broken record lists as nothing; Describe reports it
    ApiKeyInfo info = InfoFromRecord(*record);
    if (principal && info.principal != *principal) continue;
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace quiver::catalog
