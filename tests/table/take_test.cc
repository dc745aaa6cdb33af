// table::Take (by row address and by row id), Scan's `_rowid` and the stable row id sequences
// of table/row_ids.h, on tables built here: several fragments, fragments whose fields are split
// over two data files or missing from them, deletions, and stable row id sequences of every
// segment kind. Take's answers are checked against a full Scan with `_rowid` and `_rowaddr`.
#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "format/arrow_schema.h"
#include "format/lance_file_writer.h"
#include "format/lance_proto.h"
#include "format/proto/rowids.pb.h"
#include "store/memory_store.h"
#include "table/blobs.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/delete_rows.h"
#include "table/row_ids.h"
#include "table/scan.h"
#include "table/take.h"

namespace quiver::table {
namespace {

namespace pb = lance::table;

std::shared_ptr<const arrow::Schema> TakeTestSchema() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  schema->fields.emplace_back("name", arrow::DataType::Utf8(), true);
  return schema;
}

// `name` is null when id % 7 == 3, else "row <id>".
std::optional<std::string> NameOf(int64_t id) {
  if (id % 7 == 3) return std::nullopt;
  return "row " + std::to_string(id);
}

// Rows first..first+n-1 of the fields of `schema` (a subset of TakeTestSchema's, same order).
arrow::RecordBatch Rows(const std::shared_ptr<arrow::Schema>& schema, int64_t first, int64_t n) {
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = n;
  for (const auto& field : schema->fields) {
    if (field.name == "id") {
      std::vector<int64_t> ids;
      for (int64_t i = 0; i < n; ++i) ids.push_back(first + i);
      batch.columns.push_back(*arrow::MakeFixedArray(arrow::DataType::Int64(), ids));
    } else {
      std::vector<std::string> names;
      std::vector<bool> valid;
      for (int64_t i = 0; i < n; ++i) {
        auto name = NameOf(first + i);
        names.push_back(name.value_or(""));
        valid.push_back(name.has_value());
      }
      batch.columns.push_back(*arrow::MakeBinaryArray(arrow::DataType::Utf8(), names, valid));
    }
  }
  return batch;
}

enum class Layout {
  kOneFile,  // one data file holds id and name
  kSplit,    // id in one data file, name in another
  kIdOnly,   // only id: name reads as nulls
};

struct FragmentSpec {
  int64_t first_id;
  int64_t rows;
  Layout layout = Layout::kOneFile;
  std::string row_ids;                               // a serialized RowIdSequence, or none
  std::function<void(pb::DataFragment*)> edit = {};  // applied last, for hostile manifests
};

// Writes one data file holding `fields` (indices into the table schema) of rows
// first..first+n-1 and adds it to `fragment`.
Status AddFile(const std::shared_ptr<ObjectStore>& root, const format::Schema& table,
               const std::vector<size_t>& fields, int64_t first, int64_t n, int file_no,
               pb::DataFragment* fragment) {
  format::Schema schema;
  auto arrow_schema = std::make_shared<arrow::Schema>();
  for (size_t f : fields) {
    schema.fields.push_back(table.fields[f]);
    arrow_schema->fields.push_back(TakeTestSchema()->fields[f]);
    schema.max_field_id = std::max(schema.max_field_id, table.fields[f].id);
  }
  schema.num_fields_total = fields.size();
  const std::string name = "f" + std::to_string(first) + "-" + std::to_string(file_no) + ".lance";
  QV_ASSIGN_OR_RETURN(auto writer, format::LanceFileWriter::Open(root, "data/" + name, schema));
  QV_RETURN_IF_ERROR(writer->Write(Rows(arrow_schema, first, n)));
  QV_ASSIGN_OR_RETURN(format::FileWriteResult result, writer->Finish());
  auto* file = fragment->add_files();
  file->set_path(name);
  for (int32_t id : result.fields) file->add_fields(id);
  for (int32_t c : result.column_indices) file->add_column_indices(c);
  file->set_file_major_version(result.major);
  file->set_file_minor_version(result.minor);
  file->set_file_size_bytes(result.size);
  return Status::OK();
}

// Creates a table of TakeTestSchema with the fragments `specs` (ids 0, 1, ...).
Result<std::shared_ptr<const Dataset>> MakeTable(const std::shared_ptr<ObjectStore>& root,
                                                 const std::vector<FragmentSpec>& specs) {
  QV_ASSIGN_OR_RETURN(format::Schema schema, format::FromArrowSchema(*TakeTestSchema()));
  pb::Transaction txn;
  txn.set_read_version(0);
  auto* overwrite = txn.mutable_overwrite();
  for (const auto& f : schema.fields) {
    lance::file::Field* field = overwrite->add_schema();
    field->set_name(f.name);
    field->set_id(f.id);
    field->set_parent_id(f.parent_id);
    field->set_logical_type(f.logical_type);
    field->set_nullable(f.nullable);
    field->set_encoding(f.logical_type == "string" ? lance::file::VAR_BINARY : lance::file::PLAIN);
  }
  for (const FragmentSpec& spec : specs) {
    pb::DataFragment* fragment = overwrite->add_fragments();
    fragment->set_physical_rows(static_cast<uint64_t>(spec.rows));
    switch (spec.layout) {
      case Layout::kOneFile:
        QV_RETURN_IF_ERROR(AddFile(root, schema, {0, 1}, spec.first_id, spec.rows, 0, fragment));
        break;
      case Layout::kSplit:
        QV_RETURN_IF_ERROR(AddFile(root, schema, {0}, spec.first_id, spec.rows, 0, fragment));
        QV_RETURN_IF_ERROR(AddFile(root, schema, {1}, spec.first_id, spec.rows, 1, fragment));
        break;
      case Layout::kIdOnly:
        QV_RETURN_IF_ERROR(AddFile(root, schema, {0}, spec.first_id, spec.rows, 0, fragment));
        break;
    }
    if (!spec.row_ids.empty()) fragment->set_inline_row_ids(spec.row_ids);
    if (spec.edit) spec.edit(fragment);
  }
  QV_RETURN_IF_ERROR(CommitTransaction(*root, txn).status());
  return Dataset::Open(root);
}

Status Delete(const std::shared_ptr<ObjectStore>& root, const std::vector<uint64_t>& addrs) {
  return DeleteRows(CommitTarget{root, std::nullopt}, addrs).status();
}

uint64_t Addr(uint64_t fragment, uint64_t offset) { return fragment << 32 | offset; }

// One row as read: id, name, _rowid, _rowaddr.
struct Row {
  int64_t id;
  std::optional<std::string> name;
  uint64_t row_id;
  uint64_t row_addr;
  bool operator==(const Row&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << "{id " << r.id << ", name " << r.name.value_or("null") << ", _rowid " << r.row_id
            << ", _rowaddr " << r.row_addr << "}";
}

std::optional<std::string> StringAt(const arrow::ArrayData& a, int64_t i) {
  if (arrow::IsNull(a, i)) return std::nullopt;
  const int32_t* offsets = arrow::Values<int32_t>(a);
  const char* data = reinterpret_cast<const char*>(a.buffers[2]->data());
  return std::string(data + offsets[i], data + offsets[i + 1]);
}

// The rows of a batch with columns id, name, _rowid, _rowaddr.
std::vector<Row> RowsOf(const arrow::RecordBatch& batch) {
  std::vector<Row> out;
  for (int64_t i = 0; i < batch.length; ++i) {
    out.push_back(Row{arrow::Values<int64_t>(*batch.columns[0])[i], StringAt(*batch.columns[1], i),
                      arrow::Values<uint64_t>(*batch.columns[2])[i],
                      arrow::Values<uint64_t>(*batch.columns[3])[i]});
  }
  return out;
}

// Every row of the table, by a full scan with `_rowid` and `_rowaddr`.
std::vector<Row> ScanAll(const std::shared_ptr<const Dataset>& ds, uint32_t batch_rows = 1000,
                         size_t fragments_begin = 0, size_t fragments_end = SIZE_MAX) {
  ScanOptions options;
  options.fragments_begin = fragments_begin;
  options.fragments_end = fragments_end;
  options.with_row_addr = true;
  options.with_row_id = true;
  options.batch_rows = batch_rows;
  auto stream = Scan(ds, options);
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return {};
  EXPECT_EQ((*stream)->schema()->fields.size(), 4u);
  EXPECT_EQ((*stream)->schema()->fields[2].name, "_rowid");
  EXPECT_EQ((*stream)->schema()->fields[3].name, "_rowaddr");
  std::vector<Row> rows;
  while (true) {
    auto batch = (*stream)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    for (Row& r : RowsOf(**batch)) rows.push_back(std::move(r));
  }
  return rows;
}

Result<std::vector<Row>> TakeRows(const std::shared_ptr<const Dataset>& ds,
                                  const std::vector<uint64_t>& rows,
                                  RowKey key = RowKey::kAddress) {
  TakeOptions options;
  options.key = key;
  options.with_row_id = true;
  options.with_row_addr = true;
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch batch, Take(ds, rows, options));
  QV_RETURN_IF_ERROR(batch.Validate());
  return RowsOf(batch);
}

// A table of three fragments (one file; id and name in two files; id only) with deletions in the
// first two, and a fourth fragment deleted whole.
Result<std::shared_ptr<const Dataset>> MixedTable(const std::shared_ptr<ObjectStore>& root) {
  QV_RETURN_IF_ERROR(MakeTable(root, {{0, 100, Layout::kOneFile},
                                      {1000, 20000, Layout::kSplit},
                                      {50000, 30, Layout::kIdOnly},
                                      {60000, 3, Layout::kOneFile}})
                         .status());
  std::vector<uint64_t> dead = {Addr(0, 0), Addr(0, 5), Addr(0, 6), Addr(0, 99),
                                Addr(3, 0), Addr(3, 1), Addr(3, 2)};
  for (uint64_t o = 8000; o < 8300; ++o) dead.push_back(Addr(1, o));
  for (uint64_t o = 10; o < 20000; o += 97) dead.push_back(Addr(1, o));
  QV_RETURN_IF_ERROR(Delete(root, dead));
  return Dataset::Open(root);
}

TEST(Scan, RowIdIsTheRowAddressWithoutStableRowIds) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ((*ds)->manifest().fragments_size(), 3);  // fragment 3 left whole
  const std::vector<Row> rows = ScanAll(*ds, 777);
  ASSERT_EQ(rows.size(), 96u + (20000 - 300 - 204) + 30u);
  for (const Row& r : rows) {
    ASSERT_EQ(r.row_id, r.row_addr) << r;
    // Fragment f's row o has id first_id(f) + o.
    const uint64_t fragment = r.row_addr >> 32, offset = r.row_addr & 0xFFFFFFFF;
    const int64_t first[] = {0, 1000, 50000};
    ASSERT_LT(fragment, 3u);
    ASSERT_EQ(r.id, first[fragment] + static_cast<int64_t>(offset)) << r;
    ASSERT_EQ(r.name, fragment == 2 ? std::nullopt : NameOf(r.id)) << r;
  }
  // `_rowid` alone (no `_rowaddr`), and with offset/limit.
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_id = true;
  options.offset = 90;
  options.limit = 10;
  auto stream = Scan(*ds, options);
  ASSERT_TRUE(stream.ok());
  ASSERT_EQ((*stream)->schema()->fields.size(), 2u);
  EXPECT_EQ((*stream)->schema()->fields[1].name, "_rowid");
  std::vector<uint64_t> ids;  // batches end at fragment ends: 6 rows, then 4
  while (true) {
    auto batch = (*stream)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    for (int64_t i = 0; i < (*batch)->length; ++i) {
      ids.push_back(arrow::Values<uint64_t>(*(*batch)->columns[1])[i]);
    }
  }
  ASSERT_EQ(ids.size(), 10u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(ids[i], rows[90 + i].row_addr) << i;
}

// A parallel scan's slices (ScanOptions::fragments_begin/end): each fragment scanned alone, in
// manifest order, gives exactly the rows of the whole scan, deletions applied; an end past the
// list is clamped and a begin past it is empty.
TEST(Scan, FragmentSlicesJoinToTheWholeScan) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const std::vector<Row> whole = ScanAll(*ds, 777);
  std::vector<Row> joined;
  const auto fragments = static_cast<size_t>((*ds)->manifest().fragments_size());
  for (size_t f = 0; f < fragments; ++f) {
    const std::vector<Row> part = ScanAll(*ds, 777, f, f + 1);
    ASSERT_FALSE(part.empty()) << f;
    for (const Row& r : part) {
      ASSERT_EQ(static_cast<int>(r.row_addr >> 32),
                (*ds)->manifest().fragments(static_cast<int>(f)).id());
    }
    joined.insert(joined.end(), part.begin(), part.end());
  }
  ASSERT_EQ(joined.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(joined[i].row_addr, whole[i].row_addr) << i;
  EXPECT_EQ(ScanAll(*ds, 777, 1, 99).size(), whole.size() - ScanAll(*ds, 777, 0, 1).size());
  EXPECT_TRUE(ScanAll(*ds, 777, fragments, fragments + 5).empty());
}

TEST(Take, ReturnsRowsInTheOrderAskedWithRepeats) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  std::map<uint64_t, Row> by_addr;
  for (const Row& r : ScanAll(*ds)) by_addr[r.row_addr] = r;

  const std::vector<uint64_t> asked = {Addr(1, 19999), Addr(0, 1),    Addr(2, 29), Addr(0, 1),
                                       Addr(1, 0),     Addr(1, 1),    Addr(1, 2),  Addr(0, 98),
                                       Addr(1, 8300),  Addr(1, 7999), Addr(2, 0),  Addr(1, 19999)};
  auto got = TakeRows(*ds, asked);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), asked.size());
  for (size_t i = 0; i < asked.size(); ++i) {
    ASSERT_TRUE(by_addr.count(asked[i])) << i;
    EXPECT_EQ((*got)[i], by_addr[asked[i]]) << i;
  }
  // By row id: the same rows (ids are addresses here).
  auto by_id = TakeRows(*ds, asked, RowKey::kId);
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  EXPECT_EQ(*by_id, *got);
}

TEST(Take, RandomTakesMatchTheScan) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const std::vector<Row> all = ScanAll(*ds);
  std::mt19937_64 rng(42);
  for (size_t n : {1, 2, 50, 3000, 30000}) {
    SCOPED_TRACE(n);
    std::vector<uint64_t> asked;
    std::vector<Row> want;
    // Runs of consecutive rows and single rows, in random order.
    while (asked.size() < n) {
      size_t at = rng() % all.size();
      size_t run = rng() % 3 == 0 ? 1 + rng() % 200 : 1;
      for (size_t k = at; k < std::min(all.size(), at + run) && asked.size() < n; ++k) {
        asked.push_back(all[k].row_addr);
        want.push_back(all[k]);
      }
    }
    auto got = TakeRows(*ds, asked);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, want);
  }
}

TEST(Take, ProjectsColumns) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  TakeOptions options;
  options.columns = {"name"};
  auto batch = Take(*ds, {Addr(2, 4), Addr(1, 1), Addr(0, 3)}, options);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_TRUE(batch->Validate().ok());
  ASSERT_EQ(batch->schema->fields.size(), 1u);
  EXPECT_EQ(batch->schema->fields[0].name, "name");
  ASSERT_EQ(batch->length, 3);
  EXPECT_EQ(StringAt(*batch->columns[0], 0), std::nullopt);  // fragment 2 has no name file
  EXPECT_EQ(StringAt(*batch->columns[0], 1), NameOf(1001));
  EXPECT_EQ(StringAt(*batch->columns[0], 2), std::nullopt);  // 3 % 7 == 3

  options.columns = {"nope"};
  EXPECT_TRUE(Take(*ds, {Addr(0, 1)}, options).status().IsInvalidInput());

  // Nothing asked: no rows, the projected schema.
  options.columns = {};
  options.with_row_addr = true;
  auto empty = Take(*ds, {}, options);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->length, 0);
  EXPECT_EQ(empty->columns.size(), 3u);
  EXPECT_TRUE(empty->Validate().ok());
}

TEST(Take, ErrorsNameTheRow) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MixedTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  // Past the fragment's rows: a malformed address.
  auto past = Take(*ds, {Addr(0, 1), Addr(0, 100)});
  EXPECT_TRUE(past.status().IsInvalidInput()) << past.status().ToString();
  EXPECT_FALSE(past.status().IsNotFound());
  EXPECT_NE(past.status().message().find("row offset 100 is past fragment 0's 100 rows"),
            std::string::npos)
      << past.status().ToString();
  // By id on a table without stable row ids, the error names what was passed: a row id.
  TakeOptions ids;
  ids.key = RowKey::kId;
  for (uint64_t id : {Addr(0, 100), Addr(0, 5), Addr(7, 0)}) {
    auto r = Take(*ds, {id}, ids);
    EXPECT_EQ(r.status().message().rfind("row id " + std::to_string(id), 0), 0u)
        << r.status().ToString();
  }
  // A deleted row, a fragment deleted whole, a fragment never written: not found.
  for (uint64_t addr : {Addr(0, 5), Addr(1, 8100), Addr(3, 1), Addr(7, 0)}) {
    SCOPED_TRACE(addr);
    auto r = Take(*ds, {Addr(0, 1), addr});
    EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find(std::to_string(addr)), std::string::npos);
    TakeOptions by_id;
    by_id.key = RowKey::kId;
    EXPECT_TRUE(Take(*ds, {addr}, by_id).status().IsNotFound());
  }
}

// ---- stable row ids ----

std::string RangeIds(uint64_t start, uint64_t end) {
  pb::RowIdSequence seq;
  auto* r = seq.add_segments()->mutable_range();
  r->set_start(start);
  r->set_end(end);
  return seq.SerializeAsString();
}

std::string LittleEndian(const std::vector<uint64_t>& values, size_t width) {
  std::string out;
  for (uint64_t v : values) out.append(reinterpret_cast<const char*>(&v), width);
  return out;
}

// Every segment kind: range, holes, bitmap, u16/u32/u64 arrays (sorted and not).
std::string MixedIds() {
  pb::RowIdSequence seq;
  auto* range = seq.add_segments()->mutable_range();  // 500..509
  range->set_start(500);
  range->set_end(510);
  auto* holes = seq.add_segments()->mutable_range_with_holes();  // 600..609 minus 601, 605
  holes->set_start(600);
  holes->set_end(610);
  holes->mutable_holes()->mutable_u64_array()->set_values(LittleEndian({601, 605}, 8));
  auto* bitmap = seq.add_segments()->mutable_range_with_bitmap();  // 700 + {0, 3, 8, 9}
  bitmap->set_start(700);
  bitmap->set_end(711);
  bitmap->set_bitmap(std::string("\x09\x03", 2));
  auto* u16 = seq.add_segments()->mutable_sorted_array()->mutable_u16_array();
  u16->set_base(800);
  u16->set_offsets(LittleEndian({1, 2, 70}, 2));
  auto* u32 = seq.add_segments()->mutable_array()->mutable_u32_array();
  u32->set_base(1ull << 40);
  u32->set_offsets(LittleEndian({9, 3}, 4));
  seq.add_segments()->mutable_array()->mutable_u64_array()->set_values(LittleEndian({42}, 8));
  return seq.SerializeAsString();
}

const std::vector<uint64_t> kMixedIds = {500,
                                         501,
                                         502,
                                         503,
                                         504,
                                         505,
                                         506,
                                         507,
                                         508,
                                         509,
                                         600,
                                         602,
                                         603,
                                         604,
                                         606,
                                         607,
                                         608,
                                         609,
                                         700,
                                         703,
                                         708,
                                         709,
                                         801,
                                         802,
                                         870,
                                         (1ull << 40) + 9,
                                         (1ull << 40) + 3,
                                         42};

TEST(RowIdSequence, DecodesEverySegmentKind) {
  auto seq = RowIdSequence::Decode(MixedIds(), kMixedIds.size());
  ASSERT_TRUE(seq.ok()) << seq.status().ToString();
  ASSERT_EQ(seq->size(), kMixedIds.size());
  for (uint64_t i = 0; i < kMixedIds.size(); ++i) EXPECT_EQ(seq->Get(i), kMixedIds[i]) << i;
  std::vector<uint64_t> sorted = kMixedIds;
  sorted.push_back(510);  // absent
  sorted.push_back(601);  // a hole
  std::sort(sorted.begin(), sorted.end());
  std::map<uint64_t, uint64_t> found;
  seq->Find(sorted, [&](size_t i, uint64_t offset) { found[sorted[i]] = offset; });
  EXPECT_EQ(found.size(), kMixedIds.size());
  for (uint64_t i = 0; i < kMixedIds.size(); ++i) EXPECT_EQ(found[kMixedIds[i]], i);
}

TEST(RowIdSequence, RejectsMalformedSequences) {
  EXPECT_EQ(RowIdSequence::Decode(MixedIds(), kMixedIds.size() + 1).status().subcode(),
            Subcode::kCorruption);
  EXPECT_EQ(RowIdSequence::Decode(RangeIds(0, 10), 9).status().subcode(), Subcode::kCorruption);
  EXPECT_EQ(RowIdSequence::Decode("\xff\xff", 1).status().subcode(), Subcode::kCorruption);
  pb::RowIdSequence seq;
  seq.add_segments();  // no kind
  EXPECT_EQ(RowIdSequence::Decode(seq.SerializeAsString(), 0).status().subcode(),
            Subcode::kCorruption);
  // A huge range with holes or a bitmap is refused before anything is expanded.
  seq.Clear();
  auto* holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(0);
  holes->set_end(UINT64_MAX);
  holes->mutable_holes()->mutable_u64_array();
  EXPECT_EQ(RowIdSequence::Decode(seq.SerializeAsString(), 10).status().subcode(),
            Subcode::kCorruption);
  seq.Clear();
  auto* bitmap = seq.add_segments()->mutable_range_with_bitmap();
  bitmap->set_start(0);
  bitmap->set_end(UINT64_MAX);
  bitmap->set_bitmap("\xff");
  EXPECT_EQ(RowIdSequence::Decode(seq.SerializeAsString(), 8).status().subcode(),
            Subcode::kCorruption);
  // Holes outside the range.
  seq.Clear();
  holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(10);
  holes->set_end(20);
  holes->mutable_holes()->mutable_u64_array()->set_values(LittleEndian({25}, 8));
  EXPECT_EQ(RowIdSequence::Decode(seq.SerializeAsString(), 9).status().subcode(),
            Subcode::kCorruption);
  // Unsorted or repeated holes (the lengths add up: only the order check can catch them).
  for (const std::vector<uint64_t>& bad : {std::vector<uint64_t>{15, 12}, {12, 12}}) {
    holes->mutable_holes()->mutable_u64_array()->set_values(LittleEndian(bad, 8));
    auto r = RowIdSequence::Decode(seq.SerializeAsString(), 8);
    EXPECT_EQ(r.status().subcode(), Subcode::kCorruption) << bad[0] << "," << bad[1];
  }
  // An array whose bytes are not a whole number of values.
  seq.Clear();
  seq.add_segments()->mutable_array()->mutable_u32_array()->set_offsets("\x01\x02\x03");
  EXPECT_EQ(RowIdSequence::Decode(seq.SerializeAsString(), 0).status().subcode(),
            Subcode::kCorruption);
}

// Every id of `seq` by Get, and every position by Find (asked with `extra` absent ids too),
// against `want`.
void ExpectIds(const RowIdSequence& seq, const std::vector<uint64_t>& want,
               const std::vector<uint64_t>& absent) {
  ASSERT_EQ(seq.size(), want.size());
  for (uint64_t i = 0; i < want.size(); ++i) ASSERT_EQ(seq.Get(i), want[i]) << i;
  std::set<uint64_t> asked(want.begin(), want.end());
  asked.insert(absent.begin(), absent.end());
  const std::vector<uint64_t> sorted(asked.begin(), asked.end());
  std::map<uint64_t, uint64_t> found;
  seq.Find(sorted, [&](size_t i, uint64_t offset) {
    EXPECT_TRUE(found.emplace(sorted[i], offset).second) << sorted[i];
  });
  ASSERT_EQ(found.size(), want.size());
  for (uint64_t i = 0; i < want.size(); ++i) EXPECT_EQ(found[want[i]], i) << i;
}

// Ranges with holes are kept as bounds and holes: a fragment of 2^40 rows decodes at once
// (expanding it would need 8 TiB).
TEST(RowIdSequence, KeepsRangesWithHolesCompact) {
  const uint64_t n = 1ull << 40;
  pb::RowIdSequence seq;
  auto* holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(0);
  holes->set_end(n);
  holes->mutable_holes()->mutable_u64_array();
  auto plain = RowIdSequence::Decode(seq.SerializeAsString(), n);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->size(), n);
  EXPECT_EQ(plain->Get(n - 1), n - 1);
  const uint64_t half = n / 2;
  holes->mutable_holes()->mutable_u64_array()->set_values(LittleEndian({3, half}, 8));
  auto seq2 = RowIdSequence::Decode(seq.SerializeAsString(), n - 2);
  ASSERT_TRUE(seq2.ok()) << seq2.status().ToString();
  EXPECT_EQ(seq2->Get(2), 2u);
  EXPECT_EQ(seq2->Get(3), 4u);
  EXPECT_EQ(seq2->Get(half - 2), half - 1);
  EXPECT_EQ(seq2->Get(half - 1), half + 1);
  EXPECT_EQ(seq2->Get(n - 3), n - 1);
  std::map<uint64_t, uint64_t> found;
  const std::vector<uint64_t> asked = {2, 3, 4, half - 1, half, half + 1, n - 1, n};
  seq2->Find(asked, [&](size_t i, uint64_t offset) { found[asked[i]] = offset; });
  EXPECT_EQ(found,
            (std::map<uint64_t, uint64_t>{
                {2, 2}, {4, 3}, {half - 1, half - 2}, {half + 1, half - 1}, {n - 1, n - 3}}));
}

// Holes stored as u16 offsets from a base (what Lance writes for a small range).
TEST(RowIdSequence, HolesWithAU16Base) {
  pb::RowIdSequence seq;
  auto* holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(600);
  holes->set_end(610);
  holes->mutable_holes()->mutable_u16_array()->set_base(600);
  holes->mutable_holes()->mutable_u16_array()->set_offsets(LittleEndian({1, 5}, 2));
  auto decoded = RowIdSequence::Decode(seq.SerializeAsString(), 8);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectIds(*decoded, {600, 602, 603, 604, 606, 607, 608, 609}, {599, 601, 605, 610});
}

// Random holes and bitmaps (across 64-bit words, with empty words) against their expansion.
TEST(RowIdSequence, RandomHolesAndBitmapsMatchTheirExpansion) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    SCOPED_TRACE(round);
    const uint64_t start = rng() % 3 == 0 ? (1ull << 40) + rng() % 1000 : rng() % 1000;
    const uint64_t span = 1 + rng() % 700;
    const unsigned density = static_cast<unsigned>(rng() % 4);  // 0: few holes/bits .. 3: many
    std::vector<uint64_t> holes, kept_by_holes, set_bits;
    std::string bitmap((span + 7) / 8, '\0');
    for (uint64_t v = 0; v < span; ++v) {
      const bool hole = rng() % 4 < density;
      (hole ? holes : kept_by_holes).push_back(start + v);
      // Empty stretches (whole words) in the bitmap.
      if (!hole && (v / 64) % 3 != 1) {
        set_bits.push_back(start + v);
        bitmap[v / 8] = static_cast<char>(bitmap[v / 8] | (1 << (v % 8)));
      }
    }
    pb::RowIdSequence seq;
    auto* h = seq.add_segments()->mutable_range_with_holes();
    h->set_start(start);
    h->set_end(start + span);
    h->mutable_holes()->mutable_u64_array()->set_values(LittleEndian(holes, 8));
    auto with_holes = RowIdSequence::Decode(seq.SerializeAsString(), kept_by_holes.size());
    ASSERT_TRUE(with_holes.ok()) << with_holes.status().ToString();
    ExpectIds(*with_holes, kept_by_holes, {start - 1, start + span});

    seq.Clear();
    auto* b = seq.add_segments()->mutable_range_with_bitmap();
    b->set_start(start);
    b->set_end(start + span);
    bitmap.push_back('\xff');  // a byte past the range: ignored
    b->set_bitmap(bitmap);
    auto with_bitmap = RowIdSequence::Decode(seq.SerializeAsString(), set_bits.size());
    ASSERT_TRUE(with_bitmap.ok()) << with_bitmap.status().ToString();
    ExpectIds(*with_bitmap, set_bits, holes);
  }
}

// The bitmap Lance wrote after a compaction (lance-table-format.md §2.7): LSB-first.
TEST(RowIdSequence, DecodesTheBitmapLanceWrote) {
  pb::RowIdSequence seq;
  auto* bitmap = seq.add_segments()->mutable_range_with_bitmap();
  bitmap->set_start(1);
  bitmap->set_end(20);
  bitmap->set_bitmap(std::string("\x9B\xB6\x05", 3));
  auto decoded = RowIdSequence::Decode(seq.SerializeAsString(), 12);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectIds(*decoded, {1, 2, 4, 5, 8, 10, 11, 13, 14, 16, 17, 19}, {0, 3, 6, 7, 9, 12, 15, 18, 20});
}

// A stable-row-id table: fragment 0 holds ids 100..109, fragment 1 (two files) the mixed
// sequence; row 7 of fragment 0 (id 107) also appears in fragment 2, as an update leaves it: the
// old row deleted, the new one keeps the id.
Result<std::shared_ptr<const Dataset>> StableTable(const std::shared_ptr<ObjectStore>& root) {
  pb::RowIdSequence moved;
  moved.add_segments()->mutable_array()->mutable_u64_array()->set_values(
      LittleEndian({107, 20}, 8));
  QV_RETURN_IF_ERROR(
      MakeTable(root, {{0, 10, Layout::kOneFile, RangeIds(100, 110)},
                       {1000, static_cast<int64_t>(kMixedIds.size()), Layout::kSplit, MixedIds()},
                       {5000, 2, Layout::kOneFile, moved.SerializeAsString()}})
          .status());
  QV_RETURN_IF_ERROR(Delete(root, {Addr(0, 7), Addr(0, 0), Addr(1, 11)}));  // ids 107, 100, 602
  return Dataset::Open(root);
}

TEST(StableRowIds, ScanAndTakeUseTheSequences) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = StableTable(root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_TRUE(UsesStableRowIds(**ds));
  const std::vector<Row> all = ScanAll(*ds, 3);
  ASSERT_EQ(all.size(), 8u + kMixedIds.size() - 1 + 2);
  std::map<uint64_t, Row> by_id;
  for (const Row& r : all) {
    const uint64_t fragment = r.row_addr >> 32, offset = r.row_addr & 0xFFFFFFFF;
    const uint64_t want = fragment == 0   ? 100 + offset
                          : fragment == 1 ? kMixedIds[offset]
                                          : std::vector<uint64_t>{107, 20}[offset];
    EXPECT_EQ(r.row_id, want) << r;
    EXPECT_TRUE(by_id.emplace(r.row_id, r).second) << "id twice: " << r;
  }
  ASSERT_EQ(by_id[107].row_addr, Addr(2, 0));  // the moved row

  // By id, in the order asked, repeats included.
  const std::vector<uint64_t> asked = {42, 107, 101, (1ull << 40) + 9, 870, 101, 20, 709, 600};
  auto got = TakeRows(*ds, asked, RowKey::kId);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), asked.size());
  for (size_t i = 0; i < asked.size(); ++i) EXPECT_EQ((*got)[i], by_id[asked[i]]) << i;
  // By address: `_rowid` is the stable id.
  std::vector<uint64_t> addrs;
  for (uint64_t id : asked) addrs.push_back(by_id[id].row_addr);
  auto by_addr = TakeRows(*ds, addrs);
  ASSERT_TRUE(by_addr.ok()) << by_addr.status().ToString();
  EXPECT_EQ(*by_addr, *got);

  // Deleted ids (100; 602 in fragment 1) and ids never assigned are not found.
  TakeOptions options;
  options.key = RowKey::kId;
  for (uint64_t id : {100ull, 602ull, 601ull, 110ull}) {
    auto r = Take(*ds, {101, id}, options);
    EXPECT_TRUE(r.status().IsNotFound()) << id << ": " << r.status().ToString();
  }
}

TEST(StableRowIds, MissingOrWrongSequenceIsCorruption) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  // Fragment 1 has no sequence although the table uses stable row ids.
  auto ds = MakeTable(root, {{0, 10, Layout::kOneFile, RangeIds(0, 10)}, {10, 5}});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ScanOptions options;
  options.with_row_id = true;
  auto stream = Scan(*ds, options);
  ASSERT_TRUE(stream.ok());
  Status status;
  while (status.ok()) {
    auto batch = (*stream)->Next();
    status = batch.status();
    if (status.ok() && !*batch) break;
  }
  EXPECT_EQ(status.subcode(), Subcode::kCorruption) << status.ToString();
  TakeOptions take;
  take.key = RowKey::kId;
  EXPECT_EQ(Take(*ds, {12}, take).status().subcode(), Subcode::kCorruption);

  // A sequence shorter than the fragment.
  std::shared_ptr<ObjectStore> other = MemoryObjectStore::Create();
  auto short_ds = MakeTable(other, {{0, 10, Layout::kOneFile, RangeIds(0, 9)}});
  ASSERT_TRUE(short_ds.ok()) << short_ds.status().ToString();
  take.with_row_id = true;
  take.key = RowKey::kAddress;
  EXPECT_EQ(Take(*short_ds, {1}, take).status().subcode(), Subcode::kCorruption);
}

// The status of a scan that runs to its end (or its first error).
Status ScanToEnd(const std::shared_ptr<const Dataset>& ds, const ScanOptions& options) {
  QV_ASSIGN_OR_RETURN(auto stream, Scan(ds, options));
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) return Status::OK();
  }
}

// A small manifest claiming a huge fragment (2^40 rows, no data files, a range with holes as its
// sequence) or a fragment id past 2^32 is Corruption, at once: nothing is sized by the claim.
TEST(StableRowIds, HostileFragmentsAreCorruption) {
  const uint64_t huge = 1ull << 40;
  pb::RowIdSequence seq;
  auto* holes = seq.add_segments()->mutable_range_with_holes();
  holes->set_start(0);
  holes->set_end(huge);
  holes->mutable_holes()->mutable_u64_array();
  const std::string ids = seq.SerializeAsString();
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MakeTable(root, {{0, 10, Layout::kOneFile, RangeIds(0, 10)},
                             {10, 1, Layout::kOneFile, ids, [&](pb::DataFragment* f) {
                                f->clear_files();
                                f->set_physical_rows(huge);
                              }}});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ((*ds)->manifest().fragments(1).physical_rows(), huge);
  TakeOptions by_id;
  by_id.key = RowKey::kId;
  auto taken = Take(*ds, {12}, by_id);  // searches every fragment's sequence
  EXPECT_EQ(taken.status().subcode(), Subcode::kCorruption) << taken.status().ToString();
  EXPECT_EQ(Take(*ds, {Addr(1, 5)}).status().subcode(), Subcode::kCorruption);
  ScanOptions scan;
  scan.columns = {"name"};
  scan.with_row_id = true;
  scan.offset = 10;  // straight to the huge fragment
  EXPECT_EQ(ScanToEnd(*ds, scan).subcode(), Subcode::kCorruption);
  // The sequence alone is fine: it is the row count that cannot be.
  EXPECT_TRUE(RowIdSequence::Decode(ids, huge).ok());

  // A fragment id of 2^32: its addresses would wrap onto fragment 0's.
  std::shared_ptr<ObjectStore> other = MemoryObjectStore::Create();
  auto wide = MakeTable(
      other, {{0, 10, Layout::kOneFile, {}, [](pb::DataFragment* f) { f->set_id(1ull << 32); }}});
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  scan = {};
  scan.with_row_addr = true;
  EXPECT_EQ(ScanToEnd(*wide, scan).subcode(), Subcode::kCorruption);
  by_id.with_row_id = true;
  EXPECT_TRUE(Take(*wide, {Addr(0, 1)}, by_id).status().IsNotFound());  // no fragment 0
}

// Sequences in external files (DataFragment.external_row_ids): read from under the root; a file
// cut short, a range past its end or a missing file is Corruption naming it, never NotFound
// (which Take keeps for rows not in the version).
TEST(StableRowIds, ExternalSequences) {
  const std::string ids = RangeIds(300, 310);
  const auto external = [&](std::string path, uint64_t offset, uint64_t size) {
    return [=](pb::DataFragment* f) {
      auto* file = f->mutable_external_row_ids();
      file->set_path(path);
      file->set_offset(offset);
      file->set_size(size);
    };
  };
  struct Case {
    const char* name;
    std::function<void(pb::DataFragment*)> edit;
    bool ok;
  };
  const Case cases[] = {
      {"good", external("_rowids/f0.bin", 4, ids.size()), true},
      {"cut short", external("_rowids/f0.bin", 4, ids.size() + 10), false},
      {"offset past the end", external("_rowids/f0.bin", 1000, ids.size()), false},
      {"missing", external("_rowids/nope.bin", 4, ids.size()), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
    ASSERT_TRUE(root->Put("_rowids/f0.bin", "head" + ids).ok());
    auto ds = MakeTable(root, {{0, 10, Layout::kOneFile, {}, c.edit}});
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    ASSERT_TRUE(UsesStableRowIds(**ds));
    TakeOptions by_id;
    by_id.key = RowKey::kId;
    by_id.with_row_addr = true;
    auto taken = Take(*ds, {305, 300}, by_id);
    ScanOptions scan;
    scan.with_row_id = true;
    const Status scanned = ScanToEnd(*ds, scan);
    if (c.ok) {
      ASSERT_TRUE(taken.ok()) << taken.status().ToString();
      EXPECT_EQ(arrow::Values<uint64_t>(*taken->columns[2])[0], Addr(0, 5));
      EXPECT_EQ(arrow::Values<uint64_t>(*taken->columns[2])[1], Addr(0, 0));
      EXPECT_TRUE(scanned.ok()) << scanned.ToString();
      continue;
    }
    for (const Status& status : {taken.status(), scanned}) {
      EXPECT_EQ(status.subcode(), Subcode::kCorruption) << status.ToString();
      EXPECT_FALSE(status.IsNotFound());
      EXPECT_NE(status.message().find("_rowids/"), std::string::npos) << status.ToString();
    }
  }
}

// A data or deletion file the manifest names but the store lacks: Corruption, not NotFound.
TEST(Take, MissingFilesAreCorruption) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto ds = MakeTable(root, {{0, 10}, {10, 10, Layout::kOneFile, {}, [](pb::DataFragment* f) {
                                         auto* deletion = f->mutable_deletion_file();
                                         deletion->set_file_type(pb::DeletionFile::ARROW_ARRAY);
                                         deletion->set_read_version(1);
                                         deletion->set_id(12345);
                                         deletion->set_num_deleted_rows(1);
                                       }}});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto no_deletions = Take(*ds, {Addr(1, 2)});
  EXPECT_EQ(no_deletions.status().subcode(), Subcode::kCorruption)
      << no_deletions.status().ToString();
  ASSERT_TRUE(Take(*ds, {Addr(0, 2)}).ok());
  ASSERT_TRUE(root->Delete("data/f0-0.lance").ok());
  auto no_data = Take(*ds, {Addr(0, 2)});
  EXPECT_EQ(no_data.status().subcode(), Subcode::kCorruption) << no_data.status().ToString();
  EXPECT_NE(no_data.status().message().find("f0-0.lance"), std::string::npos)
      << no_data.status().ToString();
}

// DeleteRows reports rows as Take does.
TEST(DeleteRows, ReportsRowsAsTakeDoes) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  ASSERT_TRUE(MakeTable(root, {{0, 10}}).ok());
  const Status missing = Delete(root, {Addr(0, 1), Addr(4, 2)});
  EXPECT_EQ(missing.code(), StatusCode::kInvalidInput) << missing.ToString();
  EXPECT_TRUE(missing.IsNotFound()) << missing.ToString();
  EXPECT_NE(missing.message().find(std::to_string(Addr(4, 2))), std::string::npos);
  const Status past = Delete(root, {Addr(0, 10)});
  EXPECT_TRUE(past.IsInvalidInput()) << past.ToString();
  EXPECT_FALSE(past.IsNotFound());
  EXPECT_NE(past.message().find("row offset 10 is past fragment 0's 10 rows"), std::string::npos)
      << past.ToString();
}

// Lance 12 names a blob's sidecar file by its id's 32 bits, least significant first (seen in
// LanceDB 0.39's tables: blob_id 1 -> 1000...0.blob, 4 -> 0010...0.blob).
TEST(BlobFileName, ThirtyTwoBitsLeastSignificantFirst) {
  EXPECT_EQ(BlobFileName(0), std::string(32, '0') + ".blob");
  EXPECT_EQ(BlobFileName(1), "1" + std::string(31, '0') + ".blob");
  EXPECT_EQ(BlobFileName(4), "001" + std::string(29, '0') + ".blob");
  EXPECT_EQ(BlobFileName(0x80000000u), std::string(31, '0') + "1.blob");
}

}  // namespace
}  // namespace quiver::table
