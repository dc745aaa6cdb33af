#include "common/status.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/result.h"

namespace quiver {
namespace {

struct CodeExpectation {
  int value;
  std::string_view name;
  int http;
};

// namespace-spec.md §4.1: every wire code, its name and its HTTP status.
constexpr CodeExpectation kSpecCodes[] = {
    {0, "Unsupported", 406},
    {1, "NamespaceNotFound", 404},
    {2, "NamespaceAlreadyExists", 409},
    {3, "NamespaceNotEmpty", 409},
    {4, "TableNotFound", 404},
    {5, "TableAlreadyExists", 409},
    {6, "TableIndexNotFound", 404},
    {7, "TableIndexAlreadyExists", 409},
    {8, "TableTagNotFound", 404},
    {9, "TableTagAlreadyExists", 409},
    {10, "TransactionNotFound", 404},
    {11, "TableVersionNotFound", 404},
    {12, "TableColumnNotFound", 404},
    {13, "InvalidInput", 400},
    {14, "ConcurrentModification", 409},
    {15, "PermissionDenied", 403},
    {16, "Unauthenticated", 401},
    {17, "ServiceUnavailable", 503},
    {18, "Internal", 500},
    {19, "InvalidTableState", 409},
    {20, "TableSchemaValidationError", 400},
    {21, "Throttling", 429},
    {22, "TableBranchNotFound", 404},
    {23, "TableBranchAlreadyExists", 409},
};

TEST(StatusCodeTest, TableCoversEveryCode) {
  ASSERT_EQ(std::size(kSpecCodes), static_cast<size_t>(kNumStatusCodes));
  for (size_t i = 0; i < std::size(kSpecCodes); ++i) {
    EXPECT_EQ(kSpecCodes[i].value, static_cast<int>(i));
  }
}

TEST(StatusCodeTest, NamesMatchSpec) {
  for (const CodeExpectation& e : kSpecCodes) {
    EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(e.value)), e.name) << "code " << e.value;
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kTableNotFound), "TableNotFound");
  EXPECT_EQ(StatusCodeName(StatusCode::kTableBranchAlreadyExists), "TableBranchAlreadyExists");
}

TEST(StatusCodeTest, EnumValuesAreWireValues) {
  EXPECT_EQ(static_cast<int>(StatusCode::kUnsupported), 0);
  EXPECT_EQ(static_cast<int>(StatusCode::kTableNotFound), 4);
  EXPECT_EQ(static_cast<int>(StatusCode::kInvalidInput), 13);
  EXPECT_EQ(static_cast<int>(StatusCode::kConcurrentModification), 14);
  EXPECT_EQ(static_cast<int>(StatusCode::kInternal), 18);
  EXPECT_EQ(static_cast<int>(StatusCode::kTableBranchAlreadyExists), 23);
}

TEST(StatusCodeTest, HttpStatusesMatchSpec) {
  for (const CodeExpectation& e : kSpecCodes) {
    EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(e.value)), e.http) << "code " << e.value;
  }
}

TEST(StatusCodeTest, HttpStatusGroups) {
  for (int v : {1, 4, 6, 8, 10, 11, 12, 22}) {
    EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(v)), 404) << v;
  }
  for (int v : {2, 3, 5, 7, 9, 14, 19, 23}) {
    EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(v)), 409) << v;
  }
  for (int v : {13, 20}) {
    EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(v)), 400) << v;
  }
  EXPECT_EQ(HttpStatusForCode(StatusCode::kUnsupported), 406);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kServiceUnavailable), 503);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kInternal), 500);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kThrottling), 429);
}

TEST(StatusCodeTest, OutOfRangeValues) {
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(24)), "Unknown");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(-1)), "Unknown");
  EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(24)), 500);
  EXPECT_EQ(HttpStatusForCode(static_cast<StatusCode>(-1)), 500);
}

TEST(StatusCodeTest, FromIntBounds) {
  for (int v = 0; v < kNumStatusCodes; ++v) {
    std::optional<StatusCode> code = StatusCodeFromInt(v);
    ASSERT_TRUE(code.has_value()) << v;
    EXPECT_EQ(static_cast<int>(*code), v);
  }
  EXPECT_EQ(StatusCodeFromInt(0), StatusCode::kUnsupported);
  EXPECT_EQ(StatusCodeFromInt(23), StatusCode::kTableBranchAlreadyExists);
  EXPECT_FALSE(StatusCodeFromInt(-1).has_value());
  EXPECT_FALSE(StatusCodeFromInt(24).has_value());
  EXPECT_FALSE(StatusCodeFromInt(1000).has_value());
  EXPECT_FALSE(StatusCodeFromInt(std::numeric_limits<int>::min()).has_value());
}

TEST(StatusCodeTest, SubcodeNames) {
  EXPECT_EQ(SubcodeName(Subcode::kNone), "");
  EXPECT_EQ(SubcodeName(Subcode::kNotFound), "NotFound");
  EXPECT_EQ(SubcodeName(Subcode::kAlreadyExists), "AlreadyExists");
  EXPECT_EQ(SubcodeName(Subcode::kConflict), "Conflict");
  EXPECT_EQ(SubcodeName(Subcode::kIOError), "IOError");
  EXPECT_EQ(SubcodeName(Subcode::kCorruption), "Corruption");
  EXPECT_EQ(SubcodeName(Subcode::kInjected), "Injected");
  EXPECT_EQ(SubcodeName(Subcode::kStorageFull), "StorageFull");
}

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.code(), StatusCode::kInternal);  // documented: OK reports kInternal/kNone/""
  EXPECT_EQ(s.subcode(), Subcode::kNone);
  EXPECT_FALSE(s.retryable());
  EXPECT_FALSE(s.IsNotFound());
  EXPECT_FALSE(s.IsInvalidInput());
}

TEST(StatusTest, Constructor) {
  Status s(StatusCode::kTableNotFound, "no table t", Subcode::kNone, false);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kTableNotFound);
  EXPECT_EQ(s.subcode(), Subcode::kNone);
  EXPECT_FALSE(s.retryable());
  EXPECT_EQ(s.message(), "no table t");
}

TEST(StatusTest, ConstructorWithEmptyMessageIsStillAnError) {
  Status s(StatusCode::kThrottling, "");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kThrottling);
}

TEST(StatusTest, NotFoundFactory) {
  Status s = Status::NotFound("missing key");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.subcode(), Subcode::kNotFound);
  EXPECT_FALSE(s.retryable());
  EXPECT_EQ(s.message(), "missing key");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_FALSE(s.IsAlreadyExists());
  EXPECT_FALSE(s.IsConflict());
  EXPECT_FALSE(s.IsIOError());
}

TEST(StatusTest, AlreadyExistsFactory) {
  Status s = Status::AlreadyExists("key taken");
  EXPECT_EQ(s.code(), StatusCode::kConcurrentModification);
  EXPECT_EQ(s.subcode(), Subcode::kAlreadyExists);
  EXPECT_FALSE(s.retryable());
  EXPECT_TRUE(s.IsAlreadyExists());
  EXPECT_FALSE(s.IsConflict());
  EXPECT_FALSE(s.IsNotFound());
}

TEST(StatusTest, ConflictFactory) {
  Status s = Status::Conflict("etag mismatch");
  EXPECT_EQ(s.code(), StatusCode::kConcurrentModification);
  EXPECT_EQ(s.subcode(), Subcode::kConflict);
  EXPECT_TRUE(s.retryable());
  EXPECT_TRUE(s.IsConflict());
  EXPECT_FALSE(s.IsAlreadyExists());
}

TEST(StatusTest, IOErrorFactory) {
  Status s = Status::IOError("disk gone");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.subcode(), Subcode::kIOError);
  EXPECT_FALSE(s.retryable());
  EXPECT_TRUE(s.IsIOError());

  Status r = Status::IOError("try later", /*retryable=*/true);
  EXPECT_EQ(r.code(), StatusCode::kInternal);
  EXPECT_EQ(r.subcode(), Subcode::kIOError);
  EXPECT_TRUE(r.retryable());
}

TEST(StatusTest, CorruptionFactory) {
  Status s = Status::Corruption("bad checksum");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.subcode(), Subcode::kCorruption);
  EXPECT_FALSE(s.retryable());
}

TEST(StatusTest, CodeFactories) {
  Status invalid = Status::InvalidInput("bad name");
  EXPECT_EQ(invalid.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(invalid.subcode(), Subcode::kNone);
  EXPECT_FALSE(invalid.retryable());
  EXPECT_TRUE(invalid.IsInvalidInput());

  Status unsupported = Status::Unsupported("nope");
  EXPECT_EQ(unsupported.code(), StatusCode::kUnsupported);
  EXPECT_FALSE(unsupported.retryable());
  EXPECT_FALSE(unsupported.IsInvalidInput());

  Status internal = Status::Internal("bug");
  EXPECT_EQ(internal.code(), StatusCode::kInternal);
  EXPECT_EQ(internal.subcode(), Subcode::kNone);
  EXPECT_FALSE(internal.retryable());

  Status unavailable = Status::ServiceUnavailable("overloaded");
  EXPECT_EQ(unavailable.code(), StatusCode::kServiceUnavailable);
  EXPECT_EQ(unavailable.subcode(), Subcode::kNone);
  EXPECT_TRUE(unavailable.retryable());
}

TEST(StatusTest, ToString) {
  EXPECT_EQ(Status::InvalidInput("bad name").ToString(), "InvalidInput: bad name");
  EXPECT_EQ(Status::NotFound("k").ToString(), "Internal/NotFound: k");
  EXPECT_EQ(Status::Conflict("etag").ToString(),
            "ConcurrentModification/Conflict (retryable): etag");
  EXPECT_EQ(Status::ServiceUnavailable("busy").ToString(), "ServiceUnavailable (retryable): busy");
  EXPECT_EQ(Status(StatusCode::kTableNotFound, "t").ToString(), "TableNotFound: t");
}

TEST(StatusTest, WithContextPrependsAndKeepsEverythingElse) {
  Status s = Status::Conflict("etag mismatch");
  Status c = s.WithContext("committing version 3");
  EXPECT_EQ(c.message(), "committing version 3: etag mismatch");
  EXPECT_EQ(c.code(), StatusCode::kConcurrentModification);
  EXPECT_EQ(c.subcode(), Subcode::kConflict);
  EXPECT_TRUE(c.retryable());
  // The original is unchanged.
  EXPECT_EQ(s.message(), "etag mismatch");

  Status twice = c.WithContext("outer");
  EXPECT_EQ(twice.message(), "outer: committing version 3: etag mismatch");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status s = Status::OK().WithContext("anything");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, WithRetryable) {
  Status s = Status::IOError("flaky");
  Status r = s.WithRetryable(true);
  EXPECT_TRUE(r.retryable());
  EXPECT_FALSE(s.retryable());
  EXPECT_EQ(r.code(), s.code());
  EXPECT_EQ(r.subcode(), s.subcode());
  EXPECT_EQ(r.message(), s.message());

  Status c = Status::Conflict("x").WithRetryable(false);
  EXPECT_FALSE(c.retryable());
  EXPECT_TRUE(c.IsConflict());

  EXPECT_TRUE(Status::OK().WithRetryable(true).ok());
  EXPECT_FALSE(Status::OK().WithRetryable(true).retryable());
}

TEST(StatusTest, Equality) {
  EXPECT_EQ(Status::OK(), Status());
  EXPECT_EQ(Status::InvalidInput("a"), Status::InvalidInput("a"));
  EXPECT_FALSE(Status::InvalidInput("a") == Status::InvalidInput("b"));
  EXPECT_FALSE(Status::InvalidInput("a") == Status::Internal("a"));
  EXPECT_FALSE(Status::OK() == Status::Internal(""));
  EXPECT_FALSE(Status::Internal("") == Status::OK());
  // Same code and message, different subcode.
  EXPECT_FALSE(Status::NotFound("a") == Status::Internal("a"));
  // Same everything but retryability.
  EXPECT_FALSE(Status::IOError("a", true) == Status::IOError("a", false));
  EXPECT_EQ(Status::IOError("a", true), Status::IOError("a").WithRetryable(true));
  EXPECT_TRUE(Status::InvalidInput("a") != Status::InvalidInput("b"));
}

TEST(StatusTest, CopiesShareValue) {
  Status a = Status::Conflict("x");
  Status b = a;  // NOLINT: copy on purpose
  EXPECT_EQ(a, b);
  Status moved = std::move(b);
  EXPECT_EQ(moved, a);
}

TEST(StatusTest, FromErrnoRetryable) {
  Status s = StatusFromErrno(EAGAIN, "writing segment");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.subcode(), Subcode::kIOError);
  EXPECT_TRUE(s.retryable());
  EXPECT_EQ(s.message(), std::string("writing segment: ") + std::strerror(EAGAIN));

  EXPECT_TRUE(StatusFromErrno(EINTR, "x").retryable());
}

// A full disk or quota is not a server failure: 503 (ServiceUnavailable, with Retry-After at the
// server) saying so, retryable.
TEST(StatusTest, FromErrnoStorageFull) {
  for (int err : {ENOSPC, EDQUOT}) {
    Status s = StatusFromErrno(err, "writing segment");
    EXPECT_EQ(s.code(), StatusCode::kServiceUnavailable);
    EXPECT_TRUE(s.IsStorageFull());
    EXPECT_TRUE(s.retryable());
    EXPECT_EQ(s.message(), std::string("storage is full: writing segment: ") + std::strerror(err));
  }
}

TEST(StatusTest, FromErrnoNotRetryable) {
  Status s = StatusFromErrno(ENOENT, "opening manifest");
  EXPECT_EQ(s.subcode(), Subcode::kIOError);
  EXPECT_FALSE(s.retryable());
  EXPECT_EQ(s.message(), std::string("opening manifest: ") + std::strerror(ENOENT));

  EXPECT_FALSE(StatusFromErrno(EACCES, "x").retryable());
  EXPECT_FALSE(StatusFromErrno(EISDIR, "x").retryable());
}

// ---- Result<T> and the macros ----

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::InvalidInput("not positive: " + std::to_string(v));
  return v;
}

int g_after_assign = 0;

// Doubles ParsePositive's value; counts how often it got past the macro.
Result<int> Doubled(int v) {
  QV_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  ++g_after_assign;
  return 2 * x;
}

// Assigns into an existing variable.
Result<int> SumOf(int a, int b) {
  int total = 0;
  QV_ASSIGN_OR_RETURN(total, ParsePositive(a));
  QV_ASSIGN_OR_RETURN(int second, ParsePositive(b));
  return total + second;
}

int g_after_check = 0;

Status CheckAll(const std::vector<Status>& steps) {
  for (const Status& s : steps) {
    QV_RETURN_IF_ERROR(s);
    ++g_after_check;
  }
  return Status::OK();
}

int g_calls = 0;
Status CountedFail() {
  ++g_calls;
  return Status::Internal("counted");
}
Status UsesCountedFail() {
  QV_RETURN_IF_ERROR(CountedFail());
  return Status::OK();
}

Result<std::unique_ptr<int>> MakeBox(int v) {
  if (v < 0) return Status::InvalidInput("negative");
  return std::make_unique<int>(v);
}

Result<int> Unbox(int v) {
  QV_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(v));
  return *box + 1;
}

TEST(ResultTest, HoldsValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(r.ValueOr(7), 42);
}

TEST(ResultTest, HoldsError) {
  Result<int> r = Status(StatusCode::kTableNotFound, "no t");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTableNotFound);
  EXPECT_EQ(r.status().message(), "no t");
  EXPECT_EQ(r.ValueOr(7), 7);
}

TEST(ResultTest, OkStatusBecomesInternal) {
  Result<int> r = Status::OK();
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.status().ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().subcode(), Subcode::kNone);
}

TEST(ResultTest, ConvertingConstructor) {
  Result<std::string> r = "hello";  // const char* -> std::string
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello");
  EXPECT_EQ(r->size(), 5u);
}

TEST(ResultTest, MutableAccess) {
  Result<std::vector<int>> r = std::vector<int>{1, 2};
  r->push_back(3);
  r.value().push_back(4);
  (*r).push_back(5);
  EXPECT_EQ(r.value(), (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(ResultTest, AssignOrReturnPropagatesValue) {
  g_after_assign = 0;
  Result<int> r = Doubled(21);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(g_after_assign, 1);
}

TEST(ResultTest, AssignOrReturnShortCircuits) {
  g_after_assign = 0;
  Result<int> r = Doubled(-3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::InvalidInput("not positive: -3"));
  EXPECT_EQ(g_after_assign, 0);
}

TEST(ResultTest, AssignOrReturnIntoExistingVariableAndTwiceInOneFunction) {
  Result<int> ok = SumOf(2, 3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 5);
  Result<int> first_bad = SumOf(0, 3);
  EXPECT_EQ(first_bad.status().message(), "not positive: 0");
  Result<int> second_bad = SumOf(2, -1);
  EXPECT_EQ(second_bad.status().message(), "not positive: -1");
}

TEST(ResultTest, ReturnIfErrorPassesOk) {
  g_after_check = 0;
  Status s = CheckAll({Status::OK(), Status::OK(), Status::OK()});
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(g_after_check, 3);
}

TEST(ResultTest, ReturnIfErrorShortCircuits) {
  g_after_check = 0;
  Status s = CheckAll({Status::OK(), Status::Conflict("second"), Status::Internal("third")});
  EXPECT_EQ(s, Status::Conflict("second"));
  EXPECT_EQ(g_after_check, 1);
}

TEST(ResultTest, ReturnIfErrorEvaluatesExpressionOnce) {
  g_calls = 0;
  Status s = UsesCountedFail();
  EXPECT_EQ(s.message(), "counted");
  EXPECT_EQ(g_calls, 1);
}

TEST(ResultTest, MoveOnlyValue) {
  Result<std::unique_ptr<int>> r = MakeBox(5);
  ASSERT_TRUE(r.ok());
  ASSERT_NE(*r, nullptr);
  EXPECT_EQ(**r, 5);
  std::unique_ptr<int> taken = std::move(r).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);

  Result<std::unique_ptr<int>> bad = MakeBox(-1);
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidInput());

  Result<int> unboxed = Unbox(9);
  ASSERT_TRUE(unboxed.ok());
  EXPECT_EQ(*unboxed, 10);
  EXPECT_TRUE(Unbox(-2).status().IsInvalidInput());
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  Result<int> r = Status::Internal("x");
  EXPECT_DEATH({ (void)r.value(); }, "");
}

}  // namespace
}  // namespace quiver
