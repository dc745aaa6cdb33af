#include "catalog/object_id.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/registry.h"
#include "store/key.h"
#include "store/memory_store.h"

namespace quiver::catalog {
namespace {

TEST(ObjectIdTest, NamesFollowTheRules) {
  EXPECT_TRUE(ValidateName("users", "table").ok());
  EXPECT_TRUE(ValidateName("with space+plus$dollar", "table").ok());
  EXPECT_TRUE(ValidateName("ünïcødé", "table").ok());
  for (std::string bad :
       {std::string(""), std::string("."), std::string(".."), std::string("a/b"),
        std::string("a\\b"), std::string("a\0b", 3), std::string("tab\t"),
        std::string(kMaxNameBytes + 1, 'x'), std::string("\xff\xfe"), std::string("\xc0\xaf")}) {
    Status s = ValidateName(bad, "table");
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput) << bad;
  }
  EXPECT_TRUE(ValidateName(std::string(kMaxNameBytes, 'x'), "table").ok());
}

TEST(ObjectIdTest, IdsAreCheckedElementByElement) {
  EXPECT_TRUE(ValidateId({}, "namespace", true).ok());
  EXPECT_EQ(ValidateId({}, "table", false).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ValidateId({"a", ""}, "table", false).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ValidateId(ObjectId(kMaxIdDepth + 1, "a"), "namespace", false).code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(JoinId({"a", "b", "c"}), "a$b$c");
  EXPECT_EQ(JoinId({"a", "b"}, "::"), "a::b");
  EXPECT_EQ(JoinId({}), "");
}

TEST(ObjectIdTest, Utf8CheckRejectsMalformedSequences) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("\xe2\x82\xac"));       // €
  EXPECT_TRUE(IsValidUtf8("\xf0\x9f\x98\x80"));   // emoji
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\x80"));
}

// The registry's listings are sorted by key; names must come back in byte order.
TEST(ObjectIdTest, EncodingKeepsByteOrderWithTheJsonSuffix) {
  std::mt19937 rng(7);
  std::vector<std::string> names = {"a", "a-b", "a.b", "a b", "ab", "a_b", "A", "z", "\xc3\xa9"};
  for (int i = 0; i < 500; ++i) {
    std::string n(1 + rng() % 6, 'x');
    for (char& c : n) c = static_cast<char>(0x20 + rng() % 0x5f);
    names.push_back(n);
  }
  std::vector<std::string> keys;
  for (const std::string& n : names) keys.push_back("@" + EncodeName(n) + ".json");
  std::vector<std::string> by_name = names;
  std::sort(by_name.begin(), by_name.end());
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> decoded;
  for (const std::string& k : keys) {
    std::string name;
    ASSERT_TRUE(DecodeName(k.substr(1, k.size() - 6), &name).ok());
    decoded.push_back(name);
  }
  EXPECT_EQ(decoded, by_name);
  std::string out;
  EXPECT_FALSE(DecodeName("abc", &out).ok());
  EXPECT_FALSE(DecodeName("zz", &out).ok());
}

// Every record key of an id that passes ValidateScopedId fits the store's key limits; a longer
// id is refused by the create checks (naming the limit, no storage key) and is merely missing
// for lookups, which the registry answers NotFound without asking the store.
TEST(ObjectIdTest, IdsThatPassFitTheStoresKeysAndLongerOnesAreMissing) {
  // 8 levels, 360 bytes together, under a 120-byte project name.
  ObjectId longest = {std::string(kMaxNameBytes, 'p'),
                      std::string(120, 'a'),
                      std::string(120, 'b'),
                      std::string(115, 'c'),
                      "d",
                      "e",
                      "f",
                      "g",
                      "h"};
  ASSERT_TRUE(ValidateScopedId(longest, "table", false).ok())
      << ValidateScopedId(longest, "table", false).ToString();
  for (RecordKind kind : {RecordKind::kNamespace, RecordKind::kTable}) {
    EXPECT_TRUE(ValidateKey(Registry::RecordKey(kind, longest)).ok());
  }
  ObjectId too_long = {"p", std::string(kMaxNameBytes, 'a'), std::string(kMaxNameBytes, 'b'),
                       std::string(kMaxNameBytes, 'c'), "d"};
  Status refused = ValidateScopedId(too_long, "table", false);
  EXPECT_TRUE(refused.IsInvalidInput());
  EXPECT_NE(refused.message().find("at most 360"), std::string::npos) << refused.ToString();
  EXPECT_TRUE(ValidateScopedLookupId(too_long, "table", false).ok());
  EXPECT_TRUE(ValidateScopedId({"p", std::string(kMaxNameBytes + 1, 'a')}, "table", false)
                  .IsInvalidInput());
  EXPECT_TRUE(ValidateScopedLookupId({"p", std::string(500, 'a')}, "table", false).ok());
  EXPECT_TRUE(ValidateScopedLookupId({"p", "a/b"}, "table", false).IsInvalidInput());
  // The registry: a record no store could hold is simply not there.
  auto store = MemoryObjectStore::Create();
  auto registry = Registry::Open(store, nullptr);
  ASSERT_TRUE(registry.ok()) << registry.status().ToString();
  ObjectId unstorable = {"p", std::string(300, 'a')};
  EXPECT_TRUE((*registry)->Get(RecordKind::kTable, unstorable).status().IsNotFound());
  auto exists = (*registry)->Exists(RecordKind::kTable, unstorable);
  ASSERT_TRUE(exists.ok()) << exists.status().ToString();
  EXPECT_FALSE(*exists);
  EXPECT_TRUE((*registry)->ListChildren(RecordKind::kTable, unstorable, "", 10)->names.empty());
  auto created = (*registry)->Create(RecordKind::kTable, unstorable, nlohmann::json::object());
  EXPECT_TRUE(created.status().IsInvalidInput());
  EXPECT_EQ(created.status().message().find("_quiver"), std::string::npos);
}

}  // namespace
}  // namespace quiver::catalog
