// Shredding: Arrow arrays of one top-level field turned into, for each leaf column, repetition
// and definition levels plus the visible values (lance-file-format.md §3.1), the inverse of
// repdef.h's Unravel.
//
// Levels are accumulated in a "general" definition numbering in which every layer claims its
// numbers whether or not the data uses them (an item layer: "null"; a list layer: "null" and
// "empty"). When a page is cut, LeafPageLevels::Finish renumbers them to the layers the page
// really needs, which is what Lance writes (a layer is nullable only if it has nulls).
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/internal/leaf_values.h"
#include "format/internal/repdef.h"
#include "format/internal/write21/pack_struct.h"

namespace quiver::format::internal {

// One leaf column's data for a run of whole rows, ready to encode as a page.
struct LeafPageData {
  uint64_t rows = 0;
  std::vector<LayerKind> layers;  // innermost first (Lance's order)
  std::vector<uint16_t> rep;      // empty when there is no list layer
  std::vector<uint16_t> def;      // empty when no layer has nulls or empty lists
  uint64_t num_levels = 0;
  arrow::ArrayPtr values;         // one per visible level (null slots hold zeros)
  uint64_t num_valid_values = 0;  // visible levels with definition 0
  bool dictionary_type = false;   // the column is an Arrow dictionary (must stay one on disk)
  // Set for a packed struct leaf (2.2): `values` are its rows' bytes (pack_struct.h).
  std::shared_ptr<const PackedStructLayout> packed;
};

class LeafShredder {
 public:
  // `top` is the top-level field's type; `path` the child indices down to the leaf. With
  // `packed`, the leaf is a struct stored packed (its rows' bytes are the values).
  static Result<std::unique_ptr<LeafShredder>> Make(
      const arrow::DataType& top, std::vector<int> path, arrow::MemoryPool* pool,
      std::shared_ptr<const PackedStructLayout> packed = nullptr);

  // Appends every row of `array` (the top-level field's column of a batch).
  Status Append(const arrow::ArrayData& array);

  uint64_t rows() const { return rows_; }
  uint64_t num_levels() const { return def_.size(); }
  // Bytes buffered (levels and values), to decide when to cut a page.
  uint64_t buffered_bytes() const;
  // The Arrow type of the values (dictionaries become their value type).
  const arrow::DataType& value_type() const { return values_->type(); }

  // Cuts everything buffered into a page and starts over.
  Result<LeafPageData> TakePage();

 private:
  LeafShredder() = default;
  Status AppendFlat(const arrow::ArrayData& array);
  Status Visit(size_t k, const arrow::ArrayData& a, int64_t i, uint16_t rep);
  Status PushValue(const arrow::ArrayData& leaf, int64_t i);
  Status PushNullValue();
  void PushLevel(uint16_t rep, uint16_t def) {
    if (max_rep_ > 0) rep_.push_back(rep);
    def_.push_back(def);
  }

  // Per layer, outermost first.
  std::vector<const arrow::DataType*> types_;
  std::vector<int> path_;
  std::vector<bool> is_list_;
  std::vector<uint16_t> null_def_, empty_def_;  // general numbering
  std::vector<bool> visible_stop_;              // a null here still takes a value slot
  std::vector<uint16_t> continue_rep_;          // lists: rep of a continuing item
  int max_rep_ = 0;
  arrow::MemoryPool* pool_ = nullptr;
  arrow::DataType storage_;
  std::shared_ptr<const PackedStructLayout> packed_;
  std::string row_;  // scratch for a packed row

  uint64_t rows_ = 0;
  std::vector<uint16_t> rep_, def_;
  std::unique_ptr<LeafValues> values_;
  uint64_t valid_values_ = 0;
  uint64_t variable_bytes_ = 0;
};

}  // namespace quiver::format::internal
