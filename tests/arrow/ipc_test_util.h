// Test helpers for the Arrow IPC tests: deterministic random arrays of any type, the schema
// with every type quiver supports, and batches built from them.
//
// Thread-safety: not thread-safe (the generator carries state).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "must.h"

namespace quiver::arrow::testing {

// Random valid arrays. Nullable fields get nulls with probability `null_probability`; values
// include edge cases (NaN, -0.0, empty strings and lists, min/max integers).
class RandomArrays {
 public:
  explicit RandomArrays(uint64_t seed, double null_probability = 0.2)
      : rng_(seed), null_probability_(null_probability) {}

  // When set, dictionary columns reuse one dictionary per dictionary type (IPC files hold one
  // dictionary per field), instead of drawing a new one each time.
  void set_share_dictionaries(bool share) { share_dictionaries_ = share; }

  ArrayPtr Make(const DataType& type, int64_t length, bool nullable = true);
  RecordBatch MakeBatch(const std::shared_ptr<const Schema>& schema, int64_t length);

 private:
  std::vector<bool> Validity(int64_t length, bool nullable);
  std::string RandomString(bool utf8, size_t max_length);
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  std::mt19937_64 rng_;
  double null_probability_;
  bool share_dictionaries_ = false;
  std::map<std::string, ArrayPtr> dictionaries_;
};

// One field of every type in arrow/type.h, including nested and dictionary-encoded ones,
// with field and schema metadata.
std::shared_ptr<const Schema> EveryTypeSchema();

// The same batch with every column sliced to rows [offset, offset + length).
RecordBatch SliceBatch(const RecordBatch& batch, int64_t offset, int64_t length);

}  // namespace quiver::arrow::testing
