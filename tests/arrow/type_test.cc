// Tests for arrow/type.h: every type's ToString and equality (parameters and children), fields,
// schemas, and the physical layout facts the arrays and codecs rely on.
#include "arrow/type.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace quiver::arrow {
namespace {

DataType MapOf(DataType key, DataType value, bool sorted = false) {
  return DataType::Map(Field("entries",
                             DataType::Struct({Field("key", std::move(key), false),
                                               Field("value", std::move(value))}),
                             false),
                       sorted);
}

// One instance of every type (and of every parameter variant that makes a type distinct), with
// its expected ToString. Every pair of entries is unequal.
std::vector<std::pair<DataType, std::string>> AllTypes() {
  return {
      {DataType::Null(), "null"},
      {DataType::Bool(), "bool"},
      {DataType::Int8(), "int8"},
      {DataType::Int16(), "int16"},
      {DataType::Int32(), "int32"},
      {DataType::Int64(), "int64"},
      {DataType::UInt8(), "uint8"},
      {DataType::UInt16(), "uint16"},
      {DataType::UInt32(), "uint32"},
      {DataType::UInt64(), "uint64"},
      {DataType::Float16(), "float16"},
      {DataType::Float32(), "float32"},
      {DataType::Float64(), "float64"},
      {DataType::Utf8(), "utf8"},
      {DataType::LargeUtf8(), "large_utf8"},
      {DataType::Binary(), "binary"},
      {DataType::LargeBinary(), "large_binary"},
      {DataType::FixedSizeBinary(16), "fixed_size_binary[16]"},
      {DataType::FixedSizeBinary(0), "fixed_size_binary[0]"},
      {DataType::Date32(), "date32"},
      {DataType::Date64(), "date64"},
      {DataType::Timestamp(TimeUnit::kSecond), "timestamp[s]"},
      {DataType::Timestamp(TimeUnit::kMilli), "timestamp[ms]"},
      {DataType::Timestamp(TimeUnit::kMicro), "timestamp[us]"},
      {DataType::Timestamp(TimeUnit::kNano), "timestamp[ns]"},
      {DataType::Timestamp(TimeUnit::kMilli, "UTC"), "timestamp[ms, tz=UTC]"},
      {DataType::Timestamp(TimeUnit::kMilli, "+05:30"), "timestamp[ms, tz=+05:30]"},
      {DataType::Decimal128(38, 9), "decimal128(38, 9)"},
      {DataType::Decimal128(38, 10), "decimal128(38, 10)"},
      {DataType::Decimal128(10, -2), "decimal128(10, -2)"},
      {DataType::List(Field("item", DataType::Int32())), "list<item: int32>"},
      {DataType::List(Field("item", DataType::Int32(), false)), "list<item: int32 not null>"},
      {DataType::List(Field("element", DataType::Int32())), "list<element: int32>"},
      {DataType::List(Field("item", DataType::Int64())), "list<item: int64>"},
      {DataType::LargeList(Field("item", DataType::Int32())), "large_list<item: int32>"},
      {DataType::FixedSizeList(Field("item", DataType::Float32()), 8),
       "fixed_size_list<item: float32>[8]"},
      {DataType::FixedSizeList(Field("item", DataType::Float32()), 4),
       "fixed_size_list<item: float32>[4]"},
      {DataType::Struct({}), "struct<>"},
      {DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8(), false)}),
       "struct<a: int32, b: utf8 not null>"},
      {DataType::Struct({Field("b", DataType::Utf8(), false), Field("a", DataType::Int32())}),
       "struct<b: utf8 not null, a: int32>"},
      {DataType::Dictionary(TypeId::kInt32, DataType::Utf8()),
       "dictionary<values=utf8, indices=int32>"},
      {DataType::Dictionary(TypeId::kUInt8, DataType::Utf8()),
       "dictionary<values=utf8, indices=uint8>"},
      {DataType::Dictionary(TypeId::kInt32, DataType::Binary()),
       "dictionary<values=binary, indices=int32>"},
      {DataType::Dictionary(TypeId::kInt32, DataType::Utf8(), true),
       "dictionary<values=utf8, indices=int32, ordered>"},
      {MapOf(DataType::Utf8(), DataType::Int32()), "map<utf8, int32>"},
      {MapOf(DataType::Utf8(), DataType::Int64()), "map<utf8, int64>"},
      {MapOf(DataType::Int64(), DataType::Int32()), "map<int64, int32>"},
      {MapOf(DataType::Utf8(), DataType::Int32(), true), "map<utf8, int32, keys_sorted>"},
  };
}

TEST(DataType, ToStringOfEveryType) {
  for (const auto& [type, text] : AllTypes()) EXPECT_EQ(type.ToString(), text);
}

TEST(DataType, EqualOnlyToItself) {
  const auto types = AllTypes();
  for (size_t i = 0; i < types.size(); ++i) {
    for (size_t j = 0; j < types.size(); ++j) {
      EXPECT_EQ(types[i].first == types[j].first, i == j)
          << types[i].second << " vs " << types[j].second;
    }
  }
}

TEST(DataType, EqualWhenBuiltTwice) {
  // Separately built values with the same parameters are equal (value semantics, no identity).
  const auto a = AllTypes();
  const auto b = AllTypes();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].first == b[i].first) << a[i].second;
  DataType copy = a.back().first;
  EXPECT_TRUE(copy == a.back().first);
}

TEST(DataType, DefaultIsNull) {
  EXPECT_EQ(DataType().id(), TypeId::kNull);
  EXPECT_TRUE(DataType() == DataType::Null());
}

TEST(DataType, NestedChildMetadataAndDepthMatter) {
  const DataType inner = DataType::Struct({Field("x", DataType::Float64())});
  const DataType a = DataType::List(Field("item", inner));
  const DataType b =
      DataType::List(Field("item", DataType::Struct({Field("x", DataType::Float32())})));
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.ToString(), "list<item: struct<x: float64>>");
  const DataType with_metadata =
      DataType::List(Field("item", inner, true, {{"lance-encoding:compression", "none"}}));
  EXPECT_FALSE(a == with_metadata);  // fields compare with their metadata
}

TEST(DataType, Accessors) {
  const DataType ts = DataType::Timestamp(TimeUnit::kMicro, "Europe/Paris");
  EXPECT_EQ(ts.unit(), TimeUnit::kMicro);
  EXPECT_EQ(ts.timezone(), "Europe/Paris");
  const DataType dec = DataType::Decimal128(20, 4);
  EXPECT_EQ(dec.precision(), 20);
  EXPECT_EQ(dec.scale(), 4);
  EXPECT_EQ(DataType::FixedSizeBinary(7).byte_width(), 7);
  const DataType fsl = DataType::FixedSizeList(Field("v", DataType::Float32(), false), 3);
  EXPECT_EQ(fsl.list_size(), 3);
  EXPECT_EQ(fsl.item().name, "v");
  EXPECT_FALSE(fsl.item().nullable);
  const DataType dict = DataType::Dictionary(TypeId::kUInt16, DataType::LargeUtf8(), true);
  EXPECT_EQ(dict.index_type(), TypeId::kUInt16);
  EXPECT_TRUE(dict.ordered());
  EXPECT_TRUE(dict.dictionary_value() == DataType::LargeUtf8());
  const DataType st =
      DataType::Struct({Field("a", DataType::Int8()), Field("b", DataType::Bool())});
  ASSERT_EQ(st.children().size(), 2u);
  EXPECT_EQ(st.children()[1].name, "b");
}

TEST(DataType, TimeUnitNames) {
  EXPECT_EQ(TimeUnitName(TimeUnit::kSecond), "s");
  EXPECT_EQ(TimeUnitName(TimeUnit::kMilli), "ms");
  EXPECT_EQ(TimeUnitName(TimeUnit::kMicro), "us");
  EXPECT_EQ(TimeUnitName(TimeUnit::kNano), "ns");
}

TEST(Field, ToStringAndEquality) {
  const Field f("price", DataType::Decimal128(10, 2), false);
  EXPECT_EQ(f.ToString(), "price: decimal128(10, 2) not null");
  EXPECT_EQ(Field("x", DataType::Utf8()).ToString(), "x: utf8");
  EXPECT_TRUE(f == Field("price", DataType::Decimal128(10, 2), false));
  EXPECT_FALSE(f == Field("price", DataType::Decimal128(10, 2), true));
  EXPECT_FALSE(f == Field("cost", DataType::Decimal128(10, 2), false));
  EXPECT_FALSE(f == Field("price", DataType::Decimal128(10, 3), false));
  EXPECT_FALSE(f == Field("price", DataType::Decimal128(10, 2), false, {{"k", "v"}}));
}

TEST(Schema, FieldIndexToStringEquality) {
  Schema s;
  s.fields = {Field("a", DataType::Int32()), Field("b", DataType::Utf8(), false),
              Field("a", DataType::Int64())};
  EXPECT_EQ(s.FieldIndex("a"), 0);  // the first of duplicates
  EXPECT_EQ(s.FieldIndex("b"), 1);
  EXPECT_EQ(s.FieldIndex("c"), -1);
  EXPECT_EQ(s.ToString(), "a: int32\nb: utf8 not null\na: int64");
  Schema t = s;
  EXPECT_TRUE(s == t);
  t.metadata = {{"owner", "me"}};
  EXPECT_FALSE(s == t);
  EXPECT_EQ(Schema().ToString(), "");
}

TEST(Layout, Predicates) {
  for (TypeId id : {TypeId::kInt8, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64}) {
    EXPECT_TRUE(IsInteger(id));
    EXPECT_TRUE(IsSignedInteger(id));
  }
  for (TypeId id : {TypeId::kUInt8, TypeId::kUInt16, TypeId::kUInt32, TypeId::kUInt64}) {
    EXPECT_TRUE(IsInteger(id));
    EXPECT_FALSE(IsSignedInteger(id));
  }
  for (TypeId id : {TypeId::kBool, TypeId::kFloat32, TypeId::kDate32, TypeId::kUtf8}) {
    EXPECT_FALSE(IsInteger(id));
  }
  for (TypeId id : {TypeId::kFloat16, TypeId::kFloat32, TypeId::kFloat64}) {
    EXPECT_TRUE(IsFloating(id));
  }
  EXPECT_FALSE(IsFloating(TypeId::kDecimal128));
  for (TypeId id : {TypeId::kUtf8, TypeId::kLargeUtf8, TypeId::kBinary, TypeId::kLargeBinary}) {
    EXPECT_TRUE(IsBinaryLike(id));
  }
  EXPECT_FALSE(IsBinaryLike(TypeId::kFixedSizeBinary));
  EXPECT_TRUE(IsLargeOffsets(TypeId::kLargeUtf8));
  EXPECT_TRUE(IsLargeOffsets(TypeId::kLargeBinary));
  EXPECT_TRUE(IsLargeOffsets(TypeId::kLargeList));
  EXPECT_FALSE(IsLargeOffsets(TypeId::kUtf8));
  EXPECT_FALSE(IsLargeOffsets(TypeId::kList));
  EXPECT_TRUE(IsListLike(TypeId::kList));
  EXPECT_TRUE(IsListLike(TypeId::kLargeList));
  EXPECT_TRUE(IsListLike(TypeId::kFixedSizeList));
  EXPECT_FALSE(IsListLike(TypeId::kStruct));
  EXPECT_TRUE(IsListLike(TypeId::kMap));
  EXPECT_TRUE(IsOffsetList(TypeId::kMap));
  EXPECT_TRUE(IsOffsetList(TypeId::kList));
  EXPECT_TRUE(IsOffsetList(TypeId::kLargeList));
  EXPECT_FALSE(IsOffsetList(TypeId::kFixedSizeList));
  EXPECT_FALSE(IsLargeOffsets(TypeId::kMap));
  EXPECT_EQ(NumBuffers(TypeId::kMap), 2);
}

TEST(Layout, ContainsTypeLooksEverywhere) {
  const DataType map = MapOf(DataType::Utf8(), DataType::Int32());
  EXPECT_TRUE(ContainsType(map, TypeId::kMap));
  EXPECT_TRUE(ContainsType(map, TypeId::kInt32));  // inside the entries
  EXPECT_TRUE(ContainsType(DataType::List(Field("item", map)), TypeId::kMap));
  EXPECT_TRUE(ContainsType(DataType::Struct({Field("a", DataType::Int8()), Field("m", map)}),
                           TypeId::kMap));
  EXPECT_TRUE(ContainsType(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), TypeId::kUtf8));
  EXPECT_FALSE(ContainsType(DataType::List(Field("item", DataType::Int32())), TypeId::kMap));
}

TEST(Layout, BitWidthsAndBufferCounts) {
  struct Case {
    DataType type;
    int64_t bits;
    bool fixed;
    int buffers;
  };
  const Field item("item", DataType::Int32());
  const std::vector<Case> cases = {
      {DataType::Null(), 0, false, 0},
      {DataType::Bool(), 1, true, 2},
      {DataType::Int8(), 8, true, 2},
      {DataType::UInt8(), 8, true, 2},
      {DataType::Int16(), 16, true, 2},
      {DataType::UInt16(), 16, true, 2},
      {DataType::Float16(), 16, true, 2},
      {DataType::Int32(), 32, true, 2},
      {DataType::UInt32(), 32, true, 2},
      {DataType::Float32(), 32, true, 2},
      {DataType::Date32(), 32, true, 2},
      {DataType::Int64(), 64, true, 2},
      {DataType::UInt64(), 64, true, 2},
      {DataType::Float64(), 64, true, 2},
      {DataType::Date64(), 64, true, 2},
      {DataType::Timestamp(TimeUnit::kNano, "UTC"), 64, true, 2},
      {DataType::Decimal128(38, 0), 128, true, 2},
      {DataType::FixedSizeBinary(3), 24, true, 2},
      {DataType::FixedSizeBinary(0), 0, true, 2},
      {DataType::Utf8(), 0, false, 3},
      {DataType::LargeUtf8(), 0, false, 3},
      {DataType::Binary(), 0, false, 3},
      {DataType::LargeBinary(), 0, false, 3},
      {DataType::List(item), 0, false, 2},
      {DataType::LargeList(item), 0, false, 2},
      {DataType::FixedSizeList(item, 2), 0, false, 1},
      {DataType::Struct({item}), 0, false, 1},
      {DataType::Dictionary(TypeId::kInt8, DataType::Utf8()), 0, false, 2},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(BitWidth(c.type), c.bits) << c.type.ToString();
    EXPECT_EQ(IsFixedWidth(c.type), c.fixed) << c.type.ToString();
    EXPECT_EQ(NumBuffers(c.type.id()), c.buffers) << c.type.ToString();
  }
}

}  // namespace
}  // namespace quiver::arrow
