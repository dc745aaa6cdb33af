// ToColumnType (to_column_type.h).
#include "query/internal/to_column_type.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace quiver::query::internal {

namespace {

using arrow::ArrayData;
using arrow::DataType;
using arrow::TypeId;

std::vector<bool> Validity(const ArrayData& a) {
  std::vector<bool> valid(static_cast<size_t>(a.length), true);
  if (a.null_count == 0) return valid;
  for (int64_t i = 0; i < a.length; ++i) valid[static_cast<size_t>(i)] = arrow::IsValid(a, i);
  return valid;
}

Status DoesNotFit(std::string_view column, const std::string& value, const DataType& target) {
  return Status::InvalidInput(fmt::format("column '{}': the value {} does not fit its type {}",
                                          column, value, target.ToString()));
}

// The integer range of a target integer type.
struct IntRange {
  bool is_signed;
  int64_t min;
  uint64_t max;
};
IntRange RangeOf(TypeId id) {
  const int bits = 8 * arrow::IntegerByteWidth(id);
  if (arrow::IsSignedInteger(id)) {
    return {true, bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)),
            (uint64_t{1} << (bits - 1)) - 1};
  }
  return {false, 0, bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1};
}

Status CannotTake(std::string_view column, const DataType& target, const DataType& value) {
  return Status::InvalidInput(fmt::format("column '{}' ({}) cannot take a value of type {}", column,
                                          target.ToString(), value.ToString()));
}

template <typename T>
Result<arrow::ArrayPtr> IntegersAs(const ArrayData& v, const DataType& target,
                                   std::string_view column) {
  const TypeId from = v.type.id();
  if (from != TypeId::kInt64 && from != TypeId::kUInt64 && from != TypeId::kFloat64 &&
      from != TypeId::kBool) {
    return CannotTake(column, target, v.type);
  }
  const IntRange range = RangeOf(target.id());
  std::vector<T> out(static_cast<size_t>(v.length));
  const std::vector<bool> valid = Validity(v);
  for (int64_t i = 0; i < v.length; ++i) {
    if (!valid[static_cast<size_t>(i)]) continue;
    switch (v.type.id()) {
      case TypeId::kInt64: {
        const int64_t x = arrow::Values<int64_t>(v)[i];
        const bool fits =
            x < 0 ? range.is_signed && x >= range.min : static_cast<uint64_t>(x) <= range.max;
        if (!fits) return DoesNotFit(column, std::to_string(x), target);
        out[static_cast<size_t>(i)] = static_cast<T>(x);
        break;
      }
      case TypeId::kUInt64: {
        const uint64_t x = arrow::Values<uint64_t>(v)[i];
        if (x > range.max) return DoesNotFit(column, std::to_string(x), target);
        out[static_cast<size_t>(i)] = static_cast<T>(x);
        break;
      }
      case TypeId::kFloat64: {
        const double x = std::trunc(arrow::Values<double>(v)[i]);
        // Bounds exact in double: -2^(bits-1) (or 0) inclusive, max + 1 exclusive (2^63 / 2^64
        // for the 64-bit types, whose max is not a double).
        const double lo = static_cast<double>(range.min);
        const double hi = range.max >= (uint64_t{1} << 53)
                              ? std::ldexp(1.0, range.is_signed ? 63 : 64)
                              : static_cast<double>(range.max) + 1;
        const bool fits = std::isfinite(x) && x >= lo && x < hi;
        if (!fits)
          return DoesNotFit(column, fmt::format("{}", arrow::Values<double>(v)[i]), target);
        out[static_cast<size_t>(i)] = static_cast<T>(x);
        break;
      }
      case TypeId::kBool:
        out[static_cast<size_t>(i)] =
            static_cast<T>(arrow::GetBit(v.buffers[1]->data(), v.offset + i));
        break;
      default:
        return CannotTake(column, target, v.type);
    }
  }
  return arrow::MakeFixedArray(target, out, valid);
}

template <typename T>
Result<arrow::ArrayPtr> FloatsAs(const ArrayData& v, const DataType& target,
                                 std::string_view column) {
  const TypeId from = v.type.id();
  if (from != TypeId::kInt64 && from != TypeId::kUInt64 && from != TypeId::kFloat64) {
    return CannotTake(column, target, v.type);
  }
  std::vector<T> out(static_cast<size_t>(v.length));
  const std::vector<bool> valid = Validity(v);
  for (int64_t i = 0; i < v.length; ++i) {
    if (!valid[static_cast<size_t>(i)]) continue;
    double x = 0;
    switch (v.type.id()) {
      case TypeId::kInt64:
        x = static_cast<double>(arrow::Values<int64_t>(v)[i]);
        break;
      case TypeId::kUInt64:
        x = static_cast<double>(arrow::Values<uint64_t>(v)[i]);
        break;
      case TypeId::kFloat64:
        x = arrow::Values<double>(v)[i];
        break;
      default:
        return CannotTake(column, target, v.type);
    }
    out[static_cast<size_t>(i)] = static_cast<T>(x);
  }
  return arrow::MakeFixedArray(target, out, valid);
}

Result<arrow::ArrayPtr> TimestampsAs(const ArrayData& v, const DataType& target,
                                     std::string_view column) {
  if (v.type.id() != TypeId::kTimestamp) {
    return CannotTake(column, target, v.type);
  }
  const int64_t from = arrow::TimeUnitsPerSecond(v.type.unit()),
                to = arrow::TimeUnitsPerSecond(target.unit());
  std::vector<int64_t> out(static_cast<size_t>(v.length));
  const std::vector<bool> valid = Validity(v);
  for (int64_t i = 0; i < v.length; ++i) {
    if (!valid[static_cast<size_t>(i)]) continue;
    const int64_t x = arrow::Values<int64_t>(v)[i];
    if (to >= from) {
      const int64_t scale = to / from;
      if (x > std::numeric_limits<int64_t>::max() / scale ||
          x < std::numeric_limits<int64_t>::min() / scale) {
        return DoesNotFit(column, std::to_string(x), target);
      }
      out[static_cast<size_t>(i)] = x * scale;
    } else {
      const int64_t scale = from / to;  // toward negative infinity, as arrow's cast floors
      out[static_cast<size_t>(i)] = x >= 0 ? x / scale : -((-x + scale - 1) / scale);
    }
  }
  return arrow::MakeFixedArray(target, out, valid);
}

// A narrow integer or float value (an expression typed as DataFusion types it: Int32, Float32)
// widened to Int64 / UInt64 / Float64, the forms the conversions below take.
template <typename From, typename To>
Result<arrow::ArrayPtr> Widened(const ArrayData& v, const DataType& type) {
  std::vector<To> out(static_cast<size_t>(v.length));
  for (int64_t i = 0; i < v.length; ++i) {
    if constexpr (std::is_same_v<From, uint16_t> && std::is_same_v<To, double>) {
      out[static_cast<size_t>(i)] =
          static_cast<double>(arrow::HalfToFloat(arrow::Values<From>(v)[i]));
    } else {
      out[static_cast<size_t>(i)] = static_cast<To>(arrow::Values<From>(v)[i]);
    }
  }
  return arrow::MakeFixedArray(type, out, v.null_count ? Validity(v) : std::vector<bool>{});
}

Result<arrow::ArrayPtr> Widen(const arrow::ArrayPtr& value) {
  const ArrayData& v = *value;
  switch (v.type.id()) {
    case TypeId::kInt8:
      return Widened<int8_t, int64_t>(v, DataType::Int64());
    case TypeId::kInt16:
      return Widened<int16_t, int64_t>(v, DataType::Int64());
    case TypeId::kInt32:
      return Widened<int32_t, int64_t>(v, DataType::Int64());
    case TypeId::kUInt8:
      return Widened<uint8_t, int64_t>(v, DataType::Int64());
    case TypeId::kUInt16:
      return Widened<uint16_t, int64_t>(v, DataType::Int64());
    case TypeId::kUInt32:
      return Widened<uint32_t, int64_t>(v, DataType::Int64());
    case TypeId::kFloat16:
      return Widened<uint16_t, double>(v, DataType::Float64());
    case TypeId::kFloat32:
      return Widened<float, double>(v, DataType::Float64());
    default:
      return value;
  }
}

}  // namespace

Result<arrow::ArrayPtr> ToColumnType(const arrow::ArrayPtr& original, const DataType& target,
                                     std::string_view column) {
  if (original->type == target) return original;
  QV_ASSIGN_OR_RETURN(const arrow::ArrayPtr value, Widen(original));
  const ArrayData& v = *value;
  if (v.type == target) return value;
  if (v.type.id() == TypeId::kNull) return arrow::MakeNullArray(target, v.length);
  switch (target.id()) {
    case TypeId::kInt8:
      return IntegersAs<int8_t>(v, target, column);
    case TypeId::kInt16:
      return IntegersAs<int16_t>(v, target, column);
    case TypeId::kInt32:
      return IntegersAs<int32_t>(v, target, column);
    case TypeId::kInt64:
      return IntegersAs<int64_t>(v, target, column);
    case TypeId::kUInt8:
      return IntegersAs<uint8_t>(v, target, column);
    case TypeId::kUInt16:
      return IntegersAs<uint16_t>(v, target, column);
    case TypeId::kUInt32:
      return IntegersAs<uint32_t>(v, target, column);
    case TypeId::kUInt64:
      return IntegersAs<uint64_t>(v, target, column);
    case TypeId::kFloat32:
      return FloatsAs<float>(v, target, column);
    case TypeId::kFloat64:
      return FloatsAs<double>(v, target, column);
    case TypeId::kTimestamp:
      return TimestampsAs(v, target, column);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8: {
      if (v.type.id() != TypeId::kUtf8 && v.type.id() != TypeId::kLargeUtf8) break;
      std::vector<std::string> out(static_cast<size_t>(v.length));
      const std::vector<bool> valid = Validity(v);
      for (int64_t i = 0; i < v.length; ++i) {
        if (valid[static_cast<size_t>(i)]) out[static_cast<size_t>(i)] = arrow::BinaryValue(v, i);
      }
      return arrow::MakeBinaryArray(target, out, valid);
    }
    case TypeId::kBool:
    case TypeId::kDate32:
      break;  // only from the same type (handled above)
    default:
      return Status::Unsupported(
          fmt::format("column '{}' is {}: quiver does not compute values of that type from SQL "
                      "expressions yet (only NULL)",
                      column, target.ToString()));
  }
  return CannotTake(column, target, v.type);
}

}  // namespace quiver::query::internal
