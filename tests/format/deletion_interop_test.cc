// Deletion files against LanceDB 0.31 (tests/interop/make_format_fixtures.mjs, tables
// `deletes_10` (.arrow) and `deletes_10k` (.bin); docs/format-fixtures.md):
//  * LanceDB's deletion files decode to exactly the rows its delete predicate matched, and
//    CRoaring writes the same bitmap bytes as Rust's roaring;
//  * Scan leaves those rows out, with offset/limit counting the visible rows and `_rowaddr`
//    keeping the physical offsets;
//  * Scan's `_rowid` is the row address (no stable row ids), and Take by address or row id
//    returns the rows a scan shows at those addresses;
//  * quiver's own deletes (DeleteRows on copies of fixture tables) read back right. With
//    QUIVER_DELETION_WRITE_DIR set, the copies stay there together with quiver.json (the ids,
//    `_rowid`s and `_rowaddr`s quiver reads), for tests/interop/check_deletions.mjs to compare
//    with LanceDB;
//  * with QUIVER_STABLE_ROW_ID_TABLE set (check_deletions.mjs makes that table with LanceDB),
//    quiver's `_rowid`/`_rowaddr` of a stable-row-id table and Take by those ids, written to
//    <table>/../quiver_stable.json for the script to compare with LanceDB's withRowId(); and
//    quiver's own writes to such tables (an append to LanceDB's, a table quiver creates with
//    stable row ids), in <table>/../quiver_stable_writes.json.
// Skipped when QUIVER_FORMAT_FIXTURES is unset or not generated (no node).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "format/arrow_schema.h"
#include "format/deletion.h"
#include "format/lance_proto.h"
#include "format/proto/rowids.pb.h"
#include "format_test_util.h"
#include "store/local_store.h"
#include "table/dataset.h"
#include "table/delete_rows.h"
#include "table/fragment_rows.h"
#include "table/row_ids.h"
#include "table/scan.h"
#include "table/take.h"
#include "table/write.h"

namespace quiver {
namespace {

namespace fs = std::filesystem;

nlohmann::json Expected(const std::string& dir) {
  return nlohmann::json::parse(testing::Slurp(fs::path(dir) / "expected.json"));
}

// The row offsets a fixture's delete removed (expected.json `deleted_row_offsets`: a list, or
// {from, to_exclusive}).
std::vector<uint32_t> DeletedOffsets(const nlohmann::json& table) {
  const auto& d = table["deleted_row_offsets"];
  std::vector<uint32_t> out;
  if (d.is_array()) {
    for (const auto& v : d) out.push_back(v.get<uint32_t>());
  } else {
    for (uint32_t i = d["from"].get<uint32_t>(); i < d["to_exclusive"].get<uint32_t>(); ++i) {
      out.push_back(i);
    }
  }
  return out;
}

Result<std::shared_ptr<const table::Dataset>> OpenTable(const fs::path& path) {
  QV_ASSIGN_OR_RETURN(auto root, LocalObjectStore::Open(path.string()));
  return table::Dataset::Open(root);
}

struct IdRows {
  std::vector<int64_t> ids;
  std::vector<uint64_t> addrs;
  std::vector<uint64_t> row_ids;
};

// The `id` column, `_rowid` and `_rowaddr` of a scan.
Result<IdRows> ScanIds(std::shared_ptr<const table::Dataset> ds, uint64_t offset = 0,
                       std::optional<uint64_t> limit = std::nullopt, uint32_t batch_rows = 777) {
  table::ScanOptions options;
  options.columns = {"id"};
  options.with_row_addr = true;
  options.with_row_id = true;
  options.offset = offset;
  options.limit = limit;
  options.batch_rows = batch_rows;
  QV_ASSIGN_OR_RETURN(auto stream, table::Scan(std::move(ds), options));
  IdRows out;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    if (batch->length > batch_rows) return Status::Internal("batch larger than batch_rows");
    const auto& ids = *batch->columns[0];
    const auto& row_ids = *batch->columns[1];
    const auto& addrs = *batch->columns[2];
    for (int64_t i = 0; i < batch->length; ++i) {
      int64_t id;
      uint64_t row_id, addr;
      std::memcpy(&id, ids.buffers[1]->data() + 8 * (ids.offset + i), 8);
      std::memcpy(&row_id, row_ids.buffers[1]->data() + 8 * (row_ids.offset + i), 8);
      std::memcpy(&addr, addrs.buffers[1]->data() + 8 * (addrs.offset + i), 8);
      out.ids.push_back(id);
      out.row_ids.push_back(row_id);
      out.addrs.push_back(addr);
    }
  }
  return out;
}

// The `id` column, `_rowid` and `_rowaddr` of a Take.
Result<IdRows> TakeIds(const std::shared_ptr<const table::Dataset>& ds,
                       const std::vector<uint64_t>& rows,
                       table::RowKey key = table::RowKey::kAddress) {
  table::TakeOptions options;
  options.columns = {"id"};
  options.key = key;
  options.with_row_id = true;
  options.with_row_addr = true;
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch batch, table::Take(ds, rows, options));
  QV_RETURN_IF_ERROR(batch.Validate());
  IdRows out;
  for (int64_t i = 0; i < batch.length; ++i) {
    out.ids.push_back(arrow::Values<int64_t>(*batch.columns[0])[i]);
    out.row_ids.push_back(arrow::Values<uint64_t>(*batch.columns[1])[i]);
    out.addrs.push_back(arrow::Values<uint64_t>(*batch.columns[2])[i]);
  }
  return out;
}

const char* const kTables[] = {"deletes_10", "deletes_10k"};

TEST(DeletionInterop, LanceDBDeletionFilesDecodeToThePredicatesRows) {
  const std::string dir = testing::FormatFixtureDir();
  if (dir.empty()) GTEST_SKIP() << "QUIVER_FORMAT_FIXTURES not set or not generated (needs node)";
  const nlohmann::json expected = Expected(dir);
  for (const char* name : kTables) {
    SCOPED_TRACE(name);
    const auto& table = expected["tables"][name];
    auto ds = OpenTable(fs::path(dir) / table["path"].get<std::string>());
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    const auto& m = (*ds)->manifest();
    ASSERT_EQ(m.fragments_size(), 1);
    const auto& fragment = m.fragments(0);
    ASSERT_TRUE(fragment.has_deletion_file());
    const auto& file = fragment.deletion_file();
    const std::vector<uint32_t> want = DeletedOffsets(table);
    EXPECT_EQ(file.num_deleted_rows(), want.size());
    EXPECT_EQ(file.file_type(), want.size() <= format::kDeletionBitmapThreshold
                                    ? lance::table::DeletionFile::ARROW_ARRAY
                                    : lance::table::DeletionFile::BITMAP);
    const std::string key =
        format::DeletionFileKey(fragment.id(), file.read_version(), file.id(),
                                static_cast<format::DeletionFileType>(file.file_type()));
    EXPECT_EQ(table["on_disk"]["deletion_files"][0]["path"].get<std::string>(), key);

    auto dv = table::FragmentDeletions(**ds, fragment);
    ASSERT_TRUE(dv.ok()) << dv.status().ToString();
    EXPECT_EQ(dv->ToVector(), want);

    if (file.file_type() == lance::table::DeletionFile::BITMAP) {
      // Rust's roaring and CRoaring (without run_optimize) write the same bytes.
      auto ours = format::EncodeDeletionFile(*dv, format::DeletionFileType::kBitmap);
      ASSERT_TRUE(ours.ok());
      EXPECT_TRUE(*ours == testing::Slurp(fs::path(dir) / table["path"].get<std::string>() / key));
    }
  }
}

TEST(DeletionInterop, ScanLeavesDeletedRowsOut) {
  const std::string dir = testing::FormatFixtureDir();
  if (dir.empty()) GTEST_SKIP() << "QUIVER_FORMAT_FIXTURES not set or not generated (needs node)";
  const nlohmann::json expected = Expected(dir);
  for (const char* name : kTables) {
    SCOPED_TRACE(name);
    const auto& table = expected["tables"][name];
    auto ds = OpenTable(fs::path(dir) / table["path"].get<std::string>());
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    const uint64_t physical = table["physical_rows"].get<uint64_t>();
    const std::vector<uint32_t> deleted = DeletedOffsets(table);
    // `id` is the physical row offset in these tables.
    std::vector<int64_t> kept;
    for (uint64_t i = 0; i < physical; ++i) {
      if (!std::binary_search(deleted.begin(), deleted.end(), static_cast<uint32_t>(i))) {
        kept.push_back(static_cast<int64_t>(i));
      }
    }
    ASSERT_EQ(kept.size(), table["rows"].get<uint64_t>());
    auto all = ScanIds(*ds);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(all->ids, kept);
    for (size_t i = 0; i < all->ids.size(); ++i) {
      ASSERT_EQ(all->addrs[i], static_cast<uint64_t>(all->ids[i])) << i;  // fragment 0
      ASSERT_EQ(all->row_ids[i], all->addrs[i]) << i;                     // no stable row ids
    }
    // Offset and limit count visible rows, across deleted ones and batch edges.
    for (auto [offset, limit] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 1},
                                                                           {1, 5},
                                                                           {2, 700},
                                                                           {995, 10},
                                                                           {1000, 3000},
                                                                           {kept.size() - 3, 10},
                                                                           {kept.size(), 5},
                                                                           {5000, 1}}) {
      SCOPED_TRACE(::testing::Message() << "offset " << offset << " limit " << limit);
      for (uint32_t batch_rows : {1u, 7u, 8192u}) {
        if (batch_rows == 1 && limit > 1000) continue;  // slow and adds nothing
        auto part = ScanIds(*ds, offset, limit, batch_rows);
        ASSERT_TRUE(part.ok()) << part.status().ToString();
        const size_t b = std::min<size_t>(offset, kept.size());
        const size_t e = std::min<size_t>(b + limit, kept.size());
        EXPECT_EQ(part->ids, std::vector<int64_t>(kept.begin() + b, kept.begin() + e));
      }
    }
  }
}

// Take of kept rows (shuffled, repeated) gives what the scan shows at those addresses; deleted
// rows are not found.
TEST(DeletionInterop, TakeMatchesTheScan) {
  const std::string dir = testing::FormatFixtureDir();
  if (dir.empty()) GTEST_SKIP() << "QUIVER_FORMAT_FIXTURES not set or not generated (needs node)";
  const nlohmann::json expected = Expected(dir);
  for (const char* name : kTables) {
    SCOPED_TRACE(name);
    const auto& table = expected["tables"][name];
    auto ds = OpenTable(fs::path(dir) / table["path"].get<std::string>());
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    auto all = ScanIds(*ds);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::vector<size_t> picks;
    for (size_t i = 0; i < all->ids.size(); i += 3) picks.push_back(i);
    for (size_t i = 0; i < 200 && i < all->ids.size(); ++i) picks.push_back(i);  // repeats
    std::mt19937 rng(7);
    std::shuffle(picks.begin(), picks.end(), rng);
    std::vector<uint64_t> asked;
    IdRows want;
    for (size_t i : picks) {
      asked.push_back(all->addrs[i]);
      want.ids.push_back(all->ids[i]);
    }
    for (table::RowKey key : {table::RowKey::kAddress, table::RowKey::kId}) {
      auto got = TakeIds(*ds, asked, key);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->ids, want.ids);
      EXPECT_EQ(got->addrs, asked);
      EXPECT_EQ(got->row_ids, asked);
    }
    const uint64_t deleted = DeletedOffsets(table).front();
    auto gone = TakeIds(*ds, {all->addrs[0], deleted});
    EXPECT_TRUE(gone.status().IsNotFound()) << gone.status().ToString();
  }
}

// How many segments of each kind the row id sequences of `ds`'s fragments hold ("range",
// "range_with_holes", ...; "external files" counts the sequences stored outside the manifest), so
// that the interop check shows which kinds LanceDB's table actually exercised.
Result<std::map<std::string, int>> SegmentKinds(const table::Dataset& ds) {
  std::map<std::string, int> kinds;
  for (const auto& fragment : ds.manifest().fragments()) {
    std::string bytes;
    if (fragment.has_external_row_ids()) {
      const auto& file = fragment.external_row_ids();
      QV_ASSIGN_OR_RETURN(GetResult got,
                          ds.store()->Get(file.path(), ByteRange{file.offset(), file.size()}));
      bytes = std::move(got.data);
      ++kinds["external files"];
    } else {
      bytes = fragment.inline_row_ids();
    }
    lance::table::RowIdSequence seq;
    if (!seq.ParseFromString(bytes)) return Status::Corruption("a row id sequence does not parse");
    for (const auto& segment : seq.segments()) {
      const auto* field =
          lance::table::U64Segment::descriptor()->FindFieldByNumber(segment.segment_case());
      ++kinds[field ? field->name() : "none"];
    }
  }
  return kinds;
}

// quiver's `_rowid` and `_rowaddr` of a stable-row-id table LanceDB wrote
// (QUIVER_STABLE_ROW_ID_TABLE; check_deletions.mjs makes it and compares the JSON written next
// to it with LanceDB's withRowId()). Take by each row id must give the scan's row back.
TEST(DeletionInterop, StableRowIdsOfALanceDBTable) {
  const char* path = std::getenv("QUIVER_STABLE_ROW_ID_TABLE");
  if (path == nullptr) GTEST_SKIP() << "QUIVER_STABLE_ROW_ID_TABLE not set (check_deletions.mjs)";
  auto ds = OpenTable(path);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto all = ScanIds(*ds, 0, std::nullopt, 7);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::vector<uint64_t> reversed(all->row_ids.rbegin(), all->row_ids.rend());
  auto taken = TakeIds(*ds, reversed, table::RowKey::kId);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(taken->row_ids, reversed);
  EXPECT_EQ(taken->addrs, std::vector<uint64_t>(all->addrs.rbegin(), all->addrs.rend()));
  EXPECT_EQ(taken->ids, std::vector<int64_t>(all->ids.rbegin(), all->ids.rend()));
  auto kinds = SegmentKinds(**ds);
  ASSERT_TRUE(kinds.ok()) << kinds.status().ToString();
  for (const auto& [kind, n] : *kinds) std::cout << "row id segments: " << n << " " << kind << "\n";
  nlohmann::json out = {{"ids", all->ids},
                        {"row_ids", all->row_ids},
                        {"row_addrs", all->addrs},
                        {"segment_kinds", *kinds}};
  std::ofstream(fs::path(path).parent_path() / "quiver_stable.json") << out.dump(1);
}

// `n` rows of LanceDB's stable table's schema (id int64, name utf8): ids from `first`.
arrow::RecordBatch IdNameRows(const std::shared_ptr<const arrow::Schema>& schema, int64_t first,
                              int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(first + i);
    names.push_back("quiver-" + std::to_string(first + i));
  }
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = n;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), names)};
  return batch;
}

// {ids, row_ids, row_addrs, next_row_id, version} of a table, for check_deletions.mjs.
nlohmann::json RowIdsJson(const fs::path& path) {
  auto ds = OpenTable(path);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return {};
  auto rows = ScanIds(*ds);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok()) return {};
  return {{"ids", rows->ids},
          {"row_ids", rows->row_ids},
          {"row_addrs", rows->addrs},
          {"next_row_id", (*ds)->manifest().next_row_id()},
          {"version", (*ds)->version()}};
}

// quiver writes to stable-row-id tables (QUIVER_STABLE_ROW_ID_TABLE, LanceDB's; and a new one it
// creates next to it, `quiver_stable_made.lance`): appends in two fragments to LanceDB's table,
// and a table of its own created with stable row ids, appended to and deleted from. The ids
// must continue from the table's next_row_id, one per row, and read back through scan and
// take; <dir>/quiver_stable_writes.json holds what check_deletions.mjs compares with LanceDB.
TEST(DeletionInterop, QuiverWritesToStableRowIdTables) {
  const char* path = std::getenv("QUIVER_STABLE_ROW_ID_TABLE");
  if (path == nullptr) GTEST_SKIP() << "QUIVER_STABLE_ROW_ID_TABLE not set (check_deletions.mjs)";
  const fs::path theirs = path;
  const fs::path mine = theirs.parent_path() / "quiver_stable_made.lance";
  fs::remove_all(mine);

  auto before = OpenTable(theirs);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_TRUE(table::UsesStableRowIds(**before));
  const uint64_t next_row_id = (*before)->manifest().next_row_id();
  const std::string storage_version = (*before)->DataStorageVersion();
  auto schema_or = format::ToArrowSchema((*before)->schema());
  ASSERT_TRUE(schema_or.ok()) << schema_or.status().ToString();
  auto schema = std::make_shared<const arrow::Schema>(*schema_or);
  auto write = [&](const fs::path& where, table::WriteMode mode, int64_t first, int64_t n,
                   bool stable) {
    fs::create_directories(where);
    auto root = LocalObjectStore::Open(where.string());
    EXPECT_TRUE(root.ok());
    auto stream = arrow::MakeVectorStream(schema, {IdNameRows(schema, first, n)});
    table::WriteOptions options;
    options.mode = mode;
    options.max_rows_per_file = 200;
    options.commit.new_table_stable_row_ids = stable;
    // The format of LanceDB's table (2.1 from LanceDB 0.31, which cannot read quiver's default).
    options.commit.new_table_storage_version = storage_version;
    auto written = table::WriteData(table::CommitTarget{*root, std::nullopt}, *stream, options);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    // [first id, rows, the version they were created in] for LanceDB's _row_created_at_version.
    return nlohmann::json::array({first, n, written.ok() ? written->commit.version : 0});
  };
  // (Built with push_back: a one-element braced list is a copy of the element under clang.)
  nlohmann::json theirs_created = nlohmann::json::array();
  theirs_created.push_back(write(theirs, table::WriteMode::kAppend, 100000, 300, false));
  nlohmann::json theirs_json = RowIdsJson(theirs);
  theirs_json["created"] = theirs_created;
  EXPECT_EQ(theirs_json["next_row_id"].get<uint64_t>(), next_row_id + 300);
  // The appended rows hold ids [next_row_id, next_row_id + 300), in order.
  std::map<int64_t, uint64_t> id_of;
  for (size_t i = 0; i < theirs_json["ids"].size(); ++i) {
    id_of[theirs_json["ids"][i].get<int64_t>()] = theirs_json["row_ids"][i].get<uint64_t>();
  }
  for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(id_of[100000 + i], next_row_id + i) << i;

  nlohmann::json mine_created = nlohmann::json::array();
  mine_created.push_back(write(mine, table::WriteMode::kCreate, 0, 250, true));
  mine_created.push_back(write(mine, table::WriteMode::kAppend, 250, 50, true));
  {
    auto root = LocalObjectStore::Open(mine.string());
    ASSERT_TRUE(root.ok());
    auto ds = table::Dataset::Open(*root);
    ASSERT_TRUE(ds.ok());
    auto rows = ScanIds(*ds);
    ASSERT_TRUE(rows.ok());
    std::vector<uint64_t> addrs;  // every seventh row
    for (size_t i = 0; i < rows->ids.size(); i += 7) addrs.push_back(rows->addrs[i]);
    auto deleted = table::DeleteRows(table::CommitTarget{*root, std::nullopt}, addrs, "id % 7 = 0");
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  }
  nlohmann::json mine_json = RowIdsJson(mine);
  mine_json["created"] = mine_created;
  EXPECT_EQ(mine_json["next_row_id"].get<uint64_t>(), 300u);
  EXPECT_EQ(mine_json["ids"].size(), 300u - 43u);
  EXPECT_EQ(mine_json["ids"], mine_json["row_ids"]);  // ids 0..299 were given in order
  for (const fs::path& p : {theirs, mine}) {
    auto ds = OpenTable(p);
    ASSERT_TRUE(ds.ok());
    auto all = ScanIds(*ds);
    ASSERT_TRUE(all.ok());
    auto taken = TakeIds(*ds, all->row_ids, table::RowKey::kId);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    EXPECT_EQ(taken->addrs, all->addrs);
  }
  nlohmann::json out = {{"theirs", theirs_json}, {"mine", mine_json}, {"mine_path", mine.string()}};
  std::ofstream(theirs.parent_path() / "quiver_stable_writes.json") << out.dump(1);
}

// A corrupt deletion file fails the scan with Corruption naming it (a copy of `deletes_10`).
TEST(DeletionInterop, CorruptDeletionFileFailsTheScan) {
  const std::string dir = testing::FormatFixtureDir();
  if (dir.empty()) GTEST_SKIP() << "QUIVER_FORMAT_FIXTURES not set or not generated (needs node)";
  const nlohmann::json expected = Expected(dir);
  const auto& table = expected["tables"]["deletes_10"];
  const fs::path work = fs::temp_directory_path() / ("qv-del-corrupt-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::copy(fs::path(dir) / table["path"].get<std::string>(), work, fs::copy_options::recursive);
  const std::string key = table["on_disk"]["deletion_files"][0]["path"].get<std::string>();
  std::string bytes = testing::Slurp(work / key);
  bytes.resize(bytes.size() - 20);
  fs::permissions(work / key, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(work / key, std::ios::binary | std::ios::trunc) << bytes;
  auto ds = OpenTable(work);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto rows = ScanIds(*ds);
  EXPECT_EQ(rows.status().subcode(), Subcode::kCorruption) << rows.status().ToString();
  EXPECT_NE(rows.status().message().find(key), std::string::npos) << rows.status().ToString();
  fs::remove_all(work);
}

// quiver deletes rows of copies of fixture tables; quiver then reads exactly the rest. The
// copies and quiver.json (what LanceDB must see) stay in QUIVER_DELETION_WRITE_DIR when set.
TEST(DeletionInterop, QuiverDeletesAndReadsBack) {
  const std::string dir = testing::FormatFixtureDir();
  if (dir.empty()) GTEST_SKIP() << "QUIVER_FORMAT_FIXTURES not set or not generated (needs node)";
  const nlohmann::json expected = Expected(dir);
  const char* keep_dir = std::getenv("QUIVER_DELETION_WRITE_DIR");
  const fs::path work = keep_dir != nullptr ? fs::path(keep_dir)
                                            : fs::temp_directory_path() /
                                                  ("qv-del-write-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);

  struct Plan {
    std::string name;
    std::string source;
    std::vector<std::vector<int64_t>> deletes;  // ids, one DeleteRows call per list
    std::string ext;                            // of the deletion files left in the manifest
    int fragments;                              // left in the manifest
  };
  std::vector<int64_t> range_100_6100;
  for (int64_t i = 100; i < 6100; ++i) range_100_6100.push_back(i);
  const std::vector<Plan> plans = {
      // 3 fragments of 1,000, 1 and 2,000 rows; the 1-row fragment (id 1000) is removed whole,
      // and the second delete merges with quiver's first deletion file.
      {"q_arrow", "appended", {{0, 5, 999, 1000}, {1002, 1003, 1004, 3000, 1}}, ".arrow", 2},
      // LanceDB's 10 rows (.arrow) plus 6,000 more: over the threshold, a bitmap.
      {"q_bin", "deletes_10", {range_100_6100}, ".bin", 1},
      // LanceDB's bitmap plus 10 rows.
      {"q_bin2", "deletes_10k", {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}, ".bin", 1},
  };
  nlohmann::json out = nlohmann::json::object();
  for (const Plan& plan : plans) {
    SCOPED_TRACE(plan.name);
    const fs::path path = work / (plan.name + ".lance");
    fs::copy(fs::path(dir) / expected["tables"][plan.source]["path"].get<std::string>(), path,
             fs::copy_options::recursive);
    auto root = LocalObjectStore::Open(path.string());
    ASSERT_TRUE(root.ok());
    auto before_ds = table::Dataset::Open(*root);
    ASSERT_TRUE(before_ds.ok());
    auto before = ScanIds(*before_ds);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    std::set<int64_t> gone;
    for (const auto& ids : plan.deletes) {
      // Addresses of the ids (those still visible) from a fresh scan.
      auto ds = table::Dataset::Open(*root);
      ASSERT_TRUE(ds.ok());
      auto now = ScanIds(*ds);
      ASSERT_TRUE(now.ok());
      std::map<int64_t, uint64_t> addr_of;
      for (size_t i = 0; i < now->ids.size(); ++i) addr_of[now->ids[i]] = now->addrs[i];
      std::vector<uint64_t> addrs;
      for (int64_t id : ids) {
        if (addr_of.count(id) != 0) addrs.push_back(addr_of[id]);
        gone.insert(id);
      }
      auto committed = table::DeleteRows(table::CommitTarget{*root, std::nullopt}, addrs,
                                         "quiver deletion_interop_test");
      ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    }
    auto after_ds = table::Dataset::Open(*root);
    ASSERT_TRUE(after_ds.ok());
    EXPECT_EQ((*after_ds)->manifest().fragments_size(), plan.fragments);
    for (const auto& fragment : (*after_ds)->manifest().fragments()) {
      if (!fragment.has_deletion_file()) continue;
      const auto& f = fragment.deletion_file();
      EXPECT_EQ(f.file_type(), plan.ext == ".bin" ? lance::table::DeletionFile::BITMAP
                                                  : lance::table::DeletionFile::ARROW_ARRAY);
      EXPECT_GT(f.num_deleted_rows(), 0u);
      EXPECT_EQ(f.read_version() + 1, (*after_ds)->version());
    }
    std::vector<int64_t> want;
    for (int64_t id : before->ids) {
      if (gone.count(id) == 0) want.push_back(id);
    }
    auto after = ScanIds(*after_ds);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ(after->ids, want);
    out[plan.name] = {{"path", path.string()},
                      {"rows", want.size()},
                      {"ids", want},
                      {"row_ids", after->row_ids},
                      {"row_addrs", after->addrs},
                      {"deletion_file_ext", plan.ext},
                      {"fragments", plan.fragments},
                      {"version", (*after_ds)->version()}};
  }
  std::ofstream(work / "quiver.json") << out.dump(1);
  if (keep_dir == nullptr) fs::remove_all(work);
}

}  // namespace
}  // namespace quiver
