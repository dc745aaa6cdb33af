// Encoding of one 2.1 page of a leaf column (the writer's side of page21.h): picks the layout
// (constant for pages without valid values, full-zip for values of 256 bytes or more, mini-block
// otherwise, as Lance does, lance-file-format.md §6) and the compression, and produces the page's
// buffers and PageLayout message. The byte rules of §3 and §7 hold for every page it makes:
// chunks of at most 32 KiB with power-of-two value counts except the last, buffers under 64 KiB,
// variable buffers padded to their offset width, levels of whole rows.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "format/internal/shred.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

struct EncodedPage {
  std::vector<std::string> buffers;
  lance::encodings21::PageLayout layout;
  uint64_t rows = 0;
};

struct PageEncodeOptions {
  bool compress = true;  // false: only Flat / Variable / FixedSizeList values, Flat(16) levels
};

Result<EncodedPage> EncodePage21(const LeafPageData& page, const PageEncodeOptions& options);

}  // namespace quiver::format::internal
