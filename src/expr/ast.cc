#include "expr/ast.h"

#include <cctype>

#include <fmt/format.h>

#include "expr/internal/lexer.h"

namespace quiver::expr {

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return "OR";
    case BinaryOp::kAnd:
      return "AND";
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kNotEq:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLtEq:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGtEq:
      return ">=";
    case BinaryOp::kPlus:
      return "+";
    case BinaryOp::kMinus:
      return "-";
    case BinaryOp::kMultiply:
      return "*";
    case BinaryOp::kDivide:
      return "/";
    case BinaryOp::kModulo:
      return "%";
    case BinaryOp::kConcat:
      return "||";
    case BinaryOp::kBitAnd:
      return "&";
    case BinaryOp::kBitOr:
      return "|";
    case BinaryOp::kBitXor:
      return "^";
    case BinaryOp::kShiftLeft:
      return "<<";
    case BinaryOp::kShiftRight:
      return ">>";
  }
  return "?";
}

namespace {

std::string Quote(const std::string& s, char q) {
  std::string out(1, q);
  for (char c : s) {
    if (c == q) out.push_back(q);
    out.push_back(c);
  }
  out.push_back(q);
  return out;
}

bool PlainName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string LiteralText(const Literal& l) {
  switch (l.type) {
    case Literal::Type::kNull:
      return "NULL";
    case Literal::Type::kBool:
      return l.b ? "true" : "false";
    case Literal::Type::kInt:
      return std::to_string(l.i);
    case Literal::Type::kUInt:
      return std::to_string(l.u);
    case Literal::Type::kFloat:
      return fmt::format("{}", l.f);
    case Literal::Type::kString:
      return Quote(l.text, '\'');
    case Literal::Type::kDate:
      return "DATE " + Quote(l.text, '\'');
    case Literal::Type::kTimestamp:
      return "TIMESTAMP " + Quote(l.text, '\'');
    case Literal::Type::kInterval:
      return "INTERVAL " + Quote(l.text, '\'');
  }
  return "?";
}

}  // namespace

std::string Expr::ToString() const {
  auto arg = [&](size_t k) { return args[k]->ToString(); };
  switch (kind) {
    case Kind::kLiteral:
      return LiteralText(literal);
    case Kind::kColumn: {
      std::string out;
      for (const std::string& p : path) {
        if (!out.empty()) out += ".";
        out += PlainName(p) && !internal::IsReservedWord(p) ? p : Quote(p, '`');
      }
      return out;
    }
    case Kind::kNot:
      return "(NOT " + arg(0) + ")";
    case Kind::kNegate:
      return "(- " + arg(0) + ")";
    case Kind::kBinary:
      return fmt::format("({} {} {})", arg(0), BinaryOpName(op), arg(1));
    case Kind::kIsNull:
      return fmt::format("({} IS {}NULL)", arg(0), negated ? "NOT " : "");
    case Kind::kIsTrue:
      return fmt::format("({} IS {}TRUE)", arg(0), negated ? "NOT " : "");
    case Kind::kIsFalse:
      return fmt::format("({} IS {}FALSE)", arg(0), negated ? "NOT " : "");
    case Kind::kIsUnknown:
      return fmt::format("({} IS {}UNKNOWN)", arg(0), negated ? "NOT " : "");
    case Kind::kIn: {
      std::string items;
      for (size_t k = 1; k < args.size(); ++k) items += (k > 1 ? ", " : "") + arg(k);
      return fmt::format("({} {}IN ({}))", arg(0), negated ? "NOT " : "", items);
    }
    case Kind::kBetween:
      return fmt::format("({} {}BETWEEN {} AND {})", arg(0), negated ? "NOT " : "", arg(1), arg(2));
    case Kind::kLike: {
      std::string out = fmt::format("({} {}{} {}", arg(0), negated ? "NOT " : "",
                                    case_insensitive ? "ILIKE" : "LIKE", arg(1));
      if (has_escape) out += " ESCAPE " + Quote(std::string(1, escape), '\'');
      return out + ")";
    }
    case Kind::kCase: {
      std::string out = "CASE";
      size_t k = 0;
      if (has_operand) out += " " + arg(k++);
      const size_t pairs_end = args.size() - (has_else ? 1 : 0);
      for (; k + 1 < pairs_end; k += 2) {
        out += " WHEN " + arg(k) + " THEN " + arg(k + 1);
      }
      if (has_else) out += " ELSE " + args.back()->ToString();
      return out + " END";
    }
    case Kind::kCast:
      return fmt::format("{}({} AS {})", try_cast ? "TRY_CAST" : "CAST", arg(0), type_name);
    case Kind::kCall: {
      if (star) return name + "(*)";
      std::string items;
      for (size_t k = 0; k < args.size(); ++k) items += (k > 0 ? ", " : "") + arg(k);
      return name + "(" + items + ")";
    }
    case Kind::kList: {
      std::string items;
      for (size_t k = 0; k < args.size(); ++k) items += (k > 0 ? ", " : "") + arg(k);
      return "[" + items + "]";
    }
    case Kind::kIndex:
      return arg(0) + "[" + arg(1) + "]";
  }
  return "?";
}

}  // namespace quiver::expr
