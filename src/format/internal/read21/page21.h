// Decoding of one 2.1 page of a leaf column (lance-file-format.md §3): the mini-block, full-zip
// and constant layouts, into repetition/definition levels plus the page's visible values.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/internal/file_container.h"
#include "format/internal/repdef.h"

namespace quiver::format::internal {

struct DecodedPage {
  uint64_t rows = 0;
  std::vector<LayerKind> layers;  // innermost first
  std::vector<uint16_t> rep;      // empty: no repetition
  std::vector<uint16_t> def;      // empty: every level fully defined
  uint64_t num_levels = 0;
  arrow::ArrayPtr values;  // one per visible level; no validity (it comes from def)
};

// `buffers` are the page's buffers in order (bytes already read). `leaf_type` is the Arrow type
// the values decode into (for dictionary columns, the dictionary's value type). When `owner` is
// set it keeps the bytes of `buffers` alive, and values stored verbatim (full-zip fixed-width
// pages without levels) are returned as zero-copy views of them that hold `owner`; otherwise
// they are copied.
Result<DecodedPage> DecodePage21(const PageInfo& page, const std::vector<std::string_view>& buffers,
                                 const arrow::DataType& leaf_type, arrow::MemoryPool* pool,
                                 std::shared_ptr<const void> owner = nullptr);

}  // namespace quiver::format::internal
