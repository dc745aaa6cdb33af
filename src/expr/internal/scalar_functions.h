// The scalar SQL functions of strings and numbers that LanceDB's planner (DataFusion) accepts
// in filters and projections, one value at a time, with DataFusion's semantics: concat, ltrim,
// rtrim, btrim, replace, reverse, left, right, lpad, rpad, initcap, repeat, split_part,
// translate, strpos, octet_length, ends_with, contains, regexp_like, round, trunc, sqrt, cbrt,
// exp, ln, log, log2, log10, power, signum, nullif.
//
// What LanceDB refuses, quiver refuses too (the evaluator's "unsupported function"): Lance's SQL
// planner rejects the special syntax forms SUBSTR/SUBSTRING, TRIM, FLOOR and CEIL ("is not
// supported SQL in lance", docs/lance-findings.md).
//
// The evaluator (eval.cc) checks the argument count and kinds, skips NULL rows (every function
// but concat, which ignores NULL arguments, and nullif, which compares them), and calls `apply`
// per row. Strings are UTF-8 and counted in characters where DataFusion counts characters.
// Thread-safety: the table is immutable; the functions are reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace quiver::expr::internal {

// One argument or result: NULL, a boolean, an integer, a float, a string, or an unsigned integer
// beyond int64 (a uint64 column's).
using Scalar = std::variant<std::monostate, bool, int64_t, double, std::string, uint64_t>;

enum class ArgKind {
  kString,   // a string
  kNumber,   // an integer or a float
  kInteger,  // one that fits int64
  kAny,      // whatever the evaluator has (concat, nullif)
};
enum class ResultKind { kString, kBool, kInt, kFloat, kSameAsFirst };

struct ScalarFunction {
  std::string_view name;
  size_t min_args = 1;
  size_t max_args = 1;
  // Kinds of the arguments, the last one repeating for the rest.
  std::vector<ArgKind> args;
  ResultKind result = ResultKind::kString;
  // false: called with NULL arguments too (concat ignores them, nullif compares them).
  bool null_in_null_out = true;
  // The value for one row's arguments (never NULL ones unless null_in_null_out is false);
  // InvalidInput for an argument the function cannot take (a bad regular expression).
  Result<Scalar> (*apply)(const std::vector<Scalar>& args) = nullptr;
};

// The function of that (lower-case) name, or null.
const ScalarFunction* FindScalarFunction(std::string_view name);

// `s` (UTF-8) in upper or lower case, character by character as Unicode's simple case mapping
// gives it (glibc's C.UTF-8 tables), plus 'ß' to "SS" as Rust's to_uppercase (what DataFusion's
// upper/lower run) does; invalid UTF-8 bytes are kept.
std::string MapCase(std::string_view s, bool upper);

}  // namespace quiver::expr::internal
