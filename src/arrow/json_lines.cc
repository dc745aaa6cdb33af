#include "arrow/json_lines.h"

#include "arrow/internal/utf8.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/base64.h"

namespace quiver::arrow {

namespace {

// GCC's 128-bit integers; __extension__ keeps -Wpedantic quiet about the non-ISO type.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr int64_t kMaxExactInteger = int64_t{1} << 53;  // doubles hold every integer up to it

// Floor division with a remainder in [0, d) (d > 0), computed without products that could
// overflow at the ends of int64.
void FloorDivMod(int64_t v, int64_t d, int64_t* quotient, int64_t* remainder) {
  *quotient = v / d;
  *remainder = v % d;
  if (*remainder < 0) {
    *remainder += d;
    --*quotient;
  }
}

// Howard Hinnant's civil_from_days (http://howardhinnant.github.io/date_algorithms.html):
// proleptic Gregorian, valid for every int64 day count quiver can meet (|days| < 2^62).
struct Civil {
  int64_t year;
  unsigned month;  // 1..12
  unsigned day;    // 1..31
};

Civil CivilFromDays(int64_t z) {
  z += 719468;  // shift the epoch to 0000-03-01, so leap days end a 400-year era
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);                    // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

void AppendPadded(uint64_t v, int width, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  for (int n = static_cast<int>(r.ptr - buf); n < width; ++n) out->push_back('0');
  out->append(buf, r.ptr);
}

void AppendDate(int64_t days, std::string* out) {
  const Civil c = CivilFromDays(days);
  if (c.year >= 0 && c.year <= 9999) {
    AppendPadded(static_cast<uint64_t>(c.year), 4, out);
  } else {
    // ISO 8601 expanded years, as JavaScript's toISOString writes them.
    out->push_back(c.year < 0 ? '-' : '+');
    AppendPadded(c.year < 0 ? 0 - static_cast<uint64_t>(c.year) : static_cast<uint64_t>(c.year), 6,
                 out);
  }
  out->push_back('-');
  AppendPadded(c.month, 2, out);
  out->push_back('-');
  AppendPadded(c.day, 2, out);
}

// How a timestamp's time zone string is rendered.
struct Zone {
  enum Kind { kNaive, kUtc, kOffset } kind;
  int offset_minutes = 0;  // kOffset only, never 0
};

bool ParseTwoDigits(std::string_view s, int* v) {
  if (s.size() != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return false;
  *v = (s[0] - '0') * 10 + (s[1] - '0');
  return true;
}

Zone ParseZone(std::string_view tz) {
  if (tz.empty()) return {Zone::kNaive};
  if (tz[0] == '+' || tz[0] == '-') {
    // "+HH:MM", "+HHMM" or "+HH" (Arrow's fixed-offset spellings).
    std::string_view rest = tz.substr(1);
    int hours = 0, minutes = 0;
    bool ok = false;
    if (rest.size() == 5 && rest[2] == ':') {
      ok = ParseTwoDigits(rest.substr(0, 2), &hours) && ParseTwoDigits(rest.substr(3), &minutes);
    } else if (rest.size() == 4) {
      ok = ParseTwoDigits(rest.substr(0, 2), &hours) && ParseTwoDigits(rest.substr(2), &minutes);
    } else if (rest.size() == 2) {
      ok = ParseTwoDigits(rest, &hours);
    }
    if (ok && hours < 24 && minutes < 60) {
      int total = hours * 60 + minutes;
      if (total == 0) return {Zone::kUtc};
      return {Zone::kOffset, tz[0] == '-' ? -total : total};
    }
    return {Zone::kUtc};  // not an offset we understand: the instant in UTC is still exact
  }
  // UTC, its aliases, and every named zone (no tz database: rendered as UTC).
  return {Zone::kUtc};
}

// ECMAScript Number::toString layout (ECMA-262 §6.1.6.1.20) of the decimal digits `digits` (no
// leading or trailing zeros) with the decimal point after `n` digits (value = 0.digits × 10^n).
void AppendEcmaLayout(bool negative, std::string_view digits, int n, std::string* out) {
  if (negative) out->push_back('-');
  const int k = static_cast<int>(digits.size());
  if (k <= n && n <= 21) {
    out->append(digits);
    out->append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out->append(digits.substr(0, static_cast<size_t>(n)));
    out->push_back('.');
    out->append(digits.substr(static_cast<size_t>(n)));
  } else if (-6 < n && n <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-n), '0');
    out->append(digits);
  } else {
    out->push_back(digits[0]);
    if (k > 1) {
      out->push_back('.');
      out->append(digits.substr(1));
    }
    out->push_back('e');
    out->push_back(n - 1 >= 0 ? '+' : '-');
    out->append(std::to_string(n - 1 >= 0 ? n - 1 : 1 - n));
  }
}

template <typename F>
void AppendFloatText(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (v == 0) {
    out->append(std::signbit(v) ? "-0" : "0");
    return;
  }
  // Shortest round-trip digits in scientific form, "d.ddde±XX", re-laid out.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  const bool negative = s[0] == '-';
  if (negative) s.remove_prefix(1);
  const size_t e = s.find('e');
  std::string digits(1, s[0]);
  if (e > 2) digits.append(s.substr(2, e - 2));
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string_view exp_text = s.substr(e + 1);
  const bool exp_negative = exp_text[0] == '-';
  if (exp_text[0] == '-' || exp_text[0] == '+') exp_text.remove_prefix(1);
  int exponent = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  if (exp_negative) exponent = -exponent;
  AppendEcmaLayout(negative, digits, exponent + 1, out);
}

template <typename F>
void AppendJsonFloat(F v, std::string* out) {
  const bool quoted = !std::isfinite(v);
  if (quoted) out->push_back('"');
  AppendFloatText(v, out);
  if (quoted) out->push_back('"');
}

template <typename T>
void AppendInteger(T v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendInt64(int64_t v, std::string* out) {
  const bool quoted = v > kMaxExactInteger || v < -kMaxExactInteger;
  if (quoted) out->push_back('"');
  AppendInteger(v, out);
  if (quoted) out->push_back('"');
}

void AppendUInt64(uint64_t v, std::string* out) {
  const bool quoted = v > static_cast<uint64_t>(kMaxExactInteger);
  if (quoted) out->push_back('"');
  AppendInteger(v, out);
  if (quoted) out->push_back('"');
}

void AppendTimestamp(int64_t value, TimeUnit unit, std::string_view timezone, std::string* out) {
  int64_t per_second = 1;
  int digits = 0;
  switch (unit) {
    case TimeUnit::kSecond:
      break;
    case TimeUnit::kMilli:
      per_second = 1000, digits = 3;
      break;
    case TimeUnit::kMicro:
      per_second = 1000000, digits = 6;
      break;
    case TimeUnit::kNano:
      per_second = 1000000000, digits = 9;
      break;
  }
  // Floor division, so instants before 1970 get a non-negative fraction of their second.
  int64_t seconds, fraction, days, second_of_day;
  FloorDivMod(value, per_second, &seconds, &fraction);
  FloorDivMod(seconds, 86400, &days, &second_of_day);
  const Zone zone = ParseZone(timezone);
  if (zone.kind == Zone::kOffset) {
    // Shift within the day and carry, so the extreme int64 values cannot overflow.
    second_of_day += int64_t{zone.offset_minutes} * 60;
    if (second_of_day < 0) {
      second_of_day += 86400, --days;
    } else if (second_of_day >= 86400) {
      second_of_day -= 86400, ++days;
    }
  }
  AppendDate(days, out);
  out->push_back('T');
  AppendPadded(static_cast<uint64_t>(second_of_day / 3600), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(second_of_day / 60 % 60), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(second_of_day % 60), 2, out);
  if (digits > 0) {
    out->push_back('.');
    AppendPadded(static_cast<uint64_t>(fraction), digits, out);
  }
  if (zone.kind == Zone::kUtc) {
    out->push_back('Z');
  } else if (zone.kind == Zone::kOffset) {
    const int magnitude = zone.offset_minutes < 0 ? -zone.offset_minutes : zone.offset_minutes;
    out->push_back(zone.offset_minutes < 0 ? '-' : '+');
    AppendPadded(static_cast<uint64_t>(magnitude / 60), 2, out);
    out->push_back(':');
    AppendPadded(static_cast<uint64_t>(magnitude % 60), 2, out);
  }
}

void AppendDecimal128(std::string_view le16, int32_t scale, std::string* out) {
  Int128 unscaled = 0;
  std::memcpy(&unscaled, le16.data(), sizeof(unscaled));  // little-endian host, like Arrow data
  const bool negative = unscaled < 0;
  // The magnitude in unsigned arithmetic: -(-2^127) does not fit the signed type.
  UInt128 magnitude =
      negative ? UInt128{0} - static_cast<UInt128>(unscaled) : static_cast<UInt128>(unscaled);
  char buf[40];  // 2^127 has 39 digits
  char* begin = buf + sizeof(buf);
  do {
    *--begin = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  const std::string_view digits(begin, static_cast<size_t>(buf + sizeof(buf) - begin));
  if (negative) out->push_back('-');
  if (scale <= 0) {
    out->append(digits);
    // A negative scale multiplies by 10^-scale; zero stays "0" rather than "000".
    if (digits != "0") out->append(static_cast<size_t>(-int64_t{scale}), '0');
    return;
  }
  const auto fractional = static_cast<size_t>(scale);
  if (digits.size() <= fractional) {
    out->append("0.");
    out->append(fractional - digits.size(), '0');
    out->append(digits);
  } else {
    out->append(digits.substr(0, digits.size() - fractional));
    out->push_back('.');
    out->append(digits.substr(digits.size() - fractional));
  }
}

}  // namespace

void AppendJsonString(std::string_view bytes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x80) {
      const size_t len = internal::Utf8SequenceLength(bytes, i);
      if (len == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD: the output stays valid JSON (valid UTF-8)
        ++i;
      } else {
        out->append(bytes.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

void AppendJsonValue(const ArrayData& a, int64_t i, std::string* out) {
  if (IsNull(a, i)) {
    out->append("null");
    return;
  }
  switch (a.type.id()) {
    case TypeId::kNull:
      out->append("null");
      return;
    case TypeId::kBool:
      out->append(BoolValue(a, i) ? "true" : "false");
      return;
    case TypeId::kInt8:
      return AppendInteger(Values<int8_t>(a)[i], out);
    case TypeId::kInt16:
      return AppendInteger(Values<int16_t>(a)[i], out);
    case TypeId::kInt32:
      return AppendInteger(Values<int32_t>(a)[i], out);
    case TypeId::kInt64:
      return AppendInt64(Values<int64_t>(a)[i], out);
    case TypeId::kUInt8:
      return AppendInteger(Values<uint8_t>(a)[i], out);
    case TypeId::kUInt16:
      return AppendInteger(Values<uint16_t>(a)[i], out);
    case TypeId::kUInt32:
      return AppendInteger(Values<uint32_t>(a)[i], out);
    case TypeId::kUInt64:
      return AppendUInt64(Values<uint64_t>(a)[i], out);
    case TypeId::kFloat16:
      return AppendJsonFloat(HalfToFloat(Values<uint16_t>(a)[i]), out);
    case TypeId::kFloat32:
      return AppendJsonFloat(Values<float>(a)[i], out);
    case TypeId::kFloat64:
      return AppendJsonFloat(Values<double>(a)[i], out);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      return AppendJsonString(BinaryValue(a, i), out);
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      out->push_back('"');
      out->append(Base64Encode(BinaryValue(a, i)));
      out->push_back('"');
      return;
    case TypeId::kFixedSizeBinary:
      out->push_back('"');
      out->append(Base64Encode(FixedValue(a, i)));
      out->push_back('"');
      return;
    case TypeId::kDate32:
      out->push_back('"');
      AppendDate(Values<int32_t>(a)[i], out);
      out->push_back('"');
      return;
    case TypeId::kDate64:
      out->push_back('"');
      AppendTimestamp(Values<int64_t>(a)[i], TimeUnit::kMilli, "UTC", out);
      out->push_back('"');
      return;
    case TypeId::kTimestamp:
      out->push_back('"');
      AppendTimestamp(Values<int64_t>(a)[i], a.type.unit(), a.type.timezone(), out);
      out->push_back('"');
      return;
    case TypeId::kDecimal128:
      out->push_back('"');
      AppendDecimal128(FixedValue(a, i), a.type.scale(), out);
      out->push_back('"');
      return;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:  // its entries, [{"key": k, "value": v}, ...]: lossless, unlike an object
    case TypeId::kFixedSizeList: {
      auto [begin, end] = ListRange(a, i);
      out->push_back('[');
      for (int64_t k = begin; k < end; ++k) {
        if (k > begin) out->push_back(',');
        AppendJsonValue(*a.children[0], k, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      for (size_t k = 0; k < a.children.size(); ++k) {
        if (k > 0) out->push_back(',');
        AppendJsonString(a.type.children()[k].name, out);
        out->push_back(':');
        // Struct members are addressed through the parent's offset.
        AppendJsonValue(*a.children[k], a.offset + i, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kDictionary:
      return AppendJsonValue(*a.dictionary, DictionaryIndex(a, i), out);
  }
  out->append("null");  // unreachable for the TypeIds above
}

std::string ValueToJson(const ArrayData& array, int64_t row) {
  std::string out;
  AppendJsonValue(array, row, &out);
  return out;
}

Status WriteJsonLines(const RecordBatch& batch, std::string* out) {
  // Cheap structural checks only: a full Validate is the reader's job, and repeating it on every
  // `head` would cost a pass over the data.
  if (Status s = batch.Validate(/*full=*/false); !s.ok()) {
    return Status::InvalidInput("WriteJsonLines: " + s.message());
  }
  const std::vector<Field>& fields = batch.schema->fields;
  // Keys are the same on every line: escape them once.
  std::vector<std::string> keys(fields.size());
  for (size_t k = 0; k < fields.size(); ++k) {
    AppendJsonString(fields[k].name, &keys[k]);
    keys[k].push_back(':');
  }
  for (int64_t row = 0; row < batch.length; ++row) {
    out->push_back('{');
    for (size_t k = 0; k < fields.size(); ++k) {
      if (k > 0) out->push_back(',');
      out->append(keys[k]);
      AppendJsonValue(*batch.columns[k], row, out);
    }
    out->append("}\n");
  }
  return Status::OK();
}

std::string FormatDate(int64_t days_since_epoch) {
  std::string out;
  AppendDate(days_since_epoch, &out);
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit, std::string_view timezone) {
  std::string out;
  AppendTimestamp(value, unit, timezone, &out);
  return out;
}

std::string FormatDecimal128(std::string_view unscaled_le16, int32_t scale) {
  std::string out;
  AppendDecimal128(unscaled_le16, scale, &out);
  return out;
}

std::string FormatFloat(float v) {
  std::string out;
  AppendFloatText(v, &out);
  return out;
}

std::string FormatDouble(double v) {
  std::string out;
  AppendFloatText(v, &out);
  return out;
}

}  // namespace quiver::arrow
