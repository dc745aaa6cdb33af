#include "format/arrow_schema.h"

#include <charconv>
#include <unordered_map>

#include <fmt/format.h>

#include "format/internal/logical_types.h"

namespace quiver::format {

namespace {

using arrow::DataType;
using arrow::TimeUnit;
using arrow::TypeId;

std::vector<std::string_view> SplitColon(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts;
}

bool ParseInt(std::string_view s, int32_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

Result<TimeUnit> ParseUnit(std::string_view s) {
  if (s == "s") return TimeUnit::kSecond;
  if (s == "ms") return TimeUnit::kMilli;
  if (s == "us") return TimeUnit::kMicro;
  if (s == "ns") return TimeUnit::kNano;
  return Status::Corruption(fmt::format("unknown time unit '{}'", s));
}

const std::unordered_map<std::string_view, TypeId>& SimpleTypes() {
  static const auto* kTypes = new std::unordered_map<std::string_view, TypeId>{
      {"null", TypeId::kNull},
      {"bool", TypeId::kBool},
      {"int8", TypeId::kInt8},
      {"uint8", TypeId::kUInt8},
      {"int16", TypeId::kInt16},
      {"uint16", TypeId::kUInt16},
      {"int32", TypeId::kInt32},
      {"uint32", TypeId::kUInt32},
      {"int64", TypeId::kInt64},
      {"uint64", TypeId::kUInt64},
      {"halffloat", TypeId::kFloat16},
      {"float", TypeId::kFloat32},
      {"double", TypeId::kFloat64},
      {"string", TypeId::kUtf8},
      {"large_string", TypeId::kLargeUtf8},
      {"binary", TypeId::kBinary},
      {"large_binary", TypeId::kLargeBinary},
      {"date32:day", TypeId::kDate32},
      {"date64:ms", TypeId::kDate64},
  };
  return *kTypes;
}

// A scalar (childless) logical type. `depth` bounds the nesting of fixed-size lists and
// dictionaries inside the string (a hostile file could nest them without end).
Result<DataType> ScalarType(std::string_view logical, int depth = 0) {
  if (depth > 4 || logical.size() > 1024) {
    return Status::Corruption(
        fmt::format("logical type '{}' is nested too deeply or too long", logical.substr(0, 64)));
  }
  auto it = SimpleTypes().find(logical);
  if (it != SimpleTypes().end()) return arrow::SimpleType(it->second);
  std::vector<std::string_view> parts = SplitColon(logical);
  std::string_view head = parts[0];
  if (head == "timestamp" && parts.size() >= 3) {
    QV_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(parts[1]));
    // The time zone may itself contain ':' ("+05:30"); '-' means none.
    size_t tz_start = logical.find(':', logical.find(':') + 1) + 1;
    std::string tz(logical.substr(tz_start));
    if (tz == "-") tz.clear();
    return DataType::Timestamp(unit, std::move(tz));
  }
  if (head == "decimal" && parts.size() == 4 && parts[1] == "128") {
    int32_t precision = 0, scale = 0;
    if (ParseInt(parts[2], &precision) && ParseInt(parts[3], &scale) && precision >= 1 &&
        precision <= 38) {
      return DataType::Decimal128(precision, scale);
    }
  }
  if (head == "fixed_size_binary" && parts.size() == 2) {
    int32_t width = 0;
    if (ParseInt(parts[1], &width) && width >= 0 && width <= (1 << 20)) {
      return DataType::FixedSizeBinary(width);
    }
  }
  if (head == "fixed_size_list" && parts.size() >= 3) {
    size_t last = logical.rfind(':');
    int32_t size = 0;
    if (!ParseInt(logical.substr(last + 1), &size) || size <= 0 || size > (1 << 20)) {
      return Status::Corruption(fmt::format("bad fixed_size_list size in '{}'", logical));
    }
    std::string_view inner = logical.substr(16, last - 16);
    if (inner == "lance.bfloat16") {
      return Status::Unsupported("bfloat16 vectors are not supported yet");
    }
    QV_ASSIGN_OR_RETURN(DataType item, ScalarType(inner, depth + 1));
    return DataType::FixedSizeList(arrow::Field("item", std::move(item), true), size);
  }
  if (head == "dict" && parts.size() >= 4) {
    // dict:<value>:<key>:<ordered>; the value type may contain ':'.
    size_t last = logical.rfind(':');
    size_t key_start = logical.rfind(':', last - 1);
    std::string_view value = logical.substr(5, key_start - 5);
    std::string_view key = logical.substr(key_start + 1, last - key_start - 1);
    auto key_it = SimpleTypes().find(key);
    if (key_it == SimpleTypes().end() || !arrow::IsInteger(key_it->second)) {
      return Status::Corruption(fmt::format("bad dictionary key type in '{}'", logical));
    }
    QV_ASSIGN_OR_RETURN(DataType value_type, ScalarType(value, depth + 1));
    return DataType::Dictionary(key_it->second, std::move(value_type),
                                logical.substr(last + 1) == "true");
  }
  return Status::Unsupported(fmt::format("Lance type '{}' is not supported", logical));
}

}  // namespace

Result<DataType> ToArrowType(const SchemaField& field) {
  const std::string& logical = field.logical_type;
  if (logical == "map") {
    // Lance 12 (file format 2.2): one child, the entries struct<key, value>, as Arrow has it.
    if (field.children.size() != 1) {
      return Status::Corruption(fmt::format("map field '{}' (id {}) has {} children", field.name,
                                            field.id, field.children.size()));
    }
    QV_ASSIGN_OR_RETURN(arrow::Field entries, ToArrowField(field.children[0]));
    if (entries.type.id() != TypeId::kStruct || entries.type.children().size() != 2 ||
        entries.type.children()[0].nullable) {
      return Status::Corruption(fmt::format(
          "map field '{}' (id {}) needs entries of a non-nullable key and a value, not {}",
          field.name, field.id, entries.type.ToString()));
    }
    // Arrow's entries are never null; Lance writes the child non-nullable as well.
    entries.nullable = false;
    return DataType::Map(std::move(entries));
  }
  if (logical == "struct") {
    std::vector<arrow::Field> members;
    for (const SchemaField& child : field.children) {
      QV_ASSIGN_OR_RETURN(arrow::Field member, ToArrowField(child));
      members.push_back(std::move(member));
    }
    return DataType::Struct(std::move(members));
  }
  bool large = logical == "large_list" || logical == "large_list.struct";
  if (large || logical == "list" || logical == "list.struct") {
    if (field.children.size() != 1) {
      return Status::Corruption(fmt::format("list field '{}' (id {}) has {} children", field.name,
                                            field.id, field.children.size()));
    }
    QV_ASSIGN_OR_RETURN(arrow::Field item, ToArrowField(field.children[0]));
    return large ? DataType::LargeList(std::move(item)) : DataType::List(std::move(item));
  }
  if (!field.children.empty()) {
    return Status::Corruption(
        fmt::format("field '{}' (id {}) of type '{}' has children", field.name, field.id, logical));
  }
  Result<DataType> type = ScalarType(logical);
  if (!type.ok()) {
    return type.status().WithContext(fmt::format("field '{}' (id {})", field.name, field.id));
  }
  return type;
}

bool IsBlobV2Field(const SchemaField& field) {
  auto it = field.metadata.find("ARROW:extension:name");
  return it != field.metadata.end() && it->second == "lance.blob.v2";
}

arrow::Field BlobV2DescriptorField(std::string name, bool nullable) {
  // What Lance 12 stores for a blob v2 column and what LanceDB's queries answer: where each
  // payload is (lance-core BLOB_V2_DESC_FIELDS), not the bytes.
  return arrow::Field(std::move(name),
                      DataType::Struct({arrow::Field("kind", DataType::UInt8(), false),
                                        arrow::Field("position", DataType::UInt64(), false),
                                        arrow::Field("size", DataType::UInt64(), false),
                                        arrow::Field("blob_id", DataType::UInt32(), false),
                                        arrow::Field("blob_uri", DataType::Utf8(), false)}),
                      nullable,
                      {{"lance-encoding:blob", "true"}, {"lance-encoding:packed", "true"}});
}

Result<arrow::Field> ToArrowField(const SchemaField& field) {
  if (IsBlobV2Field(field)) return BlobV2DescriptorField(field.name, field.nullable);
  QV_ASSIGN_OR_RETURN(DataType type, ToArrowType(field));
  arrow::Metadata metadata(field.metadata.begin(), field.metadata.end());
  return arrow::Field(field.name, std::move(type), field.nullable, std::move(metadata));
}

Result<arrow::Schema> ToArrowSchema(const Schema& schema) {
  arrow::Schema out;
  for (const SchemaField& f : schema.fields) {
    QV_ASSIGN_OR_RETURN(arrow::Field field, ToArrowField(f));
    out.fields.push_back(std::move(field));
  }
  out.metadata.assign(schema.metadata.begin(), schema.metadata.end());
  return out;
}

Result<std::string> ToLogicalType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::string("null");
    case TypeId::kBool:
      return std::string("bool");
    case TypeId::kInt8:
      return std::string("int8");
    case TypeId::kUInt8:
      return std::string("uint8");
    case TypeId::kInt16:
      return std::string("int16");
    case TypeId::kUInt16:
      return std::string("uint16");
    case TypeId::kInt32:
      return std::string("int32");
    case TypeId::kUInt32:
      return std::string("uint32");
    case TypeId::kInt64:
      return std::string("int64");
    case TypeId::kUInt64:
      return std::string("uint64");
    case TypeId::kFloat16:
      return std::string("halffloat");
    case TypeId::kFloat32:
      return std::string("float");
    case TypeId::kFloat64:
      return std::string("double");
    case TypeId::kUtf8:
      return std::string("string");
    case TypeId::kLargeUtf8:
      return std::string("large_string");
    case TypeId::kBinary:
      return std::string("binary");
    case TypeId::kLargeBinary:
      return std::string("large_binary");
    case TypeId::kDate32:
      return std::string("date32:day");
    case TypeId::kDate64:
      return std::string("date64:ms");
    case TypeId::kTimestamp:
      return fmt::format("timestamp:{}:{}", arrow::TimeUnitName(type.unit()),
                         type.timezone().empty() ? "-" : type.timezone());
    case TypeId::kDecimal128:
      return fmt::format("decimal:128:{}:{}", type.precision(), type.scale());
    case TypeId::kFixedSizeBinary:
      return fmt::format("fixed_size_binary:{}", type.byte_width());
    case TypeId::kFixedSizeList: {
      const DataType& item = type.item().type;
      if (item.id() == TypeId::kStruct || arrow::IsListLike(item.id())) {
        return Status::Unsupported("fixed-size lists of nested types are not supported: " +
                                   type.ToString());
      }
      QV_ASSIGN_OR_RETURN(std::string inner, ToLogicalType(item));
      return fmt::format("fixed_size_list:{}:{}", inner, type.list_size());
    }
    case TypeId::kStruct:
      return std::string("struct");
    case TypeId::kList:
      return std::string(type.item().type.id() == TypeId::kStruct ? "list.struct" : "list");
    case TypeId::kLargeList:
      return std::string(type.item().type.id() == TypeId::kStruct ? "large_list.struct"
                                                                  : "large_list");
    case TypeId::kMap:
      if (type.keys_sorted()) {
        // Lance refuses them too: Python's Arrow would lose the flag.
        return Status::Unsupported("Lance stores maps only with keys_sorted=false: " +
                                   type.ToString());
      }
      return std::string("map");
    case TypeId::kDictionary: {
      QV_ASSIGN_OR_RETURN(std::string value, ToLogicalType(type.dictionary_value()));
      QV_ASSIGN_OR_RETURN(std::string key, ToLogicalType(arrow::SimpleType(type.index_type())));
      return fmt::format("dict:{}:{}:{}", value, key, type.ordered() ? "true" : "false");
    }
  }
  return Status::Unsupported("type " + type.ToString() + " has no Lance logical type");
}

namespace {

void AssignIds(const arrow::Field& field, int32_t parent, int32_t* next,
               std::vector<SchemaField>* out, Status* status) {
  SchemaField f;
  f.id = (*next)++;
  f.parent_id = parent;
  f.name = field.name;
  f.nullable = field.nullable;
  for (const auto& [k, v] : field.metadata) f.metadata[k] = v;
  Result<std::string> logical = ToLogicalType(field.type);
  if (!logical.ok()) {
    *status = logical.status().WithContext("column " + field.name);
    return;
  }
  f.logical_type = *logical;
  const arrow::TypeId id = field.type.id();
  if (id == arrow::TypeId::kStruct || arrow::IsOffsetList(id)) {
    for (const auto& child : field.type.children()) {
      AssignIds(child, f.id, next, &f.children, status);
    }
  }
  out->push_back(std::move(f));
}

}  // namespace

Result<Schema> FromArrowSchema(const arrow::Schema& schema) {
  Schema out;
  int32_t next = 0;
  Status status;
  for (const auto& field : schema.fields) {
    AssignIds(field, -1, &next, &out.fields, &status);
    if (!status.ok()) return status;
  }
  for (const auto& [k, v] : schema.metadata) out.metadata[k] = v;
  out.max_field_id = next - 1;
  out.num_fields_total = static_cast<size_t>(next);
  return out;
}

bool IsLeaf21(const SchemaField& field) {
  return !internal::IsStructLogicalType(field.logical_type) &&
         !internal::IsListLogicalType(field.logical_type) && field.logical_type != "map";
}

bool IsPackedStructField(const SchemaField& field) {
  if (field.logical_type != "struct") return false;
  for (const char* key : {"lance-encoding:packed", "packed"}) {
    auto it = field.metadata.find(key);
    if (it != field.metadata.end() && (it->second == "true" || it->second == "True")) return true;
  }
  return false;
}

const SchemaField* FindPackedStructField(const std::vector<SchemaField>& fields) {
  for (const SchemaField& f : fields) {
    if (IsPackedStructField(f)) return &f;
    if (const SchemaField* inner = FindPackedStructField(f.children)) return inner;
  }
  return nullptr;
}

void CollectLeaves21(const SchemaField& field, std::vector<std::vector<int>>* paths,
                     std::vector<int> prefix, bool packed_leaves) {
  if (IsLeaf21(field) || (packed_leaves && IsPackedStructField(field))) {
    paths->push_back(std::move(prefix));
    return;
  }
  for (size_t i = 0; i < field.children.size(); ++i) {
    std::vector<int> path = prefix;
    path.push_back(static_cast<int>(i));
    CollectLeaves21(field.children[i], paths, std::move(path), packed_leaves);
  }
}

}  // namespace quiver::format
