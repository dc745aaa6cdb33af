// Encoding of 2.1 pages of a leaf column (the writer's side of page21.h): picks the layout
// (constant for pages without valid values, full-zip for values of 256 bytes or more, mini-block
// otherwise, as Lance does, lance-file-format.md §6) and the compression, and produces the pages'
// buffers and PageLayout messages. The byte rules of §3 and §7 hold for every page it makes:
// chunks of at most 32 KiB and 65,535 levels with power-of-two value counts except the last,
// buffers under 64 KiB, variable buffers padded to their offset width, levels of whole rows.
//
// Chunks shrink until they fit, and a page whose values cannot all get a chunk (a run of empty or
// null lists longer than a chunk holds, values wider than a chunk) is cut into pages by rows; a
// single such row is written full-zip. Wide values of a shape Lance 8.0 misreads in full-zip (a
// nullable struct outside a list) are written mini-block instead, or cut into pages that avoid
// it. What cannot be written readably is Unsupported rather than written wrong: a single row of
// that shape whose values still do not fit a chunk (e.g. list<struct<list<wide>>> with a null
// struct inside the row), and a single row beyond a chunk in a dictionary or boolean column.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "format/internal/write21/shred.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

struct EncodedPage {
  std::vector<std::string> buffers;
  lance::encodings21::PageLayout layout;
  uint64_t rows = 0;
};

struct PageEncodeOptions {
  bool compress = true;  // false: only Flat / Variable / FixedSizeList values, Flat(16) levels
  // File format 2.2: mini-block pages use the large-chunk grammar (u32 chunk metadata words and
  // u32 value-buffer sizes in the chunk headers, `has_large_chunk`), which Lance 12's 2.2 reader
  // requires of every mini-block page (chunks keep 2.1's 32 KiB bound unless a value needs
  // more), and the levels of pages without values are block-compressed (RLE, bit-packing) as
  // Lance 12 writes them.
  bool large_chunks = false;
};

// One or more pages holding `page`'s rows in order.
Result<std::vector<EncodedPage>> EncodePages21(const LeafPageData& page,
                                               const PageEncodeOptions& options);

}  // namespace quiver::format::internal
