// Property test of the Lance file writer and reader: seeded random schemas (every type, nested
// up to depth 3, random nullability) and random data (null densities, runs, small values, long
// strings) are written with random page sizes and compression on or off, then read back whole,
// by projection and by random row ranges in random batch sizes, and must equal what was written.
//
// QUIVER_PROPERTY_CASES sets the number of cases (default 400; CTest passes 3000, 300 under
// sanitizers), QUIVER_PROPERTY_SEED the first
// seed (default: fixed, so CI runs are reproducible); a failure prints the seed to rerun.
#include <cstdlib>

#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "format/arrow_schema.h"
#include "format/lance_file_reader.h"
#include "format/lance_file_writer.h"
#include "format_test_util.h"
#include "random_arrays.h"
#include "store/memory_store.h"

namespace quiver {
namespace {

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

// One case; returns a description of the first failure, or "".
std::string RunCase(uint64_t seed) {
  testing::RandomArrays gen(seed);
  auto schema = std::make_shared<const arrow::Schema>(gen.Schema());
  auto lance = format::FromArrowSchema(*schema);
  if (!lance.ok()) return "FromArrowSchema: " + lance.status().ToString();
  // Round-trip the schema through Lance's logical types.
  auto back = format::ToArrowSchema(*lance);
  if (!back.ok() || !(*back == *schema)) return "schema does not round-trip: " + schema->ToString();

  const int64_t rows = gen.Unit() < 0.05 ? 0 : gen.Uniform(1, gen.Unit() < 0.8 ? 600 : 5000);
  std::vector<arrow::RecordBatch> batches;
  int64_t left = rows;
  while (left > 0 || batches.empty()) {
    const int64_t n = std::min(left, gen.Uniform(1, std::max<int64_t>(1, rows)));
    auto batch = gen.Batch(schema, n);
    if (!batch.ok()) return "generator: " + batch.status().ToString();
    batches.push_back(std::move(*batch));
    left -= n;
    if (rows == 0) break;
  }
  format::FileWriteOptions options;
  const uint64_t page_sizes[] = {256, 4096, 64 * 1024, 8u << 20};
  options.page_bytes = page_sizes[gen.Uniform(0, 3)];
  options.compress = gen.Unit() < 0.7;
  auto store = MemoryObjectStore::Create();
  auto writer = format::LanceFileWriter::Open(store, "f.lance", *lance, options);
  if (!writer.ok()) return "open writer: " + writer.status().ToString();
  for (const auto& b : batches) {
    Status s = (*writer)->Write(b);
    if (!s.ok()) return "write: " + s.ToString();
  }
  auto written = (*writer)->Finish();
  if (!written.ok()) return "finish: " + written.status().ToString();

  auto reader = format::LanceFileReader::Open(store, "f.lance");
  if (!reader.ok()) return "open reader: " + reader.status().ToString();
  if ((*reader)->num_rows() != static_cast<uint64_t>(rows)) return "row count differs";
  std::vector<arrow::ArrayPtr> expected;
  for (size_t c = 0; c < schema->fields.size(); ++c) {
    std::vector<arrow::ArrayPtr> parts;
    for (const auto& b : batches) parts.push_back(b.columns[c]);
    auto joined = arrow::Concatenate(parts);
    if (!joined.ok()) return "concatenate: " + joined.status().ToString();
    expected.push_back(*joined);
  }
  // Whole file.
  auto all = (*reader)->ReadAll();
  if (!all.ok()) return "read: " + all.status().ToString();
  for (size_t c = 0; c < expected.size(); ++c) {
    if (auto d = arrow::Diff(*all->columns[c], *expected[c])) {
      return "column " + schema->fields[c].name + " (" + schema->fields[c].type.ToString() +
             "): " + *d;
    }
  }
  if (rows == 0) return "";
  // A projection, row ranges and a batch size.
  format::ReadRequest request;
  std::vector<size_t> picked;
  for (size_t c = 0; c < schema->fields.size(); ++c) {
    if (gen.Unit() < 0.6) {
      picked.push_back(c);
      request.field_ids.push_back((*reader)->lance_schema().fields[c].id);
    }
  }
  if (picked.empty()) {
    picked.push_back(0);
    request.field_ids.push_back((*reader)->lance_schema().fields[0].id);
  }
  uint64_t at = 0;
  while (at < static_cast<uint64_t>(rows) && request.row_ranges.size() < 3) {
    const uint64_t begin = at + static_cast<uint64_t>(gen.Uniform(0, rows / 3));
    if (begin >= static_cast<uint64_t>(rows)) break;
    const uint64_t end =
        std::min<uint64_t>(rows, begin + static_cast<uint64_t>(gen.Uniform(1, rows / 2 + 1)));
    request.row_ranges.push_back({begin, end});
    at = end;
  }
  request.batch_rows = static_cast<uint32_t>(gen.Uniform(1, 1000));
  auto stream = (*reader)->Read(request);
  if (!stream.ok()) return "read ranges: " + stream.status().ToString();
  auto got = testing::CollectColumns(**stream);
  if (!got.ok()) return "read ranges: " + got.status().ToString();
  for (size_t k = 0; k < picked.size(); ++k) {
    std::vector<arrow::ArrayPtr> slices;
    for (const auto& [b, e] : request.row_ranges) {
      slices.push_back(
          arrow::Slice(expected[picked[k]], static_cast<int64_t>(b), static_cast<int64_t>(e - b)));
    }
    arrow::ArrayPtr want;
    if (slices.empty()) {
      want = *arrow::MakeNullArray(expected[picked[k]]->type, 0);
    } else {
      auto joined = arrow::Concatenate(slices);
      if (!joined.ok()) return "concatenate: " + joined.status().ToString();
      want = *joined;
    }
    if (auto d = arrow::Diff(*(*got)[k], *want)) {
      return "ranges, column " + schema->fields[picked[k]].name + ": " + *d;
    }
  }
  return "";
}

TEST(FileProperty, WrittenFilesReadBackEqual) {
  const uint64_t cases = EnvOr("QUIVER_PROPERTY_CASES", 400);
  const uint64_t first = EnvOr("QUIVER_PROPERTY_SEED", 20261129);
  int failures = 0;
  for (uint64_t i = 0; i < cases && failures < 5; ++i) {
    const std::string failure = RunCase(first + i);
    if (!failure.empty()) {
      ++failures;
      ADD_FAILURE() << "QUIVER_PROPERTY_SEED=" << first + i
                    << " QUIVER_PROPERTY_CASES=1: " << failure.substr(0, 2000);
    }
  }
}

}  // namespace
}  // namespace quiver
