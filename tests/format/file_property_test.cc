// Property test of the Lance file writer and reader: seeded random schemas (every type, nested
// up to depth 3, random nullability) and random data (null densities, runs, small values, long
// strings) are written with random page sizes and compression on or off, then read back whole,
// by projection and by random row ranges in random batch sizes, and must equal what was written.
// Three seeds in ten write Lance 2.0 files instead of 2.1; there structs have no validity, so a
// null struct must read back as a struct whose nullable members are null (writer20.h).
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

// `a` as a 2.0 file gives it back: structs without validity, a null struct (or one under a null
// struct, `mask`) making its nullable members null, recursively; list items start afresh.
Result<arrow::ArrayPtr> As20(const arrow::Field& field, const arrow::ArrayPtr& a,
                             const std::vector<bool>* mask) {
  auto valid = [&](int64_t i) {
    return (!field.nullable || arrow::IsValid(*a, i)) && (mask == nullptr || (*mask)[i]);
  };
  const arrow::TypeId id = a->type.id();
  if (id == arrow::TypeId::kStruct) {
    std::vector<bool> below(static_cast<size_t>(a->length));
    for (int64_t i = 0; i < a->length; ++i) below[i] = valid(i);
    auto out = std::make_shared<arrow::ArrayData>(*a);
    out->offset = 0;
    out->null_count = 0;
    out->buffers = {nullptr};
    for (size_t k = 0; k < out->children.size(); ++k) {
      QV_ASSIGN_OR_RETURN(
          out->children[k],
          As20(a->type.children()[k], arrow::StructField(*a, static_cast<int>(k)), &below));
    }
    return arrow::ArrayPtr(std::move(out));
  }
  auto out = std::make_shared<arrow::ArrayData>(*a);
  if (id == arrow::TypeId::kList || id == arrow::TypeId::kLargeList) {
    QV_ASSIGN_OR_RETURN(out->children[0], As20(a->type.item(), a->children[0], nullptr));
  }
  if (mask != nullptr && field.nullable && id != arrow::TypeId::kNull) {
    std::vector<bool> bits(static_cast<size_t>(a->offset + a->length), true);
    for (int64_t i = 0; i < a->length; ++i) bits[static_cast<size_t>(a->offset + i)] = valid(i);
    int64_t nulls = 0;
    QV_ASSIGN_OR_RETURN(out->buffers[0], arrow::MakeValidity(bits, &nulls));
    out->null_count = nulls;  // the offset's leading bits are all set
  }
  return arrow::ArrayPtr(std::move(out));
}

// One case; returns a description of the first failure, or "".
std::string RunCase(uint64_t seed) {
  const bool v20 = seed % 10 < 3;
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
    // A 2.0 file cannot hold a null struct (the writer refuses one, as Lance 12 does): 2.0
    // cases write their structs' nulls pushed down into the members.
    for (size_t c = 0; v20 && c < batch->columns.size(); ++c) {
      auto pushed = As20(schema->fields[c], batch->columns[c], nullptr);
      if (!pushed.ok()) return "As20: " + pushed.status().ToString();
      batch->columns[c] = *pushed;
    }
    batches.push_back(std::move(*batch));
    left -= n;
    if (rows == 0) break;
  }
  format::FileWriteOptions options;
  const uint64_t page_sizes[] = {256, 4096, 64 * 1024, 8u << 20};
  options.page_bytes = page_sizes[gen.Uniform(0, 3)];
  options.compress = gen.Unit() < 0.7;
  if (v20) options.version = format::FileVersion::kV2_0;
  auto store = MemoryObjectStore::Create();
  auto writer = format::LanceFileWriter::Open(store, "f.lance", *lance, options);
  if (!writer.ok()) return "open writer: " + writer.status().ToString();
  for (const auto& b : batches) {
    Status s = (*writer)->Write(b);
    if (!s.ok()) return "write: " + s.ToString();
  }
  auto written = (*writer)->Finish();
  if (!written.ok()) return "finish: " + written.status().ToString();
  if (written->major != 2 || written->minor != (v20 ? 0u : 1u)) return "DataFile version differs";

  auto reader = format::LanceFileReader::Open(store, "f.lance");
  if (!reader.ok()) return "open reader: " + reader.status().ToString();
  if ((*reader)->num_rows() != static_cast<uint64_t>(rows)) return "row count differs";
  if ((*reader)->version() != (v20 ? format::FileVersion::kV2_0 : format::FileVersion::kV2_1)) {
    return "file version differs";
  }
  std::vector<arrow::ArrayPtr> expected;
  for (size_t c = 0; c < schema->fields.size(); ++c) {
    std::vector<arrow::ArrayPtr> parts;
    for (const auto& b : batches) parts.push_back(b.columns[c]);
    auto joined = arrow::Concatenate(parts);
    if (!joined.ok()) return "concatenate: " + joined.status().ToString();
    if (v20) {
      joined = As20(schema->fields[c], *joined, nullptr);
      if (!joined.ok()) return "As20: " + joined.status().ToString();
    }
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
