// query::MergeInsert with Lance's semantics (observed with LanceDB 0.31 and 0.39,
// docs/lance-findings.md): upserts, a condition over source and target, deleting what the
// source lacks with a filter, NULL keys never matching, ambiguity refused only where rows are
// updated, a version committed even when nothing changed, refusals before anything is written,
// and rows that keep their fragments while the merged ones move.
#include "query/merge_insert.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "arrow/array.h"
#include "query/query.h"
#include "query/update_where.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/row_ids.h"
#include "table/write.h"
#include "testing/status_matchers.h"

namespace quiver::query {
namespace {

std::shared_ptr<const arrow::Schema> MergeSchema() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), true);
  schema->fields.emplace_back("x", arrow::DataType::Int32(), true);
  schema->fields.emplace_back("s", arrow::DataType::Utf8(), true);
  return schema;
}

// Rows (id, x, s = "s<id>"); a nullopt id is a NULL key.
arrow::RecordBatch MergeRows(const std::vector<std::pair<std::optional<int64_t>, int32_t>>& rows) {
  std::vector<int64_t> ids;
  std::vector<bool> valid;
  std::vector<int32_t> xs;
  std::vector<std::string> ss;
  for (const auto& [id, x] : rows) {
    ids.push_back(id.value_or(0));
    valid.push_back(id.has_value());
    xs.push_back(x);
    ss.push_back(id ? "s" + std::to_string(*id) : "null");
  }
  arrow::RecordBatch batch;
  batch.schema = MergeSchema();
  batch.length = static_cast<int64_t>(rows.size());
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids, valid),
                   *arrow::MakeFixedArray(arrow::DataType::Int32(), xs),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), ss)};
  return batch;
}

// ids 0..9 with x = 10 * id, in files of 4 rows (version 1).
std::shared_ptr<ObjectStore> MergeTable() {
  std::vector<std::pair<std::optional<int64_t>, int32_t>> rows;
  for (int64_t i = 0; i < 10; ++i) rows.push_back({i, static_cast<int32_t>(10 * i)});
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(MergeSchema(), {MergeRows(rows)});
  table::WriteOptions options;
  options.mode = table::WriteMode::kCreate;
  options.max_rows_per_file = 4;
  EXPECT_OK(table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options).status());
  return root;
}

// id → x of the latest version ("null" ids as -1).
std::multimap<int64_t, int32_t> IdToX(const std::shared_ptr<ObjectStore>& root) {
  auto ds = table::Dataset::Open(root);
  EXPECT_OK(ds.status());
  std::multimap<int64_t, int32_t> out;
  if (!ds.ok()) return out;
  auto stream = RunQuery(*ds, QueryRequest{});
  EXPECT_OK(stream.status());
  while (stream.ok()) {
    auto batch = (*stream)->Next();
    EXPECT_OK(batch.status());
    if (!batch.ok() || !*batch) break;
    const auto& id = *(*batch)->columns[0];
    const auto& x = *(*batch)->columns[1];
    for (int64_t i = 0; i < (*batch)->length; ++i) {
      out.insert({arrow::IsNull(id, i) ? -1 : arrow::Values<int64_t>(id)[i],
                  arrow::Values<int32_t>(x)[i]});
    }
  }
  return out;
}

uint64_t LatestVersion(const std::shared_ptr<ObjectStore>& root) {
  auto ds = table::Dataset::Open(root);
  return ds.ok() ? (*ds)->version() : 0;
}

Result<MergeInsertResult> Merge(const std::shared_ptr<ObjectStore>& root,
                                std::vector<std::pair<std::optional<int64_t>, int32_t>> rows,
                                const MergeInsertSpec& spec) {
  return MergeInsert(table::CommitTarget{root, std::nullopt}, MergeSchema(), {MergeRows(rows)},
                     spec);
}

MergeInsertSpec Upsert() {
  MergeInsertSpec spec;
  spec.on = {"id"};
  spec.when_matched_update_all = true;
  spec.when_not_matched_insert_all = true;
  return spec;
}

TEST(MergeInsert, UpsertsUpdateMatchedRowsAndInsertTheRest) {
  auto root = MergeTable();
  auto merged = Merge(root, {{2, 222}, {7, 777}, {42, 4200}, {std::nullopt, 5}}, Upsert());
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->updated, 2u);
  EXPECT_EQ(merged->inserted, 2u);  // the NULL key never matches: inserted
  EXPECT_EQ(merged->deleted, 0u);
  EXPECT_EQ(merged->version, 2u);
  auto rows = IdToX(root);
  EXPECT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows.find(2)->second, 222);
  EXPECT_EQ(rows.find(7)->second, 777);
  EXPECT_EQ(rows.find(42)->second, 4200);
  EXPECT_EQ(rows.find(3)->second, 30);
  EXPECT_EQ(rows.count(-1), 1u);
}

TEST(MergeInsert, AConditionOverSourceAndTargetChoosesTheUpdatedRows) {
  auto root = MergeTable();
  MergeInsertSpec spec;
  spec.on = {"id"};
  spec.when_matched_update_all = true;
  spec.when_matched_update_all_filt = "target.x < source.x AND source.s = 's1'";
  auto merged = Merge(root, {{1, 100}, {2, 1}, {3, 999}}, spec);
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->updated, 1u);
  EXPECT_EQ(merged->inserted, 0u);
  EXPECT_EQ(IdToX(root).find(1)->second, 100);
  EXPECT_EQ(IdToX(root).find(3)->second, 30);
}

TEST(MergeInsert, DeletesWhatTheSourceLacksWhereTheFilterHolds) {
  auto root = MergeTable();
  MergeInsertSpec spec;
  spec.on = {"id"};
  spec.when_matched_update_all = true;
  spec.when_not_matched_by_source_delete = true;
  spec.when_not_matched_by_source_delete_filt = "x >= 50";
  auto merged = Merge(root, {{6, 6}, {1, 1}}, spec);
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->updated, 2u);
  EXPECT_EQ(merged->deleted, 4u);  // 5, 7, 8, 9 lack a source row and have x >= 50; 6 matched
  auto rows = IdToX(root);
  EXPECT_EQ(rows.size(), 6u) << rows.size();
  EXPECT_EQ(rows.count(5), 0u);
  EXPECT_EQ(rows.count(9), 0u);
  EXPECT_EQ(rows.find(6)->second, 6);
  EXPECT_EQ(rows.find(4)->second, 40);
}

TEST(MergeInsert, AmbiguityIsRefusedOnlyWhereMatchedRowsAreUpdated) {
  auto root = MergeTable();
  auto ambiguous = Merge(root, {{1, 11}, {1, 12}}, Upsert());
  EXPECT_EQ(ambiguous.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(ambiguous.status().message().find("Ambiguous merge inserts are prohibited"),
            std::string::npos)
      << ambiguous.status().ToString();
  EXPECT_NE(ambiguous.status().message().find("id = 1"), std::string::npos);
  EXPECT_EQ(LatestVersion(root), 1u);
  // Duplicates of a new key are both inserted; duplicates of a matched key skipped.
  MergeInsertSpec insert_only;
  insert_only.on = {"id"};
  insert_only.when_not_matched_insert_all = true;
  auto merged = Merge(root, {{1, 11}, {1, 12}, {50, 1}, {50, 2}}, insert_only);
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->inserted, 2u);
  EXPECT_EQ(IdToX(root).count(50), 2u);
  EXPECT_EQ(IdToX(root).count(1), 1u);
}

TEST(MergeInsert, AVersionIsCommittedEvenWhenNothingChanged) {
  auto root = MergeTable();
  MergeInsertSpec spec;
  spec.on = {"id"};
  spec.when_matched_update_all = true;
  auto merged = Merge(root, {{99, 1}}, spec);
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->updated + merged->inserted + merged->deleted, 0u);
  EXPECT_EQ(merged->version, 2u);
  EXPECT_EQ(IdToX(root).size(), 10u);
}

TEST(MergeInsert, BadInputIsRefusedBeforeAnythingIsWritten) {
  auto root = MergeTable();
  MergeInsertSpec no_key = Upsert();
  no_key.on.clear();
  EXPECT_EQ(Merge(root, {{1, 1}}, no_key).status().code(), StatusCode::kInvalidInput);
  MergeInsertSpec unknown = Upsert();
  unknown.on = {"nope"};
  EXPECT_EQ(Merge(root, {{1, 1}}, unknown).status().code(), StatusCode::kTableColumnNotFound);
  MergeInsertSpec nothing;
  nothing.on = {"id"};
  EXPECT_EQ(Merge(root, {{1, 1}}, nothing).status().code(), StatusCode::kInvalidInput);
  MergeInsertSpec bad_sql = Upsert();
  bad_sql.when_matched_update_all_filt = "target.x <";
  EXPECT_EQ(Merge(root, {{1, 1}}, bad_sql).status().code(), StatusCode::kInvalidInput);
  MergeInsertSpec bad_column = Upsert();
  bad_column.when_matched_update_all_filt = "target.nope = 1";
  EXPECT_FALSE(Merge(root, {{1, 1}}, bad_column).ok());
  // A source whose columns are not the table's.
  auto other = std::make_shared<arrow::Schema>();
  other->fields.emplace_back("id", arrow::DataType::Int64(), true);
  arrow::RecordBatch batch;
  batch.schema = other;
  batch.length = 1;
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), std::vector<int64_t>{1})};
  EXPECT_EQ(MergeInsert(table::CommitTarget{root, std::nullopt}, other, {batch}, Upsert())
                .status()
                .code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(LatestVersion(root), 1u);
  EXPECT_EQ(IdToX(root).size(), 10u);
}

// Rows the merge does not touch keep their fragment; the merged ones leave theirs through
// deletion vectors and arrive in a new fragment; a fragment left empty is dropped.
TEST(MergeInsert, UntouchedFragmentsStayAndEmptiedOnesGo) {
  auto root = MergeTable();  // fragments: 0-3, 4-7, 8-9
  ASSERT_OK(Merge(root, {{8, 1}, {9, 2}, {0, 3}}, Upsert()).status());
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  const auto& fragments = (*ds)->manifest().fragments();
  ASSERT_EQ(fragments.size(), 3);  // 0-3 (one deleted), 4-7 untouched, the new one; 8-9 gone
  EXPECT_EQ(fragments[0].id(), 0u);
  EXPECT_TRUE(fragments[0].has_deletion_file());
  EXPECT_EQ(fragments[1].id(), 1u);
  EXPECT_FALSE(fragments[1].has_deletion_file());
  EXPECT_EQ(fragments[2].physical_rows(), 3u);
}

// A merge that loses to a retryable failure runs again on the latest version, up to its attempts;
// with a deadline that has passed it gives up after the first (Lance's timeout bounds retrying,
// never the first attempt), ServiceUnavailable naming the timeout, and nothing is committed.
TEST(MergeInsert, ADeadlineStopsTheRetriesNotTheFirstAttempt) {
  std::shared_ptr<ObjectStore> root = MergeTable();
  auto faults = std::make_shared<FaultInjectingStore>(root);
  faults->FailAlways(StoreOp::kPut, Status::ServiceUnavailable("injected: the store is busy"));
  const uint64_t before = LatestVersion(root);

  auto no_deadline = Merge(faults, {{1, 7}}, Upsert());
  ASSERT_FALSE(no_deadline.ok());
  EXPECT_NE(no_deadline.status().message().find("gave up after 5 attempts"), std::string::npos)
      << no_deadline.status().ToString();

  ManualClock clock;
  MergeInsertSpec spec = Upsert();
  spec.retry_deadline = Deadline::After(&clock, std::chrono::milliseconds(30));
  clock.Advance(std::chrono::milliseconds(31));
  auto late = Merge(faults, {{1, 7}}, spec);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), StatusCode::kServiceUnavailable);
  EXPECT_NE(late.status().message().find("gave up after 1 attempts, its timeout of 30 ms"),
            std::string::npos)
      << late.status().ToString();
  EXPECT_EQ(LatestVersion(root), before);

  faults->Clear();  // the same merge with time to spare succeeds
  spec.retry_deadline = Deadline::After(&clock, std::chrono::seconds(30));
  auto merged = Merge(faults, {{1, 7}}, spec);
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->attempts, 1);
  EXPECT_EQ(IdToX(root).find(1)->second, 7);
}

// (id, _rowid, created-at version) of the latest version's rows, by id, read through the query
// engine's `_rowid` and the fragments' created-at sequences.
std::map<int64_t, std::pair<uint64_t, uint64_t>> Lineage(const std::shared_ptr<ObjectStore>& root) {
  std::map<int64_t, std::pair<uint64_t, uint64_t>> out;
  auto ds = table::Dataset::Open(root);
  EXPECT_OK(ds.status());
  if (!ds.ok()) return out;
  std::map<uint64_t, uint64_t> created_by_row_id;
  for (const auto& f : (*ds)->manifest().fragments()) {
    auto ids = table::FragmentRowIds(**ds, f);
    auto created = table::FragmentCreatedAtVersions(**ds, f);
    EXPECT_OK(ids.status());
    EXPECT_OK(created.status());
    if (!ids.ok() || !created.ok()) return out;
    EXPECT_EQ(created->size(), f.physical_rows()) << "fragment " << f.id();
    for (uint64_t k = 0; k < created->size(); ++k)
      created_by_row_id[(*ids)->Get(k)] = (*created)[k];
  }
  QueryRequest request;
  request.columns = {"id"};
  request.with_row_id = true;
  auto stream = RunQuery(*ds, request);
  EXPECT_OK(stream.status());
  while (stream.ok()) {
    auto batch = (*stream)->Next();
    EXPECT_OK(batch.status());
    if (!batch.ok() || !*batch) break;
    for (int64_t i = 0; i < (*batch)->length; ++i) {
      const uint64_t row_id = arrow::Values<uint64_t>(*(*batch)->columns[1])[i];
      out[arrow::Values<int64_t>(*(*batch)->columns[0])[i]] = {row_id, created_by_row_id[row_id]};
    }
  }
  return out;
}

// On a table with stable row ids an update and a merge keep what LanceDB keeps (observed with
// 0.31 and 0.39): a moved row its id and created-at version, an inserted row the next id.
TEST(MergeInsert, StableRowIdsAndCreatedVersionsSurviveUpdatesAndMerges) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto write = [&](int64_t first, int64_t n, table::WriteMode mode) {
    std::vector<std::pair<std::optional<int64_t>, int32_t>> rows;
    for (int64_t i = first; i < first + n; ++i) rows.push_back({i, static_cast<int32_t>(10 * i)});
    auto stream = arrow::MakeVectorStream(MergeSchema(), {MergeRows(rows)});
    table::WriteOptions options;
    options.mode = mode;
    options.max_rows_per_file = 4;
    options.commit.new_table_stable_row_ids = true;
    ASSERT_OK(table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options).status());
  };
  write(0, 10, table::WriteMode::kCreate);  // version 1: ids 0..9
  write(10, 2, table::WriteMode::kAppend);  // version 2: ids 10, 11
  auto before = Lineage(root);
  ASSERT_EQ(before.size(), 12u);
  EXPECT_EQ(before[10], std::make_pair(uint64_t{10}, uint64_t{2}));

  auto updated =
      UpdateWhere(table::CommitTarget{root, std::nullopt}, {{"x", "x + 1"}}, "id = 1 OR id = 10");
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->rows_updated, 2u);
  auto merged = Merge(root, {{3, 333}, {11, 111}, {42, 420}}, Upsert());
  ASSERT_OK(merged.status());
  EXPECT_EQ(merged->updated, 2u);
  EXPECT_EQ(merged->inserted, 1u);

  auto after = Lineage(root);
  ASSERT_EQ(after.size(), 13u);
  for (int64_t id = 0; id < 12; ++id) {
    EXPECT_EQ(after[id], before[id]) << "id " << id;  // ids and created-at versions kept
  }
  EXPECT_EQ(after[42], std::make_pair(uint64_t{12}, merged->version));  // the next id, created now
  auto x = IdToX(root);
  EXPECT_EQ(x.find(1)->second, 11);
  EXPECT_EQ(x.find(10)->second, 101);
  EXPECT_EQ(x.find(3)->second, 333);
  EXPECT_EQ(x.find(11)->second, 111);
  // The fragments the moved rows went to record the version they were last updated in.
  auto ds = table::Dataset::Open(root);
  ASSERT_OK(ds.status());
  size_t with_last_updated = 0;
  for (const auto& f : (*ds)->manifest().fragments()) {
    with_last_updated += f.has_last_updated_at_version_inline() ? 1 : 0;
  }
  EXPECT_EQ(with_last_updated, (*ds)->manifest().fragments_size());
}

}  // namespace
}  // namespace quiver::query
