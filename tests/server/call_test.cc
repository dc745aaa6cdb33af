#include "server/call.h"

#include <gtest/gtest.h>

namespace quiver::server {
namespace {

TEST(CallTest, IdsSplitOnTheWholeDelimiter) {
  EXPECT_EQ(*SplitId("a$b$c", "$"), (catalog::ObjectId{"a", "b", "c"}));
  EXPECT_EQ(*SplitId("a::b", "::"), (catalog::ObjectId{"a", "b"}));
  EXPECT_EQ(*SplitId("a:b", "::"), (catalog::ObjectId{"a:b"}));
  EXPECT_TRUE(SplitId("$", "$")->empty());
  EXPECT_TRUE(SplitId("::", "::")->empty());
  EXPECT_TRUE(SplitId("", "$")->empty());
  for (std::string bad : {"a$$b", "$a", "a$"}) {
    EXPECT_EQ(SplitId(bad, "$").status().code(), StatusCode::kInvalidInput) << bad;
  }
}

TEST(CallTest, EnumsIgnoreCaseAndSeparators) {
  EXPECT_EQ(NormalizeEnum("ExistOk"), "existok");
  EXPECT_EQ(NormalizeEnum("exist_ok"), "existok");
  EXPECT_EQ(NormalizeEnum("EXIST-OK"), "existok");
}

TEST(CallTest, EnumChoicesAnswerTheirIndexOrNameTheChoices) {
  EXPECT_EQ(*ParseEnumChoice("mode", std::nullopt, {"Create", "ExistOk"}), std::nullopt);
  EXPECT_EQ(*ParseEnumChoice("mode", "exist_ok", {"Create", "ExistOk"}), size_t{1});
  EXPECT_EQ(*ParseEnumChoice("mode", "CREATE", {"Create", "ExistOk"}), size_t{0});
  auto bad = ParseEnumChoice("mode", "Sideways", {"Create", "ExistOk", "Overwrite"});
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bad.status().message(), "'mode' must be Create, ExistOk or Overwrite, not 'Sideways'");
  EXPECT_EQ(ParseEnumChoice("behavior", "x", {"Restrict", "Cascade"}).status().message(),
            "'behavior' must be Restrict or Cascade, not 'x'");
}

class ParseCallTest : public ::testing::Test {
 protected:
  Result<Call> Parse(const std::string& op, const std::string& id, const std::string& body,
                     std::multimap<std::string, std::string> query = {}) {
    http_.body = body;
    http_.query = std::move(query);
    RouteMatch match;
    match.op = FindOperation(op);
    match.id = id;
    return ParseCall(http_, match, "rid");
  }
  HttpRequest http_;
};

TEST_F(ParseCallTest, BodiesMayBeEmptyNullOrTheModel) {
  for (std::string body : {"", "null", "  null \n", "{}"}) {
    auto call = Parse("ListTableVersions", "t", body);
    ASSERT_TRUE(call.ok()) << body;
    EXPECT_TRUE(call->body.is_object());
  }
  EXPECT_EQ(Parse("DescribeTable", "t", "{bad").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Parse("DescribeTable", "t", "[1]").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Parse("DescribeTable", "t", "\"s\"").status().code(), StatusCode::kInvalidInput);
}

TEST_F(ParseCallTest, BodyIdMustMatchThePath) {
  EXPECT_TRUE(Parse("DescribeTable", "a$t", R"({"id":["a","t"]})").ok());
  auto mismatch = Parse("DescribeTable", "a$t", R"({"id":["a","u"]})");
  EXPECT_EQ(mismatch.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Parse("DescribeTable", "t", R"({"id":"t"})").status().code(),
            StatusCode::kInvalidInput);
  auto custom = Parse("DescribeTable", "a.t", R"({"id":["a","t"]})", {{"delimiter", "."}});
  ASSERT_TRUE(custom.ok());
  EXPECT_EQ(custom->id, (catalog::ObjectId{"a", "t"}));
}

TEST_F(ParseCallTest, IdentityHeadersWinOverTheBody) {
  http_.headers["authorization"] = "Bearer tok";
  auto call = Parse("DescribeTable", "t", R"({"identity":{"api_key":"k"}})");
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->principal.kind, Principal::Kind::kBearer);
  EXPECT_EQ(call->principal.credential, "tok");
  http_.headers.clear();
  http_.headers["x-lance-ctx-trace"] = "abc";
  call = Parse("DescribeTable", "t", R"({"identity":{"api_key":"k"},"context":{"x":"y"}})");
  EXPECT_EQ(call->principal.kind, Principal::Kind::kApiKey);
  EXPECT_EQ(call->context.at("trace"), "abc");
  EXPECT_EQ(call->context.at("x"), "y");
}

TEST_F(ParseCallTest, TypedFieldsNameTheBadField) {
  auto call = Parse("DescribeTable", "t", R"({"version":"three","with_table_uri":1})");
  ASSERT_TRUE(call.ok());
  auto v = call->Int("version");
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(v.status().message().find("'version'"), std::string::npos);
  EXPECT_EQ(call->Bool("with_table_uri").status().code(), StatusCode::kInvalidInput);
  http_.query = {{"load_detailed_metadata", "yes"}};
  EXPECT_EQ(call->QueryBool("load_detailed_metadata").status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace quiver::server
