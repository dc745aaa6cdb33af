// The scalar functions (scalar_functions.h).
#include "expr/internal/scalar_functions.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cwctype>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace quiver::expr::internal {

namespace {

// The longest string one function call may make (lpad, rpad, repeat); the evaluator bounds a
// whole batch's results as well (CallScalar).
constexpr uint64_t kMaxValueBytes = 16u << 20;

const std::string& Str(const Scalar& v) { return std::get<std::string>(v); }
double Num(const Scalar& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
  return std::get<double>(v);
}
int64_t Int(const Scalar& v) { return std::get<int64_t>(v); }

// ---- UTF-8, by characters ----

// Byte offsets of each character's start, and the end.
std::vector<size_t> CharStarts(std::string_view s) {
  std::vector<size_t> at;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) at.push_back(i);
  }
  at.push_back(s.size());
  return at;
}
std::vector<std::string_view> Chars(std::string_view s) {
  std::vector<size_t> at = CharStarts(s);
  std::vector<std::string_view> out;
  for (size_t k = 0; k + 1 < at.size(); ++k) out.push_back(s.substr(at[k], at[k + 1] - at[k]));
  return out;
}
std::string Join(const std::vector<std::string_view>& chars, size_t from, size_t to) {
  std::string out;
  for (size_t k = from; k < to && k < chars.size(); ++k) out.append(chars[k]);
  return out;
}

// ---- trimming ----

enum class Side { kLeft, kRight, kBoth };
const std::string& Space() {
  static const std::string kSpace = " ";
  return kSpace;
}

Result<Scalar> Trim(const std::vector<Scalar>& a, Side side) {
  const std::vector<std::string_view> set = Chars(a.size() > 1 ? Str(a[1]) : Space());
  auto in_set = [&](std::string_view c) {
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  std::vector<std::string_view> chars = Chars(Str(a[0]));
  size_t from = 0, to = chars.size();
  if (side != Side::kRight) {
    while (from < to && in_set(chars[from])) ++from;
  }
  if (side != Side::kLeft) {
    while (to > from && in_set(chars[to - 1])) --to;
  }
  return Scalar(Join(chars, from, to));
}

// ---- the string functions ----

Result<Scalar> Replace(const std::vector<Scalar>& a) {
  const std::string& s = Str(a[0]);
  const std::string& from = Str(a[1]);
  const std::string& to = Str(a[2]);
  std::string out;
  if (from.empty()) {  // Rust's str::replace: `to` between every character and at both ends
    for (std::string_view c : Chars(s)) {
      out += to;
      out += c;
    }
    out += to;
    return Scalar(out);
  }
  size_t at = 0;
  while (true) {
    size_t hit = s.find(from, at);
    if (hit == std::string::npos) break;
    out.append(s, at, hit - at);
    out += to;
    at = hit + from.size();
  }
  out.append(s, at, std::string::npos);
  return Scalar(out);
}

Result<Scalar> Reverse(const std::vector<Scalar>& a) {
  std::vector<std::string_view> chars = Chars(Str(a[0]));
  std::reverse(chars.begin(), chars.end());
  return Scalar(Join(chars, 0, chars.size()));
}

// left(s, n): the first n characters; a negative n: all but the last |n|. right: the mirror.
Result<Scalar> LeftRight(const std::vector<Scalar>& a, bool left) {
  std::vector<std::string_view> chars = Chars(Str(a[0]));
  const int64_t size = static_cast<int64_t>(chars.size());
  int64_t n = Int(a[1]);
  int64_t keep = n >= 0 ? std::min(n, size) : std::max<int64_t>(0, size + n);
  size_t k = static_cast<size_t>(keep);
  return Scalar(left ? Join(chars, 0, k) : Join(chars, chars.size() - k, chars.size()));
}

// lpad / rpad(s, n[, fill]): s cut or filled (with `fill`, default a space) to n characters.
Result<Scalar> Pad(const std::vector<Scalar>& a, bool left) {
  std::vector<std::string_view> chars = Chars(Str(a[0]));
  const int64_t n = Int(a[1]);
  if (n <= 0) return Scalar(std::string());
  if (static_cast<uint64_t>(n) > kMaxValueBytes) {
    return Status::InvalidInput(
        fmt::format("{}() would make a string of more than 16 MiB", left ? "lpad" : "rpad"));
  }
  const size_t want = static_cast<size_t>(n);
  if (chars.size() >= want) return Scalar(Join(chars, 0, want));
  std::vector<std::string_view> fill = Chars(a.size() > 2 ? Str(a[2]) : Space());
  if (fill.empty()) return Scalar(Join(chars, 0, chars.size()));
  std::string pad;
  for (size_t k = 0; k < want - chars.size(); ++k) pad.append(fill[k % fill.size()]);
  if (pad.size() > kMaxValueBytes) {
    return Status::InvalidInput(
        fmt::format("{}() would make a string of more than 16 MiB", left ? "lpad" : "rpad"));
  }
  std::string s = Join(chars, 0, chars.size());
  return Scalar(left ? pad + s : s + pad);
}

// One UTF-8 character at `at` (advanced past it), or -1 for a byte that does not start one.
int32_t DecodeUtf8(std::string_view s, size_t* at) {
  const auto c = static_cast<unsigned char>(s[*at]);
  const size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || *at + len > s.size()) {
    ++*at;
    return -1;
  }
  int32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[*at + k]);
    if ((d & 0xC0) != 0x80) {
      ++*at;
      return -1;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  *at += len;
  return cp;
}

void EncodeUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

Result<Scalar> Initcap(const std::vector<Scalar>& a) {
  std::string s = Str(a[0]);
  bool start = true;
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {  // not ASCII: kept, and part of a word
      start = false;
      continue;
    }
    if (std::isalnum(u)) {
      c = static_cast<char>(start ? std::toupper(u) : std::tolower(u));
      start = false;
    } else {
      start = true;
    }
  }
  return Scalar(s);
}

Result<Scalar> Repeat(const std::vector<Scalar>& a) {
  const std::string& s = Str(a[0]);
  const int64_t n = Int(a[1]);
  if (n <= 0 || s.empty()) return Scalar(std::string());
  if (static_cast<uint64_t>(n) > kMaxValueBytes / s.size()) {
    return Status::InvalidInput("repeat() would make a string of more than 16 MiB");
  }
  std::string out;
  out.reserve(static_cast<size_t>(n) * s.size());
  for (int64_t k = 0; k < n; ++k) out += s;
  return Scalar(out);
}

// split_part(s, delimiter, n): the n-th part (1-based; negative counts from the end), '' past
// the parts.
Result<Scalar> SplitPart(const std::vector<Scalar>& a) {
  const std::string& s = Str(a[0]);
  const std::string& delim = Str(a[1]);
  const int64_t n = Int(a[2]);
  if (n == 0) return Status::InvalidInput("split_part(): the field position must not be zero");
  std::vector<std::string> parts;
  if (delim.empty()) {
    parts.push_back(s);
  } else {
    size_t at = 0;
    while (true) {
      size_t hit = s.find(delim, at);
      if (hit == std::string::npos) break;
      parts.push_back(s.substr(at, hit - at));
      at = hit + delim.size();
    }
    parts.push_back(s.substr(at));
  }
  const int64_t count = static_cast<int64_t>(parts.size());
  const int64_t index = n > 0 ? n - 1 : count + n;
  if (index < 0 || index >= count) return Scalar(std::string());
  return Scalar(parts[static_cast<size_t>(index)]);
}

// translate(s, from, to): each character of `from` becomes the one at its place in `to`, or is
// removed when `to` is shorter.
Result<Scalar> Translate(const std::vector<Scalar>& a) {
  std::vector<std::string_view> from = Chars(Str(a[1]));
  std::vector<std::string_view> to = Chars(Str(a[2]));
  std::string out;
  for (std::string_view c : Chars(Str(a[0]))) {
    auto it = std::find(from.begin(), from.end(), c);
    if (it == from.end()) {
      out.append(c);
    } else if (size_t k = static_cast<size_t>(it - from.begin()); k < to.size()) {
      out.append(to[k]);
    }
  }
  return Scalar(out);
}

// strpos(s, sub): the 1-based character position of the first `sub`, 0 when there is none.
Result<Scalar> Strpos(const std::vector<Scalar>& a) {
  const std::string& s = Str(a[0]);
  size_t hit = s.find(Str(a[1]));
  if (hit == std::string::npos) return Scalar(int64_t{0});
  return Scalar(static_cast<int64_t>(CharStarts(s.substr(0, hit)).size()));
}

// A float as DataFusion's cast to a string writes it (arrow's, the ryu crate's format): the
// shortest digits that read back; positional between 1e-5 and 1e16 with at least one decimal
// ("1.0", "0.1", "123456789.125"), scientific beyond ("1e20", "-1.5e-7").
std::string FloatText(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, end);
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int length = static_cast<int>(digits.size());
  const int kk = std::stoi(sci.substr(e + 1)) + 1;  // 10^(kk-1) <= |x| < 10^kk
  const int k = kk - length;                        // |x| = digits * 10^k
  std::string out;
  if (k >= 0 && kk <= 16) {
    out = digits + std::string(static_cast<size_t>(k), '0') + ".0";
  } else if (kk > 0 && kk <= 16) {
    out = digits.substr(0, static_cast<size_t>(kk)) + "." + digits.substr(static_cast<size_t>(kk));
  } else if (kk > -5 && kk <= 0) {
    out = "0." + std::string(static_cast<size_t>(-kk), '0') + digits;
  } else if (length == 1) {
    out = digits + "e" + std::to_string(kk - 1);
  } else {
    out = digits.substr(0, 1) + "." + digits.substr(1) + "e" + std::to_string(kk - 1);
  }
  return negative ? "-" + out : out;
}

// concat(...): the arguments as strings, NULL ones left out (so never NULL).
Result<Scalar> Concat(const std::vector<Scalar>& a) {
  std::string out;
  for (const Scalar& v : a) {
    if (const auto* s = std::get_if<std::string>(&v)) {
      out += *s;
    } else if (const auto* i = std::get_if<int64_t>(&v)) {
      out += std::to_string(*i);
    } else if (const auto* u = std::get_if<uint64_t>(&v)) {
      out += std::to_string(*u);
    } else if (const auto* f = std::get_if<double>(&v)) {
      out += FloatText(*f);
    } else if (const auto* b = std::get_if<bool>(&v)) {
      out += *b ? "true" : "false";
    }
  }
  return Scalar(out);
}

// nullif(a, b): NULL where a equals b, else a.
Result<Scalar> Nullif(const std::vector<Scalar>& a) {
  const Scalar& x = a[0];
  const Scalar& y = a[1];
  if (std::holds_alternative<std::monostate>(x) || std::holds_alternative<std::monostate>(y)) {
    return x;
  }
  bool equal = false;
  auto numeric = [](const Scalar& v) {
    return std::holds_alternative<int64_t>(v) || std::holds_alternative<uint64_t>(v) ||
           std::holds_alternative<double>(v);
  };
  if (numeric(x) && numeric(y)) {
    if (x.index() == y.index()) {
      equal = x == y;
    } else if (std::holds_alternative<double>(x) || std::holds_alternative<double>(y)) {
      equal = Num(x) == Num(y);
    } else {  // one signed, one unsigned: equal only when the signed one is not negative
      const int64_t i = std::holds_alternative<int64_t>(x) ? Int(x) : Int(y);
      const uint64_t u =
          std::holds_alternative<uint64_t>(x) ? std::get<uint64_t>(x) : std::get<uint64_t>(y);
      equal = i >= 0 && static_cast<uint64_t>(i) == u;
    }
  } else if (x.index() == y.index()) {
    equal = x == y;
  } else {
    return Status::InvalidInput("nullif() needs two values of comparable types");
  }
  return equal ? Scalar() : x;
}

// ---- regular expressions (RE2: the syntax of Rust's regex crate, linear time) ----

// Rust's regex (DataFusion's) is Unicode-aware where RE2 is ASCII-only: `\d` is any decimal
// digit (\p{Nd}) there. `\w`, `\s` and `\b` stay ASCII here (docs/lance-findings.md).
std::string ToRe2(const std::string& pattern) {
  std::string out;
  for (size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] == '\\' && k + 1 < pattern.size()) {
      const char next = pattern[k + 1];
      out += next == 'd' ? "\\p{Nd}" : next == 'D' ? "\\P{Nd}" : pattern.substr(k, 2);
      ++k;
    } else {
      out += pattern[k];
    }
  }
  return out;
}

// Compiled patterns, kept: a filter runs the same pattern over every row of every batch (each
// thread remembers the last one it used, so rows do not take the lock). Flags are DataFusion's:
// they become the pattern's inline flags, as its Rust regex takes them.
Result<std::shared_ptr<const RE2>> Compiled(const std::string& pattern, const std::string& flags) {
  thread_local std::pair<std::string, std::shared_ptr<const RE2>> last;
  std::string key = flags + '\0' + pattern;
  if (last.second && last.first == key) return last.second;
  std::string inline_flags;
  for (char f : flags) {
    if (f != 'i' && f != 'm' && f != 's' && f != 'U') {
      return Status::InvalidInput(fmt::format("regexp flag '{}' is not supported", f));
    }
    inline_flags += f;
  }
  const std::string full =
      (inline_flags.empty() ? std::string() : "(?" + inline_flags + ")") + ToRe2(pattern);
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const RE2>> cache;
  std::shared_ptr<const RE2> re;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) re = it->second;
  }
  if (!re) {
    RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(2 << 20);
    auto compiled = std::make_shared<const RE2>(full, options);
    if (!compiled->ok()) {
      return Status::InvalidInput(
          fmt::format("'{}' is not a regular expression: {}", pattern, compiled->error()));
    }
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= 64) cache.clear();
    re = cache.emplace(key, std::move(compiled)).first->second;
  }
  last = {std::move(key), re};
  return re;
}

Result<Scalar> RegexpLike(const std::vector<Scalar>& a) {
  QV_ASSIGN_OR_RETURN(auto re, Compiled(Str(a[1]), a.size() > 2 ? Str(a[2]) : std::string()));
  return Scalar(RE2::PartialMatch(Str(a[0]), *re));
}

// ---- numbers (float64 results, as DataFusion's math functions) ----

template <double (*F)(double)>
Result<Scalar> Math1(const std::vector<Scalar>& a) {
  return Scalar(F(Num(a[0])));
}
double Sqrt(double x) { return std::sqrt(x); }
double Cbrt(double x) { return std::cbrt(x); }
double Exp(double x) { return std::exp(x); }
// Rust's logarithms answer a positive NaN for a negative argument where glibc's answer the x86
// default NaN (sign bit set), and NaN's sign decides comparisons (arrow's total order puts a
// negative NaN below every number, a positive one above): LanceDB's `ln(-1) > 1` is TRUE.
// (Its sqrt and power of a negative are the default NaN, as here.)
double PositiveNan(double x) {
  return std::isnan(x) ? std::numeric_limits<double>::quiet_NaN() : x;
}
double Ln(double x) { return PositiveNan(std::log(x)); }
double Log2(double x) { return PositiveNan(std::log2(x)); }
double Log10(double x) { return PositiveNan(std::log10(x)); }
double Signum(double x) {
  if (std::isnan(x) || x == 0) return x == 0 ? 0.0 : x;
  return x < 0 ? -1.0 : 1.0;
}

// round / trunc(x[, digits]): to `digits` decimals (negative: tens, hundreds), half away from
// zero, computed as DataFusion does: op(x * 10^d) / 10^d.
Result<Scalar> RoundTo(const std::vector<Scalar>& a, bool trunc) {
  const double x = Num(a[0]);
  const int64_t d = a.size() > 1 ? Int(a[1]) : 0;
  if (d == 0) return Scalar(trunc ? std::trunc(x) : std::round(x));
  const double scale = std::pow(10.0, static_cast<double>(std::clamp<int64_t>(d, -400, 400)));
  return Scalar((trunc ? std::trunc(x * scale) : std::round(x * scale)) / scale);
}

Result<Scalar> Log(const std::vector<Scalar>& a) {
  if (a.size() == 1) return Scalar(Log10(Num(a[0])));
  return Scalar(PositiveNan(std::log(Num(a[1])) / std::log(Num(a[0]))));  // log(base, x)
}

Result<Scalar> Power(const std::vector<Scalar>& a) {
  return Scalar(std::pow(Num(a[0]), Num(a[1])));
}

using K = ArgKind;
using R = ResultKind;
const std::vector<ScalarFunction>& Functions() {
  static const std::vector<ScalarFunction> kFunctions = {
      {"concat", 1, 1024, {K::kAny}, R::kString, false, Concat},
      {"ltrim",
       1,
       2,
       {K::kString},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return Trim(a, Side::kLeft); }},
      {"rtrim",
       1,
       2,
       {K::kString},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return Trim(a, Side::kRight); }},
      {"btrim",
       1,
       2,
       {K::kString},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return Trim(a, Side::kBoth); }},
      {"replace", 3, 3, {K::kString}, R::kString, true, Replace},
      {"reverse", 1, 1, {K::kString}, R::kString, true, Reverse},
      {"left",
       2,
       2,
       {K::kString, K::kInteger},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return LeftRight(a, true); }},
      {"right",
       2,
       2,
       {K::kString, K::kInteger},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return LeftRight(a, false); }},
      {"lpad",
       2,
       3,
       {K::kString, K::kInteger, K::kString},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return Pad(a, true); }},
      {"rpad",
       2,
       3,
       {K::kString, K::kInteger, K::kString},
       R::kString,
       true,
       [](const std::vector<Scalar>& a) { return Pad(a, false); }},
      {"initcap", 1, 1, {K::kString}, R::kString, true, Initcap},
      {"repeat", 2, 2, {K::kString, K::kInteger}, R::kString, true, Repeat},
      {"split_part", 3, 3, {K::kString, K::kString, K::kInteger}, R::kString, true, SplitPart},
      {"translate", 3, 3, {K::kString}, R::kString, true, Translate},
      {"strpos", 2, 2, {K::kString}, R::kInt, true, Strpos},
      {"octet_length",
       1,
       1,
       {K::kString},
       R::kInt,
       true,
       [](const std::vector<Scalar>& a) -> Result<Scalar> {
         return Scalar(static_cast<int64_t>(Str(a[0]).size()));
       }},
      {"ends_with",
       2,
       2,
       {K::kString},
       R::kBool,
       true,
       [](const std::vector<Scalar>& a) -> Result<Scalar> {
         const std::string& s = Str(a[0]);
         const std::string& t = Str(a[1]);
         return Scalar(s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0);
       }},
      {"contains",
       2,
       2,
       {K::kString},
       R::kBool,
       true,
       [](const std::vector<Scalar>& a) -> Result<Scalar> {
         return Scalar(Str(a[0]).find(Str(a[1])) != std::string::npos);
       }},
      {"regexp_like", 2, 3, {K::kString}, R::kBool, true, RegexpLike},
      {"round",
       1,
       2,
       {K::kNumber, K::kInteger},
       R::kFloat,
       true,
       [](const std::vector<Scalar>& a) { return RoundTo(a, false); }},
      {"trunc",
       1,
       2,
       {K::kNumber, K::kInteger},
       R::kFloat,
       true,
       [](const std::vector<Scalar>& a) { return RoundTo(a, true); }},
      {"sqrt", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Sqrt>},
      {"cbrt", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Cbrt>},
      {"exp", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Exp>},
      {"ln", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Ln>},
      {"log2", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Log2>},
      {"log10", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Log10>},
      {"log", 1, 2, {K::kNumber}, R::kFloat, true, Log},
      {"power", 2, 2, {K::kNumber}, R::kFloat, true, Power},
      {"pow", 2, 2, {K::kNumber}, R::kFloat, true, Power},
      {"signum", 1, 1, {K::kNumber}, R::kFloat, true, Math1<Signum>},
      {"nullif", 2, 2, {K::kAny}, R::kSameAsFirst, false, Nullif},
  };
  return kFunctions;
}

}  // namespace

const ScalarFunction* FindScalarFunction(std::string_view name) {
  for (const ScalarFunction& f : Functions()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string MapCase(std::string_view s, bool upper) {
  // C.UTF-8 is built into glibc (2.35 and later): no locale files needed.
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  std::string out;
  out.reserve(s.size());
  size_t at = 0;
  while (at < s.size()) {
    const size_t start = at;
    const int32_t cp = DecodeUtf8(s, &at);
    if (cp < 0) {
      out.push_back(s[start]);
      continue;
    }
    if (cp < 0x80) {
      out.push_back(static_cast<char>(upper ? std::toupper(cp) : std::tolower(cp)));
    } else if (upper && cp == 0xDF) {
      out += "SS";
    } else if (utf8 == static_cast<locale_t>(0)) {
      out.append(s.substr(start, at - start));
    } else {
      const wint_t m = upper ? towupper_l(static_cast<wint_t>(cp), utf8)
                             : towlower_l(static_cast<wint_t>(cp), utf8);
      EncodeUtf8(static_cast<uint32_t>(m), &out);
    }
  }
  return out;
}

}  // namespace quiver::expr::internal
