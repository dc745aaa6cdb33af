// Per-buffer body compression of Arrow IPC messages (LZ4 frame, zstd), internal to the IPC
// reader and writer.
//
// Stored form of one non-empty buffer: int64 little-endian uncompressed length, then either one
// compressed frame, or, when the length is -1, the raw bytes (used when compressing does not
// make the buffer smaller). An empty buffer is stored as zero bytes.
//
// Thread-safety: a BodyCodec holds codec contexts (created on first use, reused afterwards) and is
// used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "arrow/buffer.h"
#include "arrow/ipc/options.h"
#include "common/result.h"

namespace quiver::arrow::ipc::internal {

class BodyCodec {
 public:
  BodyCodec();
  ~BodyCodec();
  BodyCodec(const BodyCodec&) = delete;
  BodyCodec& operator=(const BodyCodec&) = delete;

  // Appends the stored form of `raw` to `out`. REQUIRES: codec != Compression::kNone.
  Status Compress(Compression codec, int zstd_level, std::string_view raw, std::string* out);

  // The bytes `stored` holds. At most `*budget` bytes may be produced; the budget is reduced by
  // what was. Corruption when the prefix, the frame or the sizes do not agree, or the budget
  // would be exceeded. A raw (-1) buffer is returned as a slice of `stored`.
  // REQUIRES: codec != Compression::kNone.
  Result<std::shared_ptr<Buffer>> Decompress(Compression codec,
                                             const std::shared_ptr<Buffer>& stored,
                                             uint64_t* budget, MemoryPool* pool);

 private:
  Status DecompressLz4(const uint8_t* src, uint64_t src_size, uint8_t* dst, uint64_t dst_size);
  Status DecompressZstd(const uint8_t* src, uint64_t src_size, uint8_t* dst, uint64_t dst_size);

  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

}  // namespace quiver::arrow::ipc::internal
