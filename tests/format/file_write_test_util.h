// Helpers for tests that write a Lance file into a memory store and look at it: write columns
// (or a schema with field metadata) in batches, read the file back whole and in row ranges
// comparing every column, and parse the column metadata, page layouts and mini-block chunk
// words the writer produced.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "format/arrow_schema.h"
#include "format/lance_file_reader.h"
#include "format/lance_file_writer.h"
#include "format/proto/encodings21.pb.h"
#include "format/proto/file2.pb.h"
#include "format_test_util.h"
#include "store/memory_store.h"

namespace quiver::testing {

using arrow::ArrayPtr;

struct Written {
  std::shared_ptr<ObjectStore> store;
  std::shared_ptr<const arrow::Schema> schema;
  std::vector<ArrayPtr> columns;
  format::FileWriteResult result;
};

// Writes `columns` under `schema` (its field metadata reaches the Lance schema) as one file, in
// batches of `batch_rows`; `result` gets what Finish answered.
inline Written WriteFileWithSchema(std::shared_ptr<const arrow::Schema> schema,
                                   std::vector<ArrayPtr> columns,
                                   const format::FileWriteOptions& options = {},
                                   int64_t batch_rows = INT64_MAX) {
  Written w;
  w.store = MemoryObjectStore::Create();
  w.schema = schema;
  w.columns = std::move(columns);
  auto lance = format::FromArrowSchema(*schema);
  EXPECT_TRUE(lance.ok()) << lance.status().ToString();
  auto writer = format::LanceFileWriter::Open(w.store, "f.lance", *lance, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  const int64_t n = w.columns.empty() ? 0 : w.columns[0]->length;
  for (int64_t at = 0; at < n; at += batch_rows) {
    arrow::RecordBatch batch;
    batch.schema = schema;
    batch.length = std::min(batch_rows, n - at);
    for (const auto& c : w.columns) batch.columns.push_back(arrow::Slice(c, at, batch.length));
    Status s = (*writer)->Write(batch);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto finished = (*writer)->Finish();
  EXPECT_TRUE(finished.ok()) << finished.status().ToString();
  if (finished.ok()) w.result = *finished;
  return w;
}

// Writes `columns` (named c0, c1, ...) as one file, in batches of `batch_rows`.
inline Written WriteFile(std::vector<ArrayPtr> columns,
                         const format::FileWriteOptions& options = {},
                         int64_t batch_rows = INT64_MAX) {
  auto schema = std::make_shared<arrow::Schema>();
  for (size_t c = 0; c < columns.size(); ++c) {
    schema->fields.emplace_back("c" + std::to_string(c), columns[c]->type, true);
  }
  return WriteFileWithSchema(schema, std::move(columns), options, batch_rows);
}

// Reads the file back whole and in a few row ranges, in each of `batch_sizes`; every column must
// equal what was written.
inline void ExpectReadsBack(const Written& w, std::vector<uint32_t> batch_sizes = {1, 7, 1000}) {
  auto reader = format::LanceFileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  for (size_t c = 0; c < w.columns.size(); ++c) {
    auto d = arrow::Diff(*all->columns[c], *w.columns[c]);
    EXPECT_FALSE(d.has_value()) << "column " << c << ": " << *d;
  }
  const uint64_t n = static_cast<uint64_t>(w.columns[0]->length);
  for (uint32_t batch_rows : batch_sizes) {
    format::ReadRequest request;
    request.batch_rows = batch_rows;
    request.row_ranges = {{0, 1}, {n / 3, n / 3 + 1}, {n / 2, n}};
    if (n < 6) request.row_ranges = {{0, n}};
    auto stream = (*reader)->Read(request);
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    auto got = testing::CollectColumns(**stream);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (size_t c = 0; c < w.columns.size(); ++c) {
      std::vector<ArrayPtr> parts;
      for (const auto& [b, e] : request.row_ranges) {
        parts.push_back(
            arrow::Slice(w.columns[c], static_cast<int64_t>(b), static_cast<int64_t>(e - b)));
      }
      auto want = arrow::Concatenate(parts);
      ASSERT_TRUE(want.ok());
      auto d = arrow::Diff(*(*got)[c], **want);
      EXPECT_FALSE(d.has_value()) << "column " << c << ", batches of " << batch_rows << ": " << *d;
    }
  }
}

// The metadata of column `column` (pages with their buffer positions and encodings).
inline lance::file::v2::ColumnMetadata ColumnMeta(const Written& w, size_t column) {
  lance::file::v2::ColumnMetadata meta;
  auto bytes = w.store->Get("f.lance");
  EXPECT_TRUE(bytes.ok());
  if (!bytes.ok()) return meta;
  const std::string& file = bytes->data;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, file.data() + at, 8);
    return v;
  };
  const size_t footer = file.size() - 40;
  const uint64_t cmo = u64(footer + 8);  // footer: column metadata start, CMO table, ...
  EXPECT_TRUE(meta.ParseFromArray(file.data() + u64(cmo + 16 * column),
                                  static_cast<int>(u64(cmo + 16 * column + 8))));
  return meta;
}

// The PageLayout of every page of column `column` (parsed from the file's column metadata).
inline std::vector<lance::encodings21::PageLayout> PageLayouts(const Written& w, size_t column) {
  std::vector<lance::encodings21::PageLayout> out;
  const lance::file::v2::ColumnMetadata meta = ColumnMeta(w, column);
  for (const auto& page : meta.pages()) {
    lance::file::v2::AnyBytes any;
    EXPECT_TRUE(any.ParseFromString(page.encoding().direct().encoding()));
    lance::encodings21::PageLayout layout;
    EXPECT_TRUE(layout.ParseFromString(any.value()));
    out.push_back(std::move(layout));
  }
  return out;
}

// Chunk sizes (bytes) and value counts (log2; 0 = the last chunk) of every mini-block page of
// `column`, from the chunk metadata words (page buffer 0).
struct ChunkWord {
  uint64_t bytes = 0;
  uint32_t log_values = 0;
  bool last = false;
};
inline std::vector<ChunkWord> ChunkWords(const Written& w, size_t column) {
  std::vector<ChunkWord> out;
  auto bytes = w.store->Get("f.lance");
  if (!bytes.ok()) return out;
  const lance::file::v2::ColumnMetadata meta = ColumnMeta(w, column);
  const std::vector<lance::encodings21::PageLayout> layouts = PageLayouts(w, column);
  for (int p = 0; p < meta.pages_size(); ++p) {
    if (!layouts[static_cast<size_t>(p)].has_mini_block_layout()) continue;
    const bool large = layouts[static_cast<size_t>(p)].mini_block_layout().has_large_chunk();
    const auto& page = meta.pages(p);
    const char* at = bytes->data.data() + page.buffer_offsets(0);
    const uint64_t words = page.buffer_sizes(0) / (large ? 4 : 2);
    for (uint64_t k = 0; k < words; ++k) {
      uint32_t word = 0;
      std::memcpy(&word, at + k * (large ? 4 : 2), large ? 4 : 2);
      out.push_back({((word >> 4) + 1) * uint64_t{8}, word & 15, k + 1 == words});
    }
  }
  return out;
}

}  // namespace quiver::testing
