#include "format/fragment_bitmap.h"

#include <roaring/roaring.h>

#include <memory>

namespace quiver::format {

namespace {

struct BitmapFree {
  void operator()(roaring_bitmap_t* b) const { roaring_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<roaring_bitmap_t, BitmapFree>;

Result<Bitmap> ParseBitmap(std::string_view bytes) {
  // The size check first: deserialize_safe alone accepts a valid prefix with trailing bytes.
  if (roaring_bitmap_portable_deserialize_size(bytes.data(), bytes.size()) != bytes.size()) {
    return Status::Corruption("an index's fragment bitmap is not a Roaring bitmap");
  }
  Bitmap b(roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size()));
  if (!b) return Status::Corruption("an index's fragment bitmap is not a Roaring bitmap");
  return b;
}

}  // namespace

Result<std::string> RemoveFromFragmentBitmap(std::string_view bitmap,
                                             const std::vector<uint32_t>& ids) {
  QV_ASSIGN_OR_RETURN(Bitmap b, ParseBitmap(bitmap));
  for (uint32_t id : ids) roaring_bitmap_remove(b.get(), id);
  // No run_optimize: keep the container kinds the reader wrote.
  std::string out(roaring_bitmap_portable_size_in_bytes(b.get()), '\0');
  roaring_bitmap_portable_serialize(b.get(), out.data());
  return out;
}

std::string MakeFragmentBitmap(const std::vector<uint32_t>& ids) {
  Bitmap b(roaring_bitmap_create());
  roaring_bitmap_add_many(b.get(), ids.size(), ids.data());
  std::string out(roaring_bitmap_portable_size_in_bytes(b.get()), '\0');
  roaring_bitmap_portable_serialize(b.get(), out.data());
  return out;
}

Result<std::vector<uint32_t>> FragmentBitmapIds(std::string_view bitmap) {
  QV_ASSIGN_OR_RETURN(Bitmap b, ParseBitmap(bitmap));
  std::vector<uint32_t> ids(roaring_bitmap_get_cardinality(b.get()));
  roaring_bitmap_to_uint32_array(b.get(), ids.data());
  return ids;
}

}  // namespace quiver::format
