// table::WriteData: creating, appending to and overwriting datasets through the commit protocol,
// read back with table::Scan.
#include <map>
#include <numeric>
#include <thread>

#include <gtest/gtest.h>

#include "arrow/compare.h"
#include "arrow/concatenate.h"
#include "common/sync_point.h"
#include "format/feature_flags.h"
#include "format/lance_file_reader.h"
#include "format/lance_proto.h"
#include "format/proto/rowids.pb.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/row_ids.h"
#include "table/scan.h"
#include "table/take.h"
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

// `stable_row_ids`: a table the write creates gets stable row ids.
Result<WriteResult> Write(const std::shared_ptr<ObjectStore>& root, WriteMode mode,
                          std::vector<arrow::RecordBatch> batches, uint64_t rows_per_file = 1 << 20,
                          bool stable_row_ids = false) {
  auto stream = arrow::MakeVectorStream(IdNameSchema(), std::move(batches));
  WriteOptions options;
  options.mode = mode;
  options.max_rows_per_file = rows_per_file;
  options.commit.new_table_stable_row_ids = stable_row_ids;
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

// `writers` threads each append `rounds` batches of `rows` rows (ids 1000·(w+1) + 10·r + k); every
// append must succeed.
void AppendConcurrently(const std::shared_ptr<ObjectStore>& root, int writers, int rounds,
                        int64_t rows) {
  std::vector<std::thread> threads;
  std::vector<Status> failures(writers);
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < rounds; ++r) {
        auto written = Write(root, WriteMode::kAppend, {Batch(1000 * (w + 1) + 10 * r, rows)});
        if (!written.ok()) failures[w] = written.status();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : failures) EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(WriteData, ConcurrentAppendsAllLand) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  ASSERT_TRUE(Write(root, WriteMode::kCreate, {Batch(0, 1)}).ok());
  constexpr int kWriters = 4, kRounds = 5;
  AppendConcurrently(root, kWriters, kRounds, 1);
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

// Stable row ids: writes to a table created with them. Lance's bytes (protoc-checked against
// Lance's rowids.proto): ids [0, 10) = 0a 04 0a 02 10 0a; 10 rows created in version 2 =
// 0a 08 0a 04 0a 02 10 0a 10 02.

Result<WriteResult> WriteStable(const std::shared_ptr<ObjectStore>& root, WriteMode mode,
                                std::vector<arrow::RecordBatch> batches,
                                uint64_t rows_per_file = 1 << 20) {
  return Write(root, mode, std::move(batches), rows_per_file, /*stable_row_ids=*/true);
}

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += "0123456789abcdef"[c >> 4];
    out += "0123456789abcdef"[c & 15];
  }
  return out;
}

// (id column, `_rowid`) of every row of the latest version, in scan order.
std::vector<std::pair<int64_t, uint64_t>> ScanIdsAndRowIds(
    const std::shared_ptr<ObjectStore>& root) {
  auto dataset = Dataset::Open(root);
  EXPECT_TRUE(dataset.ok()) << dataset.status().ToString();
  if (!dataset.ok()) return {};
  ScanOptions options{{"id"}};
  options.with_row_id = true;
  auto stream = Scan(*dataset, options);
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  std::vector<std::pair<int64_t, uint64_t>> rows;
  while (stream.ok()) {
    auto batch = (*stream)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    for (int64_t i = 0; i < (*batch)->length; ++i) {
      rows.emplace_back(arrow::Values<int64_t>(*(*batch)->columns[0])[i],
                        arrow::Values<uint64_t>(*(*batch)->columns[1])[i]);
    }
  }
  return rows;
}

TEST(StableRowIdWrites, IdsVersionsAndNextRowIdAsLanceWritesThem) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto created = WriteStable(root, WriteMode::kCreate, {Batch(0, 25)}, 10);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto ds = Dataset::Open(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const auto& m1 = (*ds)->manifest();
  EXPECT_EQ(m1.reader_feature_flags() & format::kFlagStableRowIds, format::kFlagStableRowIds);
  EXPECT_EQ(m1.writer_feature_flags() & format::kFlagStableRowIds, format::kFlagStableRowIds);
  EXPECT_EQ(m1.next_row_id(), 25u);
  ASSERT_EQ(m1.fragments_size(), 3);
  EXPECT_EQ(Hex(m1.fragments(0).inline_row_ids()), "0a 04 0a 02 10 0a");
  EXPECT_EQ(Hex(m1.fragments(0).created_at_version_inline()), "0a 08 0a 04 0a 02 10 0a 10 01");
  EXPECT_EQ(m1.fragments(0).last_updated_at_version_inline(),
            m1.fragments(0).created_at_version_inline());
  lance::table::RowIdSequence third;
  ASSERT_TRUE(third.ParseFromString(m1.fragments(2).inline_row_ids()));
  ASSERT_EQ(third.segments_size(), 1);
  EXPECT_EQ(third.segments(0).range().start(), 20u);
  EXPECT_EQ(third.segments(0).range().end(), 25u);

  // An append continues the ids and records the version it creates.
  auto appended = WriteStable(root, WriteMode::kAppend, {Batch(25, 10)});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  ASSERT_EQ(appended->commit.version, 2u);
  ds = Dataset::Open(root);
  ASSERT_TRUE(ds.ok());
  const auto& m2 = (*ds)->manifest();
  EXPECT_EQ(m2.next_row_id(), 35u);
  ASSERT_EQ(m2.fragments_size(), 4);
  EXPECT_EQ(Hex(m2.fragments(0).created_at_version_inline()), "0a 08 0a 04 0a 02 10 0a 10 01");
  EXPECT_EQ(Hex(m2.fragments(3).created_at_version_inline()), "0a 08 0a 04 0a 02 10 0a 10 02");
  auto rows = ScanIdsAndRowIds(root);
  ASSERT_EQ(rows.size(), 35u);
  for (const auto& [id, row_id] : rows) EXPECT_EQ(row_id, static_cast<uint64_t>(id));
  // The fragment ids are not the row ids' high bits: row 30 is fragment 3, offset 5.
  TakeOptions take;
  take.columns = {"id"};
  take.key = RowKey::kId;
  take.with_row_addr = true;
  auto taken = Take(*ds, {30, 2}, take);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ(taken->length, 2);
  EXPECT_EQ(arrow::Values<int64_t>(*taken->columns[0])[0], 30);
  EXPECT_EQ(arrow::Values<uint64_t>(*taken->columns[1])[0], (uint64_t{3} << 32) | 5);
  EXPECT_EQ(arrow::Values<uint64_t>(*taken->columns[1])[1], 2u);

  // An overwrite keeps the flag and does not reuse ids (Lance: next_row_id is not reset).
  auto overwritten = WriteStable(root, WriteMode::kOverwrite, {Batch(100, 3)});
  ASSERT_TRUE(overwritten.ok()) << overwritten.status().ToString();
  rows = ScanIdsAndRowIds(root);
  EXPECT_EQ(rows, (std::vector<std::pair<int64_t, uint64_t>>{{100, 35}, {101, 36}, {102, 37}}));
  ds = Dataset::Open(root);
  ASSERT_TRUE(ds.ok());
  EXPECT_TRUE(UsesStableRowIds(**ds));
  EXPECT_EQ((*ds)->manifest().next_row_id(), 38u);
  EXPECT_EQ(Hex((*ds)->manifest().fragments(0).created_at_version_inline()).substr(24), "10 03");
}

// Plain appends (the option unset) to a stable table get ids too; asking for stable row ids on
// a table without them is refused and changes nothing.
TEST(StableRowIdWrites, TheTableDecidesAndCannotBeTurnedOnLater) {
  std::shared_ptr<ObjectStore> stable = MemoryObjectStore::Create();
  ASSERT_TRUE(WriteStable(stable, WriteMode::kCreate, {Batch(0, 4)}).ok());
  ASSERT_TRUE(Write(stable, WriteMode::kAppend, {Batch(4, 4)}).ok());
  auto rows = ScanIdsAndRowIds(stable);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows.back().second, 7u);

  std::shared_ptr<ObjectStore> plain = MemoryObjectStore::Create();
  ASSERT_TRUE(Write(plain, WriteMode::kCreate, {Batch(0, 4)}).ok());
  for (WriteMode mode : {WriteMode::kAppend, WriteMode::kOverwrite}) {
    auto r = WriteStable(plain, mode, {Batch(4, 1)});
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().ToString();
    EXPECT_NE(r.status().message().find("only be turned on when a table is created"),
              std::string::npos);
  }
  auto ds = Dataset::Open(plain);
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ((*ds)->version(), 1u);
  EXPECT_FALSE(UsesStableRowIds(**ds));
}

// A commit that loses the race is applied again on top of the winner: its ids come after the
// winner's, never the same ones (the ids were assigned against the manifest it first read).
TEST(StableRowIdWrites, ARetriedCommitTakesIdsAfterTheWinner) {
  auto memory = MemoryObjectStore::Create();
  ASSERT_TRUE(WriteStable(memory, WriteMode::kCreate, {Batch(0, 5)}).ok());
  auto faults = std::make_shared<FaultInjectingStore>(memory);
  Gate gate;
  // The loser's puts: its data file, its .txn, then its manifest — held until the winner is in.
  faults->PauseNth(StoreOp::kPut, 3, &gate);
  Result<WriteResult> loser = Status::Internal("not run");
  std::thread thread([&] { loser = Write(faults, WriteMode::kAppend, {Batch(100, 3)}); });
  gate.WaitForArrivals(1);
  auto winner = Write(memory, WriteMode::kAppend, {Batch(200, 4)});
  gate.Open();
  thread.join();
  ASSERT_TRUE(winner.ok()) << winner.status().ToString();
  ASSERT_TRUE(loser.ok()) << loser.status().ToString();
  EXPECT_EQ(loser->commit.attempts, 2) << "the loser must have retried";
  auto rows = ScanIdsAndRowIds(memory);
  std::map<int64_t, uint64_t> by_id(rows.begin(), rows.end());
  ASSERT_EQ(by_id.size(), 12u);
  EXPECT_EQ(by_id[200], 5u);
  EXPECT_EQ(by_id[203], 8u);
  EXPECT_EQ(by_id[100], 9u);
  EXPECT_EQ(by_id[102], 11u);
  auto ds = Dataset::Open(memory);
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ((*ds)->manifest().next_row_id(), 12u);
  const auto& last = (*ds)->manifest().fragments(2);
  EXPECT_EQ(Hex(last.created_at_version_inline()).substr(24), "10 03");
}

// Threads appending at once: every row gets a distinct id, and the ids are exactly 0..n-1.
TEST(StableRowIdWrites, ConcurrentAppendsGetDistinctIds) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  ASSERT_TRUE(WriteStable(root, WriteMode::kCreate, {Batch(0, 1)}).ok());
  constexpr int kWriters = 4, kRounds = 4;
  AppendConcurrently(root, kWriters, kRounds, 2);
  auto rows = ScanIdsAndRowIds(root);
  std::vector<uint64_t> ids;
  for (const auto& row : rows) ids.push_back(row.second);
  std::sort(ids.begin(), ids.end());
  std::vector<uint64_t> want(1 + 2 * kWriters * kRounds);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(ids, want);
}

}  // namespace
}  // namespace quiver::table
