// JwtVerifier: tokens minted here with keys generated here (OpenSSL), checked against a JWKS in a
// temporary file or served by quiver's own HttpServer on an ephemeral loopback port. Time is a
// ManualClock; nothing sleeps.
#include "server/jwt.h"
#include "common/base64.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/access_control.h"
#include "catalog/catalog.h"
#include "server/http_server.h"
#include "server/identity.h"
#include "server/internal/jwks_fetch.h"
#include "server/service.h"
#include "store/memory_store.h"
#include "tls_test_server.h"

namespace quiver::server {
namespace {

using nlohmann::json;

constexpr int64_t kNow = 1'700'000'000;  // ManualClock's default start, in seconds
constexpr const char* kIssuer = "https://issuer.test";
constexpr const char* kAudience = "quiver";

std::string B64Url(std::string_view bytes) { return Base64UrlEncode(bytes); }

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::string BnBytes(EVP_PKEY* pkey, const char* param, int pad) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(pkey, param, &bn), 1) << param;
  std::string out(pad > 0 ? pad : BN_num_bytes(bn), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  if (pad > 0) {
    BN_bn2binpad(bn, p, pad);
  } else {
    BN_bn2bin(bn, p);
  }
  BN_free(bn);
  return out;
}

// A private key generated for the test and its public JWK.
struct TestKey {
  PkeyPtr pkey;
  bool ec = false;

  json Jwk(const std::string& kid) const {
    json jwk;
    if (ec) {
      jwk = {{"kty", "EC"},
             {"crv", "P-256"},
             {"x", B64Url(BnBytes(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_X, 32))},
             {"y", B64Url(BnBytes(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
    } else {
      jwk = {{"kty", "RSA"},
             {"n", B64Url(BnBytes(pkey.get(), OSSL_PKEY_PARAM_RSA_N, 0))},
             {"e", B64Url(BnBytes(pkey.get(), OSSL_PKEY_PARAM_RSA_E, 0))}};
    }
    if (!kid.empty()) jwk["kid"] = kid;
    return jwk;
  }

  // RS256 / ES256 signature in JWS form (ES256: raw r||s, not DER).
  std::string Sign(std::string_view input) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    EXPECT_EQ(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, pkey.get()), 1);
    EXPECT_EQ(EVP_DigestSign(ctx, nullptr, &len,
                             reinterpret_cast<const unsigned char*>(input.data()), input.size()),
              1);
    std::string sig(len, '\0');
    EXPECT_EQ(EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                             reinterpret_cast<const unsigned char*>(input.data()), input.size()),
              1);
    sig.resize(len);
    EVP_MD_CTX_free(ctx);
    if (!ec) return sig;
    const auto* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* der = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    EXPECT_NE(der, nullptr);
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(der, &r, &s);
    std::string raw(64, '\0');
    BN_bn2binpad(r, reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(s, reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(der);
    return raw;
  }
};

TestKey Rsa(int bits) {
  return TestKey{PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits))),
                 false};
}
TestKey Ec() { return TestKey{PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")), true}; }

// Key generation is the slow part; every test shares one set.
struct Keys {
  TestKey rsa = Rsa(2048);
  TestKey rsa2 = Rsa(2048);
  TestKey rsa_weak = Rsa(1024);
  TestKey ec = Ec();
  TestKey ec2 = Ec();
};
const Keys& K() {
  static const Keys* keys = new Keys();  // never freed: shared by every test of the process
  return *keys;
}

// header.payload.signature over exactly these header and payload bytes.
std::string MintRaw(const TestKey& key, const json& header, const std::string& payload) {
  std::string input = B64Url(header.dump()) + "." + B64Url(payload);
  return input + "." + B64Url(key.Sign(input));
}
std::string Mint(const TestKey& key, const std::string& kid, const json& payload) {
  json header = {{"alg", key.ec ? "ES256" : "RS256"}, {"typ", "JWT"}};
  if (!kid.empty()) header["kid"] = kid;
  return MintRaw(key, header, payload.dump());
}

json Claims(int64_t now = kNow) {
  return {{"sub", "user-1"},  {"iss", kIssuer}, {"aud", kAudience},
          {"exp", now + 300}, {"iat", now},     {"scope", "read"}};
}

class JwtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/quiver-jwt-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
    jwks_path_ = dir_ + "/jwks.json";
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  void WriteFile(const std::string& text) {
    std::ofstream out(jwks_path_, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    ASSERT_TRUE(out.good()) << jwks_path_;
  }
  void WriteJwks(std::vector<json> keys) { WriteFile(json{{"keys", keys}}.dump()); }

  JwtOptions Options() {
    JwtOptions o;
    o.jwks_file = jwks_path_;
    o.issuer = kIssuer;
    o.audience = kAudience;
    o.clock = &clock_;
    return o;
  }
  std::unique_ptr<JwtVerifier> Make(const JwtOptions& options) {
    auto v = JwtVerifier::Create(options);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? std::move(*v) : nullptr;
  }
  // The standard set: rsa-1 and ec-1.
  std::unique_ptr<JwtVerifier> MakeStandard() {
    WriteJwks({K().rsa.Jwk("rsa-1"), K().ec.Jwk("ec-1")});
    return Make(Options());
  }
  int64_t Now() const { return clock_.NowNanos() / 1'000'000'000; }

  // The one status every rejection must be, and a reason mentioning `why`.
  static void ExpectRejected(const JwtVerifier& v, std::string_view token, const std::string& why) {
    std::string reason;
    Result<JwtClaims> r = v.Verify(token, &reason);
    ASSERT_FALSE(r.ok()) << "accepted; expected: " << why;
    EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(r.status().message(), "invalid bearer token");
    EXPECT_NE(reason.find(why), std::string::npos) << "reason: " << reason << "; expected: " << why;
  }
  static void ExpectAccepted(const JwtVerifier& v, std::string_view token) {
    std::string reason;
    Result<JwtClaims> r = v.Verify(token, &reason);
    EXPECT_TRUE(r.ok()) << reason;
  }

  ManualClock clock_;
  std::string dir_;
  std::string jwks_path_;
};

TEST_F(JwtTest, ValidRs256AndEs256Pass) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  for (const auto& [key, kid] : {std::pair{&K().rsa, "rsa-1"}, std::pair{&K().ec, "ec-1"}}) {
    std::string reason = "stale";
    Result<JwtClaims> r = v->Verify(Mint(*key, kid, Claims()), &reason);
    ASSERT_TRUE(r.ok()) << kid << ": " << reason;
    EXPECT_EQ(reason, "");
    EXPECT_EQ(r->subject, "user-1");
    EXPECT_EQ(r->issuer, kIssuer);
    EXPECT_EQ(r->expires_at, kNow + 300);
    EXPECT_EQ(r->claims["scope"], "read");
  }
  // `reason` may be null.
  EXPECT_TRUE(v->Verify(Mint(K().rsa, "rsa-1", Claims())).ok());
}

TEST_F(JwtTest, TokenWithoutKidTriesEveryKeyOfItsType) {
  WriteJwks({K().rsa2.Jwk("other"), K().rsa.Jwk(""), K().ec2.Jwk("x"), K().ec.Jwk("ec-1")});
  auto v = Make(Options());
  ASSERT_NE(v, nullptr);
  ExpectAccepted(*v, Mint(K().rsa, "", Claims()));
  ExpectAccepted(*v, Mint(K().ec, "", Claims()));
  ExpectAccepted(*v, Mint(K().rsa2, "", Claims()));
  ExpectRejected(*v, Mint(K().rsa_weak, "", Claims()), "signature does not verify");
}

TEST_F(JwtTest, WrongSignatureFails) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  ExpectRejected(*v, Mint(K().rsa2, "rsa-1", Claims()), "signature does not verify");
  ExpectRejected(*v, Mint(K().ec2, "ec-1", Claims()), "signature does not verify");
  for (const auto& [key, kid] : {std::pair{&K().rsa, "rsa-1"}, std::pair{&K().ec, "ec-1"}}) {
    std::string token = Mint(*key, kid, Claims());
    // Flip one bit of the signature's first byte (the first base64 character after the dot).
    size_t dot = token.rfind('.');
    token[dot + 1] = token[dot + 1] == 'A' ? 'Q' : 'A';
    ExpectRejected(*v, token, "signature does not verify");
  }
  // An ES256 signature in DER form (what OpenSSL produces) is not a JWS signature.
  std::string input =
      B64Url(json{{"alg", "ES256"}, {"kid", "ec-1"}}.dump()) + "." + B64Url(Claims().dump());
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t len = 0;
  ASSERT_EQ(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, K().ec.pkey.get()), 1);
  ASSERT_EQ(EVP_DigestSign(ctx, nullptr, &len, nullptr, 0), 1);
  std::string der(len, '\0');
  ASSERT_EQ(EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(der.data()), &len,
                           reinterpret_cast<const unsigned char*>(input.data()), input.size()),
            1);
  EVP_MD_CTX_free(ctx);
  der.resize(len);
  ExpectRejected(*v, input + "." + B64Url(der), "signature does not verify");
}

TEST_F(JwtTest, TamperedPayloadFails) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  for (const auto& [key, kid] : {std::pair{&K().rsa, "rsa-1"}, std::pair{&K().ec, "ec-1"}}) {
    std::string token = Mint(*key, kid, Claims());
    size_t first = token.find('.');
    size_t second = token.find('.', first + 1);
    json forged = Claims();
    forged["sub"] = "admin";
    std::string tampered =
        token.substr(0, first + 1) + B64Url(forged.dump()) + token.substr(second);
    ExpectRejected(*v, tampered, "signature does not verify");
  }
}

TEST_F(JwtTest, AlgNoneIsRefused) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  std::string payload = B64Url(Claims().dump());
  ExpectRejected(*v, B64Url(R"({"alg":"none"})") + "." + payload + ".", "alg none");
  ExpectRejected(*v, B64Url(R"({"alg":"NONE","kid":"rsa-1"})") + "." + payload + ".", "alg none");
  // Even with a real signature attached.
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "none"}, {"kid", "rsa-1"}}, Claims().dump()),
                 "alg none");
}

TEST_F(JwtTest, HmacAlgIsRefused) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  // The classic confusion attack: HMAC keyed with the public key's published bytes.
  std::string secret = K().rsa.Jwk("rsa-1")["n"].get<std::string>();
  for (std::string alg : {"HS256", "HS384", "HS512"}) {
    std::string input =
        B64Url(json{{"alg", alg}, {"kid", "rsa-1"}}.dump()) + "." + B64Url(Claims().dump());
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
         reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &mac_len);
    std::string token =
        input + "." + B64Url(std::string_view(reinterpret_cast<char*>(mac), mac_len));
    ExpectRejected(*v, token, "HMAC");
  }
}

TEST_F(JwtTest, AlgMustMatchTheKey) {
  json declared_es = K().rsa.Jwk("declares-es256");
  declared_es["alg"] = "ES256";
  json for_encryption = K().rsa.Jwk("for-encryption");
  for_encryption["use"] = "enc";
  json declared_rs = K().rsa.Jwk("declares-rs256");
  declared_rs["alg"] = "RS256";
  declared_rs["use"] = "sig";
  WriteJwks({K().rsa.Jwk("rsa-1"), K().ec.Jwk("ec-1"), declared_es, for_encryption, declared_rs});
  auto v = Make(Options());
  ASSERT_NE(v, nullptr);
  // The header's alg names the other key type than the key its kid names.
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "ec-1"}}, Claims().dump()),
                 "does not allow this alg");
  ExpectRejected(*v, MintRaw(K().ec, {{"alg", "ES256"}, {"kid", "rsa-1"}}, Claims().dump()),
                 "does not allow this alg");
  // Keys whose own alg or use forbid RS256 signatures are not loaded at all.
  ExpectRejected(*v, Mint(K().rsa, "declares-es256", Claims()), "unknown kid");
  ExpectRejected(*v, Mint(K().rsa, "for-encryption", Claims()), "unknown kid");
  ExpectAccepted(*v, Mint(K().rsa, "declares-rs256", Claims()));
  // Algs quiver does not implement.
  for (std::string alg : {"RS384", "PS256", "ES384", "EdDSA", ""}) {
    ExpectRejected(*v, MintRaw(K().rsa, {{"alg", alg}, {"kid", "rsa-1"}}, Claims().dump()),
                   "alg is not RS256 or ES256");
  }
}

TEST_F(JwtTest, UnknownKidReloadsAtMostEvery30Seconds) {
  WriteJwks({K().rsa.Jwk("rsa-1")});
  auto v = Make(Options());
  ASSERT_NE(v, nullptr);
  // The issuer rotates: tokens name rsa-2 before quiver has seen it.
  ExpectRejected(*v, Mint(K().rsa2, "rsa-2", Claims(Now())), "unknown kid (keys loaded less");
  WriteJwks({K().rsa.Jwk("rsa-1"), K().rsa2.Jwk("rsa-2")});
  clock_.Advance(std::chrono::seconds(29));
  ExpectRejected(*v, Mint(K().rsa2, "rsa-2", Claims(Now())), "unknown kid (keys loaded less");
  clock_.Advance(std::chrono::seconds(2));  // 31 s after the load at Create
  ExpectAccepted(*v, Mint(K().rsa2, "rsa-2", Claims(Now())));
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", Claims(Now())));
  // That verification was a load: the next unknown kid waits another 30 s.
  ExpectRejected(*v, Mint(K().ec, "ec-9", Claims(Now())), "loaded less than 30 s ago");
  clock_.Advance(std::chrono::seconds(31));
  ExpectRejected(*v, Mint(K().ec, "ec-9", Claims(Now())), "not found after reloading");
  // A reload that fails keeps the keys in use, and is itself rate-limited.
  WriteFile("not json");
  clock_.Advance(std::chrono::seconds(31));
  ExpectRejected(*v, Mint(K().ec, "ec-9", Claims(Now())), "reload failed");
  ExpectAccepted(*v, Mint(K().rsa2, "rsa-2", Claims(Now())));
  ExpectRejected(*v, Mint(K().ec, "ec-9", Claims(Now())), "loaded less than 30 s ago");
}

TEST_F(JwtTest, ExplicitReloadSwapsTheKeySet) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  WriteJwks({K().rsa2.Jwk("rsa-2")});
  ASSERT_TRUE(v->Reload().ok());  // not rate-limited
  ExpectAccepted(*v, Mint(K().rsa2, "rsa-2", Claims()));
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", Claims()), "unknown kid");  // retired
  WriteFile(R"({"keys": []})");
  Status failed = v->Reload();
  EXPECT_EQ(failed.code(), StatusCode::kInvalidInput);
  EXPECT_NE(failed.message().find(jwks_path_), std::string::npos) << failed.ToString();
  ExpectAccepted(*v, Mint(K().rsa2, "rsa-2", Claims()));
}

TEST_F(JwtTest, ExpiryHonoursTheSkew) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json claims = Claims();
  claims["exp"] = kNow - 30;  // expired, but within the 60 s allowance
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));
  claims["exp"] = kNow - 61;
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "expired");
  claims.erase("exp");
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "exp is missing");
  claims["exp"] = "tomorrow";
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "not a date");
  claims["exp"] = 1e300;
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "not a date");
  claims["exp"] = kNow + 0.5;  // NumericDate may be fractional
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));

  // A valid token expires as the clock moves on.
  std::string token = Mint(K().ec, "ec-1", Claims());
  ExpectAccepted(*v, token);
  clock_.Advance(std::chrono::seconds(300 + 59));
  ExpectAccepted(*v, token);
  clock_.Advance(std::chrono::seconds(1));
  ExpectRejected(*v, token, "expired");

  // Without skew, exp is exact.
  JwtOptions strict = Options();
  strict.clock_skew_seconds = 0;
  auto s = Make(strict);
  ASSERT_NE(s, nullptr);
  claims["exp"] = Now() + 1;
  ExpectAccepted(*s, Mint(K().rsa, "rsa-1", claims));
  claims["exp"] = Now();
  ExpectRejected(*s, Mint(K().rsa, "rsa-1", claims), "expired");
}

TEST_F(JwtTest, NotBeforeAndIssuedAtInTheFutureFail) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json claims = Claims();
  claims["nbf"] = kNow + 120;
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "nbf");
  claims["nbf"] = kNow + 30;
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));
  claims["nbf"] = "now";
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "not a date");
  claims.erase("nbf");
  claims["iat"] = kNow + 120;
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "iat");
  claims["iat"] = kNow + 30;
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));
  claims["iat"] = kNow - 86'400;  // old tokens are fine while exp allows them
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));
}

TEST_F(JwtTest, IssuerMustMatch) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json claims = Claims();
  claims["iss"] = "https://evil.test";
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "wrong iss");
  claims.erase("iss");
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "wrong iss");
  claims["iss"] = json::array({kIssuer});
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "iss is not a string");

  // Not configured: any issuer, reported as is.
  JwtOptions any = Options();
  any.issuer.clear();
  auto a = Make(any);
  ASSERT_NE(a, nullptr);
  claims["iss"] = "https://elsewhere.test";
  auto r = a->Verify(Mint(K().rsa, "rsa-1", claims));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->issuer, "https://elsewhere.test");
  claims.erase("iss");
  r = a->Verify(Mint(K().rsa, "rsa-1", claims));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->issuer, "");
}

TEST_F(JwtTest, AudienceIsAStringOrAnArrayContainingIt) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json claims = Claims();
  claims["aud"] = "other";
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "aud");
  claims["aud"] = json::array({"other", kAudience});
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", claims));
  claims["aud"] = json::array({"other", "another"});
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "aud");
  claims["aud"] = json::array();
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "aud");
  claims["aud"] = 7;
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "aud");
  claims.erase("aud");
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "aud");

  JwtOptions any = Options();
  any.audience.clear();
  auto a = Make(any);
  ASSERT_NE(a, nullptr);
  ExpectAccepted(*a, Mint(K().rsa, "rsa-1", claims));
  claims["aud"] = "anyone";
  ExpectAccepted(*a, Mint(K().rsa, "rsa-1", claims));
}

TEST_F(JwtTest, SubjectIsRequired) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json claims = Claims();
  claims.erase("sub");
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "sub");
  claims["sub"] = "";
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", claims), "sub");
  claims["sub"] = 42;
  ExpectRejected(*v, Mint(K().ec, "ec-1", claims), "sub");
}

// RFC 7519 §4: a parser must reject duplicate claim names or keep the last; quiver rejects
// (two `sub` or two `exp` claims mean different things to different readers), and a header or
// payload nested past the JSON bound is refused before anything walks it.
TEST_F(JwtTest, RepeatedClaimsAndDeepNestingAreRefused) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  std::string claims = Claims().dump();
  std::string twice = claims.substr(0, claims.size() - 1) + R"(,"sub":"user:root"})";
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}}, twice),
                 "duplicate key 'sub'");
  std::string deep = claims.substr(0, claims.size() - 1) + R"(,"x":)" + std::string(200, '[') +
                     std::string(200, ']') + "}";
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}}, deep),
                 "nested deeper than");
  ExpectRejected(*v, B64Url(R"({"alg":"RS256","alg":"none"})") + "." + B64Url(claims) + ".c2ln",
                 "header is not a JSON object");
}

TEST_F(JwtTest, MalformedTokensFail) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  std::string good = Mint(K().rsa, "rsa-1", Claims());
  ExpectAccepted(*v, good);
  size_t first = good.find('.');
  size_t second = good.find('.', first + 1);
  std::string header = good.substr(0, first);
  std::string payload = good.substr(first + 1, second - first - 1);
  std::string sig = good.substr(second + 1);

  for (std::string t : {std::string(), std::string("abc"), header + "." + payload, good + ".",
                        good + ".x", std::string("..")}) {
    SCOPED_TRACE(t);
    ExpectRejected(*v, t, t == ".." ? "header is not a JSON object" : "three dot-separated parts");
  }
  // Not base64url: padding, the standard alphabet, whitespace, an impossible length, unused bits.
  for (std::string t : {header + "=." + payload + "." + sig, header + "." + payload + "=." + sig,
                        "a+b/" + header + "." + payload + "." + sig, " " + good,
                        "AAAAA." + payload + "." + sig, header + "." + payload + "\n." + sig}) {
    SCOPED_TRACE(t);
    ExpectRejected(*v, t, "not unpadded base64url");
  }
  // "QR" decodes to one byte with non-zero unused bits: a second spelling of "QQ".
  ExpectRejected(*v, "QR." + payload + "." + sig, "not unpadded base64url");
  ExpectRejected(*v, B64Url("not json") + "." + payload + "." + sig, "header is not a JSON object");
  ExpectRejected(*v, B64Url("[1]") + "." + payload + "." + sig, "header is not a JSON object");
  ExpectRejected(*v, B64Url(R"({"kid":"rsa-1"})") + "." + payload + "." + sig, "no alg");
  ExpectRejected(*v, B64Url(R"({"alg":256})") + "." + payload + "." + sig, "no alg");
  ExpectRejected(*v, B64Url(R"({"alg":"RS256","kid":1})") + "." + payload + "." + sig,
                 "kid is not a string");
  ExpectRejected(
      *v,
      MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}, {"crit", json::array({"exp"})}},
              Claims().dump()),
      "crit");
  // Correctly signed, but the payload is not a JSON object.
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}}, "not json"),
                 "payload is not JSON");
  ExpectRejected(*v, MintRaw(K().rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}}, "[1,2]"),
                 "payload is not a JSON object");
  // Over 16 KiB, even when correctly signed.
  json big = Claims();
  big["pad"] = std::string(16 * 1024, 'x');
  ExpectRejected(*v, Mint(K().rsa, "rsa-1", big), "longer than 16 KiB");
  big["pad"] = std::string(8 * 1024, 'x');
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", big));
}

TEST_F(JwtTest, WeakRsaKeyIsIgnored) {
  WriteJwks({K().rsa_weak.Jwk("weak"), K().rsa.Jwk("rsa-1")});
  auto v = Make(Options());
  ASSERT_NE(v, nullptr);
  ExpectRejected(*v, Mint(K().rsa_weak, "weak", Claims()), "unknown kid");
  ExpectRejected(*v, Mint(K().rsa_weak, "", Claims()), "signature does not verify");
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", Claims()));

  WriteJwks({K().rsa_weak.Jwk("weak")});
  auto only_weak = JwtVerifier::Create(Options());
  ASSERT_FALSE(only_weak.ok());
  EXPECT_EQ(only_weak.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(only_weak.status().message().find(jwks_path_), std::string::npos);
  EXPECT_NE(only_weak.status().message().find("1024 bits"), std::string::npos)
      << only_weak.status().ToString();
}

TEST_F(JwtTest, EveryFailureIsTheSameStatus) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  json expired = Claims();
  expired["exp"] = kNow - 3600;
  std::vector<std::string> tokens = {
      "garbage",
      Mint(K().rsa2, "rsa-1", Claims()),
      Mint(K().rsa, "nope", Claims()),
      Mint(K().rsa, "rsa-1", expired),
      B64Url(R"({"alg":"none"})") + "." + B64Url(Claims().dump()) + ".",
  };
  std::set<std::string> reasons;
  std::optional<Status> first;
  for (const std::string& t : tokens) {
    std::string reason;
    Result<JwtClaims> r = v->Verify(t, &reason);
    ASSERT_FALSE(r.ok());
    if (!first) first = r.status();
    EXPECT_EQ(r.status(), *first);
    EXPECT_EQ(r.status().ToString(), first->ToString());
    EXPECT_FALSE(r.status().retryable());
    reasons.insert(reason);
  }
  EXPECT_EQ(first->code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(first->message(), "invalid bearer token");
  EXPECT_EQ(reasons.size(), tokens.size());  // the log still tells them apart
}

TEST_F(JwtTest, ConcurrentVerifyAndReload) {
  auto v = MakeStandard();
  ASSERT_NE(v, nullptr);
  std::string rs = Mint(K().rsa, "rsa-1", Claims());
  std::string es = Mint(K().ec, "ec-1", Claims());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        if (!v->Verify((i + t) % 2 == 0 ? rs : es).ok()) failures.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(v->Reload().ok());
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(JwtTest, CreateValidatesOptionsAndTheKeySet) {
  auto expect_invalid = [](const JwtOptions& o, const std::string& mention) {
    auto r = JwtVerifier::Create(o);
    ASSERT_FALSE(r.ok()) << mention;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().ToString();
    EXPECT_NE(r.status().message().find(mention), std::string::npos) << r.status().ToString();
  };
  WriteJwks({K().rsa.Jwk("rsa-1")});
  JwtOptions neither = Options();
  neither.jwks_file.clear();
  expect_invalid(neither, "exactly one");
  JwtOptions both = Options();
  both.jwks_url = "http://127.0.0.1:1/jwks";
  expect_invalid(both, "exactly one");
  JwtOptions negative = Options();
  negative.clock_skew_seconds = -1;
  expect_invalid(negative, "skew");

  // Clear text off the loopback interface is refused before any connection is attempted.
  for (std::string url : {"http://example.com/jwks", "http://10.0.0.1/", "http://127.0.0.2/",
                          "http://localhost.evil.test/", "http://127.0.0.1@evil.test/",
                          "http://[::ffff:127.0.0.1]/"}) {
    JwtOptions o = Options();
    o.jwks_file.clear();
    o.jwks_url = url;
    expect_invalid(o, url);
  }
  // A CA file is for an https URL.
  JwtOptions ca_with_file = Options();
  ca_with_file.jwks_ca_file = "/etc/ssl/certs/ca-certificates.crt";
  expect_invalid(ca_with_file, "jwks_ca_file");
  JwtOptions ca_with_http = Options();
  ca_with_http.jwks_file.clear();
  ca_with_http.jwks_url = "http://127.0.0.1:1/jwks";
  ca_with_http.jwks_ca_file = "/etc/ssl/certs/ca-certificates.crt";
  expect_invalid(ca_with_http, "jwks_ca_file");

  WriteFile("{not json");
  expect_invalid(Options(), jwks_path_);
  WriteFile(R"({"keys": {}})");
  expect_invalid(Options(), "\"keys\" array");
  WriteFile(R"({"keys": []})");
  expect_invalid(Options(), "no usable key");
  WriteFile(R"({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"}, 7,
                         {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"},
                         {"kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"},
                         {"kty": "RSA", "n": "!!", "e": "AQAB"}]})");
  expect_invalid(Options(), "kty is not RSA or EC");
  // A point that is not on the curve.
  json off_curve = K().ec.Jwk("bad");
  off_curve["y"] = B64Url(std::string(32, '\x01'));
  WriteJwks({off_curve});
  expect_invalid(Options(), "key 0 (kid \"bad\")");

  JwtOptions missing = Options();
  missing.jwks_file = dir_ + "/absent.json";
  auto r = JwtVerifier::Create(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("absent.json"), std::string::npos);
}

// ---- JWKS over loopback HTTP, and over HTTPS ----------------------------------------------
// (which URLs are accepted: jwks_fetch_test.cc)

// A JWKS served by quiver's own HttpServer on an ephemeral port.
class JwtUrlServerTest : public JwtTest {
 protected:
  void SetUp() override {
    JwtTest::SetUp();
    Serve({K().rsa.Jwk("rsa-1")});
    HttpServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    options.threads = 2;
    auto http = HttpServer::Start(
        options,
        [this](HttpRequest& request) {
          HttpResponse response;
          std::lock_guard lock(mu_);
          ++hits_;
          if (request.method != "GET" || request.path != "/keys") {
            response.status = 404;
            response.body = "{}";
          } else {
            response.body = served_;
          }
          return response;
        },
        [](TransportError, const std::string&) {
          return HttpResponse{400, "", "", {}};
        });
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::move(*http);
    url_ = "http://127.0.0.1:" + std::to_string(http_->port()) + "/keys";
  }
  void TearDown() override {
    StopHttp();
    JwtTest::TearDown();
  }
  void StopHttp() {
    if (http_) {
      http_->Shutdown();
      http_->Wait();
      http_.reset();
    }
  }
  void Serve(std::vector<json> keys) {
    std::lock_guard lock(mu_);
    served_ = json{{"keys", keys}}.dump();
  }
  int Hits() {
    std::lock_guard lock(mu_);
    return hits_;
  }
  JwtOptions UrlOptions(const std::string& url) {
    JwtOptions o = Options();
    o.jwks_file.clear();
    o.jwks_url = url;
    return o;
  }

  std::mutex mu_;
  std::string served_;  // guarded by mu_
  int hits_ = 0;        // guarded by mu_
  std::unique_ptr<HttpServer> http_;
  std::string url_;
};

TEST_F(JwtUrlServerTest, JwksServedOverLoopbackWorksAndRotates) {
  auto v = Make(UrlOptions(url_));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(Hits(), 1);
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", Claims()));
  EXPECT_EQ(Hits(), 1);  // known kids never fetch

  Serve({K().rsa.Jwk("rsa-1"), K().ec.Jwk("ec-2")});
  ExpectRejected(*v, Mint(K().ec, "ec-2", Claims(Now())), "unknown kid");
  EXPECT_EQ(Hits(), 1);
  clock_.Advance(std::chrono::seconds(31));
  ExpectAccepted(*v, Mint(K().ec, "ec-2", Claims(Now())));
  EXPECT_EQ(Hits(), 2);

  // localhost names the same server.
  auto by_name = Make(UrlOptions("http://localhost:" + std::to_string(http_->port()) + "/keys"));
  ASSERT_NE(by_name, nullptr);
  ExpectAccepted(*by_name, Mint(K().ec, "ec-2", Claims(Now())));

  // The server goes away: reloading fails, the keys already loaded keep working.
  StopHttp();
  Status reload = v->Reload();
  EXPECT_TRUE(reload.IsIOError()) << reload.ToString();
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", Claims(Now())));
}

TEST_F(JwtUrlServerTest, FetchFailuresAreReported) {
  auto missing = JwtVerifier::Create(
      UrlOptions("http://127.0.0.1:" + std::to_string(http_->port()) + "/nothing-here"));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsIOError()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("404"), std::string::npos);

  Serve({K().rsa_weak.Jwk("weak")});
  auto weak = JwtVerifier::Create(UrlOptions(url_));
  ASSERT_FALSE(weak.ok());
  EXPECT_EQ(weak.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(weak.status().message().find(url_), std::string::npos) << weak.status().ToString();

  internal::FetchOptions fetch;
  auto fetched = internal::FetchJwksUrl(url_, fetch);
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  EXPECT_EQ(json::parse(*fetched)["keys"][0]["kid"], "weak");
}

// An identity provider over HTTPS (an OIDC issuer's jwks_uri), trusted through jwks_ca_file:
// keys load, tokens verify, rotation re-fetches; without the CA nothing loads.
TEST_F(JwtTest, JwksServedOverHttpsVerifiesTokens) {
  auto certificate = testing::MakeSelfSignedCertificate({"DNS:localhost", "IP:127.0.0.1"});
  std::string ca_file = dir_ + "/idp-ca.pem";
  std::ofstream(ca_file) << certificate.cert_pem;
  auto idp = testing::TlsTestServer::Start(certificate, "/.well-known/jwks.json",
                                           json{{"keys", {K().rsa.Jwk("rsa-1")}}}.dump());
  ASSERT_NE(idp, nullptr);
  JwtOptions o = Options();
  o.jwks_file.clear();
  o.jwks_url = "https://localhost:" + std::to_string(idp->port()) + "/.well-known/jwks.json";
  o.jwks_ca_file = ca_file;
  auto v = Make(o);
  ASSERT_NE(v, nullptr);
  ExpectAccepted(*v, Mint(K().rsa, "rsa-1", Claims()));
  idp->SetBody(json{{"keys", {K().rsa.Jwk("rsa-1"), K().ec.Jwk("ec-2")}}}.dump());
  clock_.Advance(std::chrono::seconds(31));
  ExpectAccepted(*v, Mint(K().ec, "ec-2", Claims(Now())));
  EXPECT_EQ(idp->hits(), 2);

  o.jwks_ca_file.clear();  // the system's CA store does not trust the test certificate
  auto untrusted = JwtVerifier::Create(o);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_TRUE(untrusted.status().IsIOError()) << untrusted.status().ToString();
}

// A key created with a bearer token expires no later than the token: a token that lives minutes
// must not turn into a key that never expires.
TEST_F(JwtTest, AKeyMintedWithATokenExpiresNoLaterThanIt) {
  auto verifier = MakeStandard();
  ASSERT_NE(verifier, nullptr);
  auto catalog = catalog::Catalog::Open(MemoryObjectStore::Create(), {});
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  catalog::AccessOptions options;
  options.clock = &clock_;
  auto access = catalog::AccessControl::Open(**catalog, options);
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  Authenticator auth(true, (*access)->api_keys(),
                     std::shared_ptr<const JwtVerifier>(std::move(verifier)));
  NamespaceService service(**catalog, **access, auth, nullptr, &clock_);
  const int64_t exp_ms = (Now() + 300) * 1000;  // Claims: exp = now + 300
  const std::string token = Mint(K().rsa, "rsa-1", Claims(Now()));
  auto mint = [&](const json& body) {
    HttpRequest request;
    request.method = "POST";
    request.target = request.path = "/v1/access/api-keys";
    request.body = body.dump();
    request.headers["authorization"] = "Bearer " + token;
    request.headers["content-type"] = "application/json";
    request.remote = "127.0.0.1:1";
    return service.Handle(request);
  };
  HttpResponse minted = mint(json::object());
  ASSERT_EQ(minted.status, 200) << minted.body;
  json key = json::parse(minted.body);
  EXPECT_EQ(key.value("expires_at_ms", int64_t{0}), exp_ms) << minted.body;
  EXPECT_EQ(mint({{"expires_at_ms", exp_ms + 1}}).status, 400);
  HttpResponse sooner = mint({{"expires_at_ms", exp_ms - 60'000}});
  EXPECT_EQ(sooner.status, 200) << sooner.body;
  // The key stops working with the token.
  EXPECT_TRUE((*access)->api_keys().Verify(key["key"].get<std::string>()).ok());
  clock_.Advance(std::chrono::seconds(301));
  EXPECT_FALSE((*access)->api_keys().Verify(key["key"].get<std::string>()).ok());
}

}  // namespace
}  // namespace quiver::server
