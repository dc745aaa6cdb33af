// Vector distances as Lance computes them for exact (flat) search: squared L2, cosine
// (1 - cos θ), dot (1 - x·y) and hamming (differing bits of uint8 vectors), from one query vector
// to every row of a fixed-size-list column of float16, float32, float64 or uint8.
//
// Results are float32, as Lance's `_distance` column is. float32 and float16 vectors are summed
// in float32 (eight independent lanes, as SIMD does; float16 widened exactly first), float64
// vectors in float64 and then narrowed. A null vector, or a distance that is NaN (a NaN element,
// a zero vector under cosine), yields NaN: the search drops those rows, as Lance does.
//
// Thread-safety: pure functions; a PreparedQuery is immutable once built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"

namespace quiver::query {

enum class DistanceType { kL2, kCosine, kDot, kHamming };

// "l2" (also "euclidean"), "cosine", "dot", "hamming", case-insensitive; InvalidInput otherwise.
Result<DistanceType> ParseDistanceType(std::string_view name);
const char* DistanceTypeName(DistanceType type);

// Whether `type` is a column exact search can run over: a fixed-size list of float16, float32,
// float64 or uint8.
bool IsVectorType(const arrow::DataType& type);

// A query vector converted once to the column's element type, with what the kernels reuse.
struct PreparedQuery {
  arrow::TypeId element = arrow::TypeId::kFloat32;
  int32_t dim = 0;
  DistanceType distance = DistanceType::kL2;
  std::vector<float> f32;   // float16 and float32 columns
  std::vector<double> f64;  // float64 columns
  std::vector<uint8_t> u8;  // uint8 columns (hamming only)
  double norm = 0;          // |q|, for cosine
};

// Checks the pairing Lance checks (hamming needs uint8 vectors and uint8 vectors need hamming;
// the query's length must be the column's dimension) with Lance's wording, and converts the
// values.
Result<PreparedQuery> PrepareQuery(const std::vector<double>& values,
                                   const arrow::DataType& column_type, std::string_view column,
                                   DistanceType distance);

// out[i] = the distance from `query` to row i of `vectors`, for i in [0, vectors.length), NaN
// for a null row. REQUIRES: vectors is a valid array of the type PrepareQuery was given.
void ComputeDistances(const arrow::ArrayData& vectors, const PreparedQuery& query, float* out);

}  // namespace quiver::query
