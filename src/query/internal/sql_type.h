// The Arrow type and nullability DataFusion gives a SQL expression over a table's columns: what a
// column computed by add_columns gets in Lance (observed with LanceDB 0.31 and 0.39,
// docs/lance-findings.md). quiver's evaluator computes in wide types (int64, uint64, float64);
// this decides the type the values are then cast into (to_column_type.h):
//   - a column: its type and nullability; a literal: int64 / uint64 / float64 / utf8 / bool /
//     date32, never null (NULL: nullable);
//   - arithmetic: a literal takes its column side's type (Lance's planner coerces literals to the
//     column's type: `i32 + 1` is int32); two integers give the wider one (signed when either
//     is, at least twice the unsigned side's width, up to 64 bits); with a float, float64 unless
//     every float is float32; nullable when either side is;
//   - comparisons, AND / OR / NOT, IS, IN, BETWEEN, LIKE: boolean, nullable when an operand is
//     (IS [NOT] NULL / TRUE / FALSE never);
//   - `||`: utf8; unary minus: its operand's; CAST: the evaluated type, nullable as its operand
//     (TRY_CAST: always);
//   - anything else (function calls, CASE, lists): the evaluated type, nullable.
// Thread-safety: a pure function.
#pragma once

#include "arrow/type.h"
#include "expr/ast.h"

namespace quiver::query::internal {

struct SqlType {
  arrow::DataType type;
  bool nullable = true;
};

// `evaluated`: the type expr::Evaluate gives the expression (over no rows).
SqlType SqlResultType(const expr::Expr& expr, const arrow::Schema& schema,
                      const arrow::DataType& evaluated);

}  // namespace quiver::query::internal
