// Bounded JSON parsing: the one way quiver turns JSON text into a value.
//
// Every JSON text quiver reads comes from someone it does not fully trust: request bodies, page
// tokens and JWTs from clients, catalog records and Lance refs from a storage root that any
// writer with access can plant, JWKS documents and config files from the operator. nlohmann's
// parser itself is iterative, but much of what is done with the value afterwards is not (dump(),
// copies, comparisons, every hand-written walk), so a 100,000-level nested value would overflow
// the stack far from where it came in. ParseJson refuses such a value while parsing, without
// recursing itself (nlohmann's SAX interface, with our own DOM builder), and stops reading at the
// first level too deep, so the cost of a hostile text is linear in the prefix it reads.
//
// It also refuses an object that repeats a key (at any depth): nlohmann would silently keep the
// last value, so `{"auth": true, "auth": false}` means different things to different readers, and
// a request body with two `id` fields is ambiguous. No JSON writer quiver talks to (nlohmann,
// serde, JavaScript's JSON.stringify) produces one.
//
// Errors are InvalidInput with a message saying what is wrong and where; callers reading from
// storage turn them into Corruption with the object's name.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace quiver {

// Deep enough for every body, record and token quiver defines (the deepest, a tuple or a
// multi-table request, is under 10), and shallow enough that any recursive walk over a value is
// a few kilobytes of stack.
inline constexpr size_t kDefaultMaxJsonDepth = 64;

// A bound on what one text may cost to parse: the parsed value takes 20-30x its text in memory
// for small values (`[{},{},...]`), so a body's byte limit alone does not bound it. A million
// values is far more than any body, record or token quiver defines, and some tens of megabytes.
inline constexpr size_t kDefaultMaxJsonValues = 1'000'000;

struct JsonLimits {
  // Most containers (objects and arrays) open at once: `1` and `{}` are depth 0 and 1.
  size_t max_depth = kDefaultMaxJsonDepth;
  // Most values in all (every scalar, object and array counts one).
  size_t max_values = kDefaultMaxJsonValues;
  bool reject_duplicate_keys = true;
};

// One JSON value (any type: callers check for the object they expect), with nothing after it but
// whitespace. InvalidInput: "not valid JSON: <where and why>", "JSON nested deeper than N levels",
// "JSON text holds more than N values" or "duplicate key 'k' in a JSON object".
Result<nlohmann::json> ParseJson(std::string_view text, const JsonLimits& limits = {});
// The same, keeping each object's keys in the order of the text (for records rewritten with the
// same layout, such as Lance's refs).
Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text,
                                                const JsonLimits& limits = {});

// A JSON integer as an int64: nullopt for anything else, including an integer outside int64
// (nlohmann's get<int64_t>() wraps an unsigned value above INT64_MAX to a negative one, and
// truncates a float).
std::optional<int64_t> JsonToInt64(const nlohmann::json& value);

}  // namespace quiver
