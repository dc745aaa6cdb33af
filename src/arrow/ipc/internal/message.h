// Encapsulated Arrow IPC messages: reading them from a stream or from a file block (framing,
// flatbuffer verification, body), and writing them. Internal to the IPC reader and writer.
//
// Framing: 0xFFFFFFFF, int32 metadata length N, N bytes of flatbuffer Message (padded so that
// 8 + N is a multiple of 8), then the body of Message.bodyLength bytes. Streams written before
// Arrow 0.15 lack the 0xFFFFFFFF marker; both forms are read. A length of 0 is the end-of-stream
// marker. Each body buffer starts 8-aligned and is padded with zeros.
//
// Thread-safety: functions are reentrant; each call uses its own input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/buffer.h"
#include "arrow/ipc/io.h"
#include "arrow/ipc/options.h"
#include "common/result.h"

namespace org::apache::arrow::flatbuf {
struct Message;
struct Footer;
}  // namespace org::apache::arrow::flatbuf

namespace quiver::arrow::ipc::internal {

inline constexpr uint32_t kContinuation = 0xFFFFFFFFu;
// Bounds for flatbuffers::Verifier. A field nested kMaxNesting deep sits about that many tables
// below the Message; each field brings a handful of tables (type, dictionary encoding, metadata).
inline constexpr uint32_t kVerifierMaxDepth = 160;
inline constexpr uint32_t kVerifierMaxTables = 8'000'000;

// "arrow IPC <source> at offset <offset>: <what>" as Corruption.
Status CorruptAt(std::string_view source, uint64_t offset, std::string_view what);

// `buffer` itself when its bytes are 8-aligned in memory, else an aligned copy from `pool`.
// Values are read in place (int64 loads, flatbuffer scalars), which needs natural alignment.
Result<std::shared_ptr<Buffer>> EnsureAligned(std::shared_ptr<Buffer> buffer, MemoryPool* pool);

struct IncomingMessage {
  std::shared_ptr<Buffer> metadata;  // the flatbuffer bytes, 8-aligned and verified
  const org::apache::arrow::flatbuf::Message* message = nullptr;  // points into `metadata`
  std::shared_ptr<Buffer> body;
  uint64_t offset = 0;       // of the message's first byte in the input
  uint64_t body_offset = 0;  // of the body's first byte in the input
};

// The next message of a stream, or nullopt at its end-of-stream marker (and, when the options
// allow it, at a clean end of input between messages).
Result<std::optional<IncomingMessage>> ReadStreamMessage(InputStream& in,
                                                         const ReadOptions& options);

// The message a file's footer Block points at: `metadata_length` bytes of framing and
// flatbuffer at `offset`, then the body. The caller has checked that the block lies inside the
// file's data area.
Result<IncomingMessage> ReadFileMessage(const RandomAccessSource& source, uint64_t offset,
                                        uint64_t metadata_length, uint64_t body_length,
                                        const ReadOptions& options);

// Verifies `bytes` as a Footer flatbuffer. REQUIRES: 8-aligned bytes that outlive the result.
Result<const org::apache::arrow::flatbuf::Footer*> VerifyFooter(const Buffer& bytes,
                                                                uint64_t offset);

// A message ready to be written: its Message flatbuffer and its body buffers in order. Each
// body part is written 8-aligned, followed by zero padding.
struct BodyPart {
  std::string_view bytes;
  std::shared_ptr<const void> keep_alive;  // owns `bytes`
};
struct OutgoingMessage {
  std::string metadata;
  std::vector<BodyPart> body;
  int64_t body_length = 0;  // sum of the padded part sizes; equals Message.bodyLength
};

inline int64_t PaddedTo8(int64_t n) { return (n + 7) & ~int64_t{7}; }

// Writes one framed message. Returns the bytes of framing + metadata + padding (a file Block's
// metaDataLength); the body follows them.
Result<int32_t> WriteMessage(Sink& sink, const OutgoingMessage& message);
Status WriteEndOfStream(Sink& sink);

}  // namespace quiver::arrow::ipc::internal
