// A dataset's schema as a typed field tree, built from the manifest's flattened Lance fields
// (pre-order, children after parents by parent_id), and its conversion to the Namespace spec's
// JsonArrowSchema.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"

namespace lance::table {
class Manifest;
}
namespace lance::file {
class FileDescriptor;
}

namespace quiver::format {

struct SchemaField {
  int32_t id = 0;
  int32_t parent_id = -1;
  std::string name;
  std::string logical_type;  // Lance's string: "int64", "fixed_size_list:float:8", "struct", ...
  bool nullable = true;
  std::map<std::string, std::string> metadata;
  std::vector<SchemaField> children;
};

struct Schema {
  std::vector<SchemaField> fields;  // top level, in manifest order
  std::map<std::string, std::string> metadata;
  size_t num_fields_total = 0;  // every field incl. nested
  int32_t max_field_id = -1;
};

// Corruption (naming `what`) if a field's parent is missing or comes after it, or ids repeat.
Result<Schema> SchemaFromManifest(const lance::table::Manifest& manifest, const std::string& what);
// The same for the schema a 2.x data file stores in its global buffer 0.
Result<Schema> SchemaFromFileDescriptor(const lance::file::FileDescriptor& descriptor,
                                        const std::string& what);

// {"fields":[{"name":..,"type":{"type":"int64"},"nullable":true,"metadata":{..}}],"metadata":{}}
// Type names follow the Rust converter (namespace-spec.md §6); a Lance logical type it cannot map
// is emitted verbatim as the type name.
nlohmann::json ToJsonArrowSchema(const Schema& schema);
nlohmann::json ToJsonArrowType(const SchemaField& field);

// The same schema in Lance's own JSON vocabulary (lance::arrow::json, what LanceDB's remote client
// parses; lancedb-remote-api.md §5.1): scalar types by their Lance logical names ("float",
// "double", "string", "timestamp:us:UTC", "date32:day", ...), nested ones as
// {"type": "list" | "large_list" | "struct" | "fixed_size_list", "fields": [...], "length"?}
// and {"type": "fixed_size_binary", "length": n}.
nlohmann::json ToLanceJsonSchema(const Schema& schema);
nlohmann::json ToLanceJsonType(const SchemaField& field);

// The Lance logical type a JSON data type names, in either vocabulary: the spec's
// JsonArrowDataType ("float64", "utf8", "date32") or Lance's ("double", "string", "date32:day",
// "timestamp:us:UTC"), as a bare string or {"type": name}. Scalar types only: InvalidInput for
// nested ones and names neither vocabulary has.
Result<std::string> LogicalTypeFromJson(const nlohmann::json& type);

}  // namespace quiver::format
