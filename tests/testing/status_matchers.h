// Test assertions over Status and Result<T> that print the Status on failure:
//
//   ASSERT_OK(store->Delete("k"));                      // Status or Result<T>
//   EXPECT_OK(catalog->DropTable(id));
//   ASSERT_OK_AND_ASSIGN(auto meta, store->Head("k"));  // declares (or assigns) from a Result
//   ASSERT_STATUS(StatusCode::kTableNotFound, catalog->GetTable(id));    // a StatusCode
//   ASSERT_STATUS(Subcode::kNotFound, store->Head("missing"));            // or a storage Subcode
//   EXPECT_STATUS(Subcode::kConflict, store->Put("k", "v", PutOptions::IfMatch("x")));
//
// New tests use these (and old ones as they are touched) so that a failure names what failed
// ("NotFound: no such key 'k'") rather than "Value of: s.ok()  Actual: false".
// Thread-safety: as gtest's own assertions.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/result.h"
#include "common/status.h"

namespace quiver::testing {

inline Status StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}

// gtest's AssertionResult for "is OK", carrying the expression and the Status.
template <typename S>
::testing::AssertionResult IsOk(const char* expr, const S& value) {
  Status s = StatusOf(value);
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << " is " << s.ToString();
}

// The code a status has of the kind `code` is: its StatusCode, or its storage Subcode.
inline StatusCode CodeOf(const Status& s, StatusCode) { return s.code(); }
inline Subcode CodeOf(const Status& s, Subcode) { return s.subcode(); }

// "has code `code`" (a StatusCode, or a storage Subcode such as NotFound or Corruption).
template <typename Code, typename S>
::testing::AssertionResult HasCode(const char* code_expr, const char* expr, Code code,
                                   const S& value) {
  Status s = StatusOf(value);
  if (!s.ok() && CodeOf(s, code) == code) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expr << " is " << (s.ok() ? std::string("OK") : s.ToString()) << ", expected "
         << code_expr;
}

}  // namespace quiver::testing

#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::quiver::testing::IsOk, expr)
#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::quiver::testing::IsOk, expr)
#define ASSERT_STATUS(code, expr) ASSERT_PRED_FORMAT2(::quiver::testing::HasCode, code, expr)
#define EXPECT_STATUS(code, expr) EXPECT_PRED_FORMAT2(::quiver::testing::HasCode, code, expr)

#define QV_TESTING_CONCAT_INNER(a, b) a##b
#define QV_TESTING_CONCAT(a, b) QV_TESTING_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL(QV_TESTING_CONCAT(_qv_test_result_, __LINE__), lhs, rexpr)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  ASSERT_OK(tmp);                                  \
  lhs = std::move(tmp).value()
