// Which rows of a fragment a scan reads, and where a fragment's files live.
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
#include <utility>
#include <vector>

#include "common/result.h"
#include "format/deletion.h"
#include "store/object_store.h"
#include "table/dataset.h"

namespace lance::table {
class DataFragment;
}

namespace quiver::table {

using RowRanges = std::vector<std::pair<uint64_t, uint64_t>>;

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
