// The Status assertions print the Status they saw, and ASSERT_STATUS never takes OK for a code.
#include "testing/status_matchers.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace quiver::testing {
namespace {

Result<int> Seven() { return 7; }
Result<int> Missing() { return Status(StatusCode::kTableNotFound, "no table 't'"); }

TEST(StatusMatchers, OkPassesAndAssignDeclares) {
  ASSERT_OK(Status::OK());
  EXPECT_OK(Seven());
  ASSERT_OK_AND_ASSIGN(int v, Seven());
  EXPECT_EQ(v, 7);
  int w = 0;
  ASSERT_OK_AND_ASSIGN(w, Seven());
  EXPECT_EQ(w, 7);
  ASSERT_STATUS(StatusCode::kTableNotFound, Missing());
}

TEST(StatusMatchers, FailuresPrintTheStatus) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Missing()), "no table 't'");
  EXPECT_FATAL_FAILURE(ASSERT_OK(Status::InvalidInput("bad name")), "bad name");
  EXPECT_NONFATAL_FAILURE(EXPECT_STATUS(StatusCode::kInvalidInput, Missing()), "no table 't'");
}

TEST(StatusMatchers, OkIsNoCode) {
  // kUnsupported is code 0: an OK status must not pass for it.
  EXPECT_NONFATAL_FAILURE(EXPECT_STATUS(StatusCode::kUnsupported, Status::OK()), "is OK");
  EXPECT_NONFATAL_FAILURE(EXPECT_STATUS(StatusCode::kUnsupported, Seven()), "is OK");
}

TEST(StatusMatchers, StorageSubcodes) {
  ASSERT_STATUS(Subcode::kCorruption, Status::Corruption("torn page"));
  EXPECT_NONFATAL_FAILURE(EXPECT_STATUS(Subcode::kNotFound, Status::Corruption("torn page")),
                          "torn page");
  EXPECT_NONFATAL_FAILURE(EXPECT_STATUS(Subcode::kNone, Status::OK()), "is OK");
}

void AssignMissing(int* out) { ASSERT_OK_AND_ASSIGN(*out, Missing()); }

TEST(StatusMatchers, AssignStopsOnError) {
  static int v = 1;  // the macro's statement may not name locals
  EXPECT_FATAL_FAILURE(AssignMissing(&v), "no table 't'");
  EXPECT_EQ(v, 1);
}

}  // namespace
}  // namespace quiver::testing
