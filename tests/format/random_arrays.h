// Seeded random Arrow schemas and data for property tests: every type the columnar model has,
// nested up to a depth, with random nullability and null density, short and (rarely) long
// strings, empty and null lists, dictionary columns.
#pragma once

#include <cstdint>
#include <random>

#include "arrow/record_batch.h"
#include "common/result.h"

namespace quiver::testing {

struct RandomDataOptions {
  int max_depth = 3;
  int max_fields = 6;
  double long_string_probability = 0.002;  // values of 300 B .. 40 KiB
};

class RandomArrays {
 public:
  RandomArrays(uint64_t seed, RandomDataOptions options = {}) : rng_(seed), options_(options) {}

  arrow::DataType Type(int depth = 0);
  arrow::Schema Schema();
  // `null_fraction` in [0, 1]; a non-nullable field gets no nulls at its own level.
  Result<arrow::ArrayPtr> Array(const arrow::DataType& type, int64_t length, double null_fraction,
                                bool nullable = true);
  Result<arrow::RecordBatch> Batch(std::shared_ptr<const arrow::Schema> schema, int64_t length);

  std::mt19937_64& rng() { return rng_; }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  double Unit() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

 private:
  std::vector<bool> Validity(int64_t length, double null_fraction, bool nullable);
  std::string RandomString(bool utf8);

  std::mt19937_64 rng_;
  RandomDataOptions options_;
  int next_name_ = 0;
};

}  // namespace quiver::testing
