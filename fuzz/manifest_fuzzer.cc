// libFuzzer target: DecodeManifestFile must never crash, hang or leak on any input, and whatever
// it accepts must re-encode and decode to an equal manifest (section offsets aside: encoding
// normalizes them, e.g. drops an empty index section).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <google/protobuf/util/message_differencer.h>

#include "format/lance_proto.h"
#include "format/manifest_file.h"

namespace {

lance::table::Manifest WithoutOffsets(const lance::table::Manifest& m) {
  lance::table::Manifest copy = m;
  copy.clear_index_section();
  copy.clear_transaction_section();
  return copy;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto decoded = quiver::format::DecodeManifestFile(bytes, "fuzz.manifest");
  if (!decoded.ok()) return 0;
  std::string again = quiver::format::EncodeManifestFile(
      *decoded->manifest, decoded->transaction.get(), decoded->index_section.get());
  auto redecoded = quiver::format::DecodeManifestFile(again, "fuzz.manifest");
  if (!redecoded.ok() ||
      !google::protobuf::util::MessageDifferencer::Equals(WithoutOffsets(*decoded->manifest),
                                                          WithoutOffsets(*redecoded->manifest)) ||
      (decoded->transaction == nullptr) != (redecoded->transaction == nullptr)) {
    std::abort();  // an accepted manifest must survive a round trip
  }
  return 0;
}
