// Conversion between the Arrow IPC Schema flatbuffer (Schema.fbs) and arrow::Schema, internal
// to src/arrow/.
//
// Covers every type in arrow/type.h, field and schema custom_metadata, nullability and
// dictionary encodings (id, indexType, isOrdered). Types quiver's model lacks (views, unions,
// map, intervals, time32/64, duration, decimal256, run-end encoded) are Unsupported, naming the
// type. Malformed schemas (missing type tables, bad widths, wrong child counts, nesting deeper
// than kMaxNesting, more than kMaxFields fields) are Corruption.
//
// The generated flatbuffer headers stay private to .cc files: this header only forward-declares
// the generated types, and offsets cross it as raw uoffset values.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arrow/ipc/internal/dictionaries.h"
#include "arrow/type.h"
#include "common/result.h"

namespace org::apache::arrow::flatbuf {
struct Schema;
struct Field;
struct Int;
}  // namespace org::apache::arrow::flatbuf

namespace flatbuffers {
class FlatBufferBuilder;
}

namespace quiver::arrow::ipc::internal {

inline constexpr int kMaxNesting = 64;
inline constexpr int64_t kMaxFields = 1'000'000;

struct SchemaAndIds {
  std::shared_ptr<const Schema> schema;
  SchemaDictionaryIds ids;
};

// REQUIRES: `schema` comes from a verified flatbuffer.
Result<SchemaAndIds> SchemaFromFlatbuffer(const org::apache::arrow::flatbuf::Schema& schema);

// Builds the Schema table (little-endian) and returns its offset in `fbb`. InvalidInput for a
// schema IPC cannot express (deeper than kMaxNesting, a dictionary whose values are a dictionary).
Result<uint32_t> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb, const Schema& schema,
                                    const SchemaDictionaryIds& ids);

// The name of a field's own type (not its dictionary encoding) in the vocabulary of
// arrow/ipc_message.h ("int32", "timestamp[ms, tz=UTC]", "time32[s]", "list", ...), for
// IpcSchemaSummary and for messages about unsupported types. Corruption for malformed types,
// Unsupported for type ids newer than the reader.
Result<std::string> FlatbufferTypeName(const org::apache::arrow::flatbuf::Field& field);
// "int8" ... "uint64"; Corruption for other bit widths.
Result<std::string> FlatbufferIntName(const org::apache::arrow::flatbuf::Int& type);

}  // namespace quiver::arrow::ipc::internal
