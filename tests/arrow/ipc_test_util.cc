// Random arrays and the every-type schema for the IPC tests (see ipc_test_util.h).
#include "ipc_test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace quiver::arrow::testing {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T>
std::vector<T> RandomInts(std::mt19937_64& rng, int64_t length) {
  std::vector<T> out(static_cast<size_t>(length));
  for (auto& v : out) {
    switch (rng() % 8) {
      case 0:
        v = std::numeric_limits<T>::min();
        break;
      case 1:
        v = std::numeric_limits<T>::max();
        break;
      case 2:
        v = 0;
        break;
      default:
        v = static_cast<T>(rng());
    }
  }
  return out;
}

template <typename F>
std::vector<F> RandomFloats(std::mt19937_64& rng, int64_t length) {
  std::vector<F> out(static_cast<size_t>(length));
  for (auto& v : out) {
    switch (rng() % 10) {
      case 0:
        v = std::numeric_limits<F>::quiet_NaN();
        break;
      case 1:
        v = static_cast<F>(-0.0);
        break;
      case 2:
        v = std::numeric_limits<F>::infinity();
        break;
      default:
        v = static_cast<F>(std::ldexp(static_cast<double>(rng() % 2000000) - 1000000.0,
                                      static_cast<int>(rng() % 40) - 20));
    }
  }
  return out;
}

TypeId IndexTypeOf(const DataType& type) { return type.index_type(); }

}  // namespace

std::vector<bool> RandomArrays::Validity(int64_t length, bool nullable) {
  if (!nullable || null_probability_ <= 0) return {};
  std::vector<bool> valid(static_cast<size_t>(length));
  std::bernoulli_distribution is_null(null_probability_);
  for (size_t i = 0; i < valid.size(); ++i) valid[i] = !is_null(rng_);
  return valid;
}

std::string RandomArrays::RandomString(bool utf8, size_t max_length) {
  const size_t n = static_cast<size_t>(Uniform(0, static_cast<int64_t>(max_length)));
  std::string s;
  while (s.size() < n) {
    if (!utf8) {
      s.push_back(static_cast<char>(rng_()));
    } else if (rng_() % 8 == 0) {
      s += "\xc3\xa9";  // é: a two-byte code point
    } else if (rng_() % 16 == 0) {
      s += "\xf0\x9f\x90\x8d";  // a four-byte code point
    } else {
      s.push_back(static_cast<char>('a' + rng_() % 26));
    }
  }
  return s;
}

ArrayPtr RandomArrays::Make(const DataType& type, int64_t length, bool nullable) {
  const std::vector<bool> valid = Validity(length, nullable);
  switch (type.id()) {
    case TypeId::kNull:
      return Must(MakeNullArray(type, length));
    case TypeId::kBool: {
      std::vector<bool> values(static_cast<size_t>(length));
      for (size_t i = 0; i < values.size(); ++i) values[i] = rng_() & 1;
      return Must(MakeBoolArray(values, valid));
    }
    case TypeId::kInt8:
      return Must(MakeFixedArray(type, RandomInts<int8_t>(rng_, length), valid));
    case TypeId::kInt16:
      return Must(MakeFixedArray(type, RandomInts<int16_t>(rng_, length), valid));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Must(MakeFixedArray(type, RandomInts<int32_t>(rng_, length), valid));
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      return Must(MakeFixedArray(type, RandomInts<int64_t>(rng_, length), valid));
    case TypeId::kUInt8:
      return Must(MakeFixedArray(type, RandomInts<uint8_t>(rng_, length), valid));
    case TypeId::kUInt16:
    case TypeId::kFloat16:
      return Must(MakeFixedArray(type, RandomInts<uint16_t>(rng_, length), valid));
    case TypeId::kUInt32:
      return Must(MakeFixedArray(type, RandomInts<uint32_t>(rng_, length), valid));
    case TypeId::kUInt64:
      return Must(MakeFixedArray(type, RandomInts<uint64_t>(rng_, length), valid));
    case TypeId::kFloat32:
      return Must(MakeFixedArray(type, RandomFloats<float>(rng_, length), valid));
    case TypeId::kFloat64:
      return Must(MakeFixedArray(type, RandomFloats<double>(rng_, length), valid));
    case TypeId::kDecimal128: {
      std::vector<Bytes16> values(static_cast<size_t>(length));
      for (auto& v : values) {
        v.lo = rng_() % 1000000007;
        v.hi = rng_() % 2 ? 0 : ~uint64_t{0};  // small positive or negative values
        if (v.hi != 0) v.lo = ~v.lo;
      }
      return Must(MakeFixedArray(type, values, valid));
    }
    case TypeId::kFixedSizeBinary: {
      std::vector<std::string> values(static_cast<size_t>(length));
      for (auto& v : values) {
        v.resize(static_cast<size_t>(type.byte_width()));
        for (char& c : v) c = static_cast<char>(rng_());
      }
      return Must(MakeBinaryArray(type, values, valid));
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      const bool utf8 = type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8;
      std::vector<std::string> values(static_cast<size_t>(length));
      for (auto& v : values) v = RandomString(utf8, 12);
      return Must(MakeBinaryArray(type, values, valid));
    }
    case TypeId::kList:
    case TypeId::kLargeList: {
      std::vector<int64_t> offsets{0};
      for (int64_t i = 0; i < length; ++i) offsets.push_back(offsets.back() + Uniform(0, 4));
      ArrayPtr items = Make(type.item().type, offsets.back(), type.item().nullable);
      return Must(MakeListArray(type, offsets, std::move(items), valid));
    }
    case TypeId::kMap: {
      std::vector<int64_t> offsets{0};
      for (int64_t i = 0; i < length; ++i) offsets.push_back(offsets.back() + Uniform(0, 3));
      // Entries and keys are never null (Arrow's map).
      ArrayPtr entries = Make(type.item().type, offsets.back(), /*nullable=*/false);
      return Must(MakeListArray(type, offsets, std::move(entries), valid));
    }
    case TypeId::kFixedSizeList: {
      ArrayPtr items = Make(type.item().type, length * type.list_size(), type.item().nullable);
      return Must(MakeFixedSizeListArray(type, length, std::move(items), valid));
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> members;
      for (const Field& member : type.children()) {
        members.push_back(Make(member.type, length, member.nullable));
      }
      return Must(MakeStructArray(type, length, std::move(members), valid));
    }
    case TypeId::kDictionary: {
      ArrayPtr dictionary;
      const std::string key = type.ToString();
      if (share_dictionaries_ && dictionaries_.count(key) != 0) {
        dictionary = dictionaries_[key];
      } else {
        dictionary = Make(type.dictionary_value(), Uniform(1, 6), true);
        if (share_dictionaries_) dictionaries_[key] = dictionary;
      }
      const int64_t n = dictionary->length;
      const TypeId index = IndexTypeOf(type);
      DataType index_type;
      ArrayPtr indices;
      std::vector<int64_t> raw(static_cast<size_t>(length));
      for (auto& v : raw) v = Uniform(0, n - 1);
      switch (index) {
        case TypeId::kInt8:
          indices = Must(
              MakeFixedArray(DataType::Int8(), std::vector<int8_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kUInt8:
          indices = Must(MakeFixedArray(DataType::UInt8(),
                                        std::vector<uint8_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kInt16:
          indices = Must(MakeFixedArray(DataType::Int16(),
                                        std::vector<int16_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kUInt16:
          indices = Must(MakeFixedArray(DataType::UInt16(),
                                        std::vector<uint16_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kInt32:
          indices = Must(MakeFixedArray(DataType::Int32(),
                                        std::vector<int32_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kUInt32:
          indices = Must(MakeFixedArray(DataType::UInt32(),
                                        std::vector<uint32_t>(raw.begin(), raw.end()), valid));
          break;
        case TypeId::kInt64:
          indices = Must(MakeFixedArray(DataType::Int64(), raw, valid));
          break;
        default:
          indices = Must(MakeFixedArray(DataType::UInt64(),
                                        std::vector<uint64_t>(raw.begin(), raw.end()), valid));
          break;
      }
      return Must(MakeDictionaryArray(type, std::move(indices), std::move(dictionary)));
    }
  }
  ADD_FAILURE() << "no generator for " << type.ToString();
  std::abort();
}

RecordBatch RandomArrays::MakeBatch(const std::shared_ptr<const Schema>& schema, int64_t length) {
  RecordBatch batch;
  batch.schema = schema;
  batch.length = length;
  for (const Field& field : schema->fields) {
    batch.columns.push_back(Make(field.type, length, field.nullable));
  }
  return batch;
}

std::shared_ptr<const Schema> EveryTypeSchema() {
  auto schema = std::make_shared<Schema>();
  auto add = [&](std::string name, DataType type, bool nullable = true, Metadata metadata = {}) {
    schema->fields.emplace_back(std::move(name), std::move(type), nullable, std::move(metadata));
  };
  add("null", DataType::Null());
  add("bool", DataType::Bool());
  add("i8", DataType::Int8());
  add("i16", DataType::Int16(), false);
  add("i32", DataType::Int32());
  add("i64", DataType::Int64(), true, {{"lance:field_id", "7"}, {"note", ""}});
  add("u8", DataType::UInt8());
  add("u16", DataType::UInt16());
  add("u32", DataType::UInt32());
  add("u64", DataType::UInt64(), false);
  add("f16", DataType::Float16());
  add("f32", DataType::Float32());
  add("f64", DataType::Float64());
  add("utf8", DataType::Utf8());
  add("large_utf8", DataType::LargeUtf8());
  add("binary", DataType::Binary());
  add("large_binary", DataType::LargeBinary());
  add("fsb5", DataType::FixedSizeBinary(5));
  add("fsb0", DataType::FixedSizeBinary(0));
  add("date32", DataType::Date32());
  add("date64", DataType::Date64());
  add("ts_s", DataType::Timestamp(TimeUnit::kSecond));
  add("ts_ms_utc", DataType::Timestamp(TimeUnit::kMilli, "UTC"));
  add("ts_us_ny", DataType::Timestamp(TimeUnit::kMicro, "America/New_York"));
  add("ts_ns", DataType::Timestamp(TimeUnit::kNano));
  add("dec", DataType::Decimal128(38, 9));
  add("dec_neg_scale", DataType::Decimal128(5, -2));
  add("list_i32", DataType::List(Field("item", DataType::Int32())));
  add("large_list_utf8", DataType::LargeList(Field("element", DataType::Utf8(), false)));
  add("fsl_f32_4", DataType::FixedSizeList(Field("item", DataType::Float32()), 4));
  add("vec128", DataType::FixedSizeList(Field("item", DataType::Float32(), false), 128));
  add("fsl0", DataType::FixedSizeList(Field("item", DataType::Int8()), 0));
  add("struct",
      DataType::Struct({Field("a", DataType::Int32(), false), Field("b", DataType::Utf8()),
                        Field("m", DataType::Bool(), true, {{"k", "v"}})}));
  add("empty_struct", DataType::Struct({}));
  add("list_struct",
      DataType::List(
          Field("item",
                DataType::Struct({Field("x", DataType::Int64()),
                                  Field("y", DataType::List(Field("item", DataType::Bool())))}))));
  add("struct_list",
      DataType::Struct({Field("l", DataType::List(Field("item", DataType::Float64()))),
                        Field("s", DataType::Struct({Field("z", DataType::Date32())}))}));
  add("list_fsl", DataType::List(Field(
                      "item", DataType::FixedSizeList(Field("item", DataType::Float32()), 3))));
  add("map", DataType::Map(Field("entries",
                                 DataType::Struct({Field("key", DataType::Utf8(), false),
                                                   Field("value", DataType::Int64())}),
                                 false)));
  add("dict_utf8", DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  add("dict_i64_ordered", DataType::Dictionary(TypeId::kUInt8, DataType::Int64(), true));
  add("list_dict",
      DataType::List(Field("item", DataType::Dictionary(TypeId::kInt16, DataType::Utf8()))));
  add("struct_dict",
      DataType::Struct({Field("d", DataType::Dictionary(TypeId::kInt8, DataType::Binary()))}));
  add("dict_of_list",
      DataType::Dictionary(TypeId::kUInt32, DataType::List(Field("item", DataType::Int16()))));
  // Dictionaries inside a dictionary's values: the inner one must be written first.
  add("dict_nested",
      DataType::Dictionary(TypeId::kInt32,
                           DataType::Struct({Field(
                               "inner", DataType::Dictionary(TypeId::kInt8, DataType::Utf8()))})));
  schema->metadata = {{"origin", "quiver ipc test"}, {"empty", ""}};
  return schema;
}

RecordBatch SliceBatch(const RecordBatch& batch, int64_t offset, int64_t length) {
  RecordBatch out;
  out.schema = batch.schema;
  out.length = length;
  for (const ArrayPtr& column : batch.columns) out.columns.push_back(Slice(column, offset, length));
  return out;
}

}  // namespace quiver::arrow::testing
