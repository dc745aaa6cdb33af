// Tokens of a SQL expression (parser.h's dialect), each with its byte offset in the source.
//
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace quiver::expr::internal {

enum class TokenType {
  kEnd,
  kIdent,   // text: the name; quoted: "..." or `...` (never a keyword)
  kNumber,  // text: as written
  kString,  // text: the value ('' unescaped)
  kOp,      // text: = == != <> < <= > >= + - * / % || | & ^ << >> :: ( ) , . [ ]
};

struct Token {
  TokenType type = TokenType::kEnd;
  std::string text;
  size_t pos = 0;
  bool quoted = false;

  // Whether this is the unquoted keyword `kw` (upper case), case-insensitively.
  bool IsKeyword(std::string_view kw) const;
  bool IsOp(std::string_view op) const { return type == TokenType::kOp && text == op; }
  // How an error names it: `'AND'`, `"("`, "end of input", ...
  std::string Describe() const;
};

// Whether `word` (any case) is a keyword that cannot stand unquoted for a column: AND, OR, NOT,
// IS, IN, BETWEEN, LIKE, ILIKE, CASE, WHEN, THEN, ELSE, END, NULL, TRUE, FALSE, CAST, TRY_CAST,
// ESCAPE, AS, FROM, DATE, TIMESTAMP, INTERVAL.
bool IsReservedWord(std::string_view word);

// InvalidInput naming the position of an unterminated string or identifier or an unexpected
// character. The last token is kEnd at the source's length.
Result<std::vector<Token>> Tokenize(std::string_view sql);

}  // namespace quiver::expr::internal
