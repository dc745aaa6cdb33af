// Hostile shapes and numbers in request bodies (issue 13): a value nested deeper than any stack,
// a repeated key, a number whose arithmetic overflows. Each gets the spec's 400 error body and
// the server goes on serving; nothing is written.
#include <limits>
#include <string>

#include "authz_fixture.h"

namespace quiver::server::testing {
namespace {

class BoundedInputTest : public AuthzFixture {};

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

bool Says(const Reply& reply, const std::string& text) {
  return reply.body.find(text) != std::string::npos;
}

// A 100,000-level tuple used to end the process: the tuple was refused, and the refusal quoted it
// with json::dump(), which recursed once per level.
TEST_F(BoundedInputTest, DeeplyNestedTupleIsRefusedAndTheServerGoesOn) {
  StartAuthServer({});
  auto before = Snapshot();
  for (const std::string& body : {R"({"writes":[)" + Nested(100'000) + "]}",
                                  R"({"writes":[{"subject":)" + Nested(100'000) + "}]}"}) {
    Reply reply = Root({"POST", "/v1/access/tuples", body}, 400);
    ExpectError(reply, 400, 13);
    EXPECT_TRUE(Says(reply, "nested deeper than 64 levels")) << Show(reply);
    // Still serving.
    EXPECT_EQ(Root({"GET", "/v1/access/whoami", ""}).status, 200);
  }
  ExpectError(
      Root({"POST", "/v1/access/tuples/delete", R"({"deletes":[)" + Nested(100'000) + "]}"}, 400),
      400, 13);
  EXPECT_EQ(Snapshot(), before);
  // A tuple nested within the bound is an ordinary bad tuple.
  Reply shallow = Root({"POST", "/v1/access/tuples", R"({"writes":[)" + Nested(60) + "]}"}, 400);
  ExpectError(shallow, 400, 13);
  EXPECT_FALSE(Says(shallow, "nested deeper")) << Show(shallow);
}

// Every JSON body is parsed by the same bounded parser, whatever the operation does with it.
TEST_F(BoundedInputTest, DeeplyNestedValueInAnyBodyIsRefused) {
  StartAuthServer({});
  auto before = Snapshot();
  const std::string deep = Nested(100'000);
  for (const Request& request : std::vector<Request>{
           {"POST", "/v1/namespace/deep/create", R"({"properties":{"a":)" + deep + "}}"},
           {"POST", "/v1/namespace/deep/create", R"({"unknown":)" + deep + "}"},
           {"POST", "/v1/access/check", R"({"permission":"can_read_data","object":)" + deep + "}"},
           {"POST", "/v1/access/api-keys", R"({"description":)" + deep + "}"},
           {"POST", "/v1/projects", deep},
       }) {
    Reply reply = Root(request, 400);
    ExpectError(reply, 400, 13, request.target);
    EXPECT_TRUE(Says(reply, "nested deeper than")) << request.target << ": " << Show(reply);
  }
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(Root({"POST", "/v1/namespace/deep/create"}).status, 200);
}

// Records read back from storage are parsed by the same bounded parser: anyone who can write to
// a table's storage can plant a ref file. A tag whose metadata nested 100,000 levels deep ended
// the process when UpdateTableTag carried the metadata over (a recursive copy and dump); now the
// tag is reported corrupt and the server goes on.
TEST_F(BoundedInputTest, PlantedDeeplyNestedTagFileIsCorruptionNotACrash) {
  StartAuthServer({});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  auto info = catalog_->GetTable(Scoped({"ns", "t"}));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  const std::string key = info->location + "/_refs/tags/deep.json";
  const std::string planted =
      R"({"version":1,"manifestSize":1,"metadata":{"a":)" + Nested(100'000) + "}}";
  ASSERT_TRUE(memory_->Put(key, planted, PutOptions()).ok());
  Reply update =
      Root({"POST", "/v1/table/ns%24t/tags/update", R"({"tag":"deep","version":1})"}, 500);
  EXPECT_TRUE(Says(update, "nested deeper than")) << Show(update);
  EXPECT_TRUE(Says(update, "deep.json")) << Show(update);
  EXPECT_EQ(memory_->Get(key)->data, planted);  // nothing rewritten
  EXPECT_EQ(Root({"GET", "/v1/access/whoami", ""}).status, 200);
}

// Two `id` fields (or two of anything) are ambiguous: a proxy or an audit log reading the first
// and quiver the last would disagree about what was asked. Refused at any depth.
TEST_F(BoundedInputTest, RepeatedKeysInABodyAreRefused) {
  StartAuthServer({});
  Root({"POST", "/v1/namespace/a/create"});
  Root({"POST", "/v1/namespace/b/create"});
  auto before = Snapshot();
  // The last `id` matches the path: nlohmann alone would have described `a` without a word.
  Reply two_ids = Root({"POST", "/v1/namespace/a/describe", R"({"id":["b"],"id":["a"]})"}, 400);
  ExpectError(two_ids, 400, 13);
  EXPECT_TRUE(Says(two_ids, "duplicate key 'id'")) << Show(two_ids);
  Reply nested =
      Root({"POST", "/v1/namespace/c/create", R"({"properties":{"owner":"x","owner":"y"}})"}, 400);
  EXPECT_TRUE(Says(nested, "duplicate key 'owner'")) << Show(nested);
  EXPECT_EQ(Snapshot(), before);
}

// expires_in_seconds * 1000 used to overflow (undefined; in practice a key expired at once or in
// the distant past, created with 200).
TEST_F(BoundedInputTest, ApiKeyLifetimeOverflowIsRefused) {
  StartAuthServer({});
  auto before = Snapshot();
  for (const std::string& n : {std::to_string(std::numeric_limits<int64_t>::max()),
                               std::string("9223372036854776"), std::string("3155760001")}) {
    Reply reply = Root({"POST", "/v1/access/api-keys", R"({"expires_in_seconds":)" + n + "}"}, 400);
    ExpectError(reply, 400, 13, n);
    EXPECT_TRUE(Says(reply, "expires_in_seconds")) << Show(reply);
  }
  // Beyond int64 (an unsigned JSON number, or one only a double holds).
  for (const char* n : {"18446744073709551615", "1e300"}) {
    ExpectError(
        Root({"POST", "/v1/access/api-keys", std::string(R"({"expires_in_seconds":)") + n + "}"},
             400),
        400, 13, n);
  }
  EXPECT_EQ(Snapshot(), before);
  // The longest accepted lifetime: 100 years.
  Reply longest = Root({"POST", "/v1/access/api-keys", R"({"expires_in_seconds":3155760000})"});
  EXPECT_TRUE(longest.Json().contains("expires_at_ms")) << longest.body;
}

// The version page token was read with std::stoull: "-1" became 2^64-1 (an empty page, 200) and
// "3abc" became 3.
TEST_F(BoundedInputTest, VersionPageTokenIsADecimalNumber) {
  StartAuthServer({});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  for (const char* token : {"-1", "3abc", " 1", "99999999999999999999"}) {
    nlohmann::json body = {{"page_token", token}};
    Reply reply = Root({"POST", "/v1/table/ns%24t/version/list", body.dump()}, 400);
    ExpectError(reply, 400, 13, token);
    EXPECT_TRUE(Says(reply, "not a version page token")) << Show(reply);
  }
  EXPECT_EQ(Root({"POST", "/v1/table/ns%24t/version/list", R"({"page_token":"0"})"}).status, 200);
}

// Body integers beyond int64 were read with get<int64_t>(), which wraps 2^63 to a negative
// number: a start version of 2^63 was refused as "negative".
TEST_F(BoundedInputTest, BodyIntegersBeyondInt64AreRefusedAsSuch) {
  StartAuthServer({});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  auto before = Snapshot();
  Reply reply = Root({"POST", "/v1/table/ns%24t/version/delete",
                      R"({"ranges":[{"start_version":9223372036854775808,"end_version":1}]})"},
                     400);
  ExpectError(reply, 400, 13);
  EXPECT_TRUE(Says(reply, "64-bit")) << Show(reply);
  EXPECT_FALSE(Says(reply, "negative")) << Show(reply);
  EXPECT_EQ(Snapshot(), before);
}

}  // namespace
}  // namespace quiver::server::testing
