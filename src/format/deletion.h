// Lance deletion files (lance-table-format.md §4.1): the rows of one fragment that were deleted,
// as row offsets within the fragment (offsets count deleted rows, so they are stable).
//
//   `.arrow` (ARROW_ARRAY): an Arrow IPC *file* with exactly one record batch whose schema is
//            exactly `row_id: UInt32` non-nullable without metadata; values unordered (Rust
//            writes them from a hash set), ZSTD body compression.
//   `.bin`   (BITMAP): a 32-bit Roaring bitmap in the portable serialization (cookie 3A30, or
//            3B30 with run containers).
//   Key: `_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}`, `id` a random u64 in decimal.
//   Lance writes `.arrow` up to 5,000 deleted rows and `.bin` above; readers accept either.
//
// Deletion files are untrusted input: anything malformed is Corruption naming the file, never a
// crash or an allocation beyond what the input's size justifies. Roaring bitmaps are checked
// structurally before CRoaring sees them, because CRoaring's "safe" deserializer only bounds its
// reads and accepts containers whose contents are inconsistent (unsorted arrays, overlapping runs,
// wrong cardinalities).
//
// Thread-safety: a DeletionVector is immutable after construction and safe to share; copies are
// cheap (the bitmap form is shared). The functions are reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "store/object_store.h"

struct roaring_bitmap_s;  // CRoaring's roaring_bitmap_t (kept out of this header)

namespace lance::table {
class DeletionFile;
}

namespace quiver::format {

// Mirrors lance::table::DeletionFile::DeletionFileType (same values).
enum class DeletionFileType { kArrowArray = 0, kBitmap = 1 };

// Lance's BITMAP_THRESHOLD: up to this many deleted rows a deletion file is `.arrow`.
inline constexpr uint64_t kDeletionBitmapThreshold = 5000;

std::string_view DeletionFileExtension(DeletionFileType type);  // "arrow", "bin"

// `_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}`, relative to the root that holds it.
std::string DeletionFileKey(uint64_t fragment_id, uint64_t read_version, uint64_t id,
                            DeletionFileType type);

// A set of deleted row offsets of one fragment.
class DeletionVector {
 public:
  DeletionVector() = default;  // nothing deleted
  // Any order, duplicates allowed.
  static DeletionVector FromOffsets(std::vector<uint32_t> offsets);
  // a ∪ b (a delete on a fragment that already has deletions writes the union, §4.1).
  static DeletionVector Union(const DeletionVector& a, const DeletionVector& b);

  bool Contains(uint32_t offset) const;
  uint64_t size() const;
  bool empty() const { return size() == 0; }
  // Whether the values live in a Roaring bitmap (read from `.bin`, or many of them) rather than
  // a sorted vector; the set is the same either way.
  bool is_bitmap() const { return bitmap_ != nullptr; }

  // Calls `chunk` with consecutive runs of the offsets in ascending order (chunks of a bounded
  // size, so large bitmaps are never materialized at once).
  void ForEachChunk(const std::function<void(std::span<const uint32_t>)>& chunk) const;
  template <typename F>
  void ForEach(F&& f) const {
    ForEachChunk([&f](std::span<const uint32_t> values) {
      for (uint32_t v : values) f(v);
    });
  }
  std::vector<uint32_t> ToVector() const;  // ascending

  // The rows of a fragment of `physical_rows` rows that were not deleted, as sorted, disjoint,
  // non-empty [begin, end) ranges (the form LanceFileReader's ReadRequest::row_ranges takes).
  // Offsets >= physical_rows are ignored.
  std::vector<std::pair<uint64_t, uint64_t>> SelectedRanges(uint64_t physical_rows) const;

  friend bool operator==(const DeletionVector& a, const DeletionVector& b);

 private:
  // Exactly one form is used: `bitmap_` when set, else `sorted_` (ascending, unique).
  std::vector<uint32_t> sorted_;
  std::shared_ptr<const roaring_bitmap_s> bitmap_;

  friend struct DeletionVectorAccess;  // deletion.cc: builds and reads both forms
};

// Decodes a deletion file's bytes. `what` names the file in errors; with `physical_rows`, every
// offset must be below it (and decompression is bounded by what such a fragment can need).
Result<DeletionVector> DecodeDeletionFile(std::string_view bytes, DeletionFileType type,
                                          const std::string& what,
                                          std::optional<uint64_t> physical_rows = std::nullopt);

// Encodes as Lance 8.0 does: `.arrow` with ZSTD; `.bin` as portable Roaring without run
// containers (cookie 3A30, what Rust's roaring crate writes).
Result<std::string> EncodeDeletionFile(const DeletionVector& deletions, DeletionFileType type);

// Reads `key` (relative to `store`, e.g. "_deletions/0-1-42.arrow") and decodes it.
// `expected_count` is DeletionFile.num_deleted_rows (0 = unknown, not checked); a different
// number of offsets is Corruption. A missing file is NotFound.
Result<DeletionVector> ReadDeletionFile(ObjectStore& store, const std::string& key,
                                        DeletionFileType type, uint64_t expected_count = 0,
                                        std::optional<uint64_t> physical_rows = std::nullopt);

// The same for a manifest's DeletionFile of fragment `fragment_id`. `store` is the root that holds
// the file's `_deletions/` (the dataset root, or the one its base_id names).
Result<DeletionVector> ReadDeletionFile(ObjectStore& store, uint64_t fragment_id,
                                        const lance::table::DeletionFile& file,
                                        std::optional<uint64_t> physical_rows = std::nullopt);

// Writes `deletions` as a new deletion file of fragment `fragment_id` under `store` (the dataset
// root), computed from version `read_version`, with a random id and PutOptions::CreateOnly, and
// returns the manifest entry (num_deleted_rows set, no base_id). `type` defaults to Lance's choice
// by count (<= kDeletionBitmapThreshold: `.arrow`).
Result<lance::table::DeletionFile> WriteDeletionFile(
    ObjectStore& store, uint64_t fragment_id, uint64_t read_version,
    const DeletionVector& deletions, std::optional<DeletionFileType> type = std::nullopt);

}  // namespace quiver::format
