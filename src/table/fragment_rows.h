// Which rows of a fragment a scan or take reads, which of its data files hold a projection's
// fields, and where a fragment's files live.
//
// A fragment's rows are its physical rows minus those its deletion file lists
// (lance-table-format.md §4.1). They are handled as sorted, disjoint [begin, end) row-offset
// ranges, the form LanceFileReader takes, so that offset/limit and row addresses are plain
// arithmetic on them.
//
// Thread-safety: pure functions over immutable inputs; a RowRangeCursor is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "arrow/type.h"
#include "common/result.h"
#include "format/deletion.h"
#include "format/lance_file_reader.h"
#include "store/object_store.h"
#include "table/dataset.h"

namespace lance::table {
class DataFile;
class DataFragment;
}  // namespace lance::table

namespace quiver::table {

using RowRanges = std::vector<std::pair<uint64_t, uint64_t>>;

// Row addresses (Lance's `_rowaddr`): fragment id << 32 | physical row offset.
struct RowAddress {
  // REQUIRES: fragment < 2^32 and offset < 2^32 (CheckAddressable for a manifest's fragment).
  static constexpr uint64_t Make(uint64_t fragment, uint64_t offset) {
    return fragment << 32 | offset;
  }
  static constexpr uint32_t Fragment(uint64_t address) {
    return static_cast<uint32_t>(address >> 32);
  }
  static constexpr uint32_t Offset(uint64_t address) { return static_cast<uint32_t>(address); }
};

// Corruption unless every row of `fragment` has a row address: an id below 2^32 and at most 2^32
// physical rows. Both come from the manifest unchecked; without this, addresses would wrap
// silently and row counts would be trusted past what a u32 offset (or deletion vector) can name.
Status CheckAddressable(const lance::table::DataFragment& fragment);

// A row a caller named (by address or id) that the dataset version does not have: InvalidInput
// (the request is wrong, the table is fine) with the NotFound subcode, so that callers can tell
// it from a malformed address. Storage's NotFound is never passed on as this (it is Corruption:
// the manifest names a file that is not there).
Status RowNotFound(std::string message);

// Deleted (or unrequested) rows between two wanted ranges that are decoded and dropped rather
// than skipped: a reader call per range costs about as much as decoding ~100 rows, so scattered
// rows read whole spans (see CoalesceReads).
inline constexpr uint64_t kMaxDroppedGap = 64;

// One top-level field a scan or take produces.
struct ProjectedField {
  size_t schema_index;              // in the dataset schema
  std::unordered_set<int32_t> ids;  // the field's id and its descendants'
};

struct Projection {
  // The projected fields, then `_rowid` and `_rowaddr` (uint64) when asked for.
  std::shared_ptr<const arrow::Schema> schema;
  std::vector<ProjectedField> fields;
};

// The top-level fields named by `columns` (all of them, in schema order, when empty).
// InvalidInput for an unknown column.
Result<Projection> Project(const Dataset& dataset, const std::vector<std::string>& columns,
                           bool with_row_id, bool with_row_addr);

// A data file of a fragment and the projected fields (indices into Projection::fields) read
// from it.
struct FileFields {
  const lance::table::DataFile* file;
  std::vector<size_t> outputs;
};

// Which data file of `fragment` each projected field is read from (a field and its children are
// always in one file); files holding none are left out. `missing` gets the fields no file holds
// (added after the fragment was written: they read as nulls).
std::vector<FileFields> AssignFields(const lance::table::DataFragment& fragment,
                                     const std::vector<ProjectedField>& fields,
                                     std::vector<size_t>* missing);

// Corruption when a field id the manifest knows has another logical type in a data file's own
// schema (a file from another table, or a rewritten field): decoding it as the manifest's type
// would hand out wrong values. Ids only the file has (dropped fields) are ignored.
Status CheckFileTypes(const format::Schema& manifest, const format::Schema& file,
                      const std::string& path);

// Opens one of `fragment`'s data files; Corruption when its row count is not the fragment's or
// a field's type is not the manifest's (CheckFileTypes).
Result<std::unique_ptr<format::LanceFileReader>> OpenDataFile(
    const Dataset& dataset, const lance::table::DataFragment& fragment,
    const lance::table::DataFile& file, arrow::MemoryPool* pool);

// The store holding a file that names `base_id` (none: the dataset's own root, or branch root).
// `what` names the file in errors. Unsupported for base paths outside the dataset's roots.
Result<std::shared_ptr<ObjectStore>> StoreForBase(const Dataset& dataset,
                                                  std::optional<uint32_t> base_id,
                                                  const std::string& what);

// The rows `fragment`'s deletion file deletes (none when it has no deletion file), checked against
// its physical rows.
Result<format::DeletionVector> FragmentDeletions(const Dataset& dataset,
                                                 const lance::table::DataFragment& fragment);

// The rows of `fragment` its deletion file does not delete (all rows when it has none).
Result<RowRanges> KeptRows(const Dataset& dataset, const lance::table::DataFragment& fragment);

// The number of kept rows the manifest alone tells (physical_rows - num_deleted_rows), without
// reading the deletion file; nullopt when num_deleted_rows is 0 (= unknown) on a deletion file.
std::optional<uint64_t> KnownKeptRows(const lance::table::DataFragment& fragment);

uint64_t CountRows(const RowRanges& ranges);

// The rows of `ranges` after skipping the first `skip` and keeping at most `take` of the rest.
RowRanges SliceRows(const RowRanges& ranges, uint64_t skip, uint64_t take);

// `ranges` with every range cut where the running row count reaches a multiple of `group`, so
// that no range straddles two groups of `group` rows (a scan's batches).
RowRanges SplitEvery(const RowRanges& ranges, uint64_t group);

// What the reader decodes for kept rows `kept` (already cut by SplitEvery(kept, group)):
// neighbouring ranges at most `max_gap` rows apart are merged, except across a group boundary
// (so no reader batch straddles two scan batches). With scattered deletes this costs a few
// decoded-and-dropped rows instead of one reader call per kept range.
RowRanges CoalesceReads(const RowRanges& kept, uint64_t max_gap, uint64_t group);

// Which rows of each reader batch to keep. The reader returns the rows of `reads` in order, in
// batches that never straddle a range; every range of `kept` lies inside one of `reads`.
class RowSelector {
 public:
  RowSelector(std::shared_ptr<const RowRanges> reads, std::shared_ptr<const RowRanges> kept);

  // The [offset, length) slices of the next reader batch, of `rows` rows, that are kept rows.
  // Corruption if the batch runs past the range it must lie in.
  Result<std::vector<std::pair<int64_t, int64_t>>> Next(uint64_t rows);

 private:
  std::shared_ptr<const RowRanges> reads_;
  std::shared_ptr<const RowRanges> kept_;
  size_t read_ = 0;   // the range of reads_ the next batch lies in
  uint64_t pos_ = 0;  // the physical row the next batch starts at
  size_t kept_at_ = 0;
};

// Walks the row offsets of `ranges` in order (the rows a fragment's batches hold).
class RowRangeCursor {
 public:
  RowRangeCursor() : ranges_(std::make_shared<const RowRanges>()) {}
  explicit RowRangeCursor(std::shared_ptr<const RowRanges> ranges) : ranges_(std::move(ranges)) {}

  // Appends the next `n` row offsets, each OR-ed with `high` (a fragment's id << 32 makes row
  // addresses), to `out`. REQUIRES: at least `n` rows remain.
  void Take(uint64_t n, uint64_t high, std::vector<uint64_t>* out);

 private:
  std::shared_ptr<const RowRanges> ranges_;
  size_t range_ = 0;
  uint64_t at_ = 0;  // rows of ranges_[range_] already taken
};

}  // namespace quiver::table
