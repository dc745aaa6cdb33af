// The SQL expression parser: every construct of LanceDB's filter / update / projection dialect,
// sqlparser's precedences (checked through the fully parenthesized ToString form), literals
// and their types, identifiers quoted and nested, and errors that name the position, what was
// expected and what was found, for malformed, hostile and too-deep input.
#include "expr/parser.h"

#include <gtest/gtest.h>

namespace quiver::expr {
namespace {

std::string Parsed(std::string_view sql) {
  auto e = ParseExpression(sql);
  if (!e.ok()) return "ERROR " + e.status().message();
  return (*e)->ToString();
}

TEST(ExprParser, PrecedenceFollowsSqlparser) {
  EXPECT_EQ(Parsed("a = 1 OR b = 2 AND c = 3"), "((a = 1) OR ((b = 2) AND (c = 3)))");
  EXPECT_EQ(Parsed("NOT a = 1 AND b"), "((NOT (a = 1)) AND b)");
  EXPECT_EQ(Parsed("a + b * c - d / e % f"), "((a + (b * c)) - ((d / e) % f))");
  EXPECT_EQ(Parsed("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(Parsed("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Parsed("a * b / c % d"), "(((a * b) / c) % d)");
  EXPECT_EQ(Parsed("-a * b"), "((- a) * b)");
  EXPECT_EQ(Parsed("-a::int"), "(- CAST(a AS INT))");
  EXPECT_EQ(Parsed("a || b = 'xy'"), "((a || b) = 'xy')");
  EXPECT_EQ(Parsed("a & 1 | b ^ 2"), "((a & 1) | (b ^ 2))");
  EXPECT_EQ(Parsed("a << 1 + 2"), "(a << (1 + 2))");
  EXPECT_EQ(Parsed("(a OR b) AND c"), "((a OR b) AND c)");
  EXPECT_EQ(Parsed("a > 1 IS TRUE"), "((a > 1) IS TRUE)");
}

TEST(ExprParser, PredicatesOfEveryShape) {
  EXPECT_EQ(Parsed("x IN (1, 2, 3)"), "(x IN (1, 2, 3))");
  EXPECT_EQ(Parsed("x not in ('a')"), "(x NOT IN ('a'))");
  EXPECT_EQ(Parsed("x BETWEEN 1 AND 5 AND y"), "((x BETWEEN 1 AND 5) AND y)");
  EXPECT_EQ(Parsed("x NOT BETWEEN a + 1 AND b"), "(x NOT BETWEEN (a + 1) AND b)");
  EXPECT_EQ(Parsed("s LIKE 'a%' OR s ILIKE '_b'"), "((s LIKE 'a%') OR (s ILIKE '_b'))");
  EXPECT_EQ(Parsed("s NOT LIKE 'a!%' ESCAPE '!'"), "(s NOT LIKE 'a!%' ESCAPE '!')");
  EXPECT_EQ(Parsed("s IS NULL"), "(s IS NULL)");
  EXPECT_EQ(Parsed("s is not null and t IS NOT FALSE"), "((s IS NOT NULL) AND (t IS NOT FALSE))");
  EXPECT_EQ(Parsed("b IS UNKNOWN"), "(b IS UNKNOWN)");
  EXPECT_EQ(Parsed("a IS DISTINCT FROM b"), "is_distinct_from(a, b)");
  EXPECT_EQ(Parsed("a <> b AND a != c AND a == d"), "(((a != b) AND (a != c)) AND (a = d))");
}

TEST(ExprParser, LiteralsKeepTheirTypes) {
  auto lit = [](std::string_view sql) {
    auto e = ParseExpression(sql);
    EXPECT_TRUE(e.ok()) << sql << ": " << e.status().ToString();
    EXPECT_EQ((*e)->kind, Expr::Kind::kLiteral) << sql;
    return (*e)->literal;
  };
  EXPECT_EQ(lit("42").type, Literal::Type::kInt);
  EXPECT_EQ(lit("42").i, 42);
  EXPECT_EQ(lit("-9223372036854775808").i, INT64_MIN);
  EXPECT_EQ(lit("18446744073709551615").type, Literal::Type::kUInt);
  EXPECT_EQ(lit("184467440737095516150").type, Literal::Type::kFloat);
  EXPECT_EQ(lit("1.5").f, 1.5);
  EXPECT_EQ(lit(".5e2").f, 50.0);
  EXPECT_EQ(lit("1e-3").f, 0.001);
  EXPECT_EQ(lit("'it''s'").text, "it's");
  EXPECT_EQ(lit("TRUE").b, true);
  EXPECT_EQ(lit("false").type, Literal::Type::kBool);
  EXPECT_EQ(lit("NULL").type, Literal::Type::kNull);
  EXPECT_EQ(lit("date '2024-01-31'").type, Literal::Type::kDate);
  EXPECT_EQ(lit("TIMESTAMP '2024-01-31 10:00:00'").text, "2024-01-31 10:00:00");
  EXPECT_EQ(lit("interval '3 days'").type, Literal::Type::kInterval);
  EXPECT_EQ(lit("INTERVAL '3' DAY").text, "3 day");
  EXPECT_EQ(Parsed("-1.5"), "(- 1.5)");
}

TEST(ExprParser, IdentifiersQuotedNestedAndCaseKept) {
  auto col = [](std::string_view sql) {
    auto e = ParseExpression(sql);
    EXPECT_TRUE(e.ok()) << sql << ": " << e.status().ToString();
    EXPECT_EQ((*e)->kind, Expr::Kind::kColumn) << sql;
    return (*e)->path;
  };
  EXPECT_EQ(col("MixedCase"), std::vector<std::string>{"MixedCase"});
  EXPECT_EQ(col("a.b.c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(col("`weird name`.`x``y`"), (std::vector<std::string>{"weird name", "x`y"}));
  EXPECT_EQ(col("\"select\""), std::vector<std::string>{"select"});
  EXPECT_EQ(col("_rowid"), std::vector<std::string>{"_rowid"});
  EXPECT_EQ(col("\"AND\""), std::vector<std::string>{"AND"});  // quoted: never a keyword
  EXPECT_EQ(col("名前"), std::vector<std::string>{"名前"});
  EXPECT_EQ(Parsed("`a b` = 1"), "(`a b` = 1)");
}

TEST(ExprParser, CastsCaseCallsAndLists) {
  EXPECT_EQ(Parsed("CAST(a AS BIGINT)"), "CAST(a AS BIGINT)");
  EXPECT_EQ(Parsed("try_cast(a as double precision)"), "TRY_CAST(a AS DOUBLE PRECISION)");
  EXPECT_EQ(Parsed("a::decimal(10, 2)"), "CAST(a AS DECIMAL(10,2))");
  EXPECT_EQ(Parsed("a::varchar::int"), "CAST(CAST(a AS VARCHAR) AS INT)");
  EXPECT_EQ(Parsed("CASE WHEN a > 1 THEN 'x' WHEN a < 0 THEN 'y' ELSE 'z' END"),
            "CASE WHEN (a > 1) THEN 'x' WHEN (a < 0) THEN 'y' ELSE 'z' END");
  EXPECT_EQ(Parsed("case a when 1 then 2 end"), "CASE a WHEN 1 THEN 2 END");
  EXPECT_EQ(Parsed("Lower(s) = 'x'"), "(lower(s) = 'x')");
  EXPECT_EQ(Parsed("coalesce(a, b, 0)"), "coalesce(a, b, 0)");
  EXPECT_EQ(Parsed("count(*)"), "count(*)");
  EXPECT_EQ(Parsed("now()"), "now()");
  EXPECT_EQ(Parsed("extract(year from d)"), "date_part('year', d)");
  EXPECT_EQ(Parsed("array_has(tags, 'a')"), "array_has(tags, 'a')");
  EXPECT_EQ(Parsed("array_has_any(tags, ['a', 'b'])"), "array_has_any(tags, ['a', 'b'])");
  EXPECT_EQ(Parsed("make_array(1, 2)"), "[1, 2]");
  EXPECT_EQ(Parsed("[]"), "[]");
  EXPECT_EQ(Parsed("v[1] > 0"), "(v[1] > 0)");
  EXPECT_EQ(Parsed("a -- a comment\n = 1"), "(a = 1)");
}

TEST(ExprParser, ErrorsNameThePositionAndTheProblem) {
  struct Case {
    const char* sql;
    const char* says;
  } cases[] = {
      {"", "expected an expression at position 1, found end of input"},
      {"a > ", "expected an expression at position 5, found end of input"},
      {"a = 1 b", "expected an operator or the end of the expression at position 7, found 'b'"},
      {"(a = 1", "expected ')' at position 7, found end of input"},
      {"a IN 1", "expected '(' at position 6, found number 1"},
      {"a IN ()", "expected an expression at position 7, found ')'"},
      {"a IN (SELECT b)", "subqueries are not supported"},
      {"a BETWEEN 1 OR 2", "expected AND at position 13, found 'OR'"},
      {"'abc", "unterminated string at position 1"},
      {"`abc", "unterminated quoted identifier at position 1"},
      {"a = #", "unexpected character '#' at position 5"},
      {"1abc", "unexpected character after a number at position 2"},
      {"CASE END", "expected an expression at position 6, found 'END'"},
      {"CASE a THEN 1 END", "expected WHEN at position 8, found 'THEN'"},
      {"CAST(a BIGINT)", "expected AS at position 8, found 'BIGINT'"},
      {"a::", "expected a type name at position 4, found end of input"},
      {"s LIKE 'x' ESCAPE 'ab'", "expected a one-character string after ESCAPE at position 19"},
      {"a IS 5", "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS at position 6"},
      {"a.", "expected a field name after '.' at position 3, found end of input"},
      {"AND", "expected an expression at position 1, found 'AND'"},
      {"f(a,)", "expected an expression at position 5, found ')'"},
      {"1e999", "expected a number that fits a 64-bit float at position 1"},
  };
  for (const Case& c : cases) {
    auto e = ParseExpression(c.sql);
    ASSERT_FALSE(e.ok()) << c.sql << " parsed as " << (*e)->ToString();
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidInput) << c.sql;
    EXPECT_NE(e.status().message().find(c.says), std::string::npos)
        << c.sql << ": " << e.status().message();
  }
}

// ToString is SQL that parses back to the same tree (what plans and the fuzzer rely on).
TEST(ExprParser, ToStringParsesBackToTheSameTree) {
  for (const char* sql :
       {"NOT a LIKE 'x' IN (1)", "a IS NULL IS NOT TRUE", "\"and\" = `or` AND \"a b\".c > -1.5e-7",
        "CASE a WHEN 1 THEN NOT b ELSE c BETWEEN 1 AND 2 END", "-9223372036854775808 - -x",
        "s NOT ILIKE 'a''b' ESCAPE '#'", "TRY_CAST(d AS TIMESTAMP WITH TIME ZONE)::date",
        "[1, [2]][1] || x", "date '2024-01-01' + interval '2' month < now()"}) {
    const std::string once = Parsed(sql);
    ASSERT_EQ(once.rfind("ERROR", 0), std::string::npos) << sql << ": " << once;
    EXPECT_EQ(Parsed(once), once) << sql;
  }
}

TEST(ExprParser, DeepOrLongInputIsRefusedNotACrash) {
  std::string deep(100000, '(');
  deep += "1";
  auto e = ParseExpression(deep);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("nested deeper than"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseExpression(nots + "a").ok());
  std::string minus(5000, '-');
  EXPECT_FALSE(ParseExpression(minus + "1").ok());
  // A long flat chain is fine: left-associative operators do not nest the parser.
  std::string chain = "a";
  for (int i = 0; i < 10000; ++i) chain += " OR a";
  EXPECT_TRUE(ParseExpression(chain).ok());
  EXPECT_FALSE(ParseExpression(std::string(kMaxLength + 1, ' ')).ok());
}

}  // namespace
}  // namespace quiver::expr
