#include "common/json.h"

#include <string>

#include <gtest/gtest.h>

namespace quiver {
namespace {

std::string Nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(ParseJsonTest, ParsesValuesOfEveryType) {
  auto v = ParseJson(R"( {"a": [1, -2, 18446744073709551615, 1.5, "s", true, null], "b": {}} )");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["a"][0], 1);
  EXPECT_EQ((*v)["a"][1], -2);
  EXPECT_TRUE((*v)["a"][2].is_number_unsigned());
  EXPECT_EQ((*v)["a"][3], 1.5);
  EXPECT_EQ((*v)["a"][4], "s");
  EXPECT_EQ((*v)["a"][5], true);
  EXPECT_TRUE((*v)["a"][6].is_null());
  EXPECT_TRUE((*v)["b"].is_object());
  EXPECT_EQ(*v, nlohmann::json::parse(v->dump()));
  // Scalars at the top are values too.
  ASSERT_TRUE(ParseJson("7").ok());
  EXPECT_EQ(*ParseJson("7"), 7);
  EXPECT_EQ(*ParseJson("\"x\""), "x");
}

TEST(ParseJsonTest, RejectsMalformedText) {
  for (const char* bad : {"", " ", "{", "[1,]", "{\"a\":1,}", "{} x", "nul", "1e999", "\"\\x\""}) {
    auto v = ParseJson(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_TRUE(v.status().IsInvalidInput()) << bad;
    EXPECT_NE(v.status().message().find("not valid JSON"), std::string::npos)
        << v.status().message();
    EXPECT_EQ(v.status().message().find("[json.exception"), std::string::npos)
        << v.status().message();
  }
}

TEST(ParseJsonTest, DepthIsBounded) {
  ASSERT_TRUE(ParseJson(Nested(kDefaultMaxJsonDepth)).ok());
  auto deep = ParseJson(Nested(kDefaultMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_TRUE(deep.status().IsInvalidInput());
  EXPECT_NE(deep.status().message().find("nested deeper than 64 levels"), std::string::npos)
      << deep.status().message();
  // Objects count as arrays do.
  std::string objects;
  for (size_t i = 0; i < kDefaultMaxJsonDepth + 1; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kDefaultMaxJsonDepth + 1, '}');
  EXPECT_FALSE(ParseJson(objects).ok());
  // A limit of the caller's choosing.
  EXPECT_TRUE(ParseJson("[[1]]", {.max_depth = 2}).ok());
  EXPECT_FALSE(ParseJson("[[[1]]]", {.max_depth = 2}).ok());
  EXPECT_FALSE(ParseJson("[]", {.max_depth = 0}).ok());
  EXPECT_TRUE(ParseJson("1", {.max_depth = 0}).ok());
}

// What used to crash the server: a value far deeper than any stack. Refused, not recursed into,
// and even unterminated text is refused at the first level too deep.
TEST(ParseJsonTest, HundredThousandLevelsAreRefused) {
  for (const std::string& text :
       {Nested(100'000), std::string(100'000, '['), "{\"t\":" + Nested(100'000) + "}"}) {
    auto v = ParseJson(text);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.status().message().find("nested deeper than"), std::string::npos)
        << v.status().message();
  }
}

// The parsed value costs 20-30x its text for small values: the count of values is bounded too,
// so an 8 MiB `[{},{},...]` body (2.8 million values, ~220 MiB parsed) is refused.
TEST(ParseJsonTest, TheNumberOfValuesIsBounded) {
  std::string many = "[";
  for (int i = 0; i < 2'800'000; ++i) many += i == 0 ? "{}" : ",{}";
  many += "]";
  auto refused = ParseJson(many);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("more than 1000000 values"), std::string::npos)
      << refused.status().ToString();
  JsonLimits three;
  three.max_values = 3;
  EXPECT_TRUE(ParseJson("[1, 2]", three).ok());                // the array and its two elements
  EXPECT_FALSE(ParseJson("[1, 2, 3]", three).ok());            // four values
  EXPECT_TRUE(ParseJson(R"({"a": {}, "b": 1})", three).ok());  // the object, {} and 1
  EXPECT_FALSE(ParseJson(R"({"a": {}, "b": 1, "c": 2})", three).ok());
}

TEST(ParseJsonTest, DuplicateKeysAreRefusedAtAnyDepth) {
  auto top = ParseJson(R"({"auth": true, "root": "x", "auth": false})");
  ASSERT_FALSE(top.ok());
  EXPECT_TRUE(top.status().IsInvalidInput());
  EXPECT_NE(top.status().message().find("duplicate key 'auth'"), std::string::npos)
      << top.status().message();
  auto inner = ParseJson(R"({"a": [{"id": 1, "id": 2}]})");
  ASSERT_FALSE(inner.ok());
  EXPECT_NE(inner.status().message().find("'id'"), std::string::npos);
  // The same key in different objects is fine.
  EXPECT_TRUE(ParseJson(R"({"id": 1, "x": {"id": 2}, "y": [{"id": 3}, {"id": 4}]})").ok());
  // Opt out: the last value wins, as nlohmann would have it.
  auto last = ParseJson(R"({"a": 1, "a": 2})", {.reject_duplicate_keys = false});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ((*last)["a"], 2);
  // A long key is quoted bounded.
  std::string key(10'000, 'k');
  auto long_key = ParseJson("{\"" + key + "\":1,\"" + key + "\":2}");
  ASSERT_FALSE(long_key.ok());
  EXPECT_LT(long_key.status().message().size(), 200u);
}

TEST(ParseJsonTest, OrderedKeepsTheTextsKeyOrder) {
  auto v = ParseOrderedJson(R"({"z": 1, "a": {"y": 2, "b": 3}})");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->dump(), R"({"z":1,"a":{"y":2,"b":3}})");
  EXPECT_FALSE(ParseOrderedJson(R"({"z": 1, "z": 2})").ok());
  EXPECT_FALSE(ParseOrderedJson(Nested(100'000)).ok());
}

// nlohmann's get<int64_t>() wraps an unsigned value above INT64_MAX to a negative one.
TEST(JsonToInt64Test, OnlyIntegersThatFit) {
  EXPECT_EQ(JsonToInt64(nlohmann::json(-5)), -5);
  EXPECT_EQ(JsonToInt64(nlohmann::json(uint64_t{9223372036854775807u})), INT64_MAX);
  EXPECT_EQ(JsonToInt64(nlohmann::json(uint64_t{9223372036854775808u})), std::nullopt);
  EXPECT_EQ(JsonToInt64(*ParseJson("18446744073709551615")), std::nullopt);
  EXPECT_EQ(JsonToInt64(nlohmann::json(1.0)), std::nullopt);
  EXPECT_EQ(JsonToInt64(nlohmann::json("1")), std::nullopt);
  EXPECT_EQ(JsonToInt64(nlohmann::json(true)), std::nullopt);
}

}  // namespace
}  // namespace quiver
