// Distance kernels (distance.h). The float kernels keep eight partial sums so that GCC
// vectorizes them at -O2/-O3 without -ffast-math (a single accumulator is a serial dependency
// it may not reorder); on x86-64 each is also compiled for AVX2 and picked at load time.
#include "query/distance.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "common/strings.h"

namespace quiver::query {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define QV_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define QV_MULTIVERSION
#endif

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int kLanes = 8;

struct Sums {
  float dot = 0;
  float xx = 0;  // the row's squared norm (cosine)
};

QV_MULTIVERSION float L2F32(const float* x, const float* q, int32_t n) {
  float acc[kLanes] = {};
  int32_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[i + l] - q[i + l];
      acc[l] += d * d;
    }
  }
  float sum = 0;
  for (int l = 0; l < kLanes; ++l) sum += acc[l];
  for (; i < n; ++i) sum += (x[i] - q[i]) * (x[i] - q[i]);
  return sum;
}

QV_MULTIVERSION float DotF32(const float* x, const float* q, int32_t n) {
  float acc[kLanes] = {};
  int32_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l] * q[i + l];
  }
  float sum = 0;
  for (int l = 0; l < kLanes; ++l) sum += acc[l];
  for (; i < n; ++i) sum += x[i] * q[i];
  return sum;
}

QV_MULTIVERSION Sums CosF32(const float* x, const float* q, int32_t n) {
  float dot[kLanes] = {};
  float xx[kLanes] = {};
  int32_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      dot[l] += x[i + l] * q[i + l];
      xx[l] += x[i + l] * x[i + l];
    }
  }
  Sums s;
  for (int l = 0; l < kLanes; ++l) {
    s.dot += dot[l];
    s.xx += xx[l];
  }
  for (; i < n; ++i) {
    s.dot += x[i] * q[i];
    s.xx += x[i] * x[i];
  }
  return s;
}

float FinishF32(DistanceType type, const float* x, const PreparedQuery& q) {
  switch (type) {
    case DistanceType::kL2:
      return L2F32(x, q.f32.data(), q.dim);
    case DistanceType::kDot:
      return 1.0f - DotF32(x, q.f32.data(), q.dim);
    case DistanceType::kCosine: {
      const Sums s = CosF32(x, q.f32.data(), q.dim);
      const float denom = std::sqrt(s.xx) * static_cast<float>(q.norm);
      return 1.0f - s.dot / denom;  // a zero vector: 0/0 = NaN, dropped
    }
    case DistanceType::kHamming:
      break;
  }
  return kNaN;
}

float DistanceF64(DistanceType type, const double* x, const PreparedQuery& q) {
  double dot = 0, xx = 0, l2 = 0;
  for (int32_t i = 0; i < q.dim; ++i) {
    const double d = x[i] - q.f64[static_cast<size_t>(i)];
    l2 += d * d;
    dot += x[i] * q.f64[static_cast<size_t>(i)];
    xx += x[i] * x[i];
  }
  switch (type) {
    case DistanceType::kL2:
      return static_cast<float>(l2);
    case DistanceType::kDot:
      return static_cast<float>(1.0 - dot);
    case DistanceType::kCosine:
      return static_cast<float>(1.0 - dot / (std::sqrt(xx) * q.norm));
    case DistanceType::kHamming:
      break;
  }
  return kNaN;
}

uint32_t Hamming(const uint8_t* x, const uint8_t* q, int32_t n) {
  uint32_t bits = 0;
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, q + i, 8);
    bits += static_cast<uint32_t>(std::popcount(a ^ b));
  }
  for (; i < n; ++i)
    bits += static_cast<uint32_t>(std::popcount(static_cast<unsigned>(x[i] ^ q[i])));
  return bits;
}

}  // namespace

Result<DistanceType> ParseDistanceType(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "l2" || lower == "euclidean") return DistanceType::kL2;
  if (lower == "cosine") return DistanceType::kCosine;
  if (lower == "dot") return DistanceType::kDot;
  if (lower == "hamming") return DistanceType::kHamming;
  return Status::InvalidInput(
      fmt::format("unknown distance type '{}': expected one of l2, cosine, dot, hamming", name));
}

const char* DistanceTypeName(DistanceType type) {
  switch (type) {
    case DistanceType::kL2:
      return "l2";
    case DistanceType::kCosine:
      return "cosine";
    case DistanceType::kDot:
      return "dot";
    case DistanceType::kHamming:
      return "hamming";
  }
  return "?";
}

bool IsVectorType(const arrow::DataType& type) {
  if (type.id() != arrow::TypeId::kFixedSizeList) return false;
  switch (type.item().type.id()) {
    case arrow::TypeId::kFloat16:
    case arrow::TypeId::kFloat32:
    case arrow::TypeId::kFloat64:
    case arrow::TypeId::kUInt8:
      return true;
    default:
      return false;
  }
}

Result<PreparedQuery> PrepareQuery(const std::vector<double>& values,
                                   const arrow::DataType& column_type, std::string_view column,
                                   DistanceType distance) {
  if (!IsVectorType(column_type)) {
    return Status::InvalidInput(fmt::format(
        "column '{}' is {}, not a vector column (a fixed-size list of float16, float32, "
        "float64 or uint8)",
        column, column_type.ToString()));
  }
  PreparedQuery q;
  q.element = column_type.item().type.id();
  q.dim = column_type.list_size();
  q.distance = distance;
  if (distance == DistanceType::kHamming && q.element != arrow::TypeId::kUInt8) {
    // Lance's words (lance-index vector utils).
    return Status::InvalidInput(fmt::format("Distance type hamming does not support {} vectors",
                                            q.element == arrow::TypeId::kFloat16   ? "Float16"
                                            : q.element == arrow::TypeId::kFloat32 ? "Float32"
                                                                                   : "Float64"));
  }
  if (distance != DistanceType::kHamming && q.element == arrow::TypeId::kUInt8) {
    return Status::InvalidInput(
        fmt::format("Distance type {} does not support UInt8 vectors", DistanceTypeName(distance)));
  }
  if (values.size() != static_cast<size_t>(q.dim)) {
    return Status::InvalidInput(fmt::format(
        "query dim({}) doesn't match the column {} vector dim({})", values.size(), column, q.dim));
  }
  double norm = 0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      return Status::InvalidInput(
          fmt::format("the query vector for column {} holds a value that is not finite", column));
    }
  }
  if (q.element == arrow::TypeId::kFloat64) {
    q.f64 = values;
    for (double v : values) norm += v * v;
  } else if (q.element == arrow::TypeId::kUInt8) {
    for (double v : values) {
      if (v < 0 || v > 255 || v != std::floor(v)) {
        return Status::InvalidInput(fmt::format(
            "a hamming query over uint8 column {} needs integers 0..255, got {}", column, v));
      }
      q.u8.push_back(static_cast<uint8_t>(v));
    }
  } else {
    for (double v : values) {
      const float f = static_cast<float>(v);
      q.f32.push_back(f);
      norm += static_cast<double>(f) * f;
    }
  }
  q.norm = std::sqrt(norm);
  return q;
}

void ComputeDistances(const arrow::ArrayData& vectors, const PreparedQuery& q, float* out) {
  const int64_t n = vectors.length;
  const arrow::ArrayData& items = *vectors.children[0];
  const int64_t base = (vectors.offset) * q.dim + items.offset;
  const auto* raw = items.buffers[1]->data();
  std::vector<float> widened;  // one float16 row as float32
  if (q.element == arrow::TypeId::kFloat16) widened.resize(static_cast<size_t>(q.dim));
  for (int64_t r = 0; r < n; ++r) {
    if (arrow::IsNull(vectors, r)) {
      out[r] = kNaN;
      continue;
    }
    const int64_t at = base + r * q.dim;
    switch (q.element) {
      case arrow::TypeId::kFloat32:
        out[r] = FinishF32(q.distance, reinterpret_cast<const float*>(raw) + at, q);
        break;
      case arrow::TypeId::kFloat64:
        out[r] = DistanceF64(q.distance, reinterpret_cast<const double*>(raw) + at, q);
        break;
      case arrow::TypeId::kFloat16: {
        const auto* h = reinterpret_cast<const uint16_t*>(raw) + at;
        for (int32_t i = 0; i < q.dim; ++i)
          widened[static_cast<size_t>(i)] = arrow::HalfToFloat(h[i]);
        out[r] = FinishF32(q.distance, widened.data(), q);
        break;
      }
      case arrow::TypeId::kUInt8: {
        const auto* b = reinterpret_cast<const uint8_t*>(raw) + at;
        out[r] = static_cast<float>(Hamming(b, q.u8.data(), q.dim));
        break;
      }
      default:
        out[r] = kNaN;
    }
  }
}

}  // namespace quiver::query
