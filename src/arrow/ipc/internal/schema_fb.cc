// Schema flatbuffer <-> arrow::Schema (see schema_fb.h).
#include "arrow/ipc/internal/schema_fb.h"

#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "arrow/internal/fbs/Schema_generated.h"

namespace quiver::arrow::ipc::internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

std::string_view FbTimeUnitName(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit_SECOND:
      return "s";
    case fb::TimeUnit_MILLISECOND:
      return "ms";
    case fb::TimeUnit_MICROSECOND:
      return "us";
    case fb::TimeUnit_NANOSECOND:
      return "ns";
  }
  return {};
}

Status MissingTable(std::string_view what) {
  return Status::Corruption(fmt::format("arrow Field of type {} has no type table", what));
}

// ---- reading ----

std::string Str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

Metadata ConvertMetadata(const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* kvs) {
  Metadata out;
  if (kvs == nullptr) return out;
  out.reserve(kvs->size());
  for (const fb::KeyValue* kv : *kvs) {
    if (kv == nullptr) continue;
    out.emplace_back(Str(kv->key()), Str(kv->value()));
  }
  return out;
}

Result<TypeId> IntTypeId(const fb::Int& t) {
  switch (t.bitWidth()) {
    case 8:
      return t.is_signed() ? TypeId::kInt8 : TypeId::kUInt8;
    case 16:
      return t.is_signed() ? TypeId::kInt16 : TypeId::kUInt16;
    case 32:
      return t.is_signed() ? TypeId::kInt32 : TypeId::kUInt32;
    case 64:
      return t.is_signed() ? TypeId::kInt64 : TypeId::kUInt64;
    default:
      return Status::Corruption(fmt::format("arrow Int type with bitWidth {}", t.bitWidth()));
  }
}

Result<TimeUnit> ConvertUnit(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit_SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit_MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit_MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit_NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Corruption(fmt::format("arrow time unit {}", static_cast<int>(unit)));
}

class SchemaReader {
 public:
  Result<Field> ConvertField(const fb::Field& f, int depth, FieldDictionaryIds* ids) {
    if (depth > kMaxNesting) {
      return Status::Corruption(
          fmt::format("arrow schema nests fields deeper than {} levels", kMaxNesting));
    }
    if (++count_ > kMaxFields) {
      return Status::Corruption(fmt::format("arrow schema has more than {} fields", kMaxFields));
    }
    Field out;
    out.name = Str(f.name());
    out.nullable = f.nullable();
    out.metadata = ConvertMetadata(f.custom_metadata());

    std::vector<Field> children;
    if (f.children() != nullptr) {
      children.reserve(f.children()->size());
      ids->children.reserve(f.children()->size());
      for (const fb::Field* child : *f.children()) {
        if (child == nullptr) return Status::Corruption("arrow Field with a null child");
        ids->children.emplace_back();
        QV_ASSIGN_OR_RETURN(Field c, ConvertField(*child, depth + 1, &ids->children.back()));
        children.push_back(std::move(c));
      }
    }
    QV_ASSIGN_OR_RETURN(out.type, ConvertType(f, std::move(children)));

    if (const fb::DictionaryEncoding* dict = f.dictionary(); dict != nullptr) {
      TypeId index = TypeId::kInt32;  // the spec's default when indexType is absent
      if (dict->indexType() != nullptr) {
        QV_ASSIGN_OR_RETURN(index, IntTypeId(*dict->indexType()));
      }
      if (dict->dictionaryKind() != fb::DictionaryKind_DenseArray) {
        return Status::Unsupported(fmt::format("arrow field '{}' has dictionary kind {}", out.name,
                                               static_cast<int>(dict->dictionaryKind())));
      }
      if (dict->id() < 0) {
        return Status::Corruption(
            fmt::format("arrow field '{}' has dictionary id {}", out.name, dict->id()));
      }
      ids->id = dict->id();
      out.type = DataType::Dictionary(index, std::move(out.type), dict->isOrdered());
    }
    return out;
  }

 private:
  // The field's own type; `children` are its converted child fields.
  Result<DataType> ConvertType(const fb::Field& f, std::vector<Field> children) {
    const fb::Type tt = f.type_type();
    const std::string name = Str(f.name());
    auto want_children = [&](size_t n) -> Status {
      if (children.size() == n) return Status::OK();
      return Status::Corruption(fmt::format("arrow field '{}' of type {} has {} children, not {}",
                                            name, fb::EnumNameType(tt), children.size(), n));
    };
    switch (tt) {
      case fb::Type_Null:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::Null();
      case fb::Type_Bool:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::Bool();
      case fb::Type_Int: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::Int* t = f.type_as_Int();
        if (t == nullptr) return MissingTable("Int");
        QV_ASSIGN_OR_RETURN(TypeId id, IntTypeId(*t));
        return SimpleType(id);
      }
      case fb::Type_FloatingPoint: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::FloatingPoint* t = f.type_as_FloatingPoint();
        if (t == nullptr) return MissingTable("FloatingPoint");
        switch (t->precision()) {
          case fb::Precision_HALF:
            return DataType::Float16();
          case fb::Precision_SINGLE:
            return DataType::Float32();
          case fb::Precision_DOUBLE:
            return DataType::Float64();
        }
        return Status::Corruption(
            fmt::format("arrow FloatingPoint precision {}", static_cast<int>(t->precision())));
      }
      case fb::Type_Utf8:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::Utf8();
      case fb::Type_LargeUtf8:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::LargeUtf8();
      case fb::Type_Binary:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::Binary();
      case fb::Type_LargeBinary:
        QV_RETURN_IF_ERROR(want_children(0));
        return DataType::LargeBinary();
      case fb::Type_FixedSizeBinary: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::FixedSizeBinary* t = f.type_as_FixedSizeBinary();
        if (t == nullptr) return MissingTable("FixedSizeBinary");
        if (t->byteWidth() < 0) {
          return Status::Corruption(
              fmt::format("arrow FixedSizeBinary with byteWidth {}", t->byteWidth()));
        }
        return DataType::FixedSizeBinary(t->byteWidth());
      }
      case fb::Type_Date: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::Date* t = f.type_as_Date();
        if (t == nullptr) return MissingTable("Date");
        if (t->unit() == fb::DateUnit_DAY) return DataType::Date32();
        if (t->unit() == fb::DateUnit_MILLISECOND) return DataType::Date64();
        return Status::Corruption(fmt::format("arrow Date unit {}", static_cast<int>(t->unit())));
      }
      case fb::Type_Timestamp: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::Timestamp* t = f.type_as_Timestamp();
        if (t == nullptr) return MissingTable("Timestamp");
        QV_ASSIGN_OR_RETURN(TimeUnit unit, ConvertUnit(t->unit()));
        return DataType::Timestamp(unit, Str(t->timezone()));
      }
      case fb::Type_Decimal: {
        QV_RETURN_IF_ERROR(want_children(0));
        const fb::Decimal* t = f.type_as_Decimal();
        if (t == nullptr) return MissingTable("Decimal");
        if (t->bitWidth() != 128) break;  // decimal256 (or nonsense): named below
        if (t->precision() < 1 || t->precision() > 38) {
          return Status::Corruption(
              fmt::format("arrow decimal128 with precision {}", t->precision()));
        }
        return DataType::Decimal128(t->precision(), t->scale());
      }
      case fb::Type_List:
        QV_RETURN_IF_ERROR(want_children(1));
        return DataType::List(std::move(children[0]));
      case fb::Type_LargeList:
        QV_RETURN_IF_ERROR(want_children(1));
        return DataType::LargeList(std::move(children[0]));
      case fb::Type_FixedSizeList: {
        QV_RETURN_IF_ERROR(want_children(1));
        const fb::FixedSizeList* t = f.type_as_FixedSizeList();
        if (t == nullptr) return MissingTable("FixedSizeList");
        if (t->listSize() < 0) {
          return Status::Corruption(
              fmt::format("arrow FixedSizeList with listSize {}", t->listSize()));
        }
        return DataType::FixedSizeList(std::move(children[0]), t->listSize());
      }
      case fb::Type_Map: {
        QV_RETURN_IF_ERROR(want_children(1));
        const fb::Map* t = f.type_as_Map();
        if (t == nullptr) return MissingTable("Map");
        const Field& entries = children[0];
        if (entries.type.id() != TypeId::kStruct || entries.type.children().size() != 2 ||
            entries.nullable || entries.type.children()[0].nullable) {
          return Status::Corruption(fmt::format(
              "arrow map field '{}' needs a non-nullable struct of a non-nullable key and a "
              "value, not {}",
              name, entries.ToString()));
        }
        return DataType::Map(std::move(children[0]), t->keysSorted());
      }
      case fb::Type_Struct_:
        return DataType::Struct(std::move(children));
      case fb::Type_NONE:
        return Status::Corruption(fmt::format("arrow field '{}' has no type", name));
      default:
        break;
    }
    // A type quiver's model does not have: name it.
    QV_ASSIGN_OR_RETURN(std::string type_name, FlatbufferTypeName(f));
    return Status::Unsupported(fmt::format(
        "arrow field '{}' has type {}, which quiver does not support", name, type_name));
  }

  int64_t count_ = 0;
};

// ---- writing ----

using FieldOffset = flatbuffers::Offset<fb::Field>;

flatbuffers::Offset<fb::Int> CreateIntTable(flatbuffers::FlatBufferBuilder& fbb, TypeId id) {
  return fb::CreateInt(fbb, static_cast<int32_t>(BitWidth(SimpleType(id))), IsSignedInteger(id));
}

fb::TimeUnit FbUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit_SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit_MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit_MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit_NANOSECOND;
  }
  return fb::TimeUnit_SECOND;
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> CreateMetadata(
    flatbuffers::FlatBufferBuilder& fbb, const Metadata& metadata) {
  // Arrow's writers leave custom_metadata out when there is none.
  if (metadata.empty()) return 0;
  std::vector<flatbuffers::Offset<fb::KeyValue>> kvs;
  kvs.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    auto k = fbb.CreateString(key);
    auto v = fbb.CreateString(value);
    kvs.push_back(fb::CreateKeyValue(fbb, k, v));
  }
  return fbb.CreateVector(kvs);
}

// The type table of a non-dictionary type; the children are built by the caller.
Result<std::pair<fb::Type, flatbuffers::Offset<void>>> CreateTypeTable(
    flatbuffers::FlatBufferBuilder& fbb, const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::make_pair(fb::Type_Null, fb::CreateNull(fbb).Union());
    case TypeId::kBool:
      return std::make_pair(fb::Type_Bool, fb::CreateBool(fbb).Union());
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return std::make_pair(fb::Type_Int, CreateIntTable(fbb, type.id()).Union());
    case TypeId::kFloat16:
      return std::make_pair(fb::Type_FloatingPoint,
                            fb::CreateFloatingPoint(fbb, fb::Precision_HALF).Union());
    case TypeId::kFloat32:
      return std::make_pair(fb::Type_FloatingPoint,
                            fb::CreateFloatingPoint(fbb, fb::Precision_SINGLE).Union());
    case TypeId::kFloat64:
      return std::make_pair(fb::Type_FloatingPoint,
                            fb::CreateFloatingPoint(fbb, fb::Precision_DOUBLE).Union());
    case TypeId::kUtf8:
      return std::make_pair(fb::Type_Utf8, fb::CreateUtf8(fbb).Union());
    case TypeId::kLargeUtf8:
      return std::make_pair(fb::Type_LargeUtf8, fb::CreateLargeUtf8(fbb).Union());
    case TypeId::kBinary:
      return std::make_pair(fb::Type_Binary, fb::CreateBinary(fbb).Union());
    case TypeId::kLargeBinary:
      return std::make_pair(fb::Type_LargeBinary, fb::CreateLargeBinary(fbb).Union());
    case TypeId::kFixedSizeBinary:
      return std::make_pair(fb::Type_FixedSizeBinary,
                            fb::CreateFixedSizeBinary(fbb, type.byte_width()).Union());
    case TypeId::kDate32:
      return std::make_pair(fb::Type_Date, fb::CreateDate(fbb, fb::DateUnit_DAY).Union());
    case TypeId::kDate64:
      return std::make_pair(fb::Type_Date, fb::CreateDate(fbb, fb::DateUnit_MILLISECOND).Union());
    case TypeId::kTimestamp: {
      flatbuffers::Offset<flatbuffers::String> tz = 0;
      if (!type.timezone().empty()) tz = fbb.CreateString(type.timezone());
      return std::make_pair(fb::Type_Timestamp,
                            fb::CreateTimestamp(fbb, FbUnit(type.unit()), tz).Union());
    }
    case TypeId::kDecimal128:
      return std::make_pair(fb::Type_Decimal,
                            fb::CreateDecimal(fbb, type.precision(), type.scale(), 128).Union());
    case TypeId::kList:
      return std::make_pair(fb::Type_List, fb::CreateList(fbb).Union());
    case TypeId::kLargeList:
      return std::make_pair(fb::Type_LargeList, fb::CreateLargeList(fbb).Union());
    case TypeId::kFixedSizeList:
      return std::make_pair(fb::Type_FixedSizeList,
                            fb::CreateFixedSizeList(fbb, type.list_size()).Union());
    case TypeId::kStruct:
      return std::make_pair(fb::Type_Struct_, fb::CreateStruct_(fbb).Union());
    case TypeId::kMap:
      return std::make_pair(fb::Type_Map, fb::CreateMap(fbb, type.keys_sorted()).Union());
    case TypeId::kDictionary:
      break;
  }
  return Status::InvalidInput("arrow IPC cannot write a dictionary whose values are a dictionary");
}

Result<FieldOffset> BuildField(flatbuffers::FlatBufferBuilder& fbb, const Field& field,
                               const FieldDictionaryIds& ids, int depth) {
  if (depth > kMaxNesting) {
    return Status::InvalidInput(
        fmt::format("arrow schema nests fields deeper than {} levels", kMaxNesting));
  }
  const bool is_dict = field.type.id() == TypeId::kDictionary;
  const DataType& own = is_dict ? field.type.dictionary_value() : field.type;
  const std::vector<Field>& child_fields = own.children();
  if (is_dict != (ids.id >= 0) || ids.children.size() != child_fields.size()) {
    return Status::Internal("dictionary ids do not match the schema");
  }
  // flatbuffers builds bottom-up: children, strings and sub-tables before the Field table.
  std::vector<FieldOffset> children;
  children.reserve(child_fields.size());
  for (size_t k = 0; k < child_fields.size(); ++k) {
    QV_ASSIGN_OR_RETURN(FieldOffset c,
                        BuildField(fbb, child_fields[k], ids.children[k], depth + 1));
    children.push_back(c);
  }
  auto children_vec = fbb.CreateVector(children);
  auto name = fbb.CreateString(field.name);
  auto metadata = CreateMetadata(fbb, field.metadata);
  QV_ASSIGN_OR_RETURN(auto type_table, CreateTypeTable(fbb, own));
  flatbuffers::Offset<fb::DictionaryEncoding> dictionary = 0;
  if (is_dict) {
    auto index = CreateIntTable(fbb, field.type.index_type());
    dictionary = fb::CreateDictionaryEncoding(fbb, ids.id, index, field.type.ordered());
  }
  return fb::CreateField(fbb, name, field.nullable, type_table.first, type_table.second, dictionary,
                         children_vec, metadata);
}

}  // namespace

Result<SchemaAndIds> SchemaFromFlatbuffer(const fb::Schema& schema) {
  if (schema.endianness() != fb::Endianness_Little) {
    return Status::Unsupported("big-endian arrow IPC data");
  }
  auto out = std::make_shared<Schema>();
  SchemaAndIds result;
  SchemaReader reader;
  if (schema.fields() != nullptr) {
    out->fields.reserve(schema.fields()->size());
    result.ids.reserve(schema.fields()->size());
    for (const fb::Field* field : *schema.fields()) {
      if (field == nullptr) return Status::Corruption("arrow Schema with a null field");
      result.ids.emplace_back();
      QV_ASSIGN_OR_RETURN(Field f, reader.ConvertField(*field, 1, &result.ids.back()));
      out->fields.push_back(std::move(f));
    }
  }
  out->metadata = ConvertMetadata(schema.custom_metadata());
  result.schema = std::move(out);
  return result;
}

Result<uint32_t> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb, const Schema& schema,
                                    const SchemaDictionaryIds& ids) {
  if (ids.size() != schema.fields.size()) {
    return Status::Internal("dictionary ids do not match the schema");
  }
  std::vector<FieldOffset> fields;
  fields.reserve(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    QV_ASSIGN_OR_RETURN(FieldOffset f, BuildField(fbb, schema.fields[i], ids[i], 1));
    fields.push_back(f);
  }
  auto fields_vec = fbb.CreateVector(fields);
  auto metadata = CreateMetadata(fbb, schema.metadata);
  return fb::CreateSchema(fbb, fb::Endianness_Little, fields_vec, metadata).o;
}

Result<std::string> FlatbufferIntName(const fb::Int& t) {
  const int32_t bits = t.bitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Status::Corruption(fmt::format("arrow Int type with bitWidth {}", bits));
  }
  return fmt::format("{}int{}", t.is_signed() ? "" : "u", bits);
}

Result<std::string> FlatbufferTypeName(const fb::Field& field) {
  const fb::Type type = field.type_type();
  switch (type) {
    case fb::Type_NONE:
      return Status::Corruption("arrow Field without a type");
    case fb::Type_Null:
      return std::string("null");
    case fb::Type_Int: {
      const fb::Int* t = field.type_as_Int();
      if (t == nullptr) return MissingTable("Int");
      return FlatbufferIntName(*t);
    }
    case fb::Type_FloatingPoint: {
      const fb::FloatingPoint* t = field.type_as_FloatingPoint();
      if (t == nullptr) return MissingTable("FloatingPoint");
      switch (t->precision()) {
        case fb::Precision_HALF:
          return std::string("float16");
        case fb::Precision_SINGLE:
          return std::string("float32");
        case fb::Precision_DOUBLE:
          return std::string("float64");
      }
      return Status::Corruption(
          fmt::format("arrow FloatingPoint precision {}", static_cast<int>(t->precision())));
    }
    case fb::Type_Binary:
      return std::string("binary");
    case fb::Type_Utf8:
      return std::string("utf8");
    case fb::Type_Bool:
      return std::string("bool");
    case fb::Type_Decimal: {
      const fb::Decimal* t = field.type_as_Decimal();
      if (t == nullptr) return MissingTable("Decimal");
      return fmt::format("decimal{}({}, {})", t->bitWidth(), t->precision(), t->scale());
    }
    case fb::Type_Date: {
      const fb::Date* t = field.type_as_Date();
      if (t == nullptr) return MissingTable("Date");
      return std::string(t->unit() == fb::DateUnit_DAY ? "date32" : "date64");
    }
    case fb::Type_Time: {
      const fb::Time* t = field.type_as_Time();
      if (t == nullptr) return MissingTable("Time");
      const std::string_view unit = FbTimeUnitName(t->unit());
      if (unit.empty()) return Status::Corruption("arrow Time with an unknown unit");
      return fmt::format("time{}[{}]", t->bitWidth(), unit);
    }
    case fb::Type_Timestamp: {
      const fb::Timestamp* t = field.type_as_Timestamp();
      if (t == nullptr) return MissingTable("Timestamp");
      const std::string_view unit = FbTimeUnitName(t->unit());
      if (unit.empty()) return Status::Corruption("arrow Timestamp with an unknown unit");
      if (t->timezone() == nullptr) return fmt::format("timestamp[{}]", unit);
      return fmt::format("timestamp[{}, tz={}]", unit, t->timezone()->string_view());
    }
    case fb::Type_Interval: {
      const fb::Interval* t = field.type_as_Interval();
      if (t == nullptr) return MissingTable("Interval");
      switch (t->unit()) {
        case fb::IntervalUnit_YEAR_MONTH:
          return std::string("interval[year_month]");
        case fb::IntervalUnit_DAY_TIME:
          return std::string("interval[day_time]");
        case fb::IntervalUnit_MONTH_DAY_NANO:
          return std::string("interval[month_day_nano]");
      }
      return Status::Corruption("arrow Interval with an unknown unit");
    }
    case fb::Type_List:
      return std::string("list");
    case fb::Type_Struct_:
      return std::string("struct");
    case fb::Type_Union: {
      const fb::Union* t = field.type_as_Union();
      if (t == nullptr) return MissingTable("Union");
      return std::string(t->mode() == fb::UnionMode_Dense ? "dense_union" : "sparse_union");
    }
    case fb::Type_FixedSizeBinary: {
      const fb::FixedSizeBinary* t = field.type_as_FixedSizeBinary();
      if (t == nullptr) return MissingTable("FixedSizeBinary");
      return fmt::format("fixed_size_binary[{}]", t->byteWidth());
    }
    case fb::Type_FixedSizeList: {
      const fb::FixedSizeList* t = field.type_as_FixedSizeList();
      if (t == nullptr) return MissingTable("FixedSizeList");
      return fmt::format("fixed_size_list[{}]", t->listSize());
    }
    case fb::Type_Map: {
      const fb::Map* t = field.type_as_Map();
      if (t == nullptr) return MissingTable("Map");
      return std::string(t->keysSorted() ? "map[sorted]" : "map");
    }
    case fb::Type_Duration: {
      const fb::Duration* t = field.type_as_Duration();
      if (t == nullptr) return MissingTable("Duration");
      const std::string_view unit = FbTimeUnitName(t->unit());
      if (unit.empty()) return Status::Corruption("arrow Duration with an unknown unit");
      return fmt::format("duration[{}]", unit);
    }
    case fb::Type_LargeBinary:
      return std::string("large_binary");
    case fb::Type_LargeUtf8:
      return std::string("large_utf8");
    case fb::Type_LargeList:
      return std::string("large_list");
    case fb::Type_RunEndEncoded:
      return std::string("run_end_encoded");
    case fb::Type_BinaryView:
      return std::string("binary_view");
    case fb::Type_Utf8View:
      return std::string("utf8_view");
    case fb::Type_ListView:
      return std::string("list_view");
    case fb::Type_LargeListView:
      return std::string("large_list_view");
  }
  return Status::Unsupported(
      fmt::format("arrow type id {} is newer than this reader", static_cast<int>(type)));
}

}  // namespace quiver::arrow::ipc::internal
