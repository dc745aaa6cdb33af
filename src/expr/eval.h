// Evaluates parsed SQL expressions (parser.h) over Arrow record batches, column at a time, with
// DataFusion's semantics: three-valued logic (NULL AND FALSE is FALSE, NULL OR TRUE is TRUE,
// a comparison with NULL is NULL), values typed as DataFusion types them (an Int32 column plus
// an Int32 stays Int32 and wraps at 32 bits, Float32 stays Float32, mixed operands take the
// narrowest type that holds both, a literal beside a column at the top takes the column's type),
// integer division and modulo truncating (by zero: an error), floats IEEE, a string compared with a
// number as strings (DataFusion coerces the number to Utf8), dates and timestamps compared with
// string literals parsed as dates / timestamps, floats ordered by IEEE totalOrder as arrow's
// kernels do. And Lance's own rule on top: a literal compared with a column (at the top of a filter
// or under AND / OR) must convert to the column's type, or the filter is refused as LanceDB refuses
// it (`int_col = 1.5`, `date_col = '2024-01-01'`: use date '2024-01-01').
//
// What evaluates so far: literals; columns (nested a.b through structs; dictionary columns by
// their values) of bool, integer, float, string, date32 and timestamp types; NOT, unary minus,
// AND, OR, comparisons, + - * / %, ||; IS [NOT] NULL / TRUE / FALSE; [NOT] IN; [NOT] BETWEEN;
// [NOT] LIKE / ILIKE with % _ and backslash escapes; CAST / TRY_CAST / :: to the types Lance
// casts to (a value that does not convert: an error, NULL for TRY_CAST); and the functions
// lower, upper, length / char_length, abs, coalesce, starts_with. CASE is refused, as Lance's
// planner refuses it. Anything else is InvalidInput naming
// the construct and its position ("unsupported function 'foo' at position 7"), as are unknown
// columns and type mismatches; an expression never crashes and reads nothing but its batch.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "common/result.h"
#include "expr/ast.h"

namespace quiver::expr {

// The expression's value for every row of `batch`, in its SQL type as DataFusion gives it (a
// bool, integer, float, utf8, dictionary, date32, timestamp or typed null array) of
// batch.length rows (a constant expression is repeated).
Result<arrow::ArrayPtr> Evaluate(const Expr& expr, const arrow::RecordBatch& batch);

// A filter's selection: for each row, whether the predicate is TRUE (NULL and FALSE drop the
// row, as SQL's WHERE does). InvalidInput when the expression is not boolean.
Result<std::vector<bool>> EvaluateFilter(const Expr& expr, const arrow::RecordBatch& batch);

// Checks `expr` against a schema without data (names, types, functions): what a filter or an
// update must pass before it touches a table.
Status CheckExpression(const Expr& expr, const arrow::Schema& schema, bool want_bool);

}  // namespace quiver::expr
