// Tests for arrow/compare.h: logical equality (bytes under nulls, slices, bitmaps, dictionaries,
// NaN and signed zeros) and the difference messages, which name the row and the path inside it.
#include "arrow/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "must.h"

namespace quiver::arrow {
namespace {

__extension__ typedef __int128 Int128;

using testing::Must;

ArrayPtr Ints(std::vector<int32_t> v, std::vector<bool> valid = {}) {
  return Must(MakeFixedArray<int32_t>(DataType::Int32(), v, valid));
}
ArrayPtr Doubles(std::vector<double> v, std::vector<bool> valid = {}) {
  return Must(MakeFixedArray<double>(DataType::Float64(), v, valid));
}
ArrayPtr Strings(std::vector<std::string> v, std::vector<bool> valid = {}) {
  return Must(MakeBinaryArray(DataType::Utf8(), v, valid));
}

std::string DiffText(const ArrayData& a, const ArrayData& b, const EqualOptions& o = {}) {
  auto d = Diff(a, b, o);
  return d ? *d : "<equal>";
}

const Field kIntItem("item", DataType::Int32());

TEST(Diff, EqualArraysAndBasicMessages) {
  EXPECT_TRUE(ArrayEquals(*Ints({1, 2, 3}), *Ints({1, 2, 3})));
  EXPECT_EQ(DiffText(*Ints({1, 2, 3, 4}), *Ints({1, 2, 3, 5})), "row 3: 4 != 5");
  EXPECT_EQ(DiffText(*Ints({1, 2}), *Ints({1, 2, 3})), "length 2 != 3");
  EXPECT_EQ(DiffText(*Ints({1}), *Must(MakeFixedArray<int64_t>(DataType::Int64(), {1}))),
            "type int32 != int64");
  EXPECT_EQ(DiffText(*Ints({1, 2}, {true, false}), *Ints({1, 2})), "row 1: null != 2");
  EXPECT_EQ(DiffText(*Strings({"a", "b"}), *Strings({"a", "c"})), "row 1: \"b\" != \"c\"");
  EXPECT_EQ(DiffText(*Strings({"q\"\n"}), *Strings({"q"})), "row 0: \"q\\x22\\x0a\" != \"q\"");
  EXPECT_TRUE(ArrayEquals(*Ints({}), *Ints({})));
}

TEST(Diff, IgnoresBytesUnderNulls) {
  EXPECT_TRUE(
      ArrayEquals(*Ints({1, 99, 3}, {true, false, true}), *Ints({1, -7, 3}, {true, false, true})));
  EXPECT_TRUE(ArrayEquals(*Strings({"a", "garbage", "c"}, {true, false, true}),
                          *Strings({"a", "", "c"}, {true, false, true})));
  auto bools_a = Must(MakeBoolArray({true, true}, {true, false}));
  auto bools_b = Must(MakeBoolArray({true, false}, {true, false}));
  EXPECT_TRUE(ArrayEquals(*bools_a, *bools_b));
  // A null list hides its items, whatever their number.
  auto la = Must(MakeListArray(DataType::List(kIntItem), {0, 1, 4, 5}, Ints({1, 7, 7, 7, 2}),
                               {true, false, true}));
  auto lb = Must(
      MakeListArray(DataType::List(kIntItem), {0, 1, 1, 2}, Ints({1, 2}), {true, false, true}));
  EXPECT_TRUE(ArrayEquals(*la, *lb)) << DiffText(*la, *lb);
  // A null struct hides its members.
  const DataType st = DataType::Struct({Field("a", DataType::Int32())});
  auto sa = Must(MakeStructArray(st, 2, {Ints({1, 5})}, {true, false}));
  auto sb = Must(MakeStructArray(st, 2, {Ints({1, 6}, {true, false})}, {true, false}));
  EXPECT_TRUE(ArrayEquals(*sa, *sb));
  // Decimal and fixed-size binary values under nulls.
  auto da = Must(MakeFixedArray<Int128>(DataType::Decimal128(5, 2), {1, 2}, {true, false}));
  auto db = Must(MakeFixedArray<Int128>(DataType::Decimal128(5, 2), {1, 3}, {true, false}));
  EXPECT_TRUE(ArrayEquals(*da, *db));
}

TEST(Diff, BitmapPresenceDoesNotMatter) {
  auto with_bitmap = std::make_shared<ArrayData>(*Ints({1, 2, 3}));
  with_bitmap->buffers[0] = Must(Buffer::CopyOf("\x07"));
  EXPECT_TRUE(ArrayEquals(*with_bitmap, *Ints({1, 2, 3})));
}

TEST(Diff, SlicesEqualCopies) {
  auto ints = Ints({0, 1, 2, 3, 4, 5, 6}, {true, true, false, true, true, false, true});
  EXPECT_TRUE(ArrayEquals(*Slice(ints, 2, 4), *Ints({0, 3, 4, 0}, {false, true, true, false})));
  EXPECT_EQ(DiffText(*Slice(ints, 2, 4), *Ints({0, 3, 5, 0}, {false, true, true, false})),
            "row 2: 4 != 5");

  std::vector<bool> bits;
  for (int i = 0; i < 29; ++i) bits.push_back(i % 3 == 1);
  auto bools = Must(MakeBoolArray(bits));
  std::vector<bool> tail(bits.begin() + 11, bits.end());
  EXPECT_TRUE(ArrayEquals(*Slice(bools, 11, 18), *Must(MakeBoolArray(tail))));

  auto strings = Strings({"x", "yy", "zzz", "w"});
  EXPECT_TRUE(ArrayEquals(*Slice(strings, 1, 2), *Strings({"yy", "zzz"})));

  auto items = Ints({1, 2, 3, 4, 5, 6});
  auto list = Must(MakeListArray(DataType::List(kIntItem), {0, 2, 3, 6}, items));
  auto list_copy = Must(MakeListArray(DataType::List(kIntItem), {0, 1, 4}, Ints({3, 4, 5, 6})));
  EXPECT_TRUE(ArrayEquals(*Slice(list, 1, 2), *list_copy))
      << DiffText(*Slice(list, 1, 2), *list_copy);
  // Items sliced out of a larger child, with an offset base that is not zero.
  auto list_offset =
      Must(MakeListArray(DataType::List(kIntItem), {3, 4, 7}, Ints({9, 9, 9, 3, 4, 5, 6})));
  EXPECT_TRUE(ArrayEquals(*list_offset, *list_copy));

  auto fsl = Must(MakeFixedSizeListArray(DataType::FixedSizeList(kIntItem, 2), 3, items));
  auto fsl_copy =
      Must(MakeFixedSizeListArray(DataType::FixedSizeList(kIntItem, 2), 2, Ints({3, 4, 5, 6})));
  EXPECT_TRUE(ArrayEquals(*Slice(fsl, 1, 2), *fsl_copy));

  const DataType st =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  auto s = Must(MakeStructArray(st, 4, {Ints({1, 2, 3, 4}), Strings({"p", "q", "r", "s"})}));
  auto s_copy = Must(MakeStructArray(st, 2, {Ints({3, 4}), Strings({"r", "s"})}));
  EXPECT_TRUE(ArrayEquals(*Slice(s, 2, 2), *s_copy));
  auto s_other = Must(MakeStructArray(st, 2, {Ints({3, 4}), Strings({"r", "t"})}));
  EXPECT_EQ(DiffText(*Slice(s, 2, 2), *s_other), "row 1.b: \"s\" != \"t\"");
}

TEST(Diff, FloatsNanAndSignedZero) {
  const double nan = std::nan("");
  EXPECT_TRUE(ArrayEquals(*Doubles({nan, 1}), *Doubles({nan, 1})));
  EqualOptions strict;
  strict.nan_equal = false;
  EXPECT_EQ(DiffText(*Doubles({nan}), *Doubles({nan}), strict), "row 0: \"NaN\" != \"NaN\"");
  EXPECT_EQ(DiffText(*Doubles({nan}), *Doubles({1})), "row 0: \"NaN\" != 1");
  EXPECT_TRUE(ArrayEquals(*Doubles({-0.0}), *Doubles({0.0})));
  EqualOptions signed_zero;
  signed_zero.signed_zero_equal = false;
  EXPECT_EQ(DiffText(*Doubles({-0.0}), *Doubles({0.0}), signed_zero), "row 0: -0 != 0");
  EXPECT_TRUE(ArrayEquals(*Doubles({-0.0}), *Doubles({-0.0}), signed_zero));
  // Distinct values never print alike (shortest round-trip digits).
  EXPECT_EQ(DiffText(*Doubles({1e-10}), *Doubles({2e-10})), "row 0: 1e-10 != 2e-10");
  EXPECT_EQ(DiffText(*Doubles({0.1}), *Doubles({0.30000000000000004})),
            "row 0: 0.1 != 0.30000000000000004");

  auto f32 = [](std::vector<float> v) {
    return Must(MakeFixedArray<float>(DataType::Float32(), v));
  };
  EXPECT_TRUE(ArrayEquals(*f32({NAN, -0.0f}), *f32({NAN, 0.0f})));
  EXPECT_FALSE(ArrayEquals(*f32({-0.0f}), *f32({0.0f}), signed_zero));
  EXPECT_EQ(DiffText(*f32({0.1f}), *f32({0.2f})), "row 0: 0.1 != 0.2");

  auto f16 = [](std::vector<uint16_t> v) {
    return Must(MakeFixedArray<uint16_t>(DataType::Float16(), v));
  };
  // Different NaN payloads are still NaN; -0 vs 0 by option; 1.0 vs 2.0 differ.
  EXPECT_TRUE(ArrayEquals(*f16({0x7E00}), *f16({0x7E01})));
  EXPECT_FALSE(ArrayEquals(*f16({0x7E00}), *f16({0x7E00}), strict));
  EXPECT_TRUE(ArrayEquals(*f16({0x8000}), *f16({0x0000})));
  EXPECT_FALSE(ArrayEquals(*f16({0x8000}), *f16({0x0000}), signed_zero));
  EXPECT_EQ(DiffText(*f16({0x3C00}), *f16({0x4000})), "row 0: 1 != 2");
}

TEST(Diff, DictionariesCompareBySelectedValues) {
  const DataType type = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  // Same values through different dictionaries and indices.
  auto a = Must(MakeDictionaryArray(type, Ints({0, 1, 0, 0}, {true, true, false, true}),
                                    Strings({"red", "blue"})));
  auto b = Must(MakeDictionaryArray(type, Ints({2, 0, 5, 2}, {true, true, false, true}),
                                    Strings({"blue", "green", "red"})));
  EXPECT_TRUE(ArrayEquals(*a, *b)) << DiffText(*a, *b);
  auto c = Must(MakeDictionaryArray(type, Ints({2, 1, 0, 2}, {true, true, false, true}),
                                    Strings({"blue", "green", "red"})));
  EXPECT_EQ(DiffText(*a, *c), "row 1: \"blue\" != \"green\"");
  // A null value in the dictionary equals a null index.
  auto d = Must(MakeDictionaryArray(type, Ints({0, 1, 0, 2}, {true, true, true, true}),
                                    Strings({"red", "blue", ""}, {true, true, false})));
  auto e = Must(MakeDictionaryArray(type, Ints({0, 1, 0, 0}, {true, true, true, false}),
                                    Strings({"red", "blue"})));
  EXPECT_TRUE(ArrayEquals(*d, *e)) << DiffText(*d, *e);
  // A dictionary array and a plain array of the same values have different types.
  EXPECT_EQ(DiffText(*e, *Strings({"red", "blue", "red", ""}, {true, true, true, false})),
            "type dictionary<values=utf8, indices=int32> != utf8");
}

TEST(Diff, NestedPathsNameRowMemberAndItem) {
  // list<struct<a: int32, b: list<utf8>>>
  const DataType inner_list = DataType::List(Field("item", DataType::Utf8()));
  const DataType st = DataType::Struct({Field("a", DataType::Int32()), Field("b", inner_list)});
  const DataType type = DataType::List(Field("item", st));
  auto make = [&](int32_t a1, std::string last) {
    auto b = Must(MakeListArray(inner_list, {0, 1, 3}, Strings({"x", "y", std::move(last)})));
    auto s = Must(MakeStructArray(st, 2, {Ints({5, a1}), b}));
    return Must(MakeListArray(type, {0, 0, 2}, s));
  };
  EXPECT_TRUE(ArrayEquals(*make(6, "z"), *make(6, "z")));
  EXPECT_EQ(DiffText(*make(6, "z"), *make(7, "z")), "row 1[1].a: 6 != 7");
  EXPECT_EQ(DiffText(*make(6, "z"), *make(6, "w")), "row 1[1].b[1]: \"z\" != \"w\"");
  auto one = Must(MakeListArray(type, {0, 0, 1}, make(6, "z")->children[0]));
  EXPECT_EQ(DiffText(*make(6, "z"), *one), "row 1: list of 2 items != list of 1");
  // A null nested value renders as JSON on the other side.
  auto null_struct = Must(MakeStructArray(
      st, 2, {Ints({5, 6}), make(6, "z")->children[0]->children[1]}, {true, false}));
  auto with_null = Must(MakeListArray(type, {0, 0, 2}, null_struct));
  EXPECT_EQ(DiffText(*make(6, "z"), *with_null), "row 1[1]: {\"a\":6,\"b\":[\"y\",\"z\"]} != null");
}

TEST(Diff, FieldNamesInNestedTypes) {
  const DataType ab = DataType::Struct({Field("a", DataType::Int32())});
  const DataType xb = DataType::Struct({Field("x", DataType::Int32())});
  auto a = Must(MakeStructArray(ab, 1, {Ints({1})}));
  auto x = Must(MakeStructArray(xb, 1, {Ints({1})}));
  EXPECT_EQ(DiffText(*a, *x), "type struct<a: int32> != struct<x: int32>");
  EqualOptions loose;
  loose.check_field_names = false;
  EXPECT_TRUE(ArrayEquals(*a, *x, loose));
  auto x2 = Must(MakeStructArray(xb, 1, {Ints({2})}));
  EXPECT_EQ(DiffText(*a, *x2, loose), "row 0.a: 1 != 2");
  // Nullability of list items is a field property too.
  auto l1 = Must(
      MakeListArray(DataType::List(Field("item", DataType::Int32(), false)), {0, 1}, Ints({1})));
  auto l2 =
      Must(MakeListArray(DataType::List(Field("element", DataType::Int32())), {0, 1}, Ints({1})));
  EXPECT_FALSE(ArrayEquals(*l1, *l2));
  EXPECT_TRUE(ArrayEquals(*l1, *l2, loose));
  // Parameters still count when names do not.
  auto l3 = Must(MakeListArray(DataType::List(Field("item", DataType::Int64())), {0, 1},
                               Must(MakeFixedArray<int64_t>(DataType::Int64(), {1}))));
  EXPECT_FALSE(ArrayEquals(*l1, *l3, loose));
}

TEST(Diff, OtherTypesRenderReadably) {
  auto dec = [](Int128 v) {
    return Must(MakeFixedArray<Int128>(DataType::Decimal128(10, 3), {v}));
  };
  EXPECT_EQ(DiffText(*dec(-123450), *dec(-123451)), "row 0: \"-123.450\" != \"-123.451\"");
  auto date = [](int32_t v) { return Must(MakeFixedArray<int32_t>(DataType::Date32(), {v})); };
  EXPECT_EQ(DiffText(*date(0), *date(-1)), "row 0: \"1970-01-01\" != \"1969-12-31\"");
  auto ts = [](int64_t v) {
    return Must(MakeFixedArray<int64_t>(DataType::Timestamp(TimeUnit::kMilli, "UTC"), {v}));
  };
  EXPECT_EQ(DiffText(*ts(1), *ts(2)),
            "row 0: \"1970-01-01T00:00:00.001Z\" != \"1970-01-01T00:00:00.002Z\"");
  auto fsb = [](std::string v) { return Must(MakeBinaryArray(DataType::FixedSizeBinary(2), {v})); };
  EXPECT_EQ(DiffText(*fsb("ab"), *fsb(std::string("a\0", 2))), "row 0: \"ab\" != \"a\\x00\"");
  auto u64 = [](uint64_t v) { return Must(MakeFixedArray<uint64_t>(DataType::UInt64(), {v})); };
  EXPECT_EQ(DiffText(*u64(~uint64_t{0}), *u64(1)), "row 0: \"18446744073709551615\" != 1");
  auto b = [](bool v) { return Must(MakeBoolArray({v})); };
  EXPECT_EQ(DiffText(*b(true), *b(false)), "row 0: true != false");
  // Null arrays are all equal at equal lengths.
  EXPECT_TRUE(ArrayEquals(*Must(MakeNullArray(DataType::Null(), 3)),
                          *Must(MakeNullArray(DataType::Null(), 3))));
  // Long values are cut in messages.
  auto big = Strings({std::string(100, 'a')});
  auto big2 = Strings({std::string(100, 'b')});
  EXPECT_EQ(DiffText(*big, *big2), "row 0: \"" + std::string(40, 'a') + "...(100 bytes)\" != \"" +
                                       std::string(40, 'b') + "...(100 bytes)\"");
}

TEST(Diff, RecordBatches) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("id", DataType::Int32(), false), Field("name", DataType::Utf8())};
  RecordBatch a{schema, 3, {Ints({1, 2, 3}), Strings({"a", "b", "c"})}};
  RecordBatch b{schema, 3, {Ints({1, 2, 3}), Strings({"a", "b", "d"})}};
  ASSERT_TRUE(a.Validate().ok());
  EXPECT_FALSE(Diff(a, a).has_value());
  EXPECT_EQ(Diff(a, b).value_or("<equal>"), "column name row 2: \"c\" != \"d\"");
  auto renamed = std::make_shared<Schema>(*schema);
  renamed->fields[1].name = "label";
  RecordBatch c{renamed, 3, a.columns};
  EXPECT_EQ(Diff(a, c).value_or("<equal>"), "field 1: name: utf8 != label: utf8");
  auto nullable = std::make_shared<Schema>(*schema);
  nullable->fields[0].nullable = true;
  RecordBatch d{nullable, 3, a.columns};
  EXPECT_EQ(Diff(a, d).value_or("<equal>"), "field 0: id: int32 not null != id: int32");
  auto fewer = std::make_shared<Schema>();
  fewer->fields = {schema->fields[0]};
  RecordBatch e{fewer, 3, {a.columns[0]}};
  EXPECT_EQ(Diff(a, e).value_or("<equal>"), "schema has 2 fields != 1");
  RecordBatch f{schema, 2, {Slice(a.columns[0], 0, 2), Slice(a.columns[1], 0, 2)}};
  EXPECT_EQ(Diff(a, f).value_or("<equal>"), "batch length 3 != 2");
  auto retyped = std::make_shared<Schema>(*schema);
  retyped->fields[0].type = DataType::Int64();
  RecordBatch g{
      retyped, 3, {Must(MakeFixedArray<int64_t>(DataType::Int64(), {1, 2, 3})), a.columns[1]}};
  EXPECT_EQ(Diff(a, g).value_or("<equal>"), "column id type int32 != int64");
}

}  // namespace
}  // namespace quiver::arrow
