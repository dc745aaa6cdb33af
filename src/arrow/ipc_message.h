// Arrow IPC schema messages (the Arrow columnar format's encapsulated-message framing and the
// flatbuffer `Message` whose header is a `Schema`), reduced to a flatbuffers-free summary.
//
// Framing of one encapsulated message in an Arrow IPC stream or file:
//   0xFFFFFFFF (continuation marker, int32), metadata length N (little-endian int32),
//   N bytes of flatbuffer `Message` (padded so the body starts 8-aligned), then the body.
// Streams written before Arrow 0.15 omit the continuation marker; both forms are accepted.
//
// Everything that reads bytes verifies the flatbuffer first (flatbuffers::Verifier with bounded
// depth and table count) and answers Corruption for malformed input; it never crashes on it.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace quiver::arrow {

// One field of a schema: its name, nullability, a type name and its children (list element,
// struct members, map entries, union alternatives, run-end-encoded run_ends/values).
//
// Type names: "null", "bool", "int8" … "int64", "uint8" … "uint64", "float16", "float32",
// "float64", "binary", "utf8", "large_binary", "large_utf8", "binary_view", "utf8_view",
// "fixed_size_binary[W]", "decimal128(P, S)" / "decimal256(P, S)", "date32", "date64",
// "time32[s|ms]", "time64[us|ns]", "timestamp[U]" / "timestamp[U, tz=Z]", "duration[U]",
// "interval[year_month|day_time|month_day_nano]", "list", "large_list", "list_view",
// "large_list_view", "fixed_size_list[N]", "struct", "map" / "map[sorted]",
// "sparse_union" / "dense_union", "run_end_encoded"; a dictionary-encoded field is
// "dictionary<VALUE, INDEX>" (e.g. "dictionary<utf8, int32>").
struct IpcField {
  std::string name;
  bool nullable = true;
  std::string type;
  std::vector<IpcField> children;

  bool operator==(const IpcField&) const = default;
};

struct IpcSchemaSummary {
  std::vector<IpcField> fields;  // top level, in schema order
  bool big_endian = false;

  bool operator==(const IpcSchemaSummary&) const = default;
};

// Parses the flatbuffer bytes of one IPC `Message` (the metadata only: no framing, no body).
// Corruption if the bytes are not a valid Message flatbuffer; Unsupported if the message is not
// a Schema message or uses a type this reader does not know.
Result<IpcSchemaSummary> ReadIpcSchemaMessage(std::string_view message_bytes);

// The inverse, for the types a writer needs so far: "bool", "int8" … "int64", "uint8" …
// "uint64", "float32", "float64", "binary", "utf8", "large_binary", "large_utf8", and the
// nested "list" (exactly one child) and "struct". Writes MetadataVersion V5, little endian
// unless big_endian is set. InvalidInput for any other type name or a malformed list.
Result<std::string> WriteIpcSchemaMessage(const IpcSchemaSummary& schema);

// The metadata (flatbuffer) bytes of the first encapsulated message of an IPC stream, as a view
// into `stream_bytes`. Corruption if the framing is truncated or its length is negative;
// NotFound for an end-of-stream marker (length 0) at the start.
Result<std::string_view> FirstIpcMessageMetadata(std::string_view stream_bytes);

// Frames flatbuffer Message bytes as one encapsulated message with an empty body: marker,
// length, metadata, zero padding to a multiple of 8.
std::string EncapsulateIpcMessage(std::string_view message_bytes);

}  // namespace quiver::arrow
