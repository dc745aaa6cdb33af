#include "format/schema.h"

#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/numbers.h"
#include "format/lance_proto.h"

namespace quiver::format {
namespace {

std::vector<std::string> SplitColon(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return parts;
}

// 0 unless `s` is an integer within +-2^31: the digits come from a manifest (any writer's bytes)
// and a caller multiplies them (a decimal's length is precision * 1000 + scale).
int64_t ToInt(const std::string& s) {
  constexpr int64_t kBound = int64_t{1} << 31;
  auto v = ParseInt64(s, -kBound, kBound);
  return v.ok() ? *v : 0;
}

// Maps a scalar Lance logical type to a JsonArrowDataType name (+ length); empty if unknown.
nlohmann::json ScalarTypeJson(const std::string& logical) {
  static const std::unordered_map<std::string, std::string> kSimple = {
      {"null", "null"},
      {"bool", "bool"},
      {"int8", "int8"},
      {"uint8", "uint8"},
      {"int16", "int16"},
      {"uint16", "uint16"},
      {"int32", "int32"},
      {"uint32", "uint32"},
      {"int64", "int64"},
      {"uint64", "uint64"},
      {"halffloat", "float16"},
      {"float", "float32"},
      {"double", "float64"},
      {"string", "utf8"},
      {"large_string", "large_utf8"},
      {"binary", "binary"},
      {"large_binary", "large_binary"},
      {"json", "large_binary"},
      {"date32:day", "date32"},
      {"date64:ms", "date64"},
      {"lance.bfloat16", "float16"},
  };
  auto it = kSimple.find(logical);
  if (it != kSimple.end()) return nlohmann::json{{"type", it->second}};
  std::vector<std::string> parts = SplitColon(logical);
  const std::string& head = parts[0];
  if (head == "timestamp" || head == "duration" || head == "time32" || head == "time64") {
    return nlohmann::json{{"type", head}};
  }
  if (head == "decimal" && parts.size() == 4) {
    return nlohmann::json{{"type", "decimal" + parts[1]},
                          {"length", ToInt(parts[2]) * 1000 + ToInt(parts[3])}};
  }
  if (head == "fixed_size_binary" && parts.size() == 2) {
    return nlohmann::json{{"type", "fixed_size_binary"}, {"length", ToInt(parts[1])}};
  }
  if (head == "dict" && parts.size() >= 2) return ScalarTypeJson(parts[1]);  // unwrapped to values
  return nlohmann::json{{"type", logical}};
}

}  // namespace

namespace {

// Builds the field tree from Lance's flattened pre-order field list (manifest or data file).
template <typename Fields, typename MetadataMap>
Result<Schema> SchemaFromFlatFields(const Fields& flat, const MetadataMap& metadata,
                                    const std::string& what) {
  Schema schema;
  for (const auto& [k, v] : metadata) schema.metadata[k] = v;
  // Fields arrive flattened in pre-order; attach each to its parent by id. Pointers into the
  // tree stay valid because a parent's children vector only grows while none of its
  // descendants are referenced (pre-order).
  std::unordered_map<int32_t, std::vector<int32_t>> path_of;  // id -> indices from the top
  std::unordered_set<int32_t> seen;
  std::vector<int32_t> last_struct;  // path of the last numbered field, when it is a struct
  for (const lance::file::Field& f : flat) {
    // Members of a blob v2 descriptor (Lance 12 data files: kind, position, size, blob_id,
    // blob_uri, right after the blob column's struct) carry id -1 and parent -1: they are not
    // table fields; they belong to the struct before them, and nothing nests under them.
    const bool unnumbered = f.id() == -1;
    if (unnumbered) {
      if (last_struct.empty()) {
        return Status::Corruption(fmt::format(
            "{}: field '{}' has no id and follows no struct it could belong to", what, f.name()));
      }
      SchemaField member;
      member.id = -1;
      member.parent_id = -1;
      member.name = f.name();
      member.logical_type = f.logical_type();
      member.nullable = f.nullable();
      for (const auto& [k, v] : f.metadata()) member.metadata[k] = v;
      SchemaField* owner = &schema.fields[static_cast<size_t>(last_struct[0])];
      for (size_t i = 1; i < last_struct.size(); ++i) {
        owner = &owner->children[static_cast<size_t>(last_struct[i])];
      }
      member.parent_id = owner->id;
      owner->children.push_back(std::move(member));
      continue;
    }
    if (!seen.insert(f.id()).second) {
      return Status::Corruption(
          fmt::format("{}: field id {} appears twice (parent {})", what, f.id(), f.parent_id()));
    }
    SchemaField field;
    field.id = f.id();
    field.parent_id = f.parent_id();
    field.name = f.name();
    field.logical_type = f.logical_type();
    field.nullable = f.nullable();
    for (const auto& [k, v] : f.metadata()) field.metadata[k] = v;
    schema.max_field_id = std::max(schema.max_field_id, f.id());
    ++schema.num_fields_total;
    const bool is_struct = field.logical_type == "struct";
    if (f.parent_id() < 0) {
      path_of[f.id()] = {static_cast<int32_t>(schema.fields.size())};
      last_struct = is_struct ? path_of[f.id()] : std::vector<int32_t>();
      schema.fields.push_back(std::move(field));
      continue;
    }
    auto parent = path_of.find(f.parent_id());
    if (parent == path_of.end()) {
      return Status::Corruption(
          fmt::format("{}: field '{}' (id {}) names parent {} which does not precede it", what,
                      f.name(), f.id(), f.parent_id()));
    }
    SchemaField* node = &schema.fields[static_cast<size_t>(parent->second[0])];
    for (size_t i = 1; i < parent->second.size(); ++i) {
      node = &node->children[static_cast<size_t>(parent->second[i])];
    }
    if (parent->second.size() >= 64) {
      return Status::Corruption(fmt::format("{}: fields nest deeper than 64 levels", what));
    }
    std::vector<int32_t> path = parent->second;
    path.push_back(static_cast<int32_t>(node->children.size()));
    last_struct = is_struct ? path : std::vector<int32_t>();
    path_of[f.id()] = std::move(path);
    node->children.push_back(std::move(field));
  }
  return schema;
}

}  // namespace

Result<Schema> SchemaFromManifest(const lance::table::Manifest& manifest, const std::string& what) {
  return SchemaFromFlatFields(manifest.fields(), manifest.schema_metadata(), what);
}

Result<Schema> SchemaFromFileDescriptor(const lance::file::FileDescriptor& descriptor,
                                        const std::string& what) {
  return SchemaFromFlatFields(descriptor.schema().fields(), descriptor.schema().metadata(), what);
}

nlohmann::json ToJsonArrowType(const SchemaField& field) {
  const std::string& logical = field.logical_type;
  auto child_fields = [&field] {
    nlohmann::json children = nlohmann::json::array();
    for (const SchemaField& c : field.children) {
      nlohmann::json cf = {
          {"name", c.name}, {"type", ToJsonArrowType(c)}, {"nullable", c.nullable}};
      if (!c.metadata.empty()) cf["metadata"] = c.metadata;
      children.push_back(std::move(cf));
    }
    return children;
  };
  if (logical == "struct") return nlohmann::json{{"type", "struct"}, {"fields", child_fields()}};
  if (logical == "list" || logical == "list.struct") {
    return nlohmann::json{{"type", "list"}, {"fields", child_fields()}};
  }
  if (logical == "large_list" || logical == "large_list.struct") {
    return nlohmann::json{{"type", "large_list"}, {"fields", child_fields()}};
  }
  if (logical.rfind("fixed_size_list:", 0) == 0) {
    // fixed_size_list:<inner>:<n>; the inner type may itself contain ':' (e.g. timestamps).
    size_t last = logical.rfind(':');
    std::string inner = logical.substr(16, last - 16);
    nlohmann::json item = {{"name", "item"}, {"type", ScalarTypeJson(inner)}, {"nullable", true}};
    return nlohmann::json{{"type", "fixed_size_list"},
                          {"fields", nlohmann::json::array({item})},
                          {"length", ToInt(logical.substr(last + 1))}};
  }
  return ScalarTypeJson(logical);
}

nlohmann::json ToJsonArrowSchema(const Schema& schema) {
  nlohmann::json fields = nlohmann::json::array();
  for (const SchemaField& f : schema.fields) {
    nlohmann::json jf = {{"name", f.name}, {"type", ToJsonArrowType(f)}, {"nullable", f.nullable}};
    if (!f.metadata.empty()) jf["metadata"] = f.metadata;
    fields.push_back(std::move(jf));
  }
  return nlohmann::json{{"fields", std::move(fields)}, {"metadata", schema.metadata}};
}

namespace {

nlohmann::json LanceJsonField(const std::string& name, nlohmann::json type, bool nullable,
                              const std::map<std::string, std::string>& metadata) {
  nlohmann::json out = {{"name", name}, {"type", std::move(type)}, {"nullable", nullable}};
  if (!metadata.empty()) out["metadata"] = metadata;
  return out;
}

// A scalar Lance logical type as a Lance JSON data type.
nlohmann::json LanceScalarJson(const std::string& logical) {
  constexpr std::string_view kFixedBinary = "fixed_size_binary:";
  if (logical.rfind(kFixedBinary, 0) == 0) {
    return nlohmann::json{{"type", "fixed_size_binary"},
                          {"length", ToInt(logical.substr(kFixedBinary.size()))}};
  }
  // Lance's JSON extension is stored as large binary (its logical name is not a type name).
  if (logical == "json") return nlohmann::json{{"type", "large_binary"}};
  return nlohmann::json{{"type", logical}};
}

}  // namespace

nlohmann::json ToLanceJsonType(const SchemaField& field) {
  const std::string& logical = field.logical_type;
  auto children = [&field] {
    nlohmann::json out = nlohmann::json::array();
    for (const SchemaField& c : field.children) {
      out.push_back(LanceJsonField(c.name, ToLanceJsonType(c), c.nullable, c.metadata));
    }
    return out;
  };
  if (logical == "struct") return nlohmann::json{{"type", "struct"}, {"fields", children()}};
  if (logical == "list" || logical == "list.struct") {
    return nlohmann::json{{"type", "list"}, {"fields", children()}};
  }
  if (logical == "large_list" || logical == "large_list.struct") {
    return nlohmann::json{{"type", "large_list"}, {"fields", children()}};
  }
  if (logical.rfind("fixed_size_list:", 0) == 0) {
    size_t last = logical.rfind(':');
    std::string inner = logical.substr(16, last - 16);
    nlohmann::json item = LanceJsonField("item", LanceScalarJson(inner), true, {});
    return nlohmann::json{{"type", "fixed_size_list"},
                          {"fields", nlohmann::json::array({item})},
                          {"length", ToInt(logical.substr(last + 1))}};
  }
  return LanceScalarJson(logical);
}

nlohmann::json ToLanceJsonSchema(const Schema& schema) {
  nlohmann::json fields = nlohmann::json::array();
  for (const SchemaField& f : schema.fields) {
    fields.push_back(LanceJsonField(f.name, ToLanceJsonType(f), f.nullable, f.metadata));
  }
  nlohmann::json out = {{"fields", std::move(fields)}};
  if (!schema.metadata.empty()) out["metadata"] = schema.metadata;
  return out;
}

Result<std::string> LogicalTypeFromJson(const nlohmann::json& type) {
  const nlohmann::json* name = &type;
  if (type.is_object()) {
    auto it = type.find("type");
    if (it == type.end()) return Status::InvalidInput("a data type needs a 'type'");
    if (type.contains("fields")) {
      return Status::InvalidInput("only scalar data types can be given here, not nested ones");
    }
    name = &*it;
  }
  if (!name->is_string()) return Status::InvalidInput("a data type is a type name");
  const std::string n = name->get<std::string>();
  static const std::unordered_map<std::string, std::string> kSpecNames = {
      {"float16", "halffloat"},       {"float32", "float"},
      {"float64", "double"},          {"utf8", "string"},
      {"large_utf8", "large_string"}, {"date32", "date32:day"},
      {"date64", "date64:ms"},        {"boolean", "bool"},
  };
  if (auto it = kSpecNames.find(n); it != kSpecNames.end()) return it->second;
  static const std::set<std::string> kLance = {
      "bool",   "int8",         "uint8",  "int16",        "uint16",     "int32",
      "uint32", "int64",        "uint64", "halffloat",    "float",      "double",
      "string", "large_string", "binary", "large_binary", "date32:day", "date64:ms"};
  if (kLance.count(n) != 0 || n.rfind("timestamp:", 0) == 0) return n;
  return Status::InvalidInput(fmt::format("'{}' is not a scalar data type", n));
}

}  // namespace quiver::format
