#include "random_arrays.h"

#include <cstring>

namespace quiver::testing {

using arrow::DataType;
using arrow::Field;
using arrow::TypeId;

DataType RandomArrays::Type(int depth) {
  const bool nested = depth < options_.max_depth && Unit() < 0.3;
  if (nested) {
    switch (Uniform(0, 2)) {
      case 0: {
        std::vector<Field> members;
        const int64_t n = Uniform(1, 3);
        for (int64_t i = 0; i < n; ++i) {
          members.emplace_back("m" + std::to_string(next_name_++), Type(depth + 1), Unit() < 0.8);
        }
        return DataType::Struct(std::move(members));
      }
      case 1:
        return DataType::List(Field("item", Type(depth + 1), Unit() < 0.8));
      default:
        return DataType::LargeList(Field("item", Type(depth + 1), Unit() < 0.8));
    }
  }
  switch (Uniform(0, 24)) {
    case 0:
      return DataType::Int8();
    case 1:
      return DataType::Int16();
    case 2:
      return DataType::Int32();
    case 3:
      return DataType::Int64();
    case 4:
      return DataType::UInt8();
    case 5:
      return DataType::UInt16();
    case 6:
      return DataType::UInt32();
    case 7:
      return DataType::UInt64();
    case 8:
      return DataType::Float16();
    case 9:
      return DataType::Float32();
    case 10:
      return DataType::Float64();
    case 11:
      return DataType::Bool();
    case 12:
      return DataType::Utf8();
    case 13:
      return DataType::LargeUtf8();
    case 14:
      return DataType::Binary();
    case 15:
      return DataType::LargeBinary();
    case 16:
      return DataType::FixedSizeBinary(static_cast<int32_t>(Uniform(1, 20)));
    case 17:
      return DataType::Date32();
    case 18:
      return DataType::Date64();
    case 19: {
      const char* zones[] = {"", "UTC", "+05:30", "America/New_York"};
      return DataType::Timestamp(static_cast<arrow::TimeUnit>(Uniform(0, 3)), zones[Uniform(0, 3)]);
    }
    case 20: {
      const int32_t precision = static_cast<int32_t>(Uniform(1, 38));
      return DataType::Decimal128(precision, static_cast<int32_t>(Uniform(0, precision)));
    }
    case 21: {
      const DataType items[] = {DataType::Float32(), DataType::Int32(), DataType::UInt8(),
                                DataType::Float64()};
      DataType item = items[Uniform(0, 3)];
      const int32_t sizes[] = {1, 2, 3, 8, 64, 128};
      return DataType::FixedSizeList(Field("item", item, true), sizes[Uniform(0, 5)]);
    }
    case 22:
      return DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
    case 23:
      return DataType::Int64();  // low-cardinality / runs decided by the data
    default:
      return DataType::Utf8();
  }
}

arrow::Schema RandomArrays::Schema() {
  arrow::Schema schema;
  const int64_t n = Uniform(1, options_.max_fields);
  for (int64_t i = 0; i < n; ++i) {
    schema.fields.emplace_back("f" + std::to_string(i), Type(0), Unit() < 0.85);
  }
  return schema;
}

std::vector<bool> RandomArrays::Validity(int64_t length, double null_fraction, bool nullable) {
  if (!nullable || null_fraction <= 0) return {};
  std::vector<bool> valid(static_cast<size_t>(length));
  for (auto&& v : valid) v = Unit() >= null_fraction;
  return valid;
}

std::string RandomArrays::RandomString(bool utf8) {
  int64_t len;
  if (Unit() < options_.long_string_probability) {
    len = Uniform(300, 40 * 1024);
  } else {
    len = Uniform(0, Unit() < 0.5 ? 8 : 40);
  }
  std::string s;
  static const char* words[] = {"alpha", "beta", "gamma", "é", "日本", "delta", " ", "42"};
  while (static_cast<int64_t>(s.size()) < len) {
    if (utf8) {
      s += words[Uniform(0, 7)];
    } else {
      s.push_back(static_cast<char>(Uniform(0, 255)));
    }
  }
  if (!utf8) s.resize(static_cast<size_t>(len));
  return s;
}

Result<arrow::ArrayPtr> RandomArrays::Array(const DataType& type, int64_t length,
                                            double null_fraction, bool nullable) {
  std::vector<bool> valid = Validity(length, null_fraction, nullable);
  const TypeId id = type.id();
  if (id == TypeId::kBool) {
    std::vector<bool> values(static_cast<size_t>(length));
    for (auto&& v : values) v = Unit() < 0.5;
    return arrow::MakeBoolArray(values, valid);
  }
  if (arrow::IsBinaryLike(id)) {
    std::vector<std::string> values;
    const bool low_cardinality = Unit() < 0.3;
    std::vector<std::string> pool;
    for (int i = 0; i < 5; ++i)
      pool.push_back(RandomString(id == TypeId::kUtf8 || id == TypeId::kLargeUtf8));
    for (int64_t i = 0; i < length; ++i) {
      values.push_back(low_cardinality
                           ? pool[static_cast<size_t>(Uniform(0, 4))]
                           : RandomString(id == TypeId::kUtf8 || id == TypeId::kLargeUtf8));
    }
    return arrow::MakeBinaryArray(type, values, valid);
  }
  if (id == TypeId::kFixedSizeBinary) {
    std::vector<std::string> values;
    for (int64_t i = 0; i < length; ++i) {
      std::string v(static_cast<size_t>(type.byte_width()), '\0');
      for (auto& c : v) c = static_cast<char>(Uniform(0, 3));
      values.push_back(std::move(v));
    }
    return arrow::MakeBinaryArray(type, values, valid);
  }
  if (arrow::IsFixedWidth(type)) {
    const int64_t width = arrow::BitWidth(type) / 8;
    std::vector<uint8_t> bytes(static_cast<size_t>(length * width));
    // Shapes that exercise the encoders: small values (bit packing), runs (RLE), random.
    const int shape = static_cast<int>(Uniform(0, 2));
    uint64_t run_value = 0;
    for (int64_t i = 0; i < length; ++i) {
      uint64_t v;
      if (shape == 0) {
        v = static_cast<uint64_t>(Uniform(0, 100));
      } else if (shape == 1) {
        if (Unit() < 0.05) run_value = rng_();
        v = run_value;
      } else {
        v = rng_();
      }
      for (int64_t b = 0; b < width; ++b) {
        bytes[static_cast<size_t>(i * width + b)] =
            static_cast<uint8_t>(b < 8 ? (v >> (8 * b)) : rng_());
      }
    }
    if (id == TypeId::kDecimal128) {
      // Keep decimals within their precision: small values.
      for (int64_t i = 0; i < length; ++i) {
        std::memset(bytes.data() + i * 16 + 1, 0, 15);
      }
    }
    auto data = std::make_shared<arrow::ArrayData>();
    data->type = type;
    data->length = length;
    QV_ASSIGN_OR_RETURN(auto validity, arrow::MakeValidity(valid, &data->null_count));
    QV_ASSIGN_OR_RETURN(auto buffer,
                        arrow::Buffer::CopyOf(std::string_view(
                            reinterpret_cast<const char*>(bytes.data()), bytes.size())));
    data->buffers = {std::move(validity), std::move(buffer)};
    return arrow::ArrayPtr(data);
  }
  if (id == TypeId::kList || id == TypeId::kLargeList) {
    std::vector<int64_t> offsets{0};
    for (int64_t i = 0; i < length; ++i) {
      const bool is_null = !valid.empty() && !valid[static_cast<size_t>(i)];
      offsets.push_back(offsets.back() + (is_null ? 0 : Uniform(0, 4)));
    }
    QV_ASSIGN_OR_RETURN(
        auto items, Array(type.item().type, offsets.back(), null_fraction, type.item().nullable));
    return arrow::MakeListArray(type, offsets, items, valid);
  }
  if (id == TypeId::kFixedSizeList) {
    QV_ASSIGN_OR_RETURN(auto items, Array(type.item().type, length * type.list_size(),
                                          Unit() < 0.3 ? null_fraction : 0, true));
    return arrow::MakeFixedSizeListArray(type, length, items, valid);
  }
  if (id == TypeId::kStruct) {
    std::vector<arrow::ArrayPtr> members;
    for (const auto& m : type.children()) {
      QV_ASSIGN_OR_RETURN(auto member, Array(m.type, length, null_fraction, m.nullable));
      members.push_back(std::move(member));
    }
    return arrow::MakeStructArray(type, length, std::move(members), valid);
  }
  if (id == TypeId::kDictionary) {
    const int64_t k = Uniform(1, 6);
    QV_ASSIGN_OR_RETURN(auto dictionary, Array(type.dictionary_value(), k, 0, false));
    std::vector<int32_t> idx;
    for (int64_t i = 0; i < length; ++i) idx.push_back(static_cast<int32_t>(Uniform(0, k - 1)));
    QV_ASSIGN_OR_RETURN(auto indices, arrow::MakeFixedArray(DataType::Int32(), idx, valid));
    return arrow::MakeDictionaryArray(type, indices, dictionary);
  }
  return Status::Unsupported("RandomArrays: " + type.ToString());
}

Result<arrow::RecordBatch> RandomArrays::Batch(std::shared_ptr<const arrow::Schema> schema,
                                               int64_t length) {
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = length;
  const double null_fraction = Unit() < 0.2 ? 0 : Unit() < 0.1 ? 1 : Unit() * 0.5;
  for (const auto& f : schema->fields) {
    QV_ASSIGN_OR_RETURN(auto column, Array(f.type, length, null_fraction, f.nullable));
    batch.columns.push_back(std::move(column));
  }
  return batch;
}

}  // namespace quiver::testing
