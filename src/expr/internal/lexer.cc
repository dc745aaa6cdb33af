#include "expr/internal/lexer.h"

#include <cctype>

#include <fmt/format.h>

namespace quiver::expr::internal {

namespace {

bool IdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;  // UTF-8 letters in names
}
bool IdentPart(char c) { return IdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

Status Error(std::string_view sql, size_t pos, std::string_view what) {
  return Status::InvalidInput(
      fmt::format("{} at position {} in \"{}\"", what, pos + 1, sql.substr(0, 200)));
}

}  // namespace

bool IsReservedWord(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "AND",  "OR",       "NOT",    "IS",   "IN",   "BETWEEN", "LIKE",      "ILIKE",
      "CASE", "WHEN",     "THEN",   "ELSE", "END",  "NULL",    "TRUE",      "FALSE",
      "CAST", "TRY_CAST", "ESCAPE", "AS",   "FROM", "DATE",    "TIMESTAMP", "INTERVAL"};
  for (std::string_view w : kWords) {
    if (w.size() != word.size()) continue;
    bool same = true;
    for (size_t i = 0; i < w.size() && same; ++i) {
      same = std::toupper(static_cast<unsigned char>(word[i])) == w[i];
    }
    if (same) return true;
  }
  return false;
}

bool Token::IsKeyword(std::string_view kw) const {
  if (type != TokenType::kIdent || quoted || text.size() != kw.size()) return false;
  for (size_t i = 0; i < kw.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != kw[i]) return false;
  }
  return true;
}

std::string Token::Describe() const {
  switch (type) {
    case TokenType::kEnd:
      return "end of input";
    case TokenType::kIdent:
      return quoted ? fmt::format("identifier \"{}\"", text) : fmt::format("'{}'", text);
    case TokenType::kNumber:
      return fmt::format("number {}", text);
    case TokenType::kString:
      return fmt::format("string '{}'", text.substr(0, 40));
    case TokenType::kOp:
      return fmt::format("'{}'", text);
  }
  return "?";
}

Result<std::vector<Token>> Tokenize(std::string_view sql) {
  std::vector<Token> out;
  size_t i = 0;
  const size_t n = sql.size();
  while (true) {
    while (i < n && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
    if (i + 1 < n && sql[i] == '-' && sql[i + 1] == '-') {  // -- comment to end of line
      while (i < n && sql[i] != '\n') ++i;
      continue;
    }
    Token t;
    t.pos = i;
    if (i >= n) {
      out.push_back(std::move(t));
      return out;
    }
    const char c = sql[i];
    if (c == '\'') {
      t.type = TokenType::kString;
      ++i;
      while (true) {
        if (i >= n) return Error(sql, t.pos, "unterminated string");
        if (sql[i] == '\'') {
          if (i + 1 < n && sql[i + 1] == '\'') {
            t.text.push_back('\'');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text.push_back(sql[i++]);
      }
    } else if (c == '"' || c == '`') {
      t.type = TokenType::kIdent;
      t.quoted = true;
      ++i;
      while (true) {
        if (i >= n) return Error(sql, t.pos, "unterminated quoted identifier");
        if (sql[i] == c) {
          if (i + 1 < n && sql[i + 1] == c) {
            t.text.push_back(c);
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text.push_back(sql[i++]);
      }
      if (t.text.empty()) return Error(sql, t.pos, "empty quoted identifier");
    } else if (IdentStart(c)) {
      t.type = TokenType::kIdent;
      while (i < n && IdentPart(sql[i])) t.text.push_back(sql[i++]);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) {
      t.type = TokenType::kNumber;
      while (i < n && std::isdigit(static_cast<unsigned char>(sql[i]))) t.text.push_back(sql[i++]);
      if (i < n && sql[i] == '.') {
        t.text.push_back(sql[i++]);
        while (i < n && std::isdigit(static_cast<unsigned char>(sql[i])))
          t.text.push_back(sql[i++]);
      }
      if (i < n && (sql[i] == 'e' || sql[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (sql[j] == '+' || sql[j] == '-')) ++j;
        if (j < n && std::isdigit(static_cast<unsigned char>(sql[j]))) {
          while (i < j) t.text.push_back(sql[i++]);
          while (i < n && std::isdigit(static_cast<unsigned char>(sql[i])))
            t.text.push_back(sql[i++]);
        }
      }
      if (i < n && IdentStart(sql[i])) return Error(sql, i, "unexpected character after a number");
    } else {
      t.type = TokenType::kOp;
      static constexpr std::string_view kTwo[] = {
          "==", "!=", "<>", "<=", ">=", "||", "<<", ">>", "::"};
      std::string_view rest = sql.substr(i);
      for (std::string_view op : kTwo) {
        if (rest.substr(0, 2) == op) {
          t.text = std::string(op);
          break;
        }
      }
      if (t.text.empty()) {
        static constexpr std::string_view kOne = "=<>+-*/%|&^(),.[]";
        if (kOne.find(c) == std::string_view::npos) {
          return Error(sql, i, fmt::format("unexpected character '{}'", c));
        }
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
}

}  // namespace quiver::expr::internal
