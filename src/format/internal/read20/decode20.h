// Decoders of Lance 2.0 pages (lance-file-format.md §5): the `lance.encodings.ArrayEncoding` tree
// of one page of a column, applied to the page's buffers, into Arrow arrays.
//
// Two kinds of page carry data: leaf pages (a primitive, string, fixed-size-list, dictionary or
// packed-struct column: Nullable, Flat (optionally a compressed unit), FixedSizeList, Binary,
// Dictionary, Fsst, PackedStruct and the legacy Bitpacked / BitpackedForNonNeg /
// FixedSizeBinary) and list offsets pages (List, a column of its own; its items live in the
// following columns). Struct header pages (SimpleStruct) hold nothing to decode.
//
// Pages are untrusted: every buffer index, size, count and offset is checked before use, and
// what a page may allocate is bounded by its size (DecodeBudget20), so corrupt metadata gives
// Status::Corruption, never a crash or an unbounded allocation. Encodings this reader does not
// know answer Unsupported, naming the encoding.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/proto/encodings20.pb.h"

namespace quiver::format::internal {

struct LeafDecodeOptions20 {
  // Set when the field is an Arrow dictionary with this index type: Dictionary pages then hold
  // 0-based indices of that width. Unset: a Dictionary page is Lance's automatic string
  // dictionary (u8 indices, 1-based, 0 = null).
  std::optional<arrow::TypeId> dictionary_index;
};

// Decodes the `rows` rows of a leaf page into an array of `type` with its validity. `type` is
// the column's storage type: for an Arrow dictionary field, its value type (dictionary pages are
// materialized; callers re-encode).
Result<arrow::ArrayPtr> DecodeLeafPage20(const lance::encodings::ArrayEncoding& encoding,
                                         std::span<const std::string_view> buffers,
                                         const arrow::DataType& type, uint64_t rows,
                                         const LeafDecodeOptions20& options,
                                         arrow::MemoryPool* pool);

// One page of a list offsets column.
struct ListOffsets20 {
  // Per row: the end of the row's items, counted from the page's first item. Row i spans
  // [ends[i-1], ends[i]) (from 0 for the first row).
  std::vector<uint64_t> ends;
  std::vector<uint8_t> valid;  // per row: 1 = a list, 0 = null
  // Items of the items column that belong to this page (>= ends.back()); the next page's items
  // start after them.
  uint64_t num_items = 0;
};

Result<ListOffsets20> DecodeListOffsets20(const lance::encodings::List& list,
                                          std::span<const std::string_view> buffers, uint64_t rows,
                                          arrow::MemoryPool* pool);

// What decoding a page may allocate: a fixed allowance plus a fixed expansion of the page's
// bytes (compression and all-null pages expand; nothing legitimate expands further).
uint64_t DecodeBudget20(std::span<const std::string_view> buffers);

// The bytes `rows` nulls of `type` take decoded (values, offsets and validity), saturating.
uint64_t AllNullPageBytes20(const arrow::DataType& type, uint64_t rows);

// The encoding tree in short form for messages: "nullable.some_nulls(flat32)", "binary", ...
std::string DescribeEncoding20(const lance::encodings::ArrayEncoding& encoding);

}  // namespace quiver::format::internal
