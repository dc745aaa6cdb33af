#include "expr/parser.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "expr/internal/lexer.h"

namespace quiver::expr {

namespace {

using internal::Token;
using internal::TokenType;

// sqlparser's precedences.
constexpr int kOrPrec = 5;
constexpr int kAndPrec = 10;
constexpr int kNotPrec = 15;
constexpr int kIsPrec = 17;
constexpr int kLikePrec = 19;
constexpr int kComparePrec = 20;  // also IN, BETWEEN
constexpr int kPipePrec = 21;
constexpr int kCaretPrec = 22;
constexpr int kAmpersandPrec = 23;
constexpr int kShiftPrec = 25;
constexpr int kPlusMinusPrec = 30;
constexpr int kMulDivPrec = 40;
constexpr int kPostfixPrec = 50;  // ::, [i]

// Words that end an expression or belong to a construct, never column names unquoted.
bool IsReserved(const Token& t) {
  return t.type == TokenType::kIdent && !t.quoted && internal::IsReservedWord(t.text);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens) : sql_(sql), tokens_(std::move(tokens)) {}

  Result<ExprPtr> ParseAll() {
    QV_ASSIGN_OR_RETURN(ExprPtr e, Parse(0));
    if (Peek().type != TokenType::kEnd) {
      return Error(Peek(), "expected an operator or the end of the expression");
    }
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(at_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[at_];
    if (at_ + 1 < tokens_.size()) ++at_;
    return t;
  }
  bool AcceptKeyword(std::string_view kw) {
    if (!Peek().IsKeyword(kw)) return false;
    Next();
    return true;
  }
  bool AcceptOp(std::string_view op) {
    if (!Peek().IsOp(op)) return false;
    Next();
    return true;
  }

  Status Error(const Token& at, std::string_view expected) const {
    return Status::InvalidInput(fmt::format("{} at position {}, found {} in \"{}\"", expected,
                                            at.pos + 1, at.Describe(), sql_.substr(0, 200)));
  }
  Status ExpectKeyword(std::string_view kw) {
    if (AcceptKeyword(kw)) return Status::OK();
    return Error(Peek(), fmt::format("expected {}", kw));
  }
  Status ExpectOp(std::string_view op) {
    if (AcceptOp(op)) return Status::OK();
    return Error(Peek(), fmt::format("expected '{}'", op));
  }

  static std::shared_ptr<Expr> Node(Expr::Kind kind, size_t pos) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  // The precedence `t` has as an infix operator; 0 when it is not one.
  int InfixPrecedence() const {
    const Token& t = Peek();
    if (t.IsKeyword("OR")) return kOrPrec;
    if (t.IsKeyword("AND")) return kAndPrec;
    if (t.IsKeyword("IS")) return kIsPrec;
    if (t.IsKeyword("NOT")) {
      const Token& u = Peek(1);
      if (u.IsKeyword("LIKE") || u.IsKeyword("ILIKE")) return kLikePrec;
      if (u.IsKeyword("IN") || u.IsKeyword("BETWEEN")) return kComparePrec;
      return 0;
    }
    if (t.IsKeyword("LIKE") || t.IsKeyword("ILIKE")) return kLikePrec;
    if (t.IsKeyword("IN") || t.IsKeyword("BETWEEN")) return kComparePrec;
    if (t.type != TokenType::kOp) return 0;
    const std::string& o = t.text;
    if (o == "=" || o == "==" || o == "!=" || o == "<>" || o == "<" || o == "<=" || o == ">" ||
        o == ">=")
      return kComparePrec;
    if (o == "|") return kPipePrec;
    if (o == "^") return kCaretPrec;
    if (o == "&") return kAmpersandPrec;
    if (o == "<<" || o == ">>") return kShiftPrec;
    if (o == "+" || o == "-" || o == "||") return kPlusMinusPrec;
    if (o == "*" || o == "/" || o == "%") return kMulDivPrec;
    if (o == "::" || o == "[") return kPostfixPrec;
    return 0;
  }

  Result<ExprPtr> Parse(int min_prec) {
    if (++depth_ > kMaxDepth) {
      return Status::InvalidInput(
          fmt::format("expression nested deeper than {} levels at position {} in \"{}\"", kMaxDepth,
                      Peek().pos + 1, sql_.substr(0, 200)));
    }
    QV_ASSIGN_OR_RETURN(ExprPtr left, ParsePrefix());
    while (true) {
      const int prec = InfixPrecedence();
      if (prec <= min_prec) break;
      QV_ASSIGN_OR_RETURN(left, ParseInfix(std::move(left), prec));
    }
    --depth_;
    return left;
  }

  Result<ExprPtr> ParseInfix(ExprPtr left, int prec) {
    const Token& t = Next();
    const size_t pos = left->pos;
    if (t.IsKeyword("IS")) {
      const bool negated = AcceptKeyword("NOT");
      Expr::Kind kind;
      if (AcceptKeyword("NULL")) {
        kind = Expr::Kind::kIsNull;
      } else if (AcceptKeyword("TRUE")) {
        kind = Expr::Kind::kIsTrue;
      } else if (AcceptKeyword("FALSE")) {
        kind = Expr::Kind::kIsFalse;
      } else if (AcceptKeyword("UNKNOWN")) {
        kind = Expr::Kind::kIsUnknown;
      } else if (Peek().IsKeyword("DISTINCT")) {
        Next();
        QV_RETURN_IF_ERROR(ExpectKeyword("FROM"));
        QV_ASSIGN_OR_RETURN(ExprPtr right, Parse(kIsPrec));
        auto e = Node(Expr::Kind::kCall, pos);
        e->name = negated ? "is_not_distinct_from" : "is_distinct_from";
        e->args = {std::move(left), std::move(right)};
        return ExprPtr(e);
      } else {
        return Error(Peek(), "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS");
      }
      auto e = Node(kind, pos);
      e->negated = negated;
      e->args = {std::move(left)};
      return ExprPtr(e);
    }
    bool negated = false;
    const Token* op = &t;
    if (t.IsKeyword("NOT")) {
      negated = true;
      op = &Next();
    }
    if (op->IsKeyword("LIKE") || op->IsKeyword("ILIKE")) {
      auto e = Node(Expr::Kind::kLike, pos);
      e->negated = negated;
      e->case_insensitive = op->IsKeyword("ILIKE");
      QV_ASSIGN_OR_RETURN(ExprPtr pattern, Parse(kLikePrec));
      e->args = {std::move(left), std::move(pattern)};
      if (AcceptKeyword("ESCAPE")) {
        const Token& esc = Next();
        if (esc.type != TokenType::kString || esc.text.size() != 1) {
          return Error(esc, "expected a one-character string after ESCAPE");
        }
        e->has_escape = true;
        e->escape = esc.text[0];
      }
      return ExprPtr(e);
    }
    if (op->IsKeyword("IN")) {
      auto e = Node(Expr::Kind::kIn, pos);
      e->negated = negated;
      QV_RETURN_IF_ERROR(ExpectOp("("));
      e->args.push_back(std::move(left));
      if (Peek().IsKeyword("SELECT"))
        return Error(Peek(), "subqueries are not supported: expected a value");
      do {
        QV_ASSIGN_OR_RETURN(ExprPtr item, Parse(0));
        e->args.push_back(std::move(item));
      } while (AcceptOp(","));
      QV_RETURN_IF_ERROR(ExpectOp(")"));
      return ExprPtr(e);
    }
    if (op->IsKeyword("BETWEEN")) {
      auto e = Node(Expr::Kind::kBetween, pos);
      e->negated = negated;
      QV_ASSIGN_OR_RETURN(ExprPtr low, Parse(kComparePrec));
      QV_RETURN_IF_ERROR(ExpectKeyword("AND"));
      QV_ASSIGN_OR_RETURN(ExprPtr high, Parse(kComparePrec));
      e->args = {std::move(left), std::move(low), std::move(high)};
      return ExprPtr(e);
    }
    if (t.IsOp("::")) {
      auto e = Node(Expr::Kind::kCast, pos);
      QV_ASSIGN_OR_RETURN(e->type_name, ParseTypeName());
      e->args = {std::move(left)};
      return ExprPtr(e);
    }
    if (t.IsOp("[")) {
      auto e = Node(Expr::Kind::kIndex, pos);
      QV_ASSIGN_OR_RETURN(ExprPtr index, Parse(0));
      QV_RETURN_IF_ERROR(ExpectOp("]"));
      e->args = {std::move(left), std::move(index)};
      return ExprPtr(e);
    }
    auto e = Node(Expr::Kind::kBinary, pos);
    if (t.IsKeyword("OR")) {
      e->op = BinaryOp::kOr;
    } else if (t.IsKeyword("AND")) {
      e->op = BinaryOp::kAnd;
    } else {
      const std::string& o = t.text;
      e->op = o == "=" || o == "=="    ? BinaryOp::kEq
              : o == "!=" || o == "<>" ? BinaryOp::kNotEq
              : o == "<"               ? BinaryOp::kLt
              : o == "<="              ? BinaryOp::kLtEq
              : o == ">"               ? BinaryOp::kGt
              : o == ">="              ? BinaryOp::kGtEq
              : o == "+"               ? BinaryOp::kPlus
              : o == "-"               ? BinaryOp::kMinus
              : o == "*"               ? BinaryOp::kMultiply
              : o == "/"               ? BinaryOp::kDivide
              : o == "%"               ? BinaryOp::kModulo
              : o == "||"              ? BinaryOp::kConcat
              : o == "&"               ? BinaryOp::kBitAnd
              : o == "|"               ? BinaryOp::kBitOr
              : o == "^"               ? BinaryOp::kBitXor
              : o == "<<"              ? BinaryOp::kShiftLeft
                                       : BinaryOp::kShiftRight;
    }
    QV_ASSIGN_OR_RETURN(ExprPtr right, Parse(prec));
    e->args = {std::move(left), std::move(right)};
    return ExprPtr(e);
  }

  // A type after CAST ... AS or ::: words (DOUBLE PRECISION, TIMESTAMP WITH TIME ZONE) and an
  // optional (n[, m]); upper-cased, e.g. "DECIMAL(10,2)".
  Result<std::string> ParseTypeName() {
    if (Peek().type != TokenType::kIdent || Peek().quoted)
      return Error(Peek(), "expected a type name");
    std::string name = Upper(Next().text);
    while (Peek().type == TokenType::kIdent && !Peek().quoted &&
           (Peek().IsKeyword("PRECISION") || Peek().IsKeyword("WITH") ||
            Peek().IsKeyword("WITHOUT") || Peek().IsKeyword("TIME") || Peek().IsKeyword("ZONE") ||
            Peek().IsKeyword("VARYING") || Peek().IsKeyword("UNSIGNED"))) {
      name += " " + Upper(Next().text);
    }
    if (AcceptOp("(")) {
      name += "(";
      do {
        const Token& n = Next();
        if (n.type != TokenType::kNumber)
          return Error(n, "expected a number in the type's parameters");
        if (name.back() != '(') name += ",";
        name += n.text;
      } while (AcceptOp(","));
      QV_RETURN_IF_ERROR(ExpectOp(")"));
      name += ")";
    }
    if (AcceptOp("[")) {  // INT[] : a list type
      QV_RETURN_IF_ERROR(ExpectOp("]"));
      name += "[]";
    }
    return name;
  }

  Result<ExprPtr> ParseNumber(const Token& t) {
    auto e = Node(Expr::Kind::kLiteral, t.pos);
    Literal& lit = e->literal;
    const bool integral = t.text.find_first_of(".eE") == std::string::npos;
    if (integral) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec == std::errc() && p == t.text.data() + t.text.size()) {
        lit.type = Literal::Type::kInt;
        lit.i = v;
        return ExprPtr(e);
      }
      uint64_t u = 0;
      auto [q, ec2] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), u);
      if (ec2 == std::errc() && q == t.text.data() + t.text.size()) {
        lit.type = Literal::Type::kUInt;
        lit.u = u;
        return ExprPtr(e);
      }
    }
    errno = 0;
    char* end = nullptr;
    const double d = std::strtod(t.text.c_str(), &end);
    if (end != t.text.c_str() + t.text.size() || errno == ERANGE) {
      return Error(t, "expected a number that fits a 64-bit float");
    }
    lit.type = Literal::Type::kFloat;
    lit.f = d;
    return ExprPtr(e);
  }

  Result<ExprPtr> ParseTyped(const Token& kw, Literal::Type type) {
    const Token& s = Next();
    if (s.type != TokenType::kString) {
      return Error(s, fmt::format("expected a string after {}", Upper(kw.text)));
    }
    auto e = Node(Expr::Kind::kLiteral, kw.pos);
    e->literal.type = type;
    e->literal.text = s.text;
    // INTERVAL '3' DAY: the unit after the string.
    if (type == Literal::Type::kInterval && Peek().type == TokenType::kIdent && !Peek().quoted &&
        !IsReserved(Peek())) {
      e->literal.text += " " + Lower(Next().text);
    }
    return ExprPtr(e);
  }

  Result<ExprPtr> ParseCase(size_t pos) {
    auto e = Node(Expr::Kind::kCase, pos);
    if (!Peek().IsKeyword("WHEN")) {
      QV_ASSIGN_OR_RETURN(ExprPtr operand, Parse(0));
      e->has_operand = true;
      e->args.push_back(std::move(operand));
    }
    if (!Peek().IsKeyword("WHEN")) return Error(Peek(), "expected WHEN");
    while (AcceptKeyword("WHEN")) {
      QV_ASSIGN_OR_RETURN(ExprPtr when, Parse(0));
      QV_RETURN_IF_ERROR(ExpectKeyword("THEN"));
      QV_ASSIGN_OR_RETURN(ExprPtr then, Parse(0));
      e->args.push_back(std::move(when));
      e->args.push_back(std::move(then));
    }
    if (AcceptKeyword("ELSE")) {
      QV_ASSIGN_OR_RETURN(ExprPtr otherwise, Parse(0));
      e->has_else = true;
      e->args.push_back(std::move(otherwise));
    }
    QV_RETURN_IF_ERROR(ExpectKeyword("END"));
    return ExprPtr(e);
  }

  Result<ExprPtr> ParseCall(const Token& name) {
    auto e = Node(Expr::Kind::kCall, name.pos);
    e->name = Lower(name.text);
    Next();                      // (
    if (e->name == "extract") {  // EXTRACT(field FROM x) = date_part('field', x)
      const Token& field = Next();
      if (field.type != TokenType::kIdent && field.type != TokenType::kString) {
        return Error(field, "expected a date part (YEAR, MONTH, DAY, ...) in EXTRACT");
      }
      auto part = Node(Expr::Kind::kLiteral, field.pos);
      part->literal.type = Literal::Type::kString;
      part->literal.text = Lower(field.text);
      QV_RETURN_IF_ERROR(ExpectKeyword("FROM"));
      QV_ASSIGN_OR_RETURN(ExprPtr arg, Parse(0));
      QV_RETURN_IF_ERROR(ExpectOp(")"));
      e->name = "date_part";
      e->args = {ExprPtr(part), std::move(arg)};
      return ExprPtr(e);
    }
    if (AcceptOp(")")) return ExprPtr(e);
    if (Peek().IsOp("*") && Peek(1).IsOp(")")) {
      Next();
      Next();
      e->star = true;
      return ExprPtr(e);
    }
    do {
      QV_ASSIGN_OR_RETURN(ExprPtr arg, Parse(0));
      e->args.push_back(std::move(arg));
    } while (AcceptOp(","));
    QV_RETURN_IF_ERROR(ExpectOp(")"));
    if (e->name == "make_array") e->kind = Expr::Kind::kList;
    return ExprPtr(e);
  }

  Result<ExprPtr> ParsePrefix() {
    const Token& t = Peek();
    switch (t.type) {
      case TokenType::kEnd:
        return Error(t, "expected an expression");
      case TokenType::kNumber:
        Next();
        return ParseNumber(t);
      case TokenType::kString: {
        Next();
        auto e = Node(Expr::Kind::kLiteral, t.pos);
        e->literal.type = Literal::Type::kString;
        e->literal.text = t.text;
        return ExprPtr(e);
      }
      case TokenType::kOp: {
        Next();
        if (t.text == "(") {
          QV_ASSIGN_OR_RETURN(ExprPtr inner, Parse(0));
          QV_RETURN_IF_ERROR(ExpectOp(")"));
          return inner;
        }
        if (t.text == "-" || t.text == "+") {
          QV_ASSIGN_OR_RETURN(ExprPtr operand, Parse(kMulDivPrec));
          if (t.text == "+") return operand;
          // -9223372036854775808 is the int64 minimum, not an overflow.
          if (operand->kind == Expr::Kind::kLiteral &&
              operand->literal.type == Literal::Type::kUInt &&
              operand->literal.u == uint64_t{1} << 63) {
            auto e = Node(Expr::Kind::kLiteral, t.pos);
            e->literal.type = Literal::Type::kInt;
            e->literal.i = INT64_MIN;
            return ExprPtr(e);
          }
          auto e = Node(Expr::Kind::kNegate, t.pos);
          e->args = {std::move(operand)};
          return ExprPtr(e);
        }
        if (t.text == "[") {
          auto e = Node(Expr::Kind::kList, t.pos);
          if (!AcceptOp("]")) {
            do {
              QV_ASSIGN_OR_RETURN(ExprPtr item, Parse(0));
              e->args.push_back(std::move(item));
            } while (AcceptOp(","));
            QV_RETURN_IF_ERROR(ExpectOp("]"));
          }
          return ExprPtr(e);
        }
        return Error(t, "expected an expression");
      }
      case TokenType::kIdent:
        break;
    }
    if (!t.quoted) {
      if (t.IsKeyword("NOT")) {
        Next();
        QV_ASSIGN_OR_RETURN(ExprPtr operand, Parse(kNotPrec));
        auto e = Node(Expr::Kind::kNot, t.pos);
        e->args = {std::move(operand)};
        return ExprPtr(e);
      }
      if (t.IsKeyword("NULL") || t.IsKeyword("TRUE") || t.IsKeyword("FALSE")) {
        Next();
        auto e = Node(Expr::Kind::kLiteral, t.pos);
        e->literal.type = t.IsKeyword("NULL") ? Literal::Type::kNull : Literal::Type::kBool;
        e->literal.b = t.IsKeyword("TRUE");
        return ExprPtr(e);
      }
      if (t.IsKeyword("CASE")) {
        Next();
        return ParseCase(t.pos);
      }
      if (t.IsKeyword("CAST") || t.IsKeyword("TRY_CAST")) {
        Next();
        auto e = Node(Expr::Kind::kCast, t.pos);
        e->try_cast = t.IsKeyword("TRY_CAST");
        QV_RETURN_IF_ERROR(ExpectOp("("));
        QV_ASSIGN_OR_RETURN(ExprPtr arg, Parse(0));
        QV_RETURN_IF_ERROR(ExpectKeyword("AS"));
        QV_ASSIGN_OR_RETURN(e->type_name, ParseTypeName());
        QV_RETURN_IF_ERROR(ExpectOp(")"));
        e->args = {std::move(arg)};
        return ExprPtr(e);
      }
      if (Peek(1).type == TokenType::kString) {
        if (t.IsKeyword("DATE")) return Next(), ParseTyped(t, Literal::Type::kDate);
        if (t.IsKeyword("TIMESTAMP")) return Next(), ParseTyped(t, Literal::Type::kTimestamp);
        if (t.IsKeyword("INTERVAL")) return Next(), ParseTyped(t, Literal::Type::kInterval);
      }
      if (Peek(1).IsOp("(")) return ParseCall(Next());
      if (IsReserved(t)) return Error(t, "expected an expression");
    }
    // A column: name(.name)*
    auto e = Node(Expr::Kind::kColumn, t.pos);
    e->path.push_back(Next().text);
    while (Peek().IsOp(".")) {
      Next();
      const Token& part = Next();
      if (part.type != TokenType::kIdent) return Error(part, "expected a field name after '.'");
      e->path.push_back(part.text);
    }
    return ExprPtr(e);
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  size_t depth_ = 0;
};

}  // namespace

Result<ExprPtr> ParseExpression(std::string_view sql) {
  if (sql.size() > kMaxLength) {
    return Status::InvalidInput(
        fmt::format("SQL expression of {} bytes (at most {})", sql.size(), kMaxLength));
  }
  QV_ASSIGN_OR_RETURN(std::vector<Token> tokens, internal::Tokenize(sql));
  Parser parser(sql, std::move(tokens));
  return parser.ParseAll();
}

}  // namespace quiver::expr
