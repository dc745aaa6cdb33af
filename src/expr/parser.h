// Parses one SQL expression in the dialect LanceDB accepts in filters, update values,
// projections and merge conditions (DataFusion's SQL, as sqlparser reads it), into an ast.h tree.
//
// Precedence, loosest first (sqlparser's): OR; AND; NOT; IS; LIKE / ILIKE; comparison, IN,
// BETWEEN; |; ^; &; << >>; + - ||; * / %; unary minus; ::, [i]. Identifiers: unquoted (kept as
// written: Lance resolves column names case-sensitively), "double-quoted" or `backticked` (with
// the quote doubled inside), dotted for nested fields. Strings are 'single-quoted' ('' for a
// quote). Keywords are case-insensitive.
//
// Errors are InvalidInput naming the 1-based character position, what was expected and what
// was found (`expected an expression at position 5, found end of input in "a > "`); input that
// is too deep (nesting over kMaxDepth) or too long (kMaxLength) is refused the same way, never
// by exhausting the stack.
//
// Thread-safety: pure function.
#pragma once

#include <string_view>

#include "common/result.h"
#include "expr/ast.h"

namespace quiver::expr {

constexpr size_t kMaxDepth = 256;
constexpr size_t kMaxLength = 1 << 20;

Result<ExprPtr> ParseExpression(std::string_view sql);

}  // namespace quiver::expr
