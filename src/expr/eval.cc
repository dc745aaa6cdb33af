#include "expr/eval.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <variant>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "expr/internal/scalar_functions.h"

namespace quiver::expr {

namespace {

using arrow::TypeId;

// A column of values in one of evaluation's canonical types (integers widened to 64 bits,
// floats to double), or a scalar that stands for every row.
// kOpaque: a column of a type evaluation has no values for (structs, lists, binary, ...): only
// its validity, for IS [NOT] NULL.
enum class VKind { kNull, kBool, kInt, kUInt, kFloat, kString, kDate, kTimestamp, kOpaque };

const char* KindName(VKind k) {
  switch (k) {
    case VKind::kNull:
      return "null";
    case VKind::kBool:
      return "boolean";
    case VKind::kInt:
      return "integer";
    case VKind::kUInt:
      return "unsigned integer";
    case VKind::kFloat:
      return "float";
    case VKind::kString:
      return "string";
    case VKind::kDate:
      return "date";
    case VKind::kTimestamp:
      return "timestamp";
    case VKind::kOpaque:
      return "value of another type";
  }
  return "?";
}

struct Vec {
  VKind kind = VKind::kNull;
  int64_t n = 0;
  bool scalar = false;
  std::vector<uint8_t> valid;  // empty: all valid
  std::vector<int64_t> i;      // kInt, kDate (days), kTimestamp (in `unit`)
  std::vector<uint64_t> u;
  std::vector<double> f;
  std::vector<uint8_t> b;
  std::vector<std::string> s;
  arrow::TimeUnit unit = arrow::TimeUnit::kMicro;
  std::string tz;
  // A column's own Arrow type (a dictionary's value type), for Lance's literal rule; kNull for
  // computed values and literals.
  arrow::DataType source = arrow::DataType::Null();
  // The value's SQL type as DataFusion types it (Int32 for an int column plus a column of the
  // same type, Float32 for a float column, Int64 for an integer literal, Dictionary for a
  // dictionary column or a COALESCE of one): the output column's type. Values are held in the
  // wide kinds above but kept inside it (integers wrapped to its width, floats rounded to it).
  // Null with kind kNull: the untyped NULL literal; another type with kind kNull: NULLs of it.
  arrow::DataType dt = arrow::DataType::Null();

  size_t At(int64_t k) const { return scalar ? 0 : static_cast<size_t>(k); }
  bool Valid(int64_t k) const { return kind != VKind::kNull && (valid.empty() || valid[At(k)]); }
  bool Numeric() const {
    return kind == VKind::kInt || kind == VKind::kUInt || kind == VKind::kFloat;
  }
  double AsFloat(int64_t k) const {
    const size_t a = At(k);
    return kind == VKind::kFloat ? f[a]
           : kind == VKind::kInt ? static_cast<double>(i[a])
                                 : static_cast<double>(u[a]);
  }
};

Vec ScalarOf(VKind kind, int64_t n) {
  Vec v;
  v.kind = kind;
  v.n = n;
  v.scalar = true;
  return v;
}

// ---- SQL types (what DataFusion's type coercion gives) ----

// Arrow's own type predicates, under the names this file reads best with.
bool IsIntegerType(TypeId t) { return arrow::IsInteger(t); }
bool IsUnsignedType(TypeId t) { return arrow::IsInteger(t) && !arrow::IsSignedInteger(t); }
bool IsFloatType(TypeId t) { return arrow::IsFloating(t); }

// The type a kind stands for when nothing narrower is known.
arrow::DataType WideType(VKind k) {
  switch (k) {
    case VKind::kBool:
      return arrow::DataType::Bool();
    case VKind::kInt:
      return arrow::DataType::Int64();
    case VKind::kUInt:
      return arrow::DataType::UInt64();
    case VKind::kFloat:
      return arrow::DataType::Float64();
    case VKind::kString:
      return arrow::DataType::Utf8();
    case VKind::kDate:
      return arrow::DataType::Date32();
    default:
      return arrow::DataType::Null();
  }
}

// `v`'s type: its own, or its kind's wide one.
arrow::DataType TypeOf(const Vec& v) {
  if (v.dt.id() != TypeId::kNull || v.kind == VKind::kNull) return v.dt;
  if (v.kind == VKind::kTimestamp) return arrow::DataType::Timestamp(v.unit, v.tz);
  return WideType(v.kind);
}

// Integers kept to their type's width (two's complement wrapping, as DataFusion's kernels do),
// floats rounded to theirs.
int64_t WrapInt(TypeId t, int64_t x) {
  switch (t) {
    case TypeId::kInt8:
      return static_cast<int8_t>(x);
    case TypeId::kInt16:
      return static_cast<int16_t>(x);
    case TypeId::kInt32:
      return static_cast<int32_t>(x);
    case TypeId::kUInt8:
      return static_cast<uint8_t>(x);
    case TypeId::kUInt16:
      return static_cast<uint16_t>(x);
    case TypeId::kUInt32:
      return static_cast<uint32_t>(x);
    default:
      return x;
  }
}
double RoundFloat(TypeId t, double x) {
  if (t == TypeId::kFloat32) return static_cast<double>(static_cast<float>(x));
  if (t == TypeId::kFloat16) return static_cast<double>(arrow::HalfToFloat(arrow::FloatToHalf(x)));
  return x;
}
void KeepInType(Vec* v) {
  const TypeId t = v->dt.id();
  if (v->kind == VKind::kInt && t != TypeId::kInt64) {
    for (int64_t& x : v->i) x = WrapInt(t, x);
  } else if (v->kind == VKind::kFloat && t != TypeId::kFloat64) {
    for (double& x : v->f) x = RoundFloat(t, x);
  }
}

// `v` as values of the numeric type `dt` (integers to floats, signed to unsigned bits), kept
// inside it. Other kinds only take the type.
void Retype(Vec* v, const arrow::DataType& dt) {
  const TypeId t = dt.id();
  if (v->kind != VKind::kNull && (IsIntegerType(t) || IsFloatType(t)) && v->Numeric()) {
    const size_t count = v->scalar ? 1 : static_cast<size_t>(v->n);
    if (IsFloatType(t) && v->kind != VKind::kFloat) {
      v->f.resize(count);
      for (size_t a = 0; a < count; ++a) v->f[a] = v->AsFloat(static_cast<int64_t>(a));
      v->kind = VKind::kFloat;
    } else if (t == TypeId::kUInt64 && v->kind == VKind::kInt) {
      v->u.resize(count);
      for (size_t a = 0; a < count; ++a) v->u[a] = static_cast<uint64_t>(v->i[a]);
      v->kind = VKind::kUInt;
    } else if (IsIntegerType(t) && t != TypeId::kUInt64 && v->kind == VKind::kUInt) {
      v->i.resize(count);
      for (size_t a = 0; a < count; ++a) v->i[a] = static_cast<int64_t>(v->u[a]);
      v->kind = VKind::kInt;
    }
  }
  v->dt = dt;
  KeepInType(v);
}

Status Bad(const Expr& e, std::string_view problem) {
  return Status::InvalidInput(
      fmt::format("{} at position {} (in {})", problem, e.pos + 1, e.ToString().substr(0, 200)));
}

// DataFusion's numerical_coercion: the narrowest type that holds both (a float if either is
// one; Float64 over Float32 over Float16). An unsigned 64-bit integer with a signed one needs
// Decimal128(20, 0), which quiver does not evaluate: refused.
Result<arrow::DataType> NumericCoercion(const arrow::DataType& a, const arrow::DataType& b,
                                        const Expr& e) {
  using arrow::DataType;
  if (a.id() == TypeId::kDictionary || b.id() == TypeId::kDictionary) {
    return NumericCoercion(a.id() == TypeId::kDictionary ? a.dictionary_value() : a,
                           b.id() == TypeId::kDictionary ? b.dictionary_value() : b, e);
  }
  const TypeId x = a.id(), y = b.id();
  if (x == TypeId::kNull && y == TypeId::kNull) return DataType::Int64();
  if (x == TypeId::kNull) return b;
  if (y == TypeId::kNull) return a;
  if (x == y) return a;
  auto either = [&](TypeId t) { return x == t || y == t; };
  auto pair = [&](TypeId p, TypeId q) { return (x == p && y == q) || (x == q && y == p); };
  if (either(TypeId::kFloat64)) return DataType::Float64();
  if (either(TypeId::kFloat32)) return DataType::Float32();
  if (either(TypeId::kFloat16)) return DataType::Float16();
  if (either(TypeId::kUInt64)) {
    if (!IsUnsignedType(x) || !IsUnsignedType(y)) {
      return Bad(e, fmt::format("{} with {} needs decimal arithmetic (DataFusion: "
                                "Decimal128(20, 0)), which quiver does not evaluate; CAST one "
                                "side to BIGINT or DOUBLE",
                                a.ToString(), b.ToString()));
    }
    return DataType::UInt64();
  }
  if (either(TypeId::kInt64) || pair(TypeId::kUInt32, TypeId::kInt8) ||
      pair(TypeId::kUInt32, TypeId::kInt16) || pair(TypeId::kUInt32, TypeId::kInt32)) {
    return DataType::Int64();
  }
  if (either(TypeId::kInt32) || pair(TypeId::kUInt16, TypeId::kInt16) ||
      pair(TypeId::kUInt16, TypeId::kInt8)) {
    return DataType::Int32();
  }
  if (either(TypeId::kUInt32)) return DataType::UInt32();
  if (either(TypeId::kInt16) || pair(TypeId::kUInt8, TypeId::kInt8)) return DataType::Int16();
  if (either(TypeId::kUInt16)) return DataType::UInt16();
  if (either(TypeId::kInt8)) return DataType::Int8();
  return DataType::UInt8();
}

// ---- columns in ----

Result<Vec> FromArray(const arrow::ArrayData& a, const Expr& at) {
  Vec v;
  v.n = a.length;
  if (a.null_count > 0) {
    v.valid.resize(static_cast<size_t>(a.length));
    for (int64_t k = 0; k < a.length; ++k) v.valid[static_cast<size_t>(k)] = arrow::IsValid(a, k);
  }
  const TypeId id = a.type.id();
  auto fill = [&](auto* dst, auto read) {
    dst->resize(static_cast<size_t>(a.length));
    for (int64_t k = 0; k < a.length; ++k) (*dst)[static_cast<size_t>(k)] = read(k);
  };
  switch (id) {
    case TypeId::kNull:
      v.kind = VKind::kNull;
      return v;
    case TypeId::kBool:
      v.kind = VKind::kBool;
      fill(&v.b, [&](int64_t k) { return static_cast<uint8_t>(arrow::BoolValue(a, k)); });
      return v;
    case TypeId::kInt8:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<int8_t>(a)[k]}; });
      return v;
    case TypeId::kInt16:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<int16_t>(a)[k]}; });
      return v;
    case TypeId::kInt32:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<int32_t>(a)[k]}; });
      return v;
    case TypeId::kInt64:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return arrow::Values<int64_t>(a)[k]; });
      return v;
    // Unsigned types narrower than 64 bits fit int64: DataFusion compares them with signed
    // literals after widening, as here.
    case TypeId::kUInt8:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<uint8_t>(a)[k]}; });
      return v;
    case TypeId::kUInt16:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<uint16_t>(a)[k]}; });
      return v;
    case TypeId::kUInt32:
      v.kind = VKind::kInt;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<uint32_t>(a)[k]}; });
      return v;
    case TypeId::kUInt64:
      v.kind = VKind::kUInt;
      fill(&v.u, [&](int64_t k) { return arrow::Values<uint64_t>(a)[k]; });
      return v;
    case TypeId::kFloat16:
      v.kind = VKind::kFloat;
      fill(&v.f, [&](int64_t k) {
        return static_cast<double>(arrow::HalfToFloat(arrow::Values<uint16_t>(a)[k]));
      });
      return v;
    case TypeId::kFloat32:
      v.kind = VKind::kFloat;
      fill(&v.f, [&](int64_t k) { return static_cast<double>(arrow::Values<float>(a)[k]); });
      return v;
    case TypeId::kFloat64:
      v.kind = VKind::kFloat;
      fill(&v.f, [&](int64_t k) { return arrow::Values<double>(a)[k]; });
      return v;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      v.kind = VKind::kString;
      fill(&v.s, [&](int64_t k) { return std::string(arrow::BinaryValue(a, k)); });
      return v;
    case TypeId::kDate32:
      v.kind = VKind::kDate;
      fill(&v.i, [&](int64_t k) { return int64_t{arrow::Values<int32_t>(a)[k]}; });
      return v;
    case TypeId::kTimestamp:
      v.kind = VKind::kTimestamp;
      v.unit = a.type.unit();
      v.tz = a.type.timezone();
      fill(&v.i, [&](int64_t k) { return arrow::Values<int64_t>(a)[k]; });
      return v;
    case TypeId::kDictionary: {
      QV_ASSIGN_OR_RETURN(Vec values, FromArray(*a.dictionary, at));
      if (values.kind == VKind::kOpaque) {
        v.kind = VKind::kOpaque;
        return v;
      }
      Vec out;
      out.kind = values.kind;
      out.n = a.length;
      out.unit = values.unit;
      out.tz = values.tz;
      out.valid.assign(static_cast<size_t>(a.length), 1);
      auto pick = [&](auto& dst, const auto& src) {
        dst.resize(static_cast<size_t>(a.length));
        for (int64_t k = 0; k < a.length; ++k) {
          if (arrow::IsNull(a, k)) {
            out.valid[static_cast<size_t>(k)] = 0;
            continue;
          }
          const int64_t idx = arrow::DictionaryIndex(a, k);
          dst[static_cast<size_t>(k)] = src[static_cast<size_t>(idx)];
          if (!values.Valid(idx)) out.valid[static_cast<size_t>(k)] = 0;
        }
      };
      switch (values.kind) {
        case VKind::kBool:
          pick(out.b, values.b);
          break;
        case VKind::kUInt:
          pick(out.u, values.u);
          break;
        case VKind::kFloat:
          pick(out.f, values.f);
          break;
        case VKind::kString:
          pick(out.s, values.s);
          break;
        case VKind::kNull:
          break;
        default:
          pick(out.i, values.i);
          break;
      }
      return out;
    }
    default:
      v.kind = VKind::kOpaque;
      return v;
  }
}

// The array for column path `path` in `batch` (nested through structs), with the validity of
// every enclosing struct applied.
Result<Vec> ColumnVec(const Expr& e, const arrow::RecordBatch& batch) {
  const arrow::Schema& schema = *batch.schema;
  int top = schema.FieldIndex(e.path[0]);
  if (top < 0) {
    // Lance resolves names case-sensitively; a unique case-insensitive match is what the user
    // meant when they typed an unquoted name in other case.
    int found = -1, count = 0;
    for (size_t k = 0; k < schema.fields.size(); ++k) {
      const std::string& name = schema.fields[k].name;
      if (name.size() == e.path[0].size() &&
          std::equal(name.begin(), name.end(), e.path[0].begin(), [](char x, char y) {
            return std::tolower(static_cast<unsigned char>(x)) ==
                   std::tolower(static_cast<unsigned char>(y));
          })) {
        found = static_cast<int>(k);
        ++count;
      }
    }
    if (count != 1) {
      std::string names;
      for (size_t k = 0; k < schema.fields.size() && k < 20; ++k) {
        names += (k ? ", " : "") + schema.fields[k].name;
      }
      return Bad(e, fmt::format("no column named '{}' (the table has: {})", e.path[0], names));
    }
    top = found;
  }
  arrow::ArrayPtr a = batch.columns[static_cast<size_t>(top)];
  std::vector<arrow::ArrayPtr> parents;
  for (size_t p = 1; p < e.path.size(); ++p) {
    if (a->type.id() != TypeId::kStruct) {
      return Bad(e, fmt::format("'{}' is {}, not a struct with a field '{}'", e.path[p - 1],
                                a->type.ToString(), e.path[p]));
    }
    int member = -1;
    for (size_t k = 0; k < a->type.children().size(); ++k) {
      if (a->type.children()[k].name == e.path[p]) member = static_cast<int>(k);
    }
    if (member < 0)
      return Bad(e, fmt::format("struct '{}' has no field '{}'", e.path[p - 1], e.path[p]));
    parents.push_back(a);
    a = arrow::StructField(*a, member);
  }
  QV_ASSIGN_OR_RETURN(Vec v, FromArray(*a, e));
  v.source = a->type.id() == TypeId::kDictionary ? a->type.dictionary_value() : a->type;
  v.dt = a->type;
  for (const arrow::ArrayPtr& parent : parents) {
    if (parent->null_count == 0) continue;
    if (v.valid.empty()) v.valid.assign(static_cast<size_t>(v.n), 1);
    for (int64_t k = 0; k < v.n; ++k) {
      if (arrow::IsNull(*parent, k)) v.valid[static_cast<size_t>(k)] = 0;
    }
  }
  return v;
}

// ---- literals ----

// Days since the epoch of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool ParseDigits(std::string_view s, size_t& at, size_t n, int64_t* out) {
  if (at + n > s.size()) return false;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[at + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  at += n;
  *out = v;
  return true;
}

// YYYY-MM-DD; false when malformed or not a calendar day.
bool ParseDate(std::string_view s, size_t& at, int64_t* days) {
  int64_t y, m, d;
  if (!ParseDigits(s, at, 4, &y) || at >= s.size() || s[at++] != '-' ||
      !ParseDigits(s, at, 2, &m) || at >= s.size() || s[at++] != '-' ||
      !ParseDigits(s, at, 2, &d)) {
    return false;
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

// 'YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|±HH:MM]' in nanoseconds since the epoch (UTC).
bool ParseTimestampNanos(std::string_view s, int64_t* nanos) {
  size_t at = 0;
  int64_t days;
  if (!ParseDate(s, at, &days)) return false;
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (at < s.size() && (s[at] == ' ' || s[at] == 'T')) {
    ++at;
    if (!ParseDigits(s, at, 2, &h) || at >= s.size() || s[at++] != ':' ||
        !ParseDigits(s, at, 2, &mi))
      return false;
    if (at < s.size() && s[at] == ':') {
      ++at;
      if (!ParseDigits(s, at, 2, &sec)) return false;
      if (at < s.size() && s[at] == '.') {
        ++at;
        int digits = 0;
        while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])) && digits < 9) {
          frac = frac * 10 + (s[at++] - '0');
          ++digits;
        }
        if (digits == 0) return false;
        for (; digits < 9; ++digits) frac *= 10;
      }
    }
    if (h > 23 || mi > 59 || sec > 59) return false;
  }
  int64_t offset_s = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    const int sign = s[at++] == '-' ? -1 : 1;
    int64_t oh, om = 0;
    if (!ParseDigits(s, at, 2, &oh)) return false;
    if (at < s.size() && s[at] == ':') ++at;
    if (at < s.size() && !ParseDigits(s, at, 2, &om)) return false;
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (at != s.size()) return false;
  *nanos = ((days * 86400 + h * 3600 + mi * 60 + sec) - offset_s) * 1000000000 + frac;
  return true;
}

Result<Vec> LiteralVec(const Expr& e, int64_t n) {
  const Literal& l = e.literal;
  Vec v;
  switch (l.type) {
    case Literal::Type::kNull:
      return ScalarOf(VKind::kNull, n);
    case Literal::Type::kBool:
      v = ScalarOf(VKind::kBool, n);
      v.dt = arrow::DataType::Bool();
      v.b = {static_cast<uint8_t>(l.b)};
      return v;
    case Literal::Type::kInt:
      v = ScalarOf(VKind::kInt, n);
      v.dt = arrow::DataType::Int64();
      v.i = {l.i};
      return v;
    case Literal::Type::kUInt:
      v = ScalarOf(VKind::kUInt, n);
      v.dt = arrow::DataType::UInt64();
      v.u = {l.u};
      return v;
    case Literal::Type::kFloat:
      v = ScalarOf(VKind::kFloat, n);
      v.dt = arrow::DataType::Float64();
      v.f = {l.f};
      return v;
    case Literal::Type::kString:
      v = ScalarOf(VKind::kString, n);
      v.dt = arrow::DataType::Utf8();
      v.s = {l.text};
      return v;
    case Literal::Type::kDate: {
      v = ScalarOf(VKind::kDate, n);
      v.dt = arrow::DataType::Date32();
      int64_t days;
      size_t at = 0;
      if (!ParseDate(l.text, at, &days) || at != l.text.size()) {
        return Bad(e, fmt::format("'{}' is not a date (YYYY-MM-DD)", l.text));
      }
      v.i = {days};
      return v;
    }
    case Literal::Type::kTimestamp: {
      v = ScalarOf(VKind::kTimestamp, n);
      v.unit = arrow::TimeUnit::kNano;
      int64_t nanos;
      if (!ParseTimestampNanos(l.text, &nanos)) {
        return Bad(e, fmt::format("'{}' is not a timestamp (YYYY-MM-DD HH:MM:SS[.f])", l.text));
      }
      v.i = {nanos};
      return v;
    }
    case Literal::Type::kInterval:
      return Bad(e, "intervals are not supported in expressions yet");
  }
  return Bad(e, "unknown literal");
}

// ---- coercion ----

std::string NumberText(const Vec& v, size_t a) {
  switch (v.kind) {
    case VKind::kInt:
      return std::to_string(v.i[a]);
    case VKind::kUInt:
      return std::to_string(v.u[a]);
    case VKind::kFloat:
      return fmt::format("{}", v.f[a]);
    case VKind::kBool:
      return v.b[a] ? "true" : "false";
    default:
      return "";
  }
}

// `v` as strings (numbers and booleans by their text), for comparisons with strings.
Vec ToStrings(const Vec& v) {
  if (v.kind == VKind::kString || v.kind == VKind::kNull) return v;
  Vec out;
  out.kind = VKind::kString;
  out.n = v.n;
  out.scalar = v.scalar;
  out.valid = v.valid;
  const size_t count = v.scalar ? 1 : static_cast<size_t>(v.n);
  out.s.resize(count);
  for (size_t a = 0; a < count; ++a) out.s[a] = NumberText(v, a);
  return out;
}

// Timestamps in one unit (the finer one), so that they compare as integers.
Vec RescaleTimestamp(const Vec& v, arrow::TimeUnit unit) {
  if (v.unit == unit) return v;
  Vec out = v;
  out.unit = unit;
  const int64_t from = arrow::TimeUnitsPerSecond(v.unit), to = arrow::TimeUnitsPerSecond(unit);
  for (int64_t& x : out.i) x = to >= from ? x * (to / from) : x / (from / to);
  return out;
}

// A string scalar (a literal) as a date or timestamp, to compare with such a column.
Result<Vec> StringAsTemporal(const Vec& v, const Vec& like, const Expr& e) {
  Vec out;
  out.kind = like.kind;
  out.n = v.n;
  out.scalar = v.scalar;
  out.valid = v.valid;
  out.unit = like.kind == VKind::kTimestamp ? arrow::TimeUnit::kNano : like.unit;
  const size_t count = v.scalar ? 1 : static_cast<size_t>(v.n);
  out.i.resize(count);
  for (size_t a = 0; a < count; ++a) {
    if (!v.valid.empty() && !v.valid[a]) continue;
    if (like.kind == VKind::kDate) {
      size_t at = 0;
      int64_t days;
      if (!ParseDate(v.s[a], at, &days) || at != v.s[a].size()) {
        return Bad(e, fmt::format("cannot compare a date with '{}' (not YYYY-MM-DD)", v.s[a]));
      }
      out.i[a] = days;
    } else {
      int64_t nanos;
      if (!ParseTimestampNanos(v.s[a], &nanos)) {
        return Bad(e, fmt::format("cannot compare a timestamp with '{}'", v.s[a]));
      }
      out.i[a] = nanos;
    }
  }
  return out;
}

// Brings two operands of a comparison to one kind: numbers to the wider of int / uint / float,
// a number and a string to strings, a date or timestamp and a string to the temporal kind, a
// date and a timestamp to timestamps.
Status Unify(Vec* l, Vec* r, const Expr& e) {
  if (l->kind == VKind::kOpaque || r->kind == VKind::kOpaque) {
    const Vec& o = l->kind == VKind::kOpaque ? *l : *r;
    return Bad(e, fmt::format("values of type {} cannot be compared or computed with yet",
                              o.source.ToString()));
  }
  if (l->kind == VKind::kNull || r->kind == VKind::kNull || l->kind == r->kind) {
    if (l->kind == VKind::kTimestamp && r->kind == VKind::kTimestamp) {
      const arrow::TimeUnit unit = std::max(l->unit, r->unit);
      *l = RescaleTimestamp(*l, unit);
      *r = RescaleTimestamp(*r, unit);
    }
    return Status::OK();
  }
  auto temporal = [](VKind k) { return k == VKind::kDate || k == VKind::kTimestamp; };
  if (temporal(l->kind) && r->kind == VKind::kString) {
    QV_ASSIGN_OR_RETURN(*r, StringAsTemporal(*r, *l, e));
    return Unify(l, r, e);
  }
  if (temporal(r->kind) && l->kind == VKind::kString) {
    QV_ASSIGN_OR_RETURN(*l, StringAsTemporal(*l, *r, e));
    return Unify(l, r, e);
  }
  if (temporal(l->kind) && temporal(r->kind)) {  // a date and a timestamp: days as time
    Vec* date = l->kind == VKind::kDate ? l : r;
    date->kind = VKind::kTimestamp;
    date->unit = arrow::TimeUnit::kSecond;
    for (int64_t& x : date->i) x *= 86400;
    return Unify(l, r, e);
  }
  if (l->Numeric() && r->Numeric()) {
    auto to_float = [](Vec* v) {
      if (v->kind == VKind::kFloat) return;
      const size_t count = v->scalar ? 1 : static_cast<size_t>(v->n);
      v->f.resize(count);
      for (size_t a = 0; a < count; ++a) {
        v->f[a] =
            v->kind == VKind::kInt ? static_cast<double>(v->i[a]) : static_cast<double>(v->u[a]);
      }
      v->kind = VKind::kFloat;
    };
    if (l->kind == VKind::kFloat || r->kind == VKind::kFloat) {
      to_float(l);
      to_float(r);
      return Status::OK();
    }
    // int64 with uint64: exact through the sign (a negative int is below every uint).
    return Status::OK();
  }
  if ((l->kind == VKind::kString && (r->Numeric() || r->kind == VKind::kBool)) ||
      (r->kind == VKind::kString && (l->Numeric() || l->kind == VKind::kBool))) {
    *l = ToStrings(*l);
    *r = ToStrings(*r);
    return Status::OK();
  }
  return Bad(e, fmt::format("cannot compare {} with {}", KindName(l->kind), KindName(r->kind)));
}

// -1, 0, 1: l[k] against r[k] (both valid, unified).
int Compare(const Vec& l, const Vec& r, int64_t k) {
  const size_t a = l.At(k), b = r.At(k);
  auto cmp = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  switch (l.kind) {
    case VKind::kBool:
      return cmp(l.b[a], r.b[b]);
    case VKind::kInt:
      if (r.kind == VKind::kUInt)
        return l.i[a] < 0 ? -1 : cmp(static_cast<uint64_t>(l.i[a]), r.u[b]);
      return cmp(l.i[a], r.i[b]);
    case VKind::kUInt:
      if (r.kind == VKind::kInt) return r.i[b] < 0 ? 1 : cmp(l.u[a], static_cast<uint64_t>(r.i[b]));
      return cmp(l.u[a], r.u[b]);
    case VKind::kFloat: {
      // As Lance 12 compares floats: IEEE totalOrder (a NaN is equal to itself, positive NaNs
      // above every number and negative ones below), except that -0.0 equals 0.0 (Lance 8 put
      // -0.0 below 0.0; docs/lance-findings.md).
      if (l.f[a] == 0 && r.f[b] == 0) return 0;
      auto key = [](double d) {
        int64_t bits;
        std::memcpy(&bits, &d, 8);
        return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
      };
      return cmp(key(l.f[a]), key(r.f[b]));
    }
    case VKind::kString:
      return l.s[a].compare(r.s[b]) < 0 ? -1 : l.s[a] == r.s[b] ? 0 : 1;
    default:
      return cmp(l.i[a], r.i[b]);
  }
}

Vec BoolVec(int64_t n) {
  Vec v;
  v.kind = VKind::kBool;
  v.n = n;
  v.b.assign(static_cast<size_t>(n), 0);
  return v;
}

void SetNull(Vec* v, int64_t k) {
  if (v->valid.empty()) v->valid.assign(static_cast<size_t>(v->n), 1);
  v->valid[static_cast<size_t>(k)] = 0;
}

Status WantBool(const Vec& v, const Expr& e) {
  if (v.kind == VKind::kBool || v.kind == VKind::kNull) return Status::OK();
  return Bad(e, fmt::format("expected a boolean, got {}", KindName(v.kind)));
}
bool BoolAt(const Vec& v, int64_t k) { return v.b[v.At(k)] != 0; }

// ---- LIKE ----

// SQL LIKE: '%' any run, '_' one character (UTF-8 aware), `escape` makes the next one literal.
bool LikeMatch(std::string_view s, std::string_view p, char escape, bool fold) {
  auto eq = [&](char x, char y) {
    return fold ? std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y))
                : x == y;
  };
  auto char_len = [](std::string_view t, size_t at) -> size_t {
    const unsigned char c = static_cast<unsigned char>(t[at]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 1;
    return std::min(len, t.size() - at);
  };
  size_t si = 0, pi = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '%') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < p.size()) {
      if (p[pi] == '_') {
        si += char_len(s, si);
        ++pi;
        continue;
      }
      size_t lit = pi;
      if (p[pi] == escape && pi + 1 < p.size()) lit = pi + 1;
      if (eq(p[lit], s[si])) {
        ++si;
        pi = lit + 1;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    star_s += char_len(s, star_s);
    si = star_s;
    pi = star_p;
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

// ---- CAST ----

// A SQL type as CAST names it, in evaluation's kinds: integers keep their width and sign for the
// range check, floats whether they are 32-bit.
struct CastTarget {
  VKind kind = VKind::kNull;
  int bits = 64;
  bool is_signed = true;
  bool f32 = false;
  arrow::DataType type = arrow::DataType::Null();  // the Arrow type Lance casts to
};

// The types Lance's planner casts to (its list: int, tinyint, smallint, bigint, each
// [unsigned], float, double, string, binary, date, timestamp(p), datetime(p), decimal(p,s),
// boolean); others are refused as Lance refuses them. binary and decimal are not evaluated yet.
Result<CastTarget> ParseSqlType(const Expr& e) {
  std::string name = e.type_name;
  if (const size_t paren = name.find('('); paren != std::string::npos) name = name.substr(0, paren);
  CastTarget t;
  auto integer = [&](int bits, bool is_signed) {
    t.kind = bits == 64 && !is_signed ? VKind::kUInt : VKind::kInt;
    t.bits = bits;
    t.is_signed = is_signed;
    using arrow::DataType;
    t.type = bits == 8    ? (is_signed ? DataType::Int8() : DataType::UInt8())
             : bits == 16 ? (is_signed ? DataType::Int16() : DataType::UInt16())
             : bits == 32 ? (is_signed ? DataType::Int32() : DataType::UInt32())
                          : (is_signed ? DataType::Int64() : DataType::UInt64());
  };
  if (name == "TINYINT")
    integer(8, true);
  else if (name == "SMALLINT")
    integer(16, true);
  else if (name == "INT" || name == "INTEGER")
    integer(32, true);
  else if (name == "BIGINT")
    integer(64, true);
  else if (name == "TINYINT UNSIGNED")
    integer(8, false);
  else if (name == "SMALLINT UNSIGNED")
    integer(16, false);
  else if (name == "INT UNSIGNED" || name == "INTEGER UNSIGNED")
    integer(32, false);
  else if (name == "BIGINT UNSIGNED")
    integer(64, false);
  else if (name == "FLOAT")
    t.kind = VKind::kFloat, t.f32 = true, t.type = arrow::DataType::Float32();
  else if (name == "DOUBLE")
    t.kind = VKind::kFloat, t.type = arrow::DataType::Float64();
  else if (name == "STRING")
    t.kind = VKind::kString, t.type = arrow::DataType::Utf8();
  else if (name == "BOOLEAN")
    t.kind = VKind::kBool, t.type = arrow::DataType::Bool();
  else if (name == "DATE")
    t.kind = VKind::kDate, t.type = arrow::DataType::Date32();
  else if (name == "TIMESTAMP" || name == "DATETIME") {
    // timestamp(p): seconds, milliseconds, microseconds (the default) or nanoseconds.
    t.kind = VKind::kTimestamp;
    arrow::TimeUnit unit = arrow::TimeUnit::kMicro;
    if (const size_t paren = e.type_name.find('('); paren != std::string::npos) {
      const std::string p = e.type_name.substr(paren + 1, e.type_name.size() - paren - 2);
      if (p == "0") {
        unit = arrow::TimeUnit::kSecond;
      } else if (p == "3") {
        unit = arrow::TimeUnit::kMilli;
      } else if (p == "6") {
        unit = arrow::TimeUnit::kMicro;
      } else if (p == "9") {
        unit = arrow::TimeUnit::kNano;
      } else {
        return Bad(
            e, fmt::format("{}: the precision must be 0, 3, 6 or 9 (as in Lance)", e.type_name));
      }
    }
    t.type = arrow::DataType::Timestamp(unit);
  } else if (name == "BINARY" || name == "DECIMAL") {
    return Bad(e, fmt::format("CAST to {} is not evaluated yet", e.type_name));
  } else {
    return Bad(e, fmt::format("CAST to {}: Lance casts only to int, tinyint, smallint, bigint "
                              "(each optionally unsigned), float, double, string, binary, date, "
                              "timestamp(p), datetime(p), decimal(p,s) and boolean",
                              e.type_name));
  }
  return t;
}

// Arrow's text for a float (what DataFusion's CAST(x AS VARCHAR) gives): shortest round-trip
// digits, a ".0" on integral values, "e" exponents without "+", NaN and inf spelled so.
std::string FloatText(double d, bool f32) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string out = f32 ? fmt::format("{}", static_cast<float>(d)) : fmt::format("{}", d);
  if (const size_t plus = out.find("e+"); plus != std::string::npos) out.erase(plus + 1, 1);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string DateText(int64_t days) {
  // civil_from_days (Howard Hinnant)
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04}-{:02}-{:02}", y + (m <= 2), m, d);
}

// A strict integer: optional sign, digits, nothing else (arrow's string-to-integer cast).
bool ParseInteger(std::string_view s, bool* negative, uint64_t* magnitude) {
  size_t at = 0;
  *negative = false;
  if (at < s.size() && (s[at] == '-' || s[at] == '+')) *negative = s[at++] == '-';
  if (at == s.size()) return false;
  auto [p, ec] = std::from_chars(s.data() + at, s.data() + s.size(), *magnitude);
  return ec == std::errc() && p == s.data() + s.size();
}

// ---- Lance's literal rule ----

// The literal `e` stands for (a literal, or a negated numeric one), or nullptr.
const Literal* AsLiteral(const Expr& e, bool* negated) {
  *negated = false;
  if (e.kind == Expr::Kind::kLiteral) return &e.literal;
  if (e.kind == Expr::Kind::kNegate && e.args[0]->kind == Expr::Kind::kLiteral) {
    const Literal& l = e.args[0]->literal;
    if (l.type == Literal::Type::kInt || l.type == Literal::Type::kUInt ||
        l.type == Literal::Type::kFloat) {
      *negated = true;
      return &l;
    }
  }
  return nullptr;
}

// How Lance names a literal: Int64(5), Float64(99.5), Utf8("x"), Boolean(true).
std::string LanceLiteral(const Literal& l, bool negated) {
  const char* sign = negated ? "-" : "";
  switch (l.type) {
    case Literal::Type::kInt:
      return fmt::format("Int64({}{})", sign, l.i);
    case Literal::Type::kUInt:
      return fmt::format("UInt64({}{})", sign, l.u);
    case Literal::Type::kFloat:
      return fmt::format("Float64({}{})", sign, l.f);
    case Literal::Type::kString:
      return fmt::format("Utf8(\"{}\")", l.text);
    case Literal::Type::kBool:
      return fmt::format("Boolean({})", l.b);
    default:
      return "?";
  }
}

// Lance (lance-datafusion's planner) converts a literal compared with a column (=, <>, <, <=,
// >, >=, IN, BETWEEN) to the column's type before DataFusion sees the filter, and refuses the
// filter when it cannot ("Received literal Float64(99.5) and could not convert to literal of
// type 'Int32'"): an integer only to an integer type it fits or to a float type, a float only
// to a float type, a string only to a string type, a boolean only to a boolean.
Status CheckLiteralForColumn(const Expr& column, const Vec& col, const Expr& literal) {
  if (column.kind != Expr::Kind::kColumn || col.source.id() == TypeId::kNull) {
    return Status::OK();
  }
  bool negated = false;
  const Literal* l = AsLiteral(literal, &negated);
  if (l == nullptr) return Status::OK();
  const TypeId t = col.source.id();
  // Float16 takes no literal at all (Lance: "Received literal Int64(1) and could not convert to
  // literal of type 'Float16'").
  const bool is_float = t == TypeId::kFloat32 || t == TypeId::kFloat64;
  bool ok = true;
  switch (l->type) {
    case Literal::Type::kInt:
    case Literal::Type::kUInt: {
      if (is_float) break;
      // The literal's value as a sign and a magnitude, against the column type's range.
      bool neg = negated;
      uint64_t mag = l->u;
      if (l->type == Literal::Type::kInt) {
        mag = l->i < 0 ? 0 - static_cast<uint64_t>(l->i) : static_cast<uint64_t>(l->i);
        if (l->i < 0) neg = !neg;
      }
      if (mag == 0) neg = false;
      uint64_t max_pos = 0, max_neg = 0;  // both 0: not an integer type
      switch (t) {
        case TypeId::kInt8:
          max_pos = INT8_MAX, max_neg = 128;
          break;
        case TypeId::kInt16:
          max_pos = INT16_MAX, max_neg = 32768;
          break;
        case TypeId::kInt32:
          max_pos = INT32_MAX, max_neg = uint64_t{1} << 31;
          break;
        case TypeId::kInt64:
          max_pos = INT64_MAX, max_neg = uint64_t{1} << 63;
          break;
        case TypeId::kUInt8:
          max_pos = UINT8_MAX;
          break;
        case TypeId::kUInt16:
          max_pos = UINT16_MAX;
          break;
        case TypeId::kUInt32:
          max_pos = UINT32_MAX;
          break;
        case TypeId::kUInt64:
          max_pos = UINT64_MAX;
          break;
        default:
          break;
      }
      ok = max_pos != 0 && (neg ? mag <= max_neg : mag <= max_pos);
      break;
    }
    case Literal::Type::kFloat:
      ok = is_float;
      break;
    case Literal::Type::kString:
      ok = t == TypeId::kUtf8 || t == TypeId::kLargeUtf8;
      break;
    case Literal::Type::kBool:
      ok = t == TypeId::kBool;
      break;
    default:
      break;  // NULL, typed literals: DataFusion's coercion decides
  }
  if (ok) return Status::OK();
  return Bad(literal, fmt::format("cannot compare column '{}' ({}) with {}: Lance converts a "
                                  "literal to its column's type and this one does not convert "
                                  "(Lance: \"Received literal {} and could not convert to "
                                  "literal of type '{}'\")",
                                  column.ToString(), col.source.ToString(), literal.ToString(),
                                  LanceLiteral(*l, negated), col.source.ToString()));
}

// ---- the evaluator ----

class Evaluator {
 public:
  explicit Evaluator(const arrow::RecordBatch& batch) : batch_(batch), n_(batch.length) {}

  // Lance applies its literal rule (CheckLiteralForColumn) only from the top of a filter down
  // through AND and OR: not inside NOT, IS, functions or arithmetic, where DataFusion's
  // coercion alone decides (LanceDB accepts `NOT (d = '2024-01-05')` and refuses
  // `d = '2024-01-05'`). `resolve_` says whether the node being evaluated is so placed.
  Result<Vec> Eval(const Expr& e) {
    const bool resolve = resolve_;
    const bool logic =
        e.kind == Expr::Kind::kBinary && (e.op == BinaryOp::kAnd || e.op == BinaryOp::kOr);
    resolve_ = resolve && logic;
    here_ = resolve;
    Result<Vec> out = EvalNode(e);
    resolve_ = resolve;
    return out;
  }

 private:
  Result<Vec> EvalNode(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return LiteralVec(e, n_);
      case Expr::Kind::kColumn:
        return ColumnVec(e, batch_);
      case Expr::Kind::kNot: {
        QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
        QV_RETURN_IF_ERROR(WantBool(v, e));
        if (v.kind == VKind::kNull) return v;
        for (uint8_t& x : v.b) x = !x;
        return v;
      }
      case Expr::Kind::kNegate: {
        QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
        if (IsUnsignedType(TypeOf(v).id()) || v.kind == VKind::kUInt) {
          // DataFusion: "Negation only supports numeric, interval and timestamp types".
          return Bad(e, fmt::format("cannot negate an unsigned {} (DataFusion does not either); "
                                    "CAST it to a signed type first",
                                    TypeOf(v).ToString()));
        }
        if (v.kind == VKind::kInt) {
          for (int64_t& x : v.i) x = static_cast<int64_t>(0ull - static_cast<uint64_t>(x));
          KeepInType(&v);
        } else if (v.kind == VKind::kFloat) {
          for (double& x : v.f) x = -x;
        } else if (v.kind != VKind::kNull) {
          return Bad(e, fmt::format("cannot negate a {}", KindName(v.kind)));
        }
        return v;
      }
      case Expr::Kind::kBinary:
        return Binary(e);
      case Expr::Kind::kIsUnknown:
        return Bad(e,
                   "IS [NOT] UNKNOWN is not supported (Lance refuses it too); use IS [NOT] NULL");
      case Expr::Kind::kIsNull:
      case Expr::Kind::kIsTrue:
      case Expr::Kind::kIsFalse:
        return Is(e);
      case Expr::Kind::kIn:
        return In(e);
      case Expr::Kind::kBetween: {
        const bool resolve = here_;
        QV_ASSIGN_OR_RETURN(Vec x, Eval(*e.args[0]));
        QV_ASSIGN_OR_RETURN(Vec lo, Eval(*e.args[1]));
        QV_ASSIGN_OR_RETURN(Vec hi, Eval(*e.args[2]));
        if (resolve) {
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[0], x, *e.args[1]));
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[0], x, *e.args[2]));
        }
        QV_ASSIGN_OR_RETURN(Vec ge, Comparison(BinaryOp::kGtEq, x, lo, e));
        QV_ASSIGN_OR_RETURN(Vec le, Comparison(BinaryOp::kLtEq, x, hi, e));
        Vec both = Logic(BinaryOp::kAnd, ge, le);
        if (e.negated && both.kind == VKind::kBool) {
          for (uint8_t& b : both.b) b = !b;
        }
        return both;
      }
      case Expr::Kind::kLike:
        return Like(e);
      case Expr::Kind::kCall:
        return Call(e);
      case Expr::Kind::kCase:
        // Lance's planner has no CASE ("Expression 'CASE ...' is not supported SQL in lance").
        return Bad(e, "CASE is not supported in Lance's SQL (LanceDB refuses it too)");
      case Expr::Kind::kCast: {
        QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
        QV_ASSIGN_OR_RETURN(CastTarget to, ParseSqlType(e));
        return Cast(std::move(v), to, e);
      }
      case Expr::Kind::kList:
        return Bad(e, "list values are not supported in expressions yet");
      case Expr::Kind::kIndex:
        return Bad(e, "indexing is not supported in expressions yet");
    }
    return Bad(e, "unknown expression");
  }

  // CAST / TRY_CAST: a value that does not convert (out of range, not a number, not a date) is
  // an error for CAST and NULL for TRY_CAST, as in DataFusion.
  Result<Vec> Cast(Vec v, const CastTarget& to, const Expr& e) {
    if (v.kind == VKind::kNull) {
      v.dt = to.type;  // NULLs of the target type
      return v;
    }
    if (v.kind == VKind::kOpaque) {
      return Bad(e, fmt::format("cannot cast values of type {}", v.source.ToString()));
    }
    Vec out;
    out.kind = to.kind;
    out.dt = to.type;
    out.n = v.n;
    out.scalar = v.scalar;
    out.valid = v.valid;
    out.unit = to.kind == VKind::kTimestamp ? to.type.unit() : v.unit;
    const size_t count = v.scalar ? 1 : static_cast<size_t>(v.n);
    if (out.valid.empty()) out.valid.assign(count, 1);
    out.i.resize(count);
    out.u.resize(count);
    out.f.resize(count);
    out.b.resize(count);
    out.s.resize(count);
    auto fail = [&](size_t a, std::string_view what) -> Status {
      if (e.try_cast) {
        out.valid[a] = 0;
        return Status::OK();
      }
      return Bad(e, fmt::format("cannot cast {} to {}", what, e.type_name));
    };
    // An integer given as sign and magnitude into the target integer type.
    auto put_integer = [&](size_t a, bool neg, uint64_t mag, std::string_view what) -> Status {
      if (mag == 0) neg = false;
      const uint64_t max_pos = to.is_signed    ? (uint64_t{1} << (to.bits - 1)) - 1
                               : to.bits == 64 ? UINT64_MAX
                                               : (uint64_t{1} << to.bits) - 1;
      const uint64_t max_neg = to.is_signed ? uint64_t{1} << (to.bits - 1) : 0;
      if (neg ? mag > max_neg : mag > max_pos) return fail(a, what);
      if (to.kind == VKind::kUInt) {
        out.u[a] = mag;
      } else {
        out.i[a] = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
      }
      return Status::OK();
    };
    const Vec rescaled = v.kind == VKind::kTimestamp && to.kind == VKind::kTimestamp
                             ? RescaleTimestamp(v, out.unit)
                             : Vec{};
    for (size_t a = 0; a < count; ++a) {
      if (!v.valid.empty() && !v.valid[a]) continue;
      switch (to.kind) {
        case VKind::kInt:
        case VKind::kUInt:
          switch (v.kind) {
            case VKind::kInt:
            case VKind::kDate:
            case VKind::kTimestamp: {
              const int64_t x = v.i[a];
              QV_RETURN_IF_ERROR(put_integer(
                  a, x < 0, x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x),
                  std::to_string(x)));
              break;
            }
            case VKind::kUInt:
              QV_RETURN_IF_ERROR(put_integer(a, false, v.u[a], std::to_string(v.u[a])));
              break;
            case VKind::kBool:
              QV_RETURN_IF_ERROR(put_integer(a, false, v.b[a], v.b[a] ? "true" : "false"));
              break;
            case VKind::kFloat: {
              const double x = std::trunc(v.f[a]);
              if (!std::isfinite(x) || std::fabs(x) >= 18446744073709551616.0) {
                QV_RETURN_IF_ERROR(fail(a, FloatText(v.f[a], false)));
                break;
              }
              QV_RETURN_IF_ERROR(put_integer(a, x < 0, static_cast<uint64_t>(std::fabs(x)),
                                             FloatText(v.f[a], false)));
              break;
            }
            case VKind::kString: {
              bool neg;
              uint64_t mag;
              if (!ParseInteger(v.s[a], &neg, &mag)) {
                QV_RETURN_IF_ERROR(fail(a, fmt::format("'{}'", v.s[a])));
                break;
              }
              QV_RETURN_IF_ERROR(put_integer(a, neg, mag, fmt::format("'{}'", v.s[a])));
              break;
            }
            default:
              break;
          }
          break;
        case VKind::kFloat: {
          double x = 0;
          if (v.Numeric()) {
            x = v.AsFloat(static_cast<int64_t>(a));
          } else if (v.kind == VKind::kBool) {
            x = v.b[a];
          } else if (v.kind == VKind::kString) {
            errno = 0;
            char* end = nullptr;
            const std::string& t = v.s[a];
            x = std::strtod(t.c_str(), &end);
            if (t.empty() || end != t.c_str() + t.size() ||
                std::isspace(static_cast<unsigned char>(t[0]))) {
              QV_RETURN_IF_ERROR(fail(a, fmt::format("'{}'", t)));
              break;
            }
          } else {
            return Bad(e, fmt::format("cannot cast a {} to {}", KindName(v.kind), e.type_name));
          }
          out.f[a] = to.f32 ? static_cast<double>(static_cast<float>(x)) : x;
          break;
        }
        case VKind::kString:
          switch (v.kind) {
            case VKind::kInt:
              out.s[a] = std::to_string(v.i[a]);
              break;
            case VKind::kUInt:
              out.s[a] = std::to_string(v.u[a]);
              break;
            case VKind::kFloat:
              out.s[a] = FloatText(v.f[a], v.source.id() == TypeId::kFloat32);
              break;
            case VKind::kBool:
              out.s[a] = v.b[a] ? "true" : "false";
              break;
            case VKind::kString:
              out.s[a] = v.s[a];
              break;
            case VKind::kDate:
              out.s[a] = DateText(v.i[a]);
              break;
            default:
              return Bad(e,
                         fmt::format("cannot cast a {} to {} yet", KindName(v.kind), e.type_name));
          }
          break;
        case VKind::kBool:
          if (v.Numeric()) {
            out.b[a] = v.AsFloat(static_cast<int64_t>(a)) != 0;
          } else if (v.kind == VKind::kBool) {
            out.b[a] = v.b[a];
          } else if (v.kind == VKind::kString) {
            std::string t = v.s[a];
            for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (t == "true" || t == "t" || t == "yes" || t == "y" || t == "1" || t == "on") {
              out.b[a] = 1;
            } else if (t == "false" || t == "f" || t == "no" || t == "n" || t == "0" ||
                       t == "off") {
              out.b[a] = 0;
            } else {
              QV_RETURN_IF_ERROR(fail(a, fmt::format("'{}'", v.s[a])));
            }
          } else {
            return Bad(e, fmt::format("cannot cast a {} to {}", KindName(v.kind), e.type_name));
          }
          break;
        case VKind::kDate:
          if (v.kind == VKind::kDate || v.kind == VKind::kInt) {
            out.i[a] = v.i[a];
          } else if (v.kind == VKind::kTimestamp) {
            const int64_t per_day = 86400 * arrow::TimeUnitsPerSecond(v.unit);
            out.i[a] = v.i[a] >= 0 ? v.i[a] / per_day : -((-v.i[a] + per_day - 1) / per_day);
          } else if (v.kind == VKind::kString) {
            size_t at = 0;
            int64_t days;
            if (!ParseDate(v.s[a], at, &days) || at != v.s[a].size()) {
              QV_RETURN_IF_ERROR(fail(a, fmt::format("'{}'", v.s[a])));
            } else {
              out.i[a] = days;
            }
          } else {
            return Bad(e, fmt::format("cannot cast a {} to {}", KindName(v.kind), e.type_name));
          }
          break;
        case VKind::kTimestamp:
          // An integer counts the target's units; a date is its midnight.
          if (v.kind == VKind::kTimestamp) {
            out.i[a] = rescaled.i[a];
          } else if (v.kind == VKind::kDate) {
            out.i[a] = v.i[a] * 86400 * arrow::TimeUnitsPerSecond(out.unit);
          } else if (v.kind == VKind::kInt) {
            out.i[a] = v.i[a];
          } else if (v.kind == VKind::kString) {
            int64_t nanos;
            if (!ParseTimestampNanos(v.s[a], &nanos)) {
              QV_RETURN_IF_ERROR(fail(a, fmt::format("'{}'", v.s[a])));
            } else {
              const int64_t per = 1000000000 / arrow::TimeUnitsPerSecond(out.unit);
              out.i[a] = nanos >= 0 ? nanos / per : -((-nanos + per - 1) / per);
            }
          } else {
            return Bad(e, fmt::format("cannot cast a {} to {}", KindName(v.kind), e.type_name));
          }
          break;
        default:
          break;
      }
    }
    return out;
  }

  Result<Vec> Binary(const Expr& e) {
    const bool resolve = here_;
    QV_ASSIGN_OR_RETURN(Vec l, Eval(*e.args[0]));
    QV_ASSIGN_OR_RETURN(Vec r, Eval(*e.args[1]));
    switch (e.op) {
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        QV_RETURN_IF_ERROR(WantBool(l, *e.args[0]));
        QV_RETURN_IF_ERROR(WantBool(r, *e.args[1]));
        return Logic(e.op, l, r);
      case BinaryOp::kEq:
      case BinaryOp::kNotEq:
      case BinaryOp::kLt:
      case BinaryOp::kLtEq:
      case BinaryOp::kGt:
      case BinaryOp::kGtEq:
        if (resolve) {
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[0], l, *e.args[1]));
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[1], r, *e.args[0]));
        }
        return Comparison(e.op, std::move(l), std::move(r), e);
      case BinaryOp::kConcat:
        return Concat(l, r, e);
      case BinaryOp::kPlus:
      case BinaryOp::kMinus:
      case BinaryOp::kMultiply:
      case BinaryOp::kDivide:
      case BinaryOp::kModulo:
        if (resolve) {
          // Lance converts the literal of `column op literal` at the top to the column's type
          // (`i + 2` is Int32, `5 - u` wraps as UInt16, `id + 0.5` is refused).
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[0], l, *e.args[1]));
          QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[1], r, *e.args[0]));
          ResolveLiteral(*e.args[0], l, *e.args[1], &r);
          ResolveLiteral(*e.args[1], r, *e.args[0], &l);
        }
        return Arithmetic(e.op, std::move(l), std::move(r), e);
      default:
        return Bad(
            e, fmt::format("operator {} is not supported in expressions yet", BinaryOpName(e.op)));
    }
  }

  // Kleene logic; either side may be a scalar or the null type.
  Vec Logic(BinaryOp op, const Vec& l, const Vec& r) {
    Vec out = BoolVec(n_);
    const bool is_and = op == BinaryOp::kAnd;
    for (int64_t k = 0; k < n_; ++k) {
      const bool lv = l.Valid(k), rv = r.Valid(k);
      const bool lb = lv && BoolAt(l, k), rb = rv && BoolAt(r, k);
      if (is_and) {
        if ((lv && !lb) || (rv && !rb)) continue;  // FALSE
        if (lv && rv) {
          out.b[static_cast<size_t>(k)] = 1;
        } else {
          SetNull(&out, k);
        }
      } else {
        if ((lv && lb) || (rv && rb)) {
          out.b[static_cast<size_t>(k)] = 1;
        } else if (!(lv && rv)) {
          SetNull(&out, k);
        }
      }
    }
    return out;
  }

  Result<Vec> Comparison(BinaryOp op, Vec l, Vec r, const Expr& e) {
    QV_RETURN_IF_ERROR(Unify(&l, &r, e));
    Vec out = BoolVec(n_);
    for (int64_t k = 0; k < n_; ++k) {
      if (!l.Valid(k) || !r.Valid(k)) {
        SetNull(&out, k);
        continue;
      }
      const int c = Compare(l, r, k);
      bool v = false;
      switch (op) {
        case BinaryOp::kEq:
          v = c == 0;
          break;
        case BinaryOp::kNotEq:
          v = c != 0;
          break;
        case BinaryOp::kLt:
          v = c < 0;
          break;
        case BinaryOp::kLtEq:
          v = c <= 0;
          break;
        case BinaryOp::kGt:
          v = c > 0;
          break;
        default:
          v = c >= 0;
          break;
      }
      out.b[static_cast<size_t>(k)] = v;
    }
    return out;
  }

  // `literal`'s Vec takes the type of the column it meets (Lance's planner), when the literal
  // rule applies (checked before).
  static void ResolveLiteral(const Expr& column, const Vec& col, const Expr& literal, Vec* lit) {
    bool negated = false;
    if (column.kind != Expr::Kind::kColumn || col.source.id() == TypeId::kNull ||
        AsLiteral(literal, &negated) == nullptr) {
      return;
    }
    const TypeId t = col.source.id();
    if (lit->kind == VKind::kNull || IsIntegerType(t) || IsFloatType(t)) Retype(lit, col.source);
  }

  Result<Vec> Arithmetic(BinaryOp op, Vec l, Vec r, const Expr& e) {
    for (const Vec* v : {&l, &r}) {
      if (v->kind != VKind::kNull && !v->Numeric()) {
        return Bad(e, fmt::format("cannot apply {} to {} and {}", BinaryOpName(op),
                                  KindName(l.kind), KindName(r.kind)));
      }
    }
    QV_ASSIGN_OR_RETURN(const arrow::DataType type, NumericCoercion(TypeOf(l), TypeOf(r), e));
    if (l.kind == VKind::kNull || r.kind == VKind::kNull) {
      Vec null = ScalarOf(VKind::kNull, n_);
      null.dt = type;
      return null;
    }
    QV_RETURN_IF_ERROR(Unify(&l, &r, e));
    Vec out;
    out.n = n_;
    out.dt = type;
    out.kind = IsFloatType(type.id())         ? VKind::kFloat
               : type.id() == TypeId::kUInt64 ? VKind::kUInt
                                              : VKind::kInt;
    out.valid.assign(static_cast<size_t>(n_), 1);
    bool any_null = false;
    if (out.kind == VKind::kFloat) out.f.resize(static_cast<size_t>(n_));
    if (out.kind == VKind::kInt) out.i.resize(static_cast<size_t>(n_));
    if (out.kind == VKind::kUInt) out.u.resize(static_cast<size_t>(n_));
    for (int64_t k = 0; k < n_; ++k) {
      const size_t o = static_cast<size_t>(k);
      if (!l.Valid(k) || !r.Valid(k)) {
        out.valid[o] = 0;
        any_null = true;
        continue;
      }
      if (out.kind == VKind::kFloat) {
        const double x = l.f[l.At(k)], y = r.f[r.At(k)];
        out.f[o] = op == BinaryOp::kPlus       ? x + y
                   : op == BinaryOp::kMinus    ? x - y
                   : op == BinaryOp::kMultiply ? x * y
                   : op == BinaryOp::kDivide   ? x / y
                                               : std::fmod(x, y);
        continue;
      }
      // Integers: two's complement wrapping as DataFusion's kernels (u64 arithmetic), a zero
      // divisor an error.
      const uint64_t x =
          l.kind == VKind::kUInt ? l.u[l.At(k)] : static_cast<uint64_t>(l.i[l.At(k)]);
      const uint64_t y =
          r.kind == VKind::kUInt ? r.u[r.At(k)] : static_cast<uint64_t>(r.i[r.At(k)]);
      uint64_t z = 0;
      if (op == BinaryOp::kPlus) {
        z = x + y;
      } else if (op == BinaryOp::kMinus) {
        z = x - y;
      } else if (op == BinaryOp::kMultiply) {
        z = x * y;
      } else {
        if (y == 0) return Bad(e, "division by zero");
        if (out.kind == VKind::kUInt) {
          z = op == BinaryOp::kDivide ? x / y : x % y;
        } else {
          const int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
          if (sx == INT64_MIN && sy == -1) {
            z = op == BinaryOp::kDivide ? x : 0;  // wraps
          } else {
            z = static_cast<uint64_t>(op == BinaryOp::kDivide ? sx / sy : sx % sy);
          }
        }
      }
      if (out.kind == VKind::kUInt) {
        out.u[o] = z;
      } else {
        out.i[o] = static_cast<int64_t>(z);
      }
    }
    if (!any_null) out.valid.clear();
    KeepInType(&out);
    return out;
  }

  Result<Vec> Concat(const Vec& l, const Vec& r, const Expr& e) {
    if (l.kind == VKind::kNull || r.kind == VKind::kNull) return ScalarOf(VKind::kNull, n_);
    for (const Vec* v : {&l, &r}) {
      if (v->kind == VKind::kOpaque || v->kind == VKind::kDate || v->kind == VKind::kTimestamp) {
        return Bad(e, fmt::format("|| needs strings or numbers, got {}", KindName(v->kind)));
      }
    }
    const Vec ls = ToStrings(l), rs = ToStrings(r);
    Vec out;
    out.kind = VKind::kString;
    out.n = n_;
    out.s.resize(static_cast<size_t>(n_));
    for (int64_t k = 0; k < n_; ++k) {
      if (!ls.Valid(k) || !rs.Valid(k)) {
        SetNull(&out, k);
        continue;
      }
      out.s[static_cast<size_t>(k)] = ls.s[ls.At(k)] + rs.s[rs.At(k)];
    }
    return out;
  }

  Result<Vec> Is(const Expr& e) {
    QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
    if (e.kind != Expr::Kind::kIsNull) QV_RETURN_IF_ERROR(WantBool(v, *e.args[0]));
    Vec out = BoolVec(n_);
    for (int64_t k = 0; k < n_; ++k) {
      const bool valid = v.Valid(k);
      bool r = false;
      switch (e.kind) {
        case Expr::Kind::kIsNull:
        case Expr::Kind::kIsUnknown:
          r = !valid;
          break;
        case Expr::Kind::kIsTrue:
          r = valid && BoolAt(v, k);
          break;
        default:
          r = valid && !BoolAt(v, k);
          break;
      }
      out.b[static_cast<size_t>(k)] = e.negated ? !r : r;
    }
    return out;
  }

  Result<Vec> In(const Expr& e) {
    // Lance resolves IN lists only against a top-level column (LanceDB accepts
    // `st.a IN (1.5)` but refuses `i IN (1.5)`).
    const bool resolve =
        here_ && e.args[0]->kind == Expr::Kind::kColumn && e.args[0]->path.size() == 1;
    QV_ASSIGN_OR_RETURN(Vec x, Eval(*e.args[0]));
    // x IN (a, b) = x = a OR x = b (NULL when nothing matches and something was NULL).
    Vec any;
    bool first = true;
    for (size_t k = 1; k < e.args.size(); ++k) {
      QV_ASSIGN_OR_RETURN(Vec item, Eval(*e.args[k]));
      if (resolve) QV_RETURN_IF_ERROR(CheckLiteralForColumn(*e.args[0], x, *e.args[k]));
      QV_ASSIGN_OR_RETURN(Vec eq, Comparison(BinaryOp::kEq, x, std::move(item), *e.args[k]));
      any = first ? std::move(eq) : Logic(BinaryOp::kOr, any, eq);
      first = false;
    }
    if (e.negated) {
      for (uint8_t& b : any.b) b = !b;
    }
    return any;
  }

  Result<Vec> Like(const Expr& e) {
    if (e.has_escape && e.escape != '\\') {
      // DataFusion's LIKE kernel (as Lance runs it) has no other escape character.
      return Bad(e, fmt::format("LIKE ... ESCAPE '{}': only the backslash escapes in LIKE "
                                "patterns (as in Lance)",
                                e.escape));
    }
    QV_ASSIGN_OR_RETURN(Vec s, Eval(*e.args[0]));
    QV_ASSIGN_OR_RETURN(Vec p, Eval(*e.args[1]));
    for (const Vec* v : {&s, &p}) {
      if (v->kind != VKind::kString && v->kind != VKind::kNull) {
        return Bad(e, fmt::format("LIKE needs strings, got {}", KindName(v->kind)));
      }
    }
    Vec out = BoolVec(n_);
    for (int64_t k = 0; k < n_; ++k) {
      if (!s.Valid(k) || !p.Valid(k)) {
        SetNull(&out, k);
        continue;
      }
      const bool m = LikeMatch(s.s[s.At(k)], p.s[p.At(k)], e.escape, e.case_insensitive);
      out.b[static_cast<size_t>(k)] = e.negated ? !m : m;
    }
    return out;
  }

  Result<Vec> Call(const Expr& e) {
    auto arity = [&](size_t want) -> Status {
      if (e.args.size() == want) return Status::OK();
      return Bad(e, fmt::format("{}() takes {} argument{}, not {}", e.name, want,
                                want == 1 ? "" : "s", e.args.size()));
    };
    if (e.name == "lower" || e.name == "upper" || e.name == "length" || e.name == "char_length" ||
        e.name == "character_length") {
      QV_RETURN_IF_ERROR(arity(1));
      QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
      if (v.kind == VKind::kNull) return v;
      if (v.kind != VKind::kString)
        return Bad(e, fmt::format("{}() needs a string, got {}", e.name, KindName(v.kind)));
      if (e.name == "lower" || e.name == "upper") {
        const bool up = e.name == "upper";
        for (std::string& x : v.s) x = internal::MapCase(x, up);
        v.dt = arrow::DataType::Utf8();
        v.source = arrow::DataType::Null();
        return v;
      }
      Vec out;
      out.kind = VKind::kInt;
      out.dt = arrow::DataType::Int32();
      out.n = v.n;
      out.scalar = v.scalar;
      out.valid = v.valid;
      for (const std::string& x : v.s) {
        int64_t chars = 0;
        for (char c : x) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        out.i.push_back(chars);
      }
      return out;
    }
    if (e.name == "abs") {
      QV_RETURN_IF_ERROR(arity(1));
      QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[0]));
      v.source = arrow::DataType::Null();
      if (v.dt.id() == TypeId::kDictionary) v.dt = v.dt.dictionary_value();
      if (v.kind == VKind::kInt) {
        for (int64_t& x : v.i)
          x = x < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(x)) : x;
        KeepInType(&v);
      } else if (v.kind == VKind::kFloat) {
        for (double& x : v.f) x = std::fabs(x);
      } else if (v.kind != VKind::kUInt && v.kind != VKind::kNull) {
        return Bad(e, fmt::format("abs() needs a number, got {}", KindName(v.kind)));
      }
      return v;
    }
    if (e.name == "starts_with") {
      QV_RETURN_IF_ERROR(arity(2));
      QV_ASSIGN_OR_RETURN(Vec s, Eval(*e.args[0]));
      QV_ASSIGN_OR_RETURN(Vec p, Eval(*e.args[1]));
      if ((s.kind != VKind::kString && s.kind != VKind::kNull) ||
          (p.kind != VKind::kString && p.kind != VKind::kNull)) {
        return Bad(e, "starts_with() needs strings");
      }
      Vec out = BoolVec(n_);
      for (int64_t k = 0; k < n_; ++k) {
        if (!s.Valid(k) || !p.Valid(k)) {
          SetNull(&out, k);
          continue;
        }
        out.b[static_cast<size_t>(k)] = s.s[s.At(k)].rfind(p.s[p.At(k)], 0) == 0;
      }
      return out;
    }
    if (e.name == "coalesce") {
      if (e.args.empty()) return Bad(e, "coalesce() needs at least one argument");
      std::vector<Vec> vs;
      for (const ExprPtr& a : e.args) {
        QV_ASSIGN_OR_RETURN(Vec v, Eval(*a));
        vs.push_back(std::move(v));
      }
      // One kind for all (unified pairwise with the first non-null one).
      size_t lead = 0;
      while (lead < vs.size() && vs[lead].kind == VKind::kNull) ++lead;
      if (lead == vs.size()) return ScalarOf(VKind::kNull, n_);
      // Twice: a later argument may widen the lead (int to float), which the earlier ones then
      // follow.
      for (int pass = 0; pass < 2; ++pass) {
        for (size_t k = 0; k < vs.size(); ++k) {
          if (k == lead || vs[k].kind == VKind::kNull) continue;
          QV_RETURN_IF_ERROR(Unify(&vs[lead], &vs[k], e));
        }
      }
      // The result's type: DataFusion's coercion of all the arguments' (numbers to the
      // narrowest that holds them all; a dictionary lead keeps its dictionary).
      arrow::DataType type = TypeOf(vs[lead]);
      if (vs[lead].Numeric()) {
        for (const Vec& v : vs) {
          if (v.kind != VKind::kNull) {
            QV_ASSIGN_OR_RETURN(type, NumericCoercion(type, TypeOf(v), e));
          }
        }
      }
      Vec out;
      out.kind = vs[lead].kind;
      out.dt = type;
      out.n = n_;
      out.unit = vs[lead].unit;
      out.valid.assign(static_cast<size_t>(n_), 0);
      out.i.resize(static_cast<size_t>(n_));
      out.u.resize(static_cast<size_t>(n_));
      out.f.resize(static_cast<size_t>(n_));
      out.b.resize(static_cast<size_t>(n_));
      out.s.resize(static_cast<size_t>(n_));
      for (int64_t k = 0; k < n_; ++k) {
        for (const Vec& v : vs) {
          if (v.kind == VKind::kNull || !v.Valid(k)) continue;
          const size_t a = v.At(k), o = static_cast<size_t>(k);
          if (v.kind != out.kind) continue;
          if (!v.i.empty()) out.i[o] = v.i[a];
          if (!v.u.empty()) out.u[o] = v.u[a];
          if (!v.f.empty()) out.f[o] = v.f[a];
          if (!v.b.empty()) out.b[o] = v.b[a];
          if (!v.s.empty()) out.s[o] = v.s[a];
          out.valid[o] = 1;
          break;
        }
      }
      Retype(&out, type);
      return out;
    }
    if (const internal::ScalarFunction* fn = internal::FindScalarFunction(e.name)) {
      return CallScalar(e, *fn);
    }
    return Bad(e, fmt::format("unsupported function '{}'", e.name));
  }

  // The strings one function call may make for a batch, all rows together.
  static constexpr uint64_t kMaxResultBytes = 256u << 20;

  static void CopyValue(const Vec& from, int64_t k, Vec* to, size_t o) {
    const size_t at = from.At(k);
    switch (from.kind) {
      case VKind::kInt:
        to->i[o] = from.i[at];
        break;
      case VKind::kUInt:
        to->u[o] = from.u[at];
        break;
      case VKind::kFloat:
        to->f[o] = from.f[at];
        break;
      case VKind::kString:
        to->s[o] = from.s[at];
        break;
      case VKind::kBool:
        to->b[o] = from.b[at];
        break;
      default:
        break;
    }
  }

  // A function of internal/scalar_functions.h: its arguments checked, then applied row by row.
  Result<Vec> CallScalar(const Expr& e, const internal::ScalarFunction& fn) {
    using internal::ArgKind;
    if (e.args.size() < fn.min_args || e.args.size() > fn.max_args) {
      return Bad(e, fn.min_args == fn.max_args
                        ? fmt::format("{}() takes {} argument{}, not {}", e.name, fn.min_args,
                                      fn.min_args == 1 ? "" : "s", e.args.size())
                        : fmt::format("{}() takes {} to {} arguments, not {}", e.name, fn.min_args,
                                      fn.max_args, e.args.size()));
    }
    std::vector<Vec> args;
    for (size_t k = 0; k < e.args.size(); ++k) {
      QV_ASSIGN_OR_RETURN(Vec v, Eval(*e.args[k]));
      const ArgKind want = fn.args[std::min(k, fn.args.size() - 1)];
      bool ok = v.kind == VKind::kNull;
      const char* wanted = "a string";
      switch (want) {
        case ArgKind::kString:
          ok = ok || v.kind == VKind::kString;
          break;
        case ArgKind::kNumber:
          ok = ok || v.Numeric();
          wanted = "a number";
          break;
        case ArgKind::kInteger:
          ok = ok || v.kind == VKind::kInt || v.kind == VKind::kUInt;
          wanted = "an integer";
          break;
        case ArgKind::kAny:
          ok = ok || v.Numeric() || v.kind == VKind::kString || v.kind == VKind::kBool;
          wanted = "a string, number or boolean";
          break;
      }
      if (!ok) {
        return Bad(*e.args[k], fmt::format("{}() argument {} must be {}, not {}", e.name, k + 1,
                                           wanted, KindName(v.kind)));
      }
      args.push_back(std::move(v));
    }
    Vec out;
    switch (fn.result) {
      case internal::ResultKind::kString:
        out.kind = VKind::kString;
        break;
      case internal::ResultKind::kBool:
        out.kind = VKind::kBool;
        break;
      case internal::ResultKind::kInt:
        out.kind = VKind::kInt;
        out.dt = arrow::DataType::Int32();  // strpos, octet_length: Int32 in DataFusion
        break;
      case internal::ResultKind::kFloat: {
        // DataFusion's math functions have a Float32 form (a Float32 argument and no Float64
        // one gives Float32: sqrt(y), log(2, y), round(y, 1)); power is Float64 only.
        out.kind = VKind::kFloat;
        bool f32 = false, f64 = false;
        for (const Vec& a : args) {
          const TypeId t = TypeOf(a).id();
          f32 = f32 || t == TypeId::kFloat32;
          f64 = f64 || t == TypeId::kFloat64 || t == TypeId::kFloat16;
        }
        out.dt = f32 && !f64 && fn.name != "power" && fn.name != "pow" ? arrow::DataType::Float32()
                                                                       : arrow::DataType::Float64();
        break;
      }
      case internal::ResultKind::kSameAsFirst:
        out.kind = args[0].kind;
        if (out.kind == VKind::kNull) return ScalarOf(VKind::kNull, n_);
        out.dt = TypeOf(args[0]);
        break;
    }
    out.n = n_;
    const size_t n = static_cast<size_t>(n_);
    out.i.resize(out.kind == VKind::kInt ? n : 0);
    out.u.resize(out.kind == VKind::kUInt ? n : 0);
    out.f.resize(out.kind == VKind::kFloat ? n : 0);
    out.b.resize(out.kind == VKind::kBool ? n : 0);
    out.s.resize(out.kind == VKind::kString ? n : 0);
    std::vector<internal::Scalar> row(args.size());
    uint64_t out_bytes = 0;
    for (int64_t k = 0; k < n_; ++k) {
      bool any_null = false;
      for (size_t j = 0; j < args.size(); ++j) {
        const Vec& a = args[j];
        const size_t at = a.At(k);
        if (!a.Valid(k)) {
          any_null = true;
          row[j] = std::monostate{};
        } else if (a.kind == VKind::kString) {
          row[j] = a.s[at];
        } else if (a.kind == VKind::kInt) {
          row[j] = a.i[at];
        } else if (a.kind == VKind::kUInt) {
          if (a.u[at] <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            row[j] = static_cast<int64_t>(a.u[at]);
          } else if (fn.args[std::min(j, fn.args.size() - 1)] == ArgKind::kInteger) {
            return Bad(*e.args[j], fmt::format("{}() argument {} is out of range ({})", e.name,
                                               j + 1, a.u[at]));
          } else {
            row[j] = a.u[at];
          }
        } else if (a.kind == VKind::kFloat) {
          row[j] = a.f[at];
        } else {
          row[j] = a.b[at] != 0;
        }
      }
      const size_t o = static_cast<size_t>(k);
      if (any_null && fn.null_in_null_out) {
        SetNull(&out, k);
        continue;
      }
      auto value = fn.apply(row);
      if (!value.ok()) return Bad(e, value.status().message());
      const internal::Scalar& r = *value;
      if (std::holds_alternative<std::monostate>(r)) {
        SetNull(&out, k);
      } else if (fn.result == internal::ResultKind::kSameAsFirst) {
        CopyValue(args[0], k, &out, o);  // the first argument's own value, exactly
      } else if (const auto* str = std::get_if<std::string>(&r)) {
        out_bytes += str->size();
        if (out_bytes > kMaxResultBytes) {
          return Bad(e, fmt::format("{}() makes more than {} MiB of strings for one batch", e.name,
                                    kMaxResultBytes >> 20));
        }
        out.s[o] = *str;
      } else if (const auto* b = std::get_if<bool>(&r)) {
        out.b[o] = *b ? 1 : 0;
      } else if (const auto* i = std::get_if<int64_t>(&r)) {
        if (out.kind == VKind::kInt) out.i[o] = *i;
        if (out.kind == VKind::kUInt) out.u[o] = static_cast<uint64_t>(*i);
        if (out.kind == VKind::kFloat) out.f[o] = static_cast<double>(*i);
      } else if (const auto* d = std::get_if<double>(&r); d && out.kind == VKind::kFloat) {
        out.f[o] = *d;
      }
    }
    if (fn.result == internal::ResultKind::kSameAsFirst && args[0].Numeric()) {
      // nullif(a, b): a's value in the type both coerce to (nullif(i, 3) is Int64).
      arrow::DataType type = out.dt;
      for (const Vec& a : args) {
        if (a.kind != VKind::kNull && a.Numeric()) {
          QV_ASSIGN_OR_RETURN(type, NumericCoercion(type, TypeOf(a), e));
        }
      }
      Retype(&out, type);
    } else {
      KeepInType(&out);
    }
    return out;
  }

  const arrow::RecordBatch& batch_;
  int64_t n_;
  bool resolve_ = true;  // the next node evaluated is under the top through AND / OR only
  bool here_ = true;     // the node being evaluated is (set by Eval for EvalNode)
};

// ---- values out ----

Result<arrow::ArrayPtr> ToArray(const Vec& v, int64_t n) {
  std::vector<bool> valid;
  if (!v.valid.empty() || v.kind == VKind::kNull) {
    valid.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) valid[static_cast<size_t>(k)] = v.Valid(k);
  }
  auto expand = [&](const auto& src) {
    std::vector<std::decay_t<decltype(src[0])>> out(static_cast<size_t>(n));
    if (!src.empty()) {
      for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = src[v.At(k)];
    }
    return out;
  };
  // Values narrowed to the type's own width.
  auto narrow = [&]<typename T>(const auto& src, const arrow::DataType& type) {
    std::vector<T> out(static_cast<size_t>(n));
    if (!src.empty()) {
      for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = static_cast<T>(src[v.At(k)]);
    }
    return arrow::MakeFixedArray(type, out, valid);
  };
  const arrow::DataType type = TypeOf(v);
  switch (v.kind) {
    case VKind::kNull:
      return arrow::MakeNullArray(type, n);
    case VKind::kBool: {
      std::vector<bool> b(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) b[static_cast<size_t>(k)] = v.b[v.At(k)] != 0;
      return arrow::MakeBoolArray(b, valid);
    }
    case VKind::kInt:
      switch (type.id()) {
        case TypeId::kInt8:
          return narrow.operator()<int8_t>(v.i, type);
        case TypeId::kInt16:
          return narrow.operator()<int16_t>(v.i, type);
        case TypeId::kInt32:
          return narrow.operator()<int32_t>(v.i, type);
        case TypeId::kUInt8:
          return narrow.operator()<uint8_t>(v.i, type);
        case TypeId::kUInt16:
          return narrow.operator()<uint16_t>(v.i, type);
        case TypeId::kUInt32:
          return narrow.operator()<uint32_t>(v.i, type);
        default:
          return arrow::MakeFixedArray(arrow::DataType::Int64(), expand(v.i), valid);
      }
    case VKind::kUInt:
      return arrow::MakeFixedArray(arrow::DataType::UInt64(), expand(v.u), valid);
    case VKind::kFloat:
      if (type.id() == TypeId::kFloat32) return narrow.operator()<float>(v.f, type);
      if (type.id() == TypeId::kFloat16) {
        std::vector<uint16_t> h(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k)
          h[static_cast<size_t>(k)] = arrow::FloatToHalf(v.f[v.At(k)]);
        return arrow::MakeFixedArray(type, h, valid);
      }
      return arrow::MakeFixedArray(arrow::DataType::Float64(), expand(v.f), valid);
    case VKind::kString:
      if (type.id() == TypeId::kDictionary) {  // a dictionary column's type, kept
        QV_ASSIGN_OR_RETURN(arrow::ArrayPtr values,
                            arrow::MakeBinaryArray(type.dictionary_value(), expand(v.s), valid));
        return arrow::DictionaryEncode(values, type);
      }
      return arrow::MakeBinaryArray(
          type.id() == TypeId::kLargeUtf8 ? type : arrow::DataType::Utf8(), expand(v.s), valid);
    case VKind::kDate: {
      std::vector<int32_t> d(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k)
        d[static_cast<size_t>(k)] = static_cast<int32_t>(v.i[v.At(k)]);
      return arrow::MakeFixedArray(arrow::DataType::Date32(), d, valid);
    }
    case VKind::kTimestamp:
      return arrow::MakeFixedArray(arrow::DataType::Timestamp(v.unit, v.tz), expand(v.i), valid);
    case VKind::kOpaque:
      break;
  }
  return Status::InvalidInput(
      fmt::format("values of type {} cannot be produced by expressions yet", v.source.ToString()));
}

}  // namespace

Result<arrow::ArrayPtr> Evaluate(const Expr& expr, const arrow::RecordBatch& batch) {
  Evaluator ev(batch);
  QV_ASSIGN_OR_RETURN(Vec v, ev.Eval(expr));
  return ToArray(v, batch.length);
}

// A filter must be boolean; a bare NULL (the null type) is not, as Lance says ("The filter NULL
// does not return a boolean").
Status WantFilter(const Vec& v, const Expr& e) {
  if (v.kind == VKind::kNull) return Bad(e, "a filter must be boolean, and this one is NULL");
  return WantBool(v, e);
}

Result<std::vector<bool>> EvaluateFilter(const Expr& expr, const arrow::RecordBatch& batch) {
  Evaluator ev(batch);
  QV_ASSIGN_OR_RETURN(Vec v, ev.Eval(expr));
  QV_RETURN_IF_ERROR(WantFilter(v, expr));
  std::vector<bool> keep(static_cast<size_t>(batch.length), false);
  for (int64_t k = 0; k < batch.length; ++k) {
    keep[static_cast<size_t>(k)] = v.Valid(k) && BoolAt(v, k);
  }
  return keep;
}

Status CheckExpression(const Expr& expr, const arrow::Schema& schema, bool want_bool) {
  arrow::RecordBatch empty;
  empty.schema = std::make_shared<arrow::Schema>(schema);
  for (const arrow::Field& f : schema.fields) {
    QV_ASSIGN_OR_RETURN(arrow::ArrayPtr column, arrow::MakeNullArray(f.type, 0));
    empty.columns.push_back(std::move(column));
  }
  Evaluator ev(empty);
  QV_ASSIGN_OR_RETURN(Vec v, ev.Eval(expr));
  if (want_bool) QV_RETURN_IF_ERROR(WantFilter(v, expr));
  return Status::OK();
}

}  // namespace quiver::expr
