#include "arrow/type.h"

#include <cassert>

namespace quiver::arrow {

int64_t TimeUnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1;
    case TimeUnit::kMilli:
      return 1000;
    case TimeUnit::kMicro:
      return 1000000;
    case TimeUnit::kNano:
      return 1000000000;
  }
  return 1;
}

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

DataType::DataType() = default;
DataType::DataType(TypeId id) : id_(id) {}
DataType::DataType(const DataType& other) = default;
DataType::DataType(DataType&& other) noexcept = default;
DataType& DataType::operator=(const DataType& other) = default;
DataType& DataType::operator=(DataType&& other) noexcept = default;
DataType::~DataType() = default;

DataType DataType::FixedSizeBinary(int32_t byte_width) {
  assert(byte_width >= 0);
  DataType t(TypeId::kFixedSizeBinary);
  t.width_ = byte_width;
  return t;
}

DataType DataType::Timestamp(TimeUnit unit, std::string timezone) {
  DataType t(TypeId::kTimestamp);
  t.unit_ = unit;
  t.timezone_ = std::move(timezone);
  return t;
}

DataType DataType::Decimal128(int32_t precision, int32_t scale) {
  DataType t(TypeId::kDecimal128);
  t.precision_ = precision;
  t.scale_ = scale;
  return t;
}

DataType DataType::List(Field item) {
  DataType t(TypeId::kList);
  t.children_.push_back(std::move(item));
  return t;
}

DataType DataType::LargeList(Field item) {
  DataType t(TypeId::kLargeList);
  t.children_.push_back(std::move(item));
  return t;
}

DataType DataType::FixedSizeList(Field item, int32_t list_size) {
  assert(list_size >= 0);
  DataType t(TypeId::kFixedSizeList);
  t.width_ = list_size;
  t.children_.push_back(std::move(item));
  return t;
}

DataType DataType::Struct(std::vector<Field> members) {
  DataType t(TypeId::kStruct);
  t.children_ = std::move(members);
  return t;
}

DataType DataType::Map(Field entries, bool keys_sorted) {
  assert(entries.type.id() == TypeId::kStruct && entries.type.children().size() == 2);
  DataType t(TypeId::kMap);
  t.ordered_ = keys_sorted;
  t.children_.push_back(std::move(entries));
  return t;
}

DataType DataType::Dictionary(TypeId index, DataType value, bool ordered) {
  assert(IsInteger(index));
  DataType t(TypeId::kDictionary);
  t.index_ = index;
  t.ordered_ = ordered;
  t.children_.push_back(Field("", std::move(value)));
  return t;
}

const Field& DataType::item() const {
  assert(IsListLike(id_) && children_.size() == 1);
  return children_[0];
}

const DataType& DataType::dictionary_value() const {
  assert(id_ == TypeId::kDictionary && children_.size() == 1);
  return children_[0].type;
}

bool DataType::operator==(const DataType& other) const {
  if (id_ != other.id_) return false;
  switch (id_) {
    case TypeId::kFixedSizeBinary:
      return width_ == other.width_;
    case TypeId::kTimestamp:
      return unit_ == other.unit_ && timezone_ == other.timezone_;
    case TypeId::kDecimal128:
      return precision_ == other.precision_ && scale_ == other.scale_;
    case TypeId::kFixedSizeList:
      return width_ == other.width_ && children_ == other.children_;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kStruct:
      return children_ == other.children_;
    case TypeId::kMap:
      return ordered_ == other.ordered_ && children_ == other.children_;
    case TypeId::kDictionary:
      return index_ == other.index_ && ordered_ == other.ordered_ &&
             dictionary_value() == other.dictionary_value();
    default:
      return true;
  }
}

namespace {

std::string_view SimpleName(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat16:
      return "float16";
    case TypeId::kFloat32:
      return "float32";
    case TypeId::kFloat64:
      return "float64";
    case TypeId::kUtf8:
      return "utf8";
    case TypeId::kLargeUtf8:
      return "large_utf8";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kLargeBinary:
      return "large_binary";
    case TypeId::kDate32:
      return "date32";
    case TypeId::kDate64:
      return "date64";
    default:
      return "";
  }
}

}  // namespace

std::string DataType::ToString() const {
  std::string_view simple = SimpleName(id_);
  if (!simple.empty()) return std::string(simple);
  switch (id_) {
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary[" + std::to_string(width_) + "]";
    case TypeId::kTimestamp: {
      std::string s = "timestamp[" + std::string(TimeUnitName(unit_));
      if (!timezone_.empty()) s += ", tz=" + timezone_;
      return s + "]";
    }
    case TypeId::kDecimal128:
      return "decimal128(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
    case TypeId::kList:
      return "list<" + children_[0].ToString() + ">";
    case TypeId::kLargeList:
      return "large_list<" + children_[0].ToString() + ">";
    case TypeId::kFixedSizeList:
      return "fixed_size_list<" + children_[0].ToString() + ">[" + std::to_string(width_) + "]";
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) s += ", ";
        s += children_[i].ToString();
      }
      return s + ">";
    }
    case TypeId::kDictionary:
      return "dictionary<values=" + dictionary_value().ToString() +
             ", indices=" + std::string(SimpleName(index_)) + (ordered_ ? ", ordered" : "") + ">";
    case TypeId::kMap: {
      const std::vector<Field>& kv = children_[0].type.children();
      return "map<" + kv[0].type.ToString() + ", " + kv[1].type.ToString() +
             (kv[1].nullable ? "" : " not null") + (ordered_ ? ", keys_sorted" : "") + ">";
    }
    default:
      return "?";
  }
}

std::string Field::ToString() const {
  return name + ": " + type.ToString() + (nullable ? "" : " not null");
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string s;
  for (const Field& f : fields) {
    if (!s.empty()) s += "\n";
    s += f.ToString();
  }
  return s;
}

DataType SimpleType(TypeId id) {
  switch (id) {
    case TypeId::kBool:
      return DataType::Bool();
    case TypeId::kInt8:
      return DataType::Int8();
    case TypeId::kInt16:
      return DataType::Int16();
    case TypeId::kInt32:
      return DataType::Int32();
    case TypeId::kInt64:
      return DataType::Int64();
    case TypeId::kUInt8:
      return DataType::UInt8();
    case TypeId::kUInt16:
      return DataType::UInt16();
    case TypeId::kUInt32:
      return DataType::UInt32();
    case TypeId::kUInt64:
      return DataType::UInt64();
    case TypeId::kFloat16:
      return DataType::Float16();
    case TypeId::kFloat32:
      return DataType::Float32();
    case TypeId::kFloat64:
      return DataType::Float64();
    case TypeId::kUtf8:
      return DataType::Utf8();
    case TypeId::kLargeUtf8:
      return DataType::LargeUtf8();
    case TypeId::kBinary:
      return DataType::Binary();
    case TypeId::kLargeBinary:
      return DataType::LargeBinary();
    case TypeId::kDate32:
      return DataType::Date32();
    case TypeId::kDate64:
      return DataType::Date64();
    default:
      assert(id == TypeId::kNull);
      return DataType::Null();
  }
}

int IntegerByteWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 4;
    default:
      return 8;
  }
}

bool IsInteger(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }

bool IsSignedInteger(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kInt64; }

bool IsFloating(TypeId id) { return id >= TypeId::kFloat16 && id <= TypeId::kFloat64; }

bool IsBinaryLike(TypeId id) { return id >= TypeId::kUtf8 && id <= TypeId::kLargeBinary; }

bool IsLargeOffsets(TypeId id) {
  return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary || id == TypeId::kLargeList;
}

bool IsListLike(TypeId id) { return IsOffsetList(id) || id == TypeId::kFixedSizeList; }

bool IsOffsetList(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap;
}

bool ContainsType(const DataType& type, TypeId id) {
  if (type.id() == id) return true;
  for (const Field& child : type.children()) {
    if (ContainsType(child.type, id)) return true;
  }
  return false;
}

bool IsFixedWidth(const DataType& type) {
  return BitWidth(type) > 0 || type.id() == TypeId::kFixedSizeBinary;  // [0] is fixed-width too
}

int64_t BitWidth(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool:
      return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16:
      return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      return 64;
    case TypeId::kDecimal128:
      return 128;
    case TypeId::kFixedSizeBinary:
      return int64_t{8} * type.byte_width();
    default:
      return 0;
  }
}

int NumBuffers(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return 0;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      return 1;
    default:
      return 2;  // fixed-width (validity, values), list (validity, offsets), dictionary
  }
}

}  // namespace quiver::arrow
