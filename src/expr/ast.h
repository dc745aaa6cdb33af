// The parsed form of a SQL expression in the dialect LanceDB accepts (DataFusion's, through
// sqlparser): filters, update values, projections, add-columns and merge conditions. A tree of
// immutable nodes, each remembering where in the source it began (for error messages); names
// are not resolved and types not checked here (that is the binder's job).
//
// Thread-safety: nodes are immutable once parsed; a tree may be shared across threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quiver::expr {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class BinaryOp {
  kOr,
  kAnd,
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kPlus,
  kMinus,
  kMultiply,
  kDivide,
  kModulo,
  kConcat,  // ||
  kBitAnd,
  kBitOr,
  kBitXor,
  kShiftLeft,
  kShiftRight,
};

// The operator as SQL spells it ("AND", "<=", "||", ...).
const char* BinaryOpName(BinaryOp op);

// A literal as written. Integers that fit int64 are kInt; larger ones and numbers with a point
// or an exponent are kFloat (DataFusion parses them as Float64 unless they are integers that
// fit u64, kept as kUInt). Typed literals (`date '…'`, `timestamp '…'`, `interval '…'`) keep
// their text; the binder converts it.
struct Literal {
  enum class Type { kNull, kBool, kInt, kUInt, kFloat, kString, kDate, kTimestamp, kInterval };
  Type type = Type::kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string text;  // strings and typed literals
};

struct Expr {
  enum class Kind {
    kLiteral,
    kColumn,     // path: a, a.b, `weird name`, "quoted"
    kNot,        // args[0]
    kNegate,     // unary minus: args[0]
    kBinary,     // op; args[0] op args[1]
    kIsNull,     // args[0] IS [NOT] NULL (negated)
    kIsTrue,     // IS [NOT] TRUE
    kIsFalse,    // IS [NOT] FALSE
    kIsUnknown,  // IS [NOT] UNKNOWN
    kIn,         // args[0] [NOT] IN (args[1..])
    kBetween,    // args[0] [NOT] BETWEEN args[1] AND args[2]
    kLike,       // args[0] [NOT] LIKE / ILIKE args[1] [ESCAPE escape]
    kCase,       // [operand] WHEN args THEN args ... [ELSE]: see has_operand / has_else
    kCast,       // CAST / TRY_CAST (try_cast) / :: of args[0] to type_name
    kCall,       // name(args...), name lower-cased; count(*) has star
    kList,       // [a, b, ...] or make_array(...)
    kIndex,      // args[0][args[1]]
  };
  Kind kind = Kind::kLiteral;
  size_t pos = 0;  // byte offset in the source where the node begins

  Literal literal;                // kLiteral
  std::vector<std::string> path;  // kColumn
  BinaryOp op = BinaryOp::kAnd;   // kBinary
  bool negated = false;           // IS NOT, NOT IN, NOT BETWEEN, NOT LIKE
  bool case_insensitive = false;  // ILIKE
  bool has_escape = false;        // LIKE ... ESCAPE 'c'
  char escape = '\\';
  bool has_operand = false;  // CASE x WHEN ...: args[0] is x
  bool has_else = false;     // CASE ... ELSE e END: args.back() is e
  bool try_cast = false;
  bool star = false;      // count(*)
  std::string type_name;  // kCast: the SQL type as written, upper-cased (e.g. "BIGINT")
  std::string name;       // kCall: the function name, lower-cased
  std::vector<ExprPtr> args;

  // The expression as SQL text (normalized spacing and parentheses), for plans and errors.
  std::string ToString() const;
};

}  // namespace quiver::expr
