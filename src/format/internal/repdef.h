// Repetition and definition levels (lance-file-format.md §3.1) turned back into Arrow structure:
// for every layer of a leaf column's path, the elements' validity and, for lists, offsets.
//
// Layers arrive innermost first (as pages store them); results are outermost first, which is
// the order of the field path (top-level field ... leaf). A level creates an element at layer k
// when it reaches k (its definition level was not claimed by a list outside k) and starts a new
// element there (its repetition level is at least the depth of the list around k, or it starts
// a row). The leaf's elements are exactly the visible levels, one per value slot.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/buffer.h"
#include "common/result.h"

namespace quiver::format::internal {

enum class LayerKind : uint8_t {
  kAllValidItem = 1,
  kAllValidList = 2,
  kNullableItem = 3,
  kNullableList = 4,
  kEmptyableList = 5,
  kNullAndEmptyList = 6,
};

inline bool IsListLayer(LayerKind k) {
  return k == LayerKind::kAllValidList || k == LayerKind::kNullableList ||
         k == LayerKind::kEmptyableList || k == LayerKind::kNullAndEmptyList;
}

struct UnraveledLayer {
  bool is_list = false;
  int64_t length = 0;                       // elements at this layer
  std::shared_ptr<arrow::Buffer> validity;  // nullptr when every element is valid
  int64_t null_count = 0;
  std::shared_ptr<arrow::Buffer> offsets;  // lists: length + 1 offsets (int32, or int64 if large)
};

// Levels of one leaf column over whole rows. rep/def may be null (no repetition / all zero).
struct LevelsView {
  const uint16_t* rep = nullptr;
  const uint16_t* def = nullptr;
  uint64_t num_levels = 0;
};

// `layers` innermost first; `large_offsets[k]` (outermost first, one per layer) says whether list
// layer k gets int64 offsets. Corruption when levels contradict the layers (a repetition level
// above the number of lists, a definition level no layer claims, a slice not starting a row).
Result<std::vector<UnraveledLayer>> Unravel(const std::vector<LayerKind>& layers,
                                            const LevelsView& levels,
                                            const std::vector<bool>& large_offsets,
                                            arrow::MemoryPool* pool);

// The largest definition level that still has a value slot (null items and null structs inside
// the innermost list; every level when there is no list).
uint16_t MaxVisibleDef(const std::vector<LayerKind>& layers);
// The number of list layers.
int MaxRep(const std::vector<LayerKind>& layers);

}  // namespace quiver::format::internal
