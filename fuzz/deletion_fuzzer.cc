// libFuzzer target: DecodeDeletionFile must never crash, hang or leak on any input, read as
// either format (`.arrow` and `.bin`). Whatever it accepts must survive a round trip through
// both encoders, and its kept-row ranges must be the exact complement of the deleted rows.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/deletion.h"

namespace {

using quiver::format::DeletionFileType;
using quiver::format::DeletionVector;

// A fragment size that bounds decompression (the fuzzer's malloc limit) yet fits most inputs.
constexpr uint64_t kPhysicalRows = 1 << 20;

void Check(const DeletionVector& dv) {
  for (DeletionFileType type : {DeletionFileType::kArrowArray, DeletionFileType::kBitmap}) {
    auto bytes = quiver::format::EncodeDeletionFile(dv, type);
    if (!bytes.ok()) std::abort();
    auto back = quiver::format::DecodeDeletionFile(*bytes, type, "again", kPhysicalRows);
    if (!back.ok() || !(*back == dv)) std::abort();
  }
  uint64_t kept = 0;
  uint64_t prev_end = 0;
  for (const auto& [b, e] : dv.SelectedRanges(kPhysicalRows)) {
    if (b >= e || (prev_end != 0 && b <= prev_end) || e > kPhysicalRows) std::abort();
    if (b > 0 && !dv.Contains(static_cast<uint32_t>(b - 1))) std::abort();
    prev_end = e;
    kept += e - b;
  }
  if (kept + dv.size() != kPhysicalRows) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (DeletionFileType type : {DeletionFileType::kArrowArray, DeletionFileType::kBitmap}) {
    auto dv = quiver::format::DecodeDeletionFile(bytes, type, "fuzz", kPhysicalRows);
    if (dv.ok()) Check(*dv);
  }
  return 0;
}
