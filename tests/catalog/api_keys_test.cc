// API keys: shown once, stored only as a salted hash, bound to a principal, expiring and
// revocable; verification answers one message for every failure.
#include "catalog/api_keys.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "store/memory_store.h"

namespace quiver::catalog {
namespace {

class ApiKeysTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create({.clock = &clock_});
  ApiKeyStore keys_{store_, &clock_, std::chrono::seconds(5)};
};

void ExpectRefused(const Result<std::string>& verified, const std::string& reason,
                   const std::string& want_reason) {
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(verified.status().message(), "invalid API key");
  EXPECT_NE(reason.find(want_reason), std::string::npos) << reason;
}

TEST_F(ApiKeysTest, AKeyVerifiesToItsPrincipalAndIsStoredOnlyAsASaltedHash) {
  auto created = keys_.Create("user:alice", std::nullopt, "laptop", "user:root");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->key.size(), 3u + 16 + 1 + 43);
  EXPECT_EQ(*keys_.Verify(created->key), "user:alice");
  EXPECT_EQ(*keys_.Verify(created->key), "user:alice");  // cached, same answer
  std::string secret = created->key.substr(20);
  auto all = store_->ListAll("");
  for (const ObjectMeta& m : *all) {
    EXPECT_EQ(store_->Get(m.key)->data.find(secret), std::string::npos) << m.key;
  }
  // Two keys of one principal get different salts.
  auto second = keys_.Create("user:alice", std::nullopt, "", "user:root");
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->key, created->key);
  EXPECT_EQ(keys_.List(std::string("user:alice"))->size(), 2u);
  EXPECT_TRUE(keys_.List(std::string("user:bob"))->empty());
}

TEST_F(ApiKeysTest, EveryFailureIsTheSameAnswer) {
  auto created = keys_.Create("user:alice", std::nullopt, "", "user:root");
  ASSERT_TRUE(created.ok());
  std::string reason;
  std::string wrong = created->key;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  ExpectRefused(keys_.Verify(wrong, &reason), reason, "wrong secret");
  // The right key still works after a wrong one (a failure is never cached as verified).
  EXPECT_TRUE(keys_.Verify(created->key).ok());
  ExpectRefused(keys_.Verify(wrong, &reason), reason, "wrong secret");
  ExpectRefused(keys_.Verify("qv_0123456789abcdef_" + std::string(43, 'x'), &reason), reason,
                "unknown");
  ExpectRefused(keys_.Verify("not a key", &reason), reason, "malformed");
  ExpectRefused(keys_.Verify("qv_0123456789ABCDEF_" + std::string(43, 'x'), &reason), reason,
                "malformed");
}

TEST_F(ApiKeysTest, ExpiryAndRevocation) {
  auto expiring = keys_.Create("user:alice", clock_.NowMillis() + 60'000, "", "user:root");
  ASSERT_TRUE(expiring.ok());
  EXPECT_TRUE(keys_.Verify(expiring->key).ok());
  clock_.Advance(std::chrono::seconds(61));
  std::string reason;
  ExpectRefused(keys_.Verify(expiring->key, &reason), reason, "expired");
  EXPECT_EQ(keys_.Create("user:alice", clock_.NowMillis() - 1, "", "").status().code(),
            StatusCode::kInvalidInput);

  auto revoked = keys_.Create("user:bob", std::nullopt, "", "user:root");
  ASSERT_TRUE(revoked.ok());
  EXPECT_TRUE(keys_.Verify(revoked->key).ok());
  ASSERT_TRUE(keys_.Revoke(revoked->info.key_id, "user:root").ok());
  ExpectRefused(keys_.Verify(revoked->key, &reason), reason, "revoked");  // at once, here
  EXPECT_TRUE(keys_.Revoke(revoked->info.key_id, "user:root").ok());      // idempotent
  EXPECT_EQ(keys_.Revoke("0123456789abcdef", "user:root").status().code(),
            StatusCode::kInvalidInput);
}

TEST_F(ApiKeysTest, ARevocationByAnotherServerCountsWithinTheCacheLifetime) {
  ApiKeyStore other(store_, &clock_, std::chrono::seconds(5));
  auto created = keys_.Create("user:alice", std::nullopt, "", "user:root");
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(keys_.Verify(created->key).ok());
  ASSERT_TRUE(other.Revoke(created->info.key_id, "user:root").ok());
  EXPECT_TRUE(keys_.Verify(created->key).ok());  // still cached here
  clock_.Advance(std::chrono::seconds(6));
  EXPECT_FALSE(keys_.Verify(created->key).ok());
}

TEST_F(ApiKeysTest, PrincipalsAreUsersAndNeverTheReservedOnes) {
  for (const char* bad :
       {"alice", "user:", "user:*", "user:anonymous", "group:x", "user:a\nb", "user:bob#1"}) {
    EXPECT_EQ(keys_.Create(bad, std::nullopt, "", "").status().code(), StatusCode::kInvalidInput)
        << bad;
  }
  EXPECT_TRUE(store_->ListAll("_quiver/access/")->empty());
}

// A key minted with a key expires no later than it and dies with it: revoking any key of the
// chain (or losing its record) makes every key minted from it refuse, at verification.
TEST_F(ApiKeysTest, AKeyMintedWithAKeyIsBoundToItsChain) {
  const int64_t hour_ms = 3'600'000;
  auto root = keys_.Create("user:alice", clock_.NowNanos() / 1'000'000 + hour_ms, "", "user:root");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  auto child = keys_.Create("user:alice", std::nullopt, "", "user:alice", root->info.key_id);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(child->info.expires_at_ms, root->info.expires_at_ms);  // the parent's expiry
  EXPECT_EQ(child->info.minted_with, std::vector<std::string>{root->info.key_id});
  auto grandchild = keys_.Create("user:alice", std::nullopt, "", "user:alice", child->info.key_id);
  ASSERT_TRUE(grandchild.ok()) << grandchild.status().ToString();
  EXPECT_EQ(grandchild->info.minted_with,
            (std::vector<std::string>{child->info.key_id, root->info.key_id}));
  // Not later than the parent.
  auto later = keys_.Create("user:alice", *root->info.expires_at_ms + 1, "", "user:alice",
                            root->info.key_id);
  EXPECT_EQ(later.status().code(), StatusCode::kInvalidInput) << later.status().ToString();
  EXPECT_EQ(*keys_.Verify(grandchild->key), "user:alice");
  auto verified = keys_.VerifyKey(grandchild->key);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->key_id, grandchild->info.key_id);
  EXPECT_EQ(verified->expires_at_ms, root->info.expires_at_ms);

  // Revoking the root kills the whole chain, at once on this server.
  ASSERT_TRUE(keys_.Revoke(root->info.key_id, "user:alice").ok());
  for (const CreatedApiKey* k : {&*child, &*grandchild}) {
    std::string reason;
    ExpectRefused(keys_.Verify(k->key, &reason), reason, "which is revoked");
  }
  // A chain is only as long as kMaxKeyChain.
  auto start = keys_.Create("user:bob", std::nullopt, "", "user:root");
  ASSERT_TRUE(start.ok());
  std::string parent = start->info.key_id;
  for (size_t depth = 1; depth <= kMaxKeyChain; ++depth) {
    auto next = keys_.Create("user:bob", std::nullopt, "", "user:bob", parent);
    ASSERT_TRUE(next.ok()) << depth << ": " << next.status().ToString();
    parent = next->info.key_id;
  }
  EXPECT_EQ(keys_.Create("user:bob", std::nullopt, "", "user:bob", parent).status().code(),
            StatusCode::kInvalidInput);
}

TEST_F(ApiKeysTest, AKeyWhoseParentRecordIsGoneIsRefused) {
  auto parent = keys_.Create("user:alice", std::nullopt, "", "user:root");
  ASSERT_TRUE(parent.ok());
  auto child = keys_.Create("user:alice", std::nullopt, "", "user:alice", parent->info.key_id);
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(store_->Delete("_quiver/access/keys/" + parent->info.key_id + ".json").ok());
  clock_.Advance(std::chrono::seconds(6));  // past the cache
  std::string reason;
  ExpectRefused(keys_.Verify(child->key, &reason), reason, "which is gone");
}

}  // namespace
}  // namespace quiver::catalog
