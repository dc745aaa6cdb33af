#include "query/internal/sort_keys.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

namespace quiver::query::internal {

namespace {

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// IEEE totalOrder as a signed integer key (Rust's f64::total_cmp).
int64_t TotalOrderKey(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}

int CompareValues(const arrow::ArrayData& a, int64_t i, int64_t j) {
  switch (a.type.id()) {
    case arrow::TypeId::kBool:
      return Cmp(arrow::BoolValue(a, i), arrow::BoolValue(a, j));
    case arrow::TypeId::kInt8:
      return Cmp(arrow::Values<int8_t>(a)[i], arrow::Values<int8_t>(a)[j]);
    case arrow::TypeId::kInt16:
      return Cmp(arrow::Values<int16_t>(a)[i], arrow::Values<int16_t>(a)[j]);
    case arrow::TypeId::kInt32:
    case arrow::TypeId::kDate32:
      return Cmp(arrow::Values<int32_t>(a)[i], arrow::Values<int32_t>(a)[j]);
    case arrow::TypeId::kInt64:
    case arrow::TypeId::kTimestamp:
    case arrow::TypeId::kDate64:
      return Cmp(arrow::Values<int64_t>(a)[i], arrow::Values<int64_t>(a)[j]);
    case arrow::TypeId::kUInt8:
      return Cmp(arrow::Values<uint8_t>(a)[i], arrow::Values<uint8_t>(a)[j]);
    case arrow::TypeId::kUInt16:
      return Cmp(arrow::Values<uint16_t>(a)[i], arrow::Values<uint16_t>(a)[j]);
    case arrow::TypeId::kUInt32:
      return Cmp(arrow::Values<uint32_t>(a)[i], arrow::Values<uint32_t>(a)[j]);
    case arrow::TypeId::kUInt64:
      return Cmp(arrow::Values<uint64_t>(a)[i], arrow::Values<uint64_t>(a)[j]);
    case arrow::TypeId::kFloat32:
      return Cmp(TotalOrderKey(arrow::Values<float>(a)[i]),
                 TotalOrderKey(arrow::Values<float>(a)[j]));
    case arrow::TypeId::kFloat64:
      return Cmp(TotalOrderKey(arrow::Values<double>(a)[i]),
                 TotalOrderKey(arrow::Values<double>(a)[j]));
    case arrow::TypeId::kUtf8:
    case arrow::TypeId::kLargeUtf8:
    case arrow::TypeId::kBinary:
    case arrow::TypeId::kLargeBinary: {
      const int c = arrow::BinaryValue(a, i).compare(arrow::BinaryValue(a, j));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return 0;  // MakePlan refuses key types it cannot order
  }
}

}  // namespace

int CompareRows(const arrow::ArrayData& a, int64_t i, int64_t j, const SortKey& key) {
  const bool ni = arrow::IsNull(a, i), nj = arrow::IsNull(a, j);
  if (ni || nj) {
    if (ni && nj) return 0;
    return (ni == key.nulls_first) ? -1 : 1;
  }
  const int c = CompareValues(a, i, j);
  return key.ascending ? c : -c;
}

std::vector<uint64_t> SortOrder(const std::vector<arrow::ArrayPtr>& keys,
                                const std::vector<SortKey>& options) {
  const int64_t n = keys.empty() ? 0 : keys[0]->length;
  std::vector<uint64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint64_t x, uint64_t y) {
    for (size_t k = 0; k < keys.size(); ++k) {
      const int c =
          CompareRows(*keys[k], static_cast<int64_t>(x), static_cast<int64_t>(y), options[k]);
      if (c != 0) return c < 0;
    }
    return false;
  });
  return order;
}

}  // namespace quiver::query::internal
