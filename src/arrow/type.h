// The Arrow logical types quiver's columnar model supports, fields and schemas.
//
// DataType is a plain value (copyable, comparable) that carries its own parameters: the unit and
// time zone of a timestamp, the precision/scale of a decimal, the width of a fixed-size binary,
// the size of a fixed-size list, the members of a struct, the item of a list, the index and value
// types of a dictionary. The set is the one Lance 8.0 stores (docs/format-plan.md §1.1); Arrow
// types outside it (views, unions, maps, intervals, ...) are answered Unsupported by the readers.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quiver::arrow {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kUtf8,
  kLargeUtf8,
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kDate32,  // days since the epoch, int32
  kDate64,  // milliseconds since the epoch, int64
  kTimestamp,
  kDecimal128,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
  kDictionary,
  kMap,  // a list (int32 offsets) of struct<key not null, value> entries
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

std::string_view TimeUnitName(TimeUnit unit);  // "s", "ms", "us", "ns"
int64_t TimeUnitsPerSecond(TimeUnit unit);     // 1, 1000, 1000000, 1000000000

// Key/value metadata of a field or schema, in the order it was written.
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct Field;

class DataType {
 public:
  DataType();  // null
  // Defined in type.cc, where Field is complete: clang (libstdc++) refuses to instantiate
  // std::vector<Field>'s members while Field is still an incomplete type.
  DataType(const DataType& other);
  DataType(DataType&& other) noexcept;
  DataType& operator=(const DataType& other);
  DataType& operator=(DataType&& other) noexcept;
  ~DataType();

  static DataType Null() { return DataType(TypeId::kNull); }
  static DataType Bool() { return DataType(TypeId::kBool); }
  static DataType Int8() { return DataType(TypeId::kInt8); }
  static DataType Int16() { return DataType(TypeId::kInt16); }
  static DataType Int32() { return DataType(TypeId::kInt32); }
  static DataType Int64() { return DataType(TypeId::kInt64); }
  static DataType UInt8() { return DataType(TypeId::kUInt8); }
  static DataType UInt16() { return DataType(TypeId::kUInt16); }
  static DataType UInt32() { return DataType(TypeId::kUInt32); }
  static DataType UInt64() { return DataType(TypeId::kUInt64); }
  static DataType Float16() { return DataType(TypeId::kFloat16); }
  static DataType Float32() { return DataType(TypeId::kFloat32); }
  static DataType Float64() { return DataType(TypeId::kFloat64); }
  static DataType Utf8() { return DataType(TypeId::kUtf8); }
  static DataType LargeUtf8() { return DataType(TypeId::kLargeUtf8); }
  static DataType Binary() { return DataType(TypeId::kBinary); }
  static DataType LargeBinary() { return DataType(TypeId::kLargeBinary); }
  static DataType Date32() { return DataType(TypeId::kDate32); }
  static DataType Date64() { return DataType(TypeId::kDate64); }
  // REQUIRES: byte_width >= 0.
  static DataType FixedSizeBinary(int32_t byte_width);
  // An empty timezone is a naive (wall-clock) timestamp.
  static DataType Timestamp(TimeUnit unit, std::string timezone = {});
  // REQUIRES: 1 <= precision <= 38.
  static DataType Decimal128(int32_t precision, int32_t scale);
  static DataType List(Field item);
  static DataType LargeList(Field item);
  // REQUIRES: list_size >= 0.
  static DataType FixedSizeList(Field item, int32_t list_size);
  static DataType Struct(std::vector<Field> members);
  // `entries` is the non-nullable struct<key, value> of one map entry (Arrow names it
  // "entries", its members "key" and "value"). REQUIRES: entries is a struct of two members.
  static DataType Map(Field entries, bool keys_sorted = false);
  // REQUIRES: index is one of the eight integer type ids.
  static DataType Dictionary(TypeId index, DataType value, bool ordered = false);

  TypeId id() const { return id_; }
  TimeUnit unit() const { return unit_; }
  const std::string& timezone() const { return timezone_; }
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  int32_t byte_width() const { return width_; }  // fixed-size binary
  int32_t list_size() const { return width_; }   // fixed-size list
  bool ordered() const { return ordered_; }      // dictionary
  bool keys_sorted() const { return ordered_; }  // map
  TypeId index_type() const { return index_; }   // dictionary

  // List, large list, fixed-size list and map: one child (the item; a map's is its entries
  // struct); struct: its members; dictionary: one child whose type is the value type (its name
  // and nullability unused).
  const std::vector<Field>& children() const { return children_; }
  const Field& item() const;                 // REQUIRES: a list type
  const DataType& dictionary_value() const;  // REQUIRES: kDictionary

  // Human-readable, e.g. "int32", "timestamp[ms, tz=UTC]", "list<item: utf8>",
  // "struct<a: int32, b: utf8 not null>", "dictionary<values=utf8, indices=int32>",
  // "map<utf8, int32>".
  std::string ToString() const;

  bool operator==(const DataType& other) const;

 private:
  explicit DataType(TypeId id);

  TypeId id_ = TypeId::kNull;
  TimeUnit unit_ = TimeUnit::kSecond;
  TypeId index_ = TypeId::kInt32;
  bool ordered_ = false;
  int32_t width_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::string timezone_;
  std::vector<Field> children_;
};

struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  Metadata metadata;

  Field() = default;
  Field(std::string field_name, DataType field_type, bool is_nullable = true,
        Metadata field_metadata = {})
      : name(std::move(field_name)),
        type(std::move(field_type)),
        nullable(is_nullable),
        metadata(std::move(field_metadata)) {}

  std::string ToString() const;  // "name: type" plus " not null" when not nullable
  bool operator==(const Field& other) const = default;
};

struct Schema {
  std::vector<Field> fields;
  Metadata metadata;

  // The index of the first top-level field named `name`, or -1.
  int FieldIndex(std::string_view name) const;
  std::string ToString() const;
  bool operator==(const Schema& other) const = default;
};

// ---- Physical layout facts (Arrow columnar format), used by arrays, IPC and Lance codecs. ----

// The type of a parameterless id (null, bool, integers, floats, utf8/binary and large variants,
// date32/64). REQUIRES: the id needs no parameters.
DataType SimpleType(TypeId id);
// Bytes of an integer id (1, 2, 4, 8), e.g. a dictionary's index width. REQUIRES: IsInteger(id).
int IntegerByteWidth(TypeId id);

bool IsInteger(TypeId id);
bool IsSignedInteger(TypeId id);
bool IsFloating(TypeId id);
// Binary, utf8 and their large variants (validity, offsets, data).
bool IsBinaryLike(TypeId id);
bool IsLargeOffsets(TypeId id);  // large_utf8, large_binary, large_list
bool IsListLike(TypeId id);      // list, large_list, fixed_size_list, map
// Lists laid out as validity + offsets + one child: list, large_list and map.
bool IsOffsetList(TypeId id);
// Whether `type` or any type nested in it (members, items, dictionary values) has id `id`.
bool ContainsType(const DataType& type, TypeId id);
// Types whose values are one fixed-width buffer: integers, floats, dates, timestamps, decimals,
// fixed-size binary, and bool (bit-packed, width 1).
bool IsFixedWidth(const DataType& type);
// Bits per value of a fixed-width type (bool: 1, fixed_size_binary[w]: 8w); 0 for other types.
int64_t BitWidth(const DataType& type);
// How many buffers an array of this type has in the Arrow layout (the validity bitmap counted):
// null 0; fixed-width 2; binary-like 3; list and map 2; fixed-size list and struct 1; dictionary 2
// (validity, indices).
int NumBuffers(TypeId id);

}  // namespace quiver::arrow
