#include "server/jwt.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "common/base64.h"
#include "common/json.h"
#include "common/logging.h"
#include "server/internal/jwks_fetch.h"

namespace quiver::server {

namespace {

using nlohmann::json;

constexpr std::string_view kGenericMessage = "invalid bearer token";
constexpr size_t kMaxTokenBytes = 16 * 1024;
constexpr size_t kMaxJwksBytes = 1024 * 1024;
constexpr int64_t kReloadIntervalNanos = 30'000'000'000;
constexpr int kFetchTimeoutMs = 5'000;
constexpr int kMinRsaBits = 2048;
constexpr int kMaxRsaBits = 8192;  // larger keys only make verification slow
constexpr int64_t kMaxSkewSeconds = 86'400;
// NumericDate values beyond this (year ~2286 in seconds) are not dates; the bound also keeps
// the arithmetic below far from overflow.
constexpr double kMaxNumericDate = 1e10;

// OpenSSL objects, freed on scope exit.
template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Freer<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Freer<EVP_MD_CTX, EVP_MD_CTX_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Freer<BIGNUM, BN_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Freer<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, Freer<OSSL_PARAM, OSSL_PARAM_free>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, Freer<ECDSA_SIG, ECDSA_SIG_free>>;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// ---- keys ----------------------------------------------------------------------------------

enum class KeyType { kRsa, kEc };

struct Jwk {
  std::optional<std::string> kid;
  KeyType type;
  PkeyPtr pkey;
};

// Builds a public key of `type_name` ("RSA", "EC") from provider parameters.
Result<PkeyPtr> KeyFromParams(const char* type_name, OSSL_PARAM_BLD* bld) {
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type_name, nullptr));
  EVP_PKEY* raw = nullptr;
  if (params == nullptr || ctx == nullptr || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    ERR_clear_error();
    return Status::InvalidInput("the key parameters are not a valid public key");
  }
  PkeyPtr pkey(raw);
  // Catches what construction lets through: an even modulus, a point off the curve.
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (check == nullptr || EVP_PKEY_public_check(check.get()) != 1) {
    ERR_clear_error();
    return Status::InvalidInput("the public key fails OpenSSL's validity check");
  }
  return pkey;
}

// JWK components are base64url; some publishers pad them, which costs nothing to accept.
Result<std::string> DecodeComponent(const json& jwk, const char* name) {
  auto it = jwk.find(name);
  if (it == jwk.end() || !it->is_string()) {
    return Status::InvalidInput(fmt::format("'{}' is missing or not a string", name));
  }
  std::string_view text = it->get_ref<const std::string&>();
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  if (!Base64UrlDecode(text, &out) || out.empty()) {
    return Status::InvalidInput(fmt::format("'{}' is not base64url", name));
  }
  return out;
}

Result<PkeyPtr> RsaKeyFromJwk(const json& jwk) {
  QV_ASSIGN_OR_RETURN(std::string n, DecodeComponent(jwk, "n"));
  QV_ASSIGN_OR_RETURN(std::string e, DecodeComponent(jwk, "e"));
  BnPtr bn_n(BN_bin2bn(Bytes(n), static_cast<int>(n.size()), nullptr));
  BnPtr bn_e(BN_bin2bn(Bytes(e), static_cast<int>(e.size()), nullptr));
  if (bn_n == nullptr || bn_e == nullptr) return Status::Internal("out of memory");
  int bits = BN_num_bits(bn_n.get());
  if (bits < kMinRsaBits || bits > kMaxRsaBits) {
    return Status::InvalidInput(
        fmt::format("RSA modulus of {} bits is outside {}..{}", bits, kMinRsaBits, kMaxRsaBits));
  }
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (bld == nullptr || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return Status::Internal("building RSA key parameters failed");
  }
  return KeyFromParams("RSA", bld.get());
}

Result<PkeyPtr> EcKeyFromJwk(const json& jwk) {
  if (jwk.value("crv", json()) != "P-256") return Status::InvalidInput("crv is not P-256");
  QV_ASSIGN_OR_RETURN(std::string x, DecodeComponent(jwk, "x"));
  QV_ASSIGN_OR_RETURN(std::string y, DecodeComponent(jwk, "y"));
  // RFC 7518 §6.2.1.2: coordinates are the full field size, leading zeros included.
  if (x.size() != 32 || y.size() != 32) return Status::InvalidInput("x / y are not 32 bytes");
  std::string point = "\x04" + x + y;  // SEC 1 uncompressed point
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (bld == nullptr ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return Status::Internal("building EC key parameters failed");
  }
  return KeyFromParams("EC", bld.get());
}

// One JWK, or why it cannot be used to verify RS256 / ES256 signatures.
Result<Jwk> ParseJwk(const json& jwk) {
  if (!jwk.is_object()) return Status::InvalidInput("not an object");
  Jwk out;
  if (auto kid = jwk.find("kid"); kid != jwk.end()) {
    if (!kid->is_string()) return Status::InvalidInput("kid is not a string");
    out.kid = kid->get<std::string>();
  }
  if (auto use = jwk.find("use"); use != jwk.end() && *use != "sig") {
    return Status::InvalidInput("use is not \"sig\"");
  }
  json kty = jwk.value("kty", json());
  const char* expected_alg = nullptr;
  if (kty == "RSA") {
    out.type = KeyType::kRsa;
    expected_alg = "RS256";
  } else if (kty == "EC") {
    out.type = KeyType::kEc;
    expected_alg = "ES256";
  } else {
    // "oct" in particular: a shared secret has no place in a set of public keys.
    return Status::InvalidInput("kty is not RSA or EC");
  }
  if (auto alg = jwk.find("alg"); alg != jwk.end() && *alg != expected_alg) {
    return Status::InvalidInput(fmt::format("alg is not {}", expected_alg));
  }
  QV_ASSIGN_OR_RETURN(out.pkey, out.type == KeyType::kRsa ? RsaKeyFromJwk(jwk) : EcKeyFromJwk(jwk));
  return out;
}

// Every usable key of a JWKS document. Unusable keys are skipped with a warning; a set with
// none left is InvalidInput.
Result<std::vector<Jwk>> ParseJwks(std::string_view text, const std::string& source) {
  auto parsed = ParseJson(text);  // bounded: common/json.h
  if (!parsed.ok()) {
    return Status::InvalidInput(fmt::format("JWKS {}: {}", source, parsed.status().message()));
  }
  const json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return Status::InvalidInput(
        fmt::format("JWKS {}: not a JSON object with a \"keys\" array", source));
  }
  std::vector<Jwk> keys;
  std::vector<std::string> skipped;
  const json& list = doc["keys"];
  for (size_t i = 0; i < list.size(); ++i) {
    Result<Jwk> key = ParseJwk(list[i]);
    if (key.ok()) {
      keys.push_back(std::move(*key));
      continue;
    }
    std::string kid = list[i].is_object() ? list[i].value("kid", json()).dump() : "null";
    skipped.push_back(fmt::format("key {} (kid {}): {}", i, kid, key.status().message()));
  }
  if (keys.empty()) {
    return Status::InvalidInput(fmt::format("JWKS {}: no usable key{}{}", source,
                                            skipped.empty() ? "" : ": ", fmt::join(skipped, "; ")));
  }
  for (const std::string& s : skipped) {
    QV_LOG_WARN("JWKS key ignored", {{"source", source}, {"reason", s}});
  }
  return keys;
}

void CloseFile(FILE* f) { std::fclose(f); }

Result<std::string> ReadJwksFile(const std::string& path) {
  std::unique_ptr<FILE, Freer<FILE, CloseFile>> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) return StatusFromErrno(errno, "reading JWKS file " + path);
  std::string out;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) {
    out.append(buf, n);
    if (out.size() > kMaxJwksBytes) {
      return Status::InvalidInput(fmt::format("JWKS file {}: larger than 1 MiB", path));
    }
  }
  if (std::ferror(file.get())) return StatusFromErrno(errno, "reading JWKS file " + path);
  return out;
}

// ---- tokens --------------------------------------------------------------------------------

struct Token {
  std::string alg;
  std::optional<std::string> kid;
  std::string_view signing_input;  // "header.payload", what the signature covers
  std::string payload;             // decoded, not yet parsed
  std::string signature;           // decoded
};

// Splits and decodes a compact JWS and reads its header. Nothing here trusts the token yet.
std::optional<Token> ParseToken(std::string_view text, std::string* why) {
  auto fail = [why](const char* reason) {
    *why = reason;
    return std::nullopt;
  };
  if (text.size() > kMaxTokenBytes) return fail("token longer than 16 KiB");
  size_t first = text.find('.');
  size_t second = first == std::string_view::npos ? first : text.find('.', first + 1);
  if (second == std::string_view::npos || text.find('.', second + 1) != std::string_view::npos) {
    return fail("not three dot-separated parts");
  }
  Token token;
  std::string header_text;
  if (!Base64UrlDecode(text.substr(0, first), &header_text) ||
      !Base64UrlDecode(text.substr(first + 1, second - first - 1), &token.payload) ||
      !Base64UrlDecode(text.substr(second + 1), &token.signature)) {
    return fail("a part is not unpadded base64url");
  }
  token.signing_input = text.substr(0, second);
  // Bounded (common/json.h): the header is parsed before the signature is checked.
  auto parsed_header = ParseJson(header_text);
  if (!parsed_header.ok() || !parsed_header->is_object()) {
    return fail("header is not a JSON object");
  }
  const json& header = *parsed_header;
  auto alg = header.find("alg");
  if (alg == header.end() || !alg->is_string()) return fail("header has no alg");
  token.alg = alg->get<std::string>();
  if (auto kid = header.find("kid"); kid != header.end()) {
    if (!kid->is_string()) return fail("kid is not a string");
    token.kid = kid->get<std::string>();
  }
  // RFC 7515 §4.1.11: extensions marked critical must be understood; quiver knows none.
  if (header.contains("crit")) return fail("header has crit extensions");
  return token;
}

// The key type an accepted alg needs; nullopt (with the reason) for every other alg.
std::optional<KeyType> KeyTypeForAlg(const std::string& alg, std::string* why) {
  if (alg == "RS256") return KeyType::kRsa;
  if (alg == "ES256") return KeyType::kEc;
  std::string lower;
  for (char c : alg) {
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (lower == "none") {
    *why = "alg none is refused";
  } else if (alg.rfind("HS", 0) == 0) {
    *why = "HMAC algs are refused";
  } else {
    *why = "alg is not RS256 or ES256";
  }
  return std::nullopt;
}

// JWS carries an ES256 signature as r||s (32 bytes each); OpenSSL verifies DER ECDSA-Sig-Value.
std::optional<std::string> EcdsaRawToDer(std::string_view raw) {
  if (raw.size() != 64) return std::nullopt;
  BnPtr r(BN_bin2bn(Bytes(raw), 32, nullptr));
  BnPtr s(BN_bin2bn(Bytes(raw) + 32, 32, nullptr));
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || sig == nullptr ||
      ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) {
    return std::nullopt;
  }
  r.release();  // owned by sig now
  s.release();
  int len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (len <= 0) return std::nullopt;
  std::string der(static_cast<size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_ECDSA_SIG(sig.get(), &p) != len) return std::nullopt;
  return der;
}

bool SignatureMatches(EVP_PKEY* pkey, KeyType type, const Token& token) {
  std::string der;
  std::string_view signature = token.signature;
  if (type == KeyType::kEc) {
    std::optional<std::string> converted = EcdsaRawToDer(token.signature);
    if (!converted) return false;
    der = std::move(*converted);
    signature = der;
  }
  MdCtxPtr ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  bool ok = ctx != nullptr &&
            EVP_DigestVerifyInit(ctx.get(), &pctx, EVP_sha256(), nullptr, pkey) == 1 &&
            (type != KeyType::kRsa || EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1) &&
            EVP_DigestVerify(ctx.get(), Bytes(signature), signature.size(),
                             Bytes(token.signing_input), token.signing_input.size()) == 1;
  // A failed verification leaves entries on this thread's error queue; nothing reads them.
  if (!ok) ERR_clear_error();
  return ok;
}

enum class SignatureCheck { kValid, kInvalid, kUnknownKid };

SignatureCheck CheckSignature(const std::vector<Jwk>& keys, const Token& token, KeyType type,
                              std::string* why) {
  bool kid_known = false;
  bool candidate = false;
  for (const Jwk& key : keys) {
    // Without a kid every key of the alg's type is a candidate.
    if (token.kid && key.kid != token.kid) continue;
    kid_known = true;
    if (key.type != type) continue;
    candidate = true;
    if (SignatureMatches(key.pkey.get(), key.type, token)) return SignatureCheck::kValid;
  }
  if (token.kid && !kid_known) {
    *why = "unknown kid";
    return SignatureCheck::kUnknownKid;
  }
  *why = !candidate ? (token.kid ? "the key named by kid does not allow this alg"
                                 : "no key allows this alg")
                    : "signature does not verify";
  return SignatureCheck::kInvalid;
}

// ---- claims --------------------------------------------------------------------------------

// A NumericDate claim: absent (nullopt, true), a date (value, true), or malformed (false).
bool ReadNumericDate(const json& payload, const char* name, std::optional<double>* out) {
  auto it = payload.find(name);
  if (it == payload.end()) return true;
  if (!it->is_number()) return false;
  double v = it->get<double>();
  if (!std::isfinite(v) || std::fabs(v) > kMaxNumericDate) return false;
  *out = v;
  return true;
}

std::optional<JwtClaims> CheckClaims(json payload, const JwtOptions& options, double now,
                                     std::string* why) {
  auto fail = [why](const char* reason) {
    *why = reason;
    return std::nullopt;
  };
  if (!payload.is_object()) return fail("payload is not a JSON object");
  auto skew = static_cast<double>(options.clock_skew_seconds);
  std::optional<double> exp, nbf, iat;
  if (!ReadNumericDate(payload, "exp", &exp) || !ReadNumericDate(payload, "nbf", &nbf) ||
      !ReadNumericDate(payload, "iat", &iat)) {
    return fail("exp, nbf or iat is not a date");
  }
  if (!exp) return fail("exp is missing");
  if (now >= *exp + skew) return fail("token expired");
  if (nbf && now + skew < *nbf) return fail("token not yet valid (nbf)");
  if (iat && *iat > now + skew) return fail("token issued in the future (iat)");

  JwtClaims claims;
  auto sub = payload.find("sub");
  if (sub == payload.end() || !sub->is_string() || sub->get_ref<const std::string&>().empty()) {
    return fail("sub is missing or not a non-empty string");
  }
  claims.subject = sub->get<std::string>();
  if (auto iss = payload.find("iss"); iss != payload.end()) {
    if (!iss->is_string()) return fail("iss is not a string");
    claims.issuer = iss->get<std::string>();
  }
  if (!options.issuer.empty() && claims.issuer != options.issuer) return fail("wrong iss");
  if (!options.audience.empty()) {
    auto aud = payload.find("aud");
    bool match =
        aud != payload.end() &&
        (*aud == options.audience ||
         (aud->is_array() && std::find(aud->begin(), aud->end(), options.audience) != aud->end()));
    if (!match) return fail("aud does not include the configured audience");
  }
  claims.expires_at = static_cast<int64_t>(std::floor(*exp));
  claims.claims = std::move(payload);
  return claims;
}

}  // namespace

struct JwtVerifier::KeySet {
  std::vector<Jwk> keys;
};

JwtVerifier::JwtVerifier(JwtOptions options, const Clock* clock)
    : options_(std::move(options)), clock_(clock) {}

JwtVerifier::~JwtVerifier() = default;

Result<std::unique_ptr<JwtVerifier>> JwtVerifier::Create(const JwtOptions& options) {
  if (options.jwks_file.empty() == options.jwks_url.empty()) {
    return Status::InvalidInput("JWT: set exactly one of jwks_file and jwks_url");
  }
  if (options.clock_skew_seconds < 0 || options.clock_skew_seconds > kMaxSkewSeconds) {
    return Status::InvalidInput(
        fmt::format("JWT: clock skew must be 0..{} seconds", kMaxSkewSeconds));
  }
  if (!options.jwks_url.empty()) {
    QV_ASSIGN_OR_RETURN(internal::JwksUrl url, internal::ParseJwksUrl(options.jwks_url));
    if (!options.jwks_ca_file.empty() && !url.tls) {
      return Status::InvalidInput("JWT: jwks_ca_file applies to an https:// jwks_url only");
    }
  } else if (!options.jwks_ca_file.empty()) {
    return Status::InvalidInput("JWT: jwks_ca_file applies to an https:// jwks_url only");
  }
  const Clock* clock = options.clock != nullptr ? options.clock : Clock::Real();
  std::unique_ptr<JwtVerifier> verifier(new JwtVerifier(options, clock));
  QV_RETURN_IF_ERROR(verifier->Reload());
  return verifier;
}

Status JwtVerifier::Reload() {
  MutexLock lock(&load_mu_);
  return LoadKeysLocked();
}

Status JwtVerifier::LoadKeysLocked() const {
  // Failed loads count too: a broken key source is not retried on every request.
  last_load_nanos_ = clock_->MonotonicNanos();
  std::string source;
  Result<std::string> text = Status::Internal("unset");
  if (!options_.jwks_file.empty()) {
    source = "file " + options_.jwks_file;
    text = ReadJwksFile(options_.jwks_file);
  } else {
    source = "URL " + options_.jwks_url;
    internal::FetchOptions fetch;
    fetch.timeout_ms = kFetchTimeoutMs;
    fetch.ca_file = options_.jwks_ca_file;
    text = internal::FetchJwksUrl(options_.jwks_url, fetch);
  }
  if (!text.ok()) return text.status();
  QV_ASSIGN_OR_RETURN(std::vector<Jwk> keys, ParseJwks(*text, source));
  auto set = std::make_shared<KeySet>();
  set->keys = std::move(keys);
  WriterLock lock(&mu_);
  keys_ = std::move(set);
  return Status::OK();
}

void JwtVerifier::ReloadForUnknownKid(std::string* note) const {
  MutexLock lock(&load_mu_);
  if (clock_->MonotonicNanos() - last_load_nanos_ < kReloadIntervalNanos) {
    *note = "keys loaded less than 30 s ago";
    return;
  }
  Status status = LoadKeysLocked();
  *note = status.ok() ? "not found after reloading the keys" : "reload failed: " + status.message();
}

std::shared_ptr<const JwtVerifier::KeySet> JwtVerifier::Snapshot() const {
  ReaderLock lock(&mu_);
  return keys_;
}

Result<JwtClaims> JwtVerifier::Verify(std::string_view text, std::string* reason) const {
  std::string why;
  std::optional<JwtClaims> claims;
  std::optional<Token> token = ParseToken(text, &why);
  std::optional<KeyType> type;
  if (token) type = KeyTypeForAlg(token->alg, &why);
  if (token && type) {
    SignatureCheck check = CheckSignature(Snapshot()->keys, *token, *type, &why);
    if (check == SignatureCheck::kUnknownKid) {
      // Perhaps the issuer rotated its keys. Another thread may have reloaded meanwhile, so
      // the snapshot is taken again whether or not this call loaded.
      std::string note;
      ReloadForUnknownKid(&note);
      check = CheckSignature(Snapshot()->keys, *token, *type, &why);
      if (check == SignatureCheck::kUnknownKid) why += " (" + note + ")";
    }
    if (check == SignatureCheck::kValid) {
      // Only a payload with a good signature is parsed: forged bytes never reach the parser.
      auto payload = ParseJson(token->payload);
      if (!payload.ok()) {
        why = "payload is not JSON: " + payload.status().message();
      } else {
        double now = static_cast<double>(clock_->NowNanos()) / 1e9;
        claims = CheckClaims(std::move(*payload), options_, now, &why);
      }
    }
  }
  if (!claims) {
    if (reason != nullptr) *reason = std::move(why);
    return Status(StatusCode::kUnauthenticated, std::string(kGenericMessage));
  }
  if (reason != nullptr) reason->clear();
  return std::move(*claims);
}

}  // namespace quiver::server
