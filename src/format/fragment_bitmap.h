// An index's `fragment_bitmap` (lance-table-format.md §2.4, IndexMetadata field 5): the ids of the
// fragments the index covers, as a 32-bit Roaring bitmap in the portable serialization (what
// roaring-rs writes for Lance). Bitmaps come from stored manifests: they are untrusted, checked
// before use.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace quiver::format {

// The bitmap without `ids`, serialized the same way. Corruption for bytes that are not a bitmap.
Result<std::string> RemoveFromFragmentBitmap(std::string_view bitmap,
                                             const std::vector<uint32_t>& ids);

// A bitmap of `ids`, serialized as Lance stores it.
std::string MakeFragmentBitmap(const std::vector<uint32_t>& ids);

// The ids in a bitmap, ascending. Corruption for bytes that are not a bitmap.
Result<std::vector<uint32_t>> FragmentBitmapIds(std::string_view bitmap);

}  // namespace quiver::format
