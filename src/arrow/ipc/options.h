// Options of the Arrow IPC reader and writer, and the body compression codecs.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string_view>

#include "arrow/buffer.h"

namespace quiver::arrow::ipc {

// Body compression (Message.fbs BodyCompression, method BUFFER): every buffer of a record or
// dictionary batch is stored as its uncompressed length (int64 little-endian; -1 = stored raw)
// followed by one LZ4 frame (not a raw LZ4 block) or one zstd frame.
enum class Compression { kNone, kLz4Frame, kZstd };

std::string_view CompressionName(Compression compression);  // "none", "lz4_frame", "zstd"

struct WriteOptions {
  Compression compression = Compression::kNone;
  int zstd_level = 1;
  // When a field's dictionary grows by appending (the previous one is a prefix of the new one),
  // write only the new entries as a delta dictionary batch instead of replacing the whole
  // dictionary. Readers older than Arrow 1.0 do not understand deltas.
  bool emit_dictionary_deltas = false;
};

struct ReadOptions {
  MemoryPool* pool = nullptr;  // nullptr: MemoryPool::Default()
  // Upper bound of one message (metadata + body), and of the footer of a file. Larger ones are
  // Corruption: lengths in the input are never trusted to size an allocation beyond this.
  uint64_t max_message_bytes = uint64_t{1} << 31;
  // Upper bound of the bytes all buffers of one compressed message decompress to.
  uint64_t max_decompressed_bytes = uint64_t{1} << 31;
  // Streams end with an end-of-stream marker; a stream that simply stops is treated as
  // truncated (Corruption) unless this is set. Arrow's own readers accept both.
  bool allow_missing_end_of_stream = false;
};

}  // namespace quiver::arrow::ipc
