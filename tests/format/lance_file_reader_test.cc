// LanceFileReader's page handling: zero-copy full-zip pages must stay intact when the reader
// reuses its page buffers while the consumer still holds earlier batches, and a scan's memory
// (the MemoryPool it is given) stays bounded by a few pages whatever the file's size.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "format/arrow_schema.h"
#include "format/lance_file_reader.h"
#include "format/lance_file_writer.h"
#include "store/local_store.h"
#include "store/memory_store.h"

namespace quiver {
namespace {

constexpr int32_t kDims = 128;  // 512-byte vectors: Lance stores them full-zip

arrow::Schema VectorSchema() {
  arrow::Schema schema;
  schema.fields.push_back(arrow::Field("id", arrow::DataType::Int64(), false));
  schema.fields.push_back(arrow::Field("s", arrow::DataType::Utf8()));
  schema.fields.push_back(arrow::Field(
      "v", arrow::DataType::FixedSizeList(arrow::Field("item", arrow::DataType::Float32()), kDims),
      false));
  return schema;
}

// Rows [first, first + n): id = row, s = a varying string (null every 7th), v = row-derived.
arrow::RecordBatch MakeBatch(const std::shared_ptr<const arrow::Schema>& schema, int64_t first,
                             int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::string> strings;
  std::vector<bool> valid;
  std::vector<float> floats;
  std::mt19937_64 rng(static_cast<uint64_t>(first));
  for (int64_t r = first; r < first + n; ++r) {
    ids.push_back(r);
    strings.push_back("row-" + std::to_string(r) + std::string(rng() % 40, 'x'));
    valid.push_back(r % 7 != 0);
    for (int32_t d = 0; d < kDims; ++d) floats.push_back(static_cast<float>(r) + d * 0.5f);
  }
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = n;
  batch.columns.push_back(*arrow::MakeFixedArray(arrow::DataType::Int64(), ids));
  batch.columns.push_back(*arrow::MakeBinaryArray(arrow::DataType::Utf8(), strings, valid));
  auto items = *arrow::MakeFixedArray(arrow::DataType::Float32(), floats);
  batch.columns.push_back(
      *arrow::MakeFixedSizeListArray(schema->fields[2].type, n, std::move(items)));
  return batch;
}

// Writes `rows` rows in batches of 1,000 with small pages (many pages per column).
std::vector<arrow::RecordBatch> WriteFile(const std::shared_ptr<ObjectStore>& store, int64_t rows,
                                          uint64_t page_bytes) {
  auto schema = std::make_shared<const arrow::Schema>(VectorSchema());
  auto lance = format::FromArrowSchema(*schema);
  EXPECT_TRUE(lance.ok()) << lance.status().ToString();
  format::FileWriteOptions options;
  options.page_bytes = page_bytes;
  auto writer = format::LanceFileWriter::Open(store, "f.lance", *lance, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<arrow::RecordBatch> batches;
  for (int64_t at = 0; at < rows; at += 1000) {
    batches.push_back(MakeBatch(schema, at, std::min<int64_t>(1000, rows - at)));
    EXPECT_TRUE((*writer)->Write(batches.back()).ok());
  }
  EXPECT_TRUE((*writer)->Finish().ok());
  return batches;
}

// Opens `key` with `pool` and drains it in batches of `batch_rows`, calling check(batch, rows
// before it) on each; returns the rows read.
Result<int64_t> Drain(const std::shared_ptr<ObjectStore>& store, const std::string& key,
                      arrow::MemoryPool* pool, uint32_t batch_rows,
                      const std::function<void(const arrow::RecordBatch&, int64_t)>& check) {
  format::FileReadOptions options;
  options.pool = pool;
  QV_ASSIGN_OR_RETURN(auto reader, format::LanceFileReader::Open(store, key, options));
  format::ReadRequest request;
  request.batch_rows = batch_rows;
  QV_ASSIGN_OR_RETURN(auto stream, reader->Read(request));
  int64_t rows = 0;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    check(*batch, rows);
    rows += batch->length;
  }
  return rows;
}

// Checks that the vector of a batch's last row is the one written for that row.
void ExpectLastVector(const arrow::RecordBatch& batch, int64_t first_row) {
  const arrow::ArrayData& list = *batch.columns[2];
  const arrow::ArrayData& items = *list.children[0];
  const int64_t last_item = items.offset + (list.offset + list.length) * kDims - 1;
  const float last = reinterpret_cast<const float*>(items.buffers[1]->data())[last_item];
  EXPECT_EQ(last, static_cast<float>(first_row + batch.length - 1) + (kDims - 1) * 0.5f);
}

TEST(LanceFileReader, HeldBatchesSurvivePageBufferReuse) {
  auto store = MemoryObjectStore::Create();
  const auto written = WriteFile(store, 20000, 64 * 1024);  // ~128 vectors per page
  auto reader = format::LanceFileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  format::ReadRequest request;
  request.batch_rows = 333;  // batches straddle pages
  auto stream = (*reader)->Read(request);
  ASSERT_TRUE(stream.ok());
  // Keep every batch until the scan is over: buffers they alias must not be reused under them.
  std::vector<arrow::RecordBatch> held;
  while (true) {
    auto batch = (*stream)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    held.push_back(std::move(**batch));
  }
  for (size_t c = 0; c < 3; ++c) {
    std::vector<arrow::ArrayPtr> got, want;
    for (const auto& b : held) got.push_back(b.columns[c]);
    for (const auto& b : written) want.push_back(b.columns[c]);
    auto g = arrow::Concatenate(got);
    auto w = arrow::Concatenate(want);
    ASSERT_TRUE(g.ok() && w.ok());
    EXPECT_EQ(arrow::Diff(**g, **w), std::nullopt) << "column " << c;
  }
}

TEST(LanceFileReader, DroppedBatchesLetPageBuffersBeReused) {
  // Consumers that drop each batch before the next keep the reader at a few page buffers: the
  // pool's peak stays far below the file's size.
  auto store = MemoryObjectStore::Create();
  WriteFile(store, 30000, 256 * 1024);  // ~16 MB of vectors in ~64 pages
  arrow::MemoryPool pool;
  auto rows = Drain(store, "f.lance", &pool, 500, ExpectLastVector);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, 30000);
  EXPECT_LT(pool.peak(), uint64_t{4} << 20) << "peak " << pool.peak();
}

TEST(LanceFileReader, ScanWithinAPoolLimitAndClearErrorBelowIt) {
  auto store = MemoryObjectStore::Create();
  WriteFile(store, 30000, 256 * 1024);
  {
    arrow::MemoryPool pool(4ull << 20);  // a quarter of the file: a few pages and a batch
    auto rows = Drain(store, "f.lance", &pool, 500, ExpectLastVector);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, 30000);
    EXPECT_LE(pool.peak(), pool.limit());
  }
  {
    arrow::MemoryPool pool(64 * 1024);  // smaller than one page
    format::FileReadOptions options;
    options.pool = &pool;
    auto reader = format::LanceFileReader::Open(store, "f.lance", options);
    ASSERT_TRUE(reader.ok());
    auto stream = (*reader)->Read({});
    ASSERT_TRUE(stream.ok());
    auto batch = (*stream)->Next();
    ASSERT_FALSE(batch.ok());
    EXPECT_NE(batch.status().ToString().find("memory limit"), std::string::npos)
        << batch.status().ToString();
    stream->reset();                        // drops the page buffers the cursors keep for reuse
    EXPECT_EQ(pool.bytes_allocated(), 0u);  // nothing leaked on the error path
  }
}

TEST(LanceFileReader, ScansAFileFarLargerThanItsPool) {
  // The plan's bounded-memory check at test scale: a file 32x the pool's limit (256 MiB by
  // default; QUIVER_BIG_SCAN_MB raises it, e.g. 2048) on the local disk, scanned whole through
  // an 8 MiB pool, with every value checked as it streams past.
  const char* env = std::getenv("QUIVER_BIG_SCAN_MB");
  const uint64_t target_bytes = (env != nullptr ? std::strtoull(env, nullptr, 10) : 256) << 20;
  const auto dir =
      std::filesystem::temp_directory_path() / ("quiver_big_scan_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto store = LocalObjectStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const int64_t rows = static_cast<int64_t>(target_bytes / (kDims * 4 + 8 + 40));
  {
    auto schema = std::make_shared<const arrow::Schema>(VectorSchema());
    auto lance = format::FromArrowSchema(*schema);
    ASSERT_TRUE(lance.ok());
    format::FileWriteOptions options;
    options.page_bytes = 1 << 20;
    auto writer = format::LanceFileWriter::Open(*store, "big.lance", *lance, options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (int64_t at = 0; at < rows; at += 4096) {
      ASSERT_TRUE((*writer)->Write(MakeBatch(schema, at, std::min<int64_t>(4096, rows - at))).ok());
    }
    auto written = (*writer)->Finish();
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_GE(written->size, target_bytes * 9 / 10);
  }
  arrow::MemoryPool pool(8ull << 20);
  auto seen =
      Drain(*store, "big.lance", &pool, 1024, [](const arrow::RecordBatch& batch, int64_t first) {
        const auto& ids = *batch.columns[0];
        const auto* id = reinterpret_cast<const int64_t*>(ids.buffers[1]->data()) + ids.offset;
        ASSERT_EQ(id[0], first);
        ASSERT_EQ(id[ids.length - 1], first + ids.length - 1);
        ExpectLastVector(batch, first);
      });
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_EQ(*seen, rows);
  EXPECT_LE(pool.peak(), pool.limit());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quiver
