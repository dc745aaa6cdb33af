// JSON Lines rendering of record batches (`quiver table head --json`, issue 6), and the scalar
// formatters behind it (decimals, dates, timestamps), which text renderings reuse.
//
// One JSON object per row, keys = the top-level field names in schema order, each line ended by
// '\n'. Values, by type:
//   null (any type)       null
//   bool                  true / false
//   int8..int32, uint8..uint32
//                         a JSON number
//   int64, uint64         a number when |v| <= 2^53, otherwise a string of decimal digits
//                         ("9007199254740993"): JSON numbers are doubles in most readers, and
//                         2^53 is the largest magnitude up to which every integer is exact
//   float32, float64      a number with the shortest digits that round-trip to the same value in
//                         the value's own precision (0.1f is 0.1, not 0.10000000149011612), laid
//                         out as ECMAScript's Number::toString does (plain notation for
//                         1e-7 <= |v| < 1e21, otherwise "1.5e-7" / "1e+21"), so a JavaScript
//                         reader's JSON.stringify gives the same text. -0.0 is "-0" (kept: it is a
//                         distinct value). NaN, +inf, -inf are the strings "NaN", "Infinity",
//                         "-Infinity"
//   float16               widened to float32, then as float32
//   utf8, large_utf8      a string; '"', '\\' and control characters below 0x20 escaped (\b \f \n
//                         \r \t, others \u00XX), everything else (valid UTF-8) passes through;
//                         invalid UTF-8 (only in unvalidated data) becomes U+FFFD per bad byte
//   binary, large_binary, fixed_size_binary
//                         a string: standard base64 with '=' padding (RFC 4648 §4)
//   date32                "YYYY-MM-DD"
//   date64                "YYYY-MM-DDTHH:MM:SS.sssZ": Arrow defines date64 as UTC epoch
//                         milliseconds, and this is exactly JavaScript's Date.toISOString()
//   timestamp             "YYYY-MM-DDTHH:MM:SS" plus a fraction of the unit's precision (s: none,
//                         ms: .sss, us: .ssssss, ns: .sssssssss), then by time zone:
//                           ""  (naive)                 the wall time as stored, no suffix
//                           UTC and its aliases         "Z"  ("UTC", "Etc/UTC", "Z", "GMT",
//                                                       "Etc/GMT", or a zero offset)
//                           a fixed offset              the local time at that offset, and the
//                                                       offset as "+HH:MM" ("+05:30", "-0800",
//                                                       "+05" are accepted spellings)
//                           any other (a named zone,    the UTC time with "Z": quiver carries no
//                           or a malformed offset)      time zone database; the instant is exact
//   decimal128(p, s)      a string with exactly s fractional digits ("-123.450" for unscaled
//                         -123450, s = 3; "0.05" for 5, s = 2); a negative scale multiplies
//                         ("1200" for 12, s = -2)
//   list, large_list, fixed_size_list
//                         an array
//   struct                an object keyed by member names in type order
//   dictionary            the value the index selects, rendered by the value type
// Years are proleptic Gregorian with astronomical numbering (year 0 = 1 BC): four digits for
// 0000..9999, otherwise a sign and at least six digits ("-000001-12-31", "+010000-01-01"), the
// ISO 8601 expanded form that JavaScript also uses.
//
// The data must be valid (arrays built by quiver are; arrays read from files have passed
// Validate(full=true)): the renderers read buffers without bounds checks.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "common/status.h"

namespace quiver::arrow {

// Appends one line per row of `batch` to `*out`. InvalidInput when the columns do not match the
// schema (count, types, lengths); nothing is appended then.
Status WriteJsonLines(const RecordBatch& batch, std::string* out);

// Row `row` of `array` as JSON text (see the rules above), e.g. `12`, `"2024-01-31"`, `null`.
// REQUIRES: a valid array and 0 <= row < length.
std::string ValueToJson(const ArrayData& array, int64_t row);
void AppendJsonValue(const ArrayData& array, int64_t row, std::string* out);

// `bytes` as a JSON string literal, quotes included.
void AppendJsonString(std::string_view bytes, std::string* out);

// ---- Scalar formatting (no JSON quoting) ----

// "YYYY-MM-DD" for days since 1970-01-01.
std::string FormatDate(int64_t days_since_epoch);
// ISO 8601 per the timestamp rule above (`timezone` as in DataType::Timestamp).
std::string FormatTimestamp(int64_t value, TimeUnit unit, std::string_view timezone);
// The decimal text of unscaled * 10^-scale, e.g. "-123.450" from -123450 and 3.
// REQUIRES: unscaled_le16 is the 16 little-endian two's-complement bytes of a decimal128 value.
std::string FormatDecimal128(std::string_view unscaled_le16, int32_t scale);
// Shortest round-trip digits in ECMAScript layout; NaN/inf as "NaN", "Infinity", "-Infinity".
std::string FormatFloat(float v);
std::string FormatDouble(double v);

}  // namespace quiver::arrow
