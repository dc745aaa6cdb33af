// table::WriteData: creating, appending to and overwriting datasets through the commit protocol,
// read back with table::Scan.
#include <thread>

#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "format/lance_file_reader.h"
#include "format/lance_proto.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/scan.h"
#include "table/write.h"

namespace quiver::table {
namespace {

std::shared_ptr<const arrow::Schema> IdNameSchema() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  schema->fields.emplace_back("name", arrow::DataType::Utf8(), true);
  return schema;
}

arrow::RecordBatch Batch(int64_t first, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(first + i);
    names.push_back("row " + std::to_string(first + i));
  }
  arrow::RecordBatch batch;
  batch.schema = IdNameSchema();
  batch.length = n;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), names)};
  return batch;
}

Result<WriteResult> Write(const std::shared_ptr<ObjectStore>& root, WriteMode mode,
                          std::vector<arrow::RecordBatch> batches,
                          uint64_t rows_per_file = 1 << 20) {
  auto stream = arrow::MakeVectorStream(IdNameSchema(), std::move(batches));
  WriteOptions options;
  options.mode = mode;
  options.max_rows_per_file = rows_per_file;
  return WriteData(CommitTarget{root, std::nullopt}, *stream, options);
}

// The ids of the latest version, in scan order.
std::vector<int64_t> ScanIds(const std::shared_ptr<ObjectStore>& root) {
  auto dataset = Dataset::Open(root);
  EXPECT_TRUE(dataset.ok()) << dataset.status().ToString();
  if (!dataset.ok()) return {};
  auto stream = Scan(*dataset, ScanOptions{{"id"}});
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  std::vector<int64_t> ids;
  while (true) {
    auto batch = (*stream)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    const auto& column = *(*batch)->columns[0];
    for (int64_t i = 0; i < column.length; ++i) ids.push_back(arrow::Values<int64_t>(column)[i]);
  }
  return ids;
}

TEST(WriteData, CreateAppendOverwrite) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto created = Write(root, WriteMode::kCreate, {Batch(0, 10)});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->commit.version, 1u);
  EXPECT_EQ(created->rows, 10u);

  auto again = Write(root, WriteMode::kCreate, {Batch(0, 1)});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kTableAlreadyExists);

  auto appended = Write(root, WriteMode::kAppend, {Batch(10, 5), Batch(15, 5)});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->commit.version, 2u);
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 20; ++i) want.push_back(i);
  EXPECT_EQ(ScanIds(root), want);

  auto overwritten = Write(root, WriteMode::kOverwrite, {Batch(100, 3)});
  ASSERT_TRUE(overwritten.ok()) << overwritten.status().ToString();
  EXPECT_EQ(ScanIds(root), (std::vector<int64_t>{100, 101, 102}));
  // Fragment ids keep growing across the overwrite.
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok());
  EXPECT_GE((*dataset)->manifest().fragments(0).id(), 2u);
}

TEST(WriteData, AppendToMissingTableIsNotFound) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto r = Write(root, WriteMode::kAppend, {Batch(0, 1)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTableNotFound);
}

TEST(WriteData, FilesAreCutAtMaxRowsPerFile) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto r = Write(root, WriteMode::kCreate, {Batch(0, 25), Batch(25, 10)}, 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->fragments, 4u);
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok());
  ASSERT_EQ((*dataset)->manifest().fragments_size(), 4);
  EXPECT_EQ((*dataset)->manifest().fragments(3).physical_rows(), 5u);
  EXPECT_EQ(ScanIds(root).size(), 35u);
}

// max_bytes_per_file: a new data file starts once the written pages reach it (pages are cut at
// a quarter of the limit, 8 KiB per column here), and the rows read back whole and in order
// across the files.
TEST(WriteData, FilesAreCutAtMaxBytesPerFile) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  std::vector<arrow::RecordBatch> batches;
  for (int64_t b = 0; b < 40; ++b) batches.push_back(Batch(b * 500, 500));
  auto stream = arrow::MakeVectorStream(IdNameSchema(), std::move(batches));
  WriteOptions options;
  options.mode = WriteMode::kCreate;
  options.max_bytes_per_file = 32 * 1024;
  auto written = WriteData(CommitTarget{root, std::nullopt}, *stream, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->rows, 20'000u);
  EXPECT_GE(written->fragments, 3u);
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  const auto& fragments = (*dataset)->manifest().fragments();
  ASSERT_EQ(static_cast<uint64_t>(fragments.size()), written->fragments);
  for (int i = 0; i + 1 < fragments.size(); ++i) {
    // Every file but the last reached the limit, and went past it by less than a batch.
    EXPECT_GE(fragments[i].files(0).file_size_bytes(), options.max_bytes_per_file);
    EXPECT_LT(fragments[i].files(0).file_size_bytes(), 2 * options.max_bytes_per_file);
  }
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 20'000; ++i) want.push_back(i);
  EXPECT_EQ(ScanIds(root), want);

  // Zero is refused.
  auto none = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 1)});
  options.max_bytes_per_file = 0;
  auto refused = WriteData(CommitTarget{MemoryObjectStore::Create(), std::nullopt}, *none, options);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
}

// The byte limit holds inside one large batch too: it is written in parts of about a page, and
// the limit is checked after each part.
TEST(WriteData, OneLargeBatchIsCutAtMaxBytesPerFile) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 20'000)});
  WriteOptions options;
  options.mode = WriteMode::kCreate;
  options.max_bytes_per_file = 32 * 1024;
  auto written = WriteData(CommitTarget{root, std::nullopt}, *stream, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->rows, 20'000u);
  EXPECT_GE(written->fragments, 3u);
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  const auto& fragments = (*dataset)->manifest().fragments();
  for (int i = 0; i + 1 < fragments.size(); ++i) {
    EXPECT_LT(fragments[i].files(0).file_size_bytes(), 2 * options.max_bytes_per_file);
  }
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 20'000; ++i) want.push_back(i);
  EXPECT_EQ(ScanIds(root), want);
}

// A limit under 16 KiB does not shrink pages below 4 KiB (one row per page at worst before),
// and a page size of 0 is refused.
TEST(WriteData, TinyByteLimitsKeepSanePages) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 2000)});
  WriteOptions options;
  options.mode = WriteMode::kCreate;
  options.max_bytes_per_file = 3;
  auto written = WriteData(CommitTarget{root, std::nullopt}, *stream, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_GT(written->fragments, 1u);
  EXPECT_LT(written->fragments, 100u);  // pages of 4 KiB, not of a row
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 2000; ++i) want.push_back(i);
  EXPECT_EQ(ScanIds(root), want);

  auto none = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 1)});
  options.max_bytes_per_file = 1 << 20;
  options.file.page_bytes = 0;
  auto refused = WriteData(CommitTarget{MemoryObjectStore::Create(), std::nullopt}, *none, options);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput) << refused.status().ToString();
}

std::vector<std::string> DataFiles(ObjectStore& store) {
  auto page = store.List(ListOptions{"data/", "", 1000});
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  std::vector<std::string> keys;
  if (page.ok()) {
    for (const auto& o : page->objects) keys.push_back(o.key);
  }
  return keys;
}

// A commit that surely did not happen deletes the data files; one whose manifest put failed
// (it may have landed: a timeout) leaves them, since a committed version may reference them.
TEST(WriteData, FailedCommitsDeleteDataFilesOnlyWhenNothingCommitted) {
  // Puts of a new table with one file: the file (a writer's Finish), the .txn, the manifest.
  for (uint64_t failing_put : {2u, 3u}) {
    SCOPED_TRACE("failing put " + std::to_string(failing_put));
    auto memory = MemoryObjectStore::Create();
    auto faults = std::make_shared<FaultInjectingStore>(memory);
    faults->FailNth(StoreOp::kPut, failing_put,
                    Status::IOError("request timed out", /*retryable=*/true));
    auto stream = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 10)});
    WriteOptions options;
    options.mode = WriteMode::kCreate;
    auto written = WriteData(CommitTarget{faults, std::nullopt}, *stream, options);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(written.status().IsIOError()) << written.status().ToString();
    EXPECT_EQ(faults->fired(), 1u);
    const bool manifest_put_failed = failing_put == 3;
    EXPECT_EQ(DataFiles(*memory).size(), manifest_put_failed ? 1u : 0u);
  }
}

TEST(WriteData, MismatchedAppendChangesNothing) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  ASSERT_TRUE(Write(root, WriteMode::kCreate, {Batch(0, 3)}).ok());
  auto other = std::make_shared<arrow::Schema>();
  other->fields.emplace_back("id", arrow::DataType::Int32(), false);
  arrow::RecordBatch batch;
  batch.schema = other;
  batch.length = 1;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int32(), std::vector<int32_t>{7})};
  auto stream = arrow::MakeVectorStream(other, {batch});
  auto r = WriteData(CommitTarget{root, std::nullopt}, *stream, WriteOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().ToString();
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok());
  EXPECT_EQ((*dataset)->version(), 1u);
}

TEST(WriteData, ConcurrentAppendsAllLand) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  ASSERT_TRUE(Write(root, WriteMode::kCreate, {Batch(0, 1)}).ok());
  constexpr int kWriters = 4, kRounds = 5;
  std::vector<std::thread> threads;
  std::vector<Status> failures(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < kRounds; ++r) {
        auto written = Write(root, WriteMode::kAppend, {Batch(1000 * (w + 1) + r, 1)});
        if (!written.ok()) failures[w] = written.status();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : failures) EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<int64_t> ids = ScanIds(root);
  EXPECT_EQ(ids.size(), 1u + kWriters * kRounds);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  auto dataset = Dataset::Open(root);
  ASSERT_TRUE(dataset.ok());
  EXPECT_EQ((*dataset)->version(), 1u + kWriters * kRounds);
}

TEST(WriteData, ZeroSizedFixedListsAreRefusedNotCrashed) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto schema = std::make_shared<arrow::Schema>();
  auto type = arrow::DataType::FixedSizeList(arrow::Field("item", arrow::DataType::Float32()), 0);
  schema->fields.emplace_back("v", type, true);
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = 2;
  batch.columns = {*arrow::MakeFixedSizeListArray(
      type, 2, *arrow::MakeFixedArray(arrow::DataType::Float32(), std::vector<float>{}))};
  auto stream = arrow::MakeVectorStream(schema, {batch});
  WriteOptions options;
  options.mode = WriteMode::kCreate;
  auto r = WriteData(CommitTarget{root, std::nullopt}, *stream, options);
  EXPECT_FALSE(r.ok());
}

// A table created in 2.0 keeps 2.0 data files through appends and overwrites, whatever the
// options ask for new tables.
TEST(WriteData, TwoPointZeroTablesStayTwoPointZero) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto write = [&](WriteMode mode, std::vector<arrow::RecordBatch> batches,
                   const std::string& new_table_version) {
    auto stream = arrow::MakeVectorStream(IdNameSchema(), std::move(batches));
    WriteOptions options;
    options.mode = mode;
    options.commit.new_table_storage_version = new_table_version;
    return WriteData(CommitTarget{root, std::nullopt}, *stream, options);
  };
  auto expect_20 = [&]() {
    auto dataset = Dataset::Open(root);
    ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
    EXPECT_EQ((*dataset)->DataStorageVersion(), "2.0");
    for (const auto& fragment : (*dataset)->manifest().fragments()) {
      const auto& file = fragment.files(0);
      EXPECT_EQ(file.file_major_version(), 2u);
      EXPECT_EQ(file.file_minor_version(), 0u);
      EXPECT_EQ(file.fields_size(), 2);
      auto reader = format::LanceFileReader::Open(root, "data/" + file.path());
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      EXPECT_EQ((*reader)->version(), format::FileVersion::kV2_0);
    }
  };
  ASSERT_TRUE(write(WriteMode::kCreate, {Batch(0, 10)}, "2.0").ok());
  expect_20();
  auto appended = write(WriteMode::kAppend, {Batch(10, 5)}, "2.1");
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  expect_20();
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 15; ++i) want.push_back(i);
  EXPECT_EQ(ScanIds(root), want);
  ASSERT_TRUE(write(WriteMode::kOverwrite, {Batch(100, 2)}, "2.1").ok());
  expect_20();
  EXPECT_EQ(ScanIds(root), (std::vector<int64_t>{100, 101}));

  // 2.2 (Lance 12's default) is written; 2.3 (Lance 13's) is not, and says so.
  for (const char* version : {"2.2", "2.3"}) {
    std::shared_ptr<ObjectStore> other = MemoryObjectStore::Create();
    auto stream = arrow::MakeVectorStream(IdNameSchema(), {Batch(0, 1)});
    WriteOptions options;
    options.mode = WriteMode::kCreate;
    options.commit.new_table_storage_version = version;
    auto r = WriteData(CommitTarget{other, std::nullopt}, *stream, options);
    if (std::string(version) == "2.3") {
      EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << r.status().ToString();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto ds = Dataset::Open(other);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    EXPECT_EQ((*ds)->DataStorageVersion(), "2.2");
    for (const auto& fragment : (*ds)->manifest().fragments()) {
      for (const auto& file : fragment.files()) EXPECT_EQ(file.file_minor_version(), 2u);
    }
  }
}

}  // namespace
}  // namespace quiver::table
