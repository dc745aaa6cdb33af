// Row ids: what Lance's `_rowid` column holds, and stable row id sequences.
//
// Without stable row ids a row's id is its row address (fragment id << 32 | physical row offset).
// A table created with stable row ids (reader feature flag 2, lance-table-format.md §4.2) gives
// each fragment a RowIdSequence (§2.7): one id per physical row, in row-offset order, stored inline
// in the manifest or in an external file. Deletions do not change a sequence: a deleted row's id
// is a tombstone (an update moves the row to a new fragment under the same id), so an id is found
// by looking only at kept rows.
//
// Sequences are untrusted input: a malformed one is Corruption. They are kept as compact as
// stored (a range with holes as its bounds and holes, a bitmap as its words), so a small hostile
// sequence cannot make a large one; only explicit id arrays take a u64 per id, bounded by the
// bytes they were decoded from.
//
// Thread-safety: a RowIdSequence is immutable after Decode and safe to share; the functions are
// reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "table/dataset.h"

namespace lance::table {
class DataFragment;
}

namespace quiver::table {

class RowIdSequence {
 public:
  // Decodes a serialized lance.table.RowIdSequence that must hold exactly `expected_rows` ids.
  static Result<RowIdSequence> Decode(std::string_view bytes, uint64_t expected_rows);

  // The ids start, start + 1, ..., start + rows - 1 (a fragment's row addresses when start is
  // its id << 32).
  static RowIdSequence Range(uint64_t start, uint64_t rows);

  uint64_t size() const { return size_; }

  // The id of physical row `offset`: O(log segments + log holes). REQUIRES: offset < size().
  uint64_t Get(uint64_t offset) const;

  // Calls `found(i, offset)` for every position `offset` whose id is `sorted_ids[i]`
  // (`sorted_ids` ascending, unique). Costs O(log n) per id asked that lies in a range (with
  // holes or a bitmap or not), plus O(log n) per id stored one by one in an array.
  void Find(const std::vector<uint64_t>& sorted_ids,
            const std::function<void(size_t, uint64_t)>& found) const;

 private:
  // A run of the sequence. Whatever the kind, ids of one segment fill positions
  // offset..offset + length - 1.
  struct Segment {
    enum class Kind {
      kRange,   // start, start + 1, ..., start + length - 1
      kHoles,   // [start, end) minus `values` (the holes: ascending, distinct, inside)
      kBitmap,  // the v in [start, end) whose bit v - start of `values` (64-bit words) is set
      kValues,  // `values`, as stored
    };
    Kind kind = Kind::kRange;
    uint64_t offset = 0;  // position of its first id in the sequence
    uint64_t length = 0;
    uint64_t start = 0;
    uint64_t end = 0;
    std::vector<uint64_t> values;
    std::vector<uint64_t> ranks;  // kBitmap: the bits set in the words before each word
  };
  static uint64_t IdAt(const Segment& seg, uint64_t i);  // REQUIRES: i < seg.length

  std::vector<Segment> segments_;
  uint64_t size_ = 0;
};

// Whether the dataset uses stable row ids (reader feature flag 2).
bool UsesStableRowIds(const Dataset& dataset);

// The row ids of `fragment`'s physical rows: its stable row id sequence (read from the manifest,
// or from the external file it names under the dataset's root) when the table uses stable row ids,
// else its row addresses. Corruption when the fragment's rows have no row addresses (id or physical
// rows of 2^32 or more, CheckAddressable), when a stable-row-id table's fragment has no sequence
// or one whose length is not the fragment's physical rows, and when its external sequence file
// cannot be read (missing or cut short included: the manifest names it, so the table is broken).
Result<std::shared_ptr<const RowIdSequence>> FragmentRowIds(
    const Dataset& dataset, const lance::table::DataFragment& fragment);

// The dataset version each physical row of `fragment` was created in, from its created-at version
// sequence (inline, or the external range it names); empty when the fragment has none (written
// before Lance tracked versions, or on a table without stable row ids) and when it does not hold
// a version for every physical row. Corruption when the sequence does not parse or holds more.
Result<std::vector<uint64_t>> FragmentCreatedAtVersions(const Dataset& dataset,
                                                        const lance::table::DataFragment& fragment);

// For fragments whose rows keep the ids and versions they had (an update moves rows into new
// fragments, as Lance's does): `ids`, one per row in row order, as a serialized row id sequence
// (runs of consecutive ids as ranges, the rest as arrays); `versions`, one per row, as a
// serialized version sequence (runs of equal versions over row offsets).
std::string EncodeRowIds(const std::vector<uint64_t>& ids);
std::string EncodeRowVersions(const std::vector<uint64_t>& versions);

}  // namespace quiver::table
