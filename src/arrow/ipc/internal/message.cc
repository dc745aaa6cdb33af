// Reading and writing encapsulated Arrow IPC messages (see message.h).
#include "arrow/ipc/internal/message.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "arrow/internal/fbs/File_generated.h"
#include "arrow/internal/fbs/Message_generated.h"
#include "common/little_endian.h"

namespace quiver::arrow::ipc::internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

// flatbuffers::Verifier asserts that a buffer is below this size; larger metadata is refused
// before it gets there.
constexpr uint64_t kMaxFlatbufferBytes = FLATBUFFERS_MAX_BUFFER_SIZE - 1;

Result<const fb::Message*> VerifyMessage(const Buffer& bytes, std::string_view source,
                                         uint64_t offset) {
  if (bytes.size() > kMaxFlatbufferBytes) {
    return CorruptAt(source, offset, "message metadata too large");
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), kVerifierMaxDepth, kVerifierMaxTables);
  if (!fb::VerifyMessageBuffer(verifier)) {
    return CorruptAt(source, offset, "message metadata is not a valid Message flatbuffer");
  }
  const fb::Message* message = fb::GetMessage(bytes.data());
  const auto version = message->version();
  if (version < fb::MetadataVersion_V4) {
    return Status::Unsupported(fmt::format(
        "arrow IPC {} at offset {}: metadata version V{} (before Arrow 1.0) is not supported",
        source, offset, static_cast<int>(version) + 1));
  }
  if (version > fb::MetadataVersion_V5) {
    return Status::Unsupported(
        fmt::format("arrow IPC {} at offset {}: metadata version V{} is newer than this reader",
                    source, offset, static_cast<int>(version) + 1));
  }
  if (message->bodyLength() < 0) {
    return CorruptAt(source, offset,
                     fmt::format("message body length {} is negative", message->bodyLength()));
  }
  return message;
}

}  // namespace

Status CorruptAt(std::string_view source, uint64_t offset, std::string_view what) {
  return Status::Corruption(fmt::format("arrow IPC {} at offset {}: {}", source, offset, what));
}

Result<std::shared_ptr<Buffer>> EnsureAligned(std::shared_ptr<Buffer> buffer, MemoryPool* pool) {
  if (reinterpret_cast<uintptr_t>(buffer->data()) % 8 == 0) return buffer;
  return Buffer::CopyOf(buffer->view(), pool);
}

Result<std::optional<IncomingMessage>> ReadStreamMessage(InputStream& in,
                                                         const ReadOptions& options) {
  constexpr std::string_view kSource = "stream";
  const uint64_t start = in.position();
  QV_ASSIGN_OR_RETURN(auto prefix, in.Read(4));
  if (prefix->size() == 0) {
    if (options.allow_missing_end_of_stream) return std::optional<IncomingMessage>();
    return CorruptAt(kSource, start, "input ends without an end-of-stream marker");
  }
  if (prefix->size() < 4) return CorruptAt(kSource, start, "truncated message length");
  uint32_t length = LoadLE<uint32_t>(prefix->data());
  if (length == kContinuation) {
    QV_ASSIGN_OR_RETURN(prefix, in.Read(4));
    if (prefix->size() < 4) return CorruptAt(kSource, start, "truncated message length");
    length = LoadLE<uint32_t>(prefix->data());
  }
  if (length == 0) return std::optional<IncomingMessage>();  // end-of-stream marker
  if (static_cast<int32_t>(length) < 0) {
    return CorruptAt(kSource, start,
                     fmt::format("message length {} is negative", static_cast<int32_t>(length)));
  }
  if (length > options.max_message_bytes) {
    return CorruptAt(kSource, start,
                     fmt::format("message metadata of {} bytes exceeds the {}-byte limit", length,
                                 options.max_message_bytes));
  }
  QV_ASSIGN_OR_RETURN(auto metadata, in.Read(length));
  if (metadata->size() < length) {
    return CorruptAt(
        kSource, start,
        fmt::format("message metadata of {} bytes truncated to {}", length, metadata->size()));
  }
  IncomingMessage out;
  out.offset = start;
  QV_ASSIGN_OR_RETURN(out.metadata, EnsureAligned(std::move(metadata), options.pool));
  QV_ASSIGN_OR_RETURN(out.message, VerifyMessage(*out.metadata, kSource, start));
  const auto body_length = static_cast<uint64_t>(out.message->bodyLength());
  if (body_length > options.max_message_bytes - length) {
    return CorruptAt(kSource, start,
                     fmt::format("message body of {} bytes exceeds the {}-byte limit", body_length,
                                 options.max_message_bytes));
  }
  out.body_offset = in.position();
  QV_ASSIGN_OR_RETURN(auto body, in.Read(body_length));
  if (body->size() < body_length) {
    return CorruptAt(
        kSource, start,
        fmt::format("message body of {} bytes truncated to {}", body_length, body->size()));
  }
  out.body = std::move(body);
  return std::optional<IncomingMessage>(std::move(out));
}

Result<IncomingMessage> ReadFileMessage(const RandomAccessSource& source, uint64_t offset,
                                        uint64_t metadata_length, uint64_t body_length,
                                        const ReadOptions& options) {
  constexpr std::string_view kSource = "file";
  if (metadata_length < 8) {
    return CorruptAt(kSource, offset,
                     fmt::format("block metadata length {} is too small", metadata_length));
  }
  if (metadata_length > options.max_message_bytes ||
      body_length > options.max_message_bytes - metadata_length) {
    return CorruptAt(kSource, offset,
                     fmt::format("message of {} + {} bytes exceeds the {}-byte limit",
                                 metadata_length, body_length, options.max_message_bytes));
  }
  QV_ASSIGN_OR_RETURN(auto framed, source.ReadAt(offset, metadata_length));
  uint64_t skip = 4;
  uint32_t length = LoadLE<uint32_t>(framed->data());
  if (length == kContinuation) {
    skip = 8;
    length = LoadLE<uint32_t>(framed->data() + 4);
  }
  if (length == 0 || static_cast<int32_t>(length) < 0 || length > metadata_length - skip) {
    return CorruptAt(kSource, offset,
                     fmt::format("message length {} does not fit its {}-byte block",
                                 static_cast<int32_t>(length), metadata_length));
  }
  IncomingMessage out;
  out.offset = offset;
  QV_ASSIGN_OR_RETURN(out.metadata,
                      EnsureAligned(Buffer::Slice(framed, skip, length), options.pool));
  QV_ASSIGN_OR_RETURN(out.message, VerifyMessage(*out.metadata, kSource, offset));
  const auto message_body = static_cast<uint64_t>(out.message->bodyLength());
  if (message_body > body_length) {
    return CorruptAt(kSource, offset,
                     fmt::format("message body of {} bytes exceeds its block's {} bytes",
                                 message_body, body_length));
  }
  out.body_offset = offset + metadata_length;
  QV_ASSIGN_OR_RETURN(out.body, source.ReadAt(out.body_offset, message_body));
  return out;
}

Result<const fb::Footer*> VerifyFooter(const Buffer& bytes, uint64_t offset) {
  if (bytes.size() > kMaxFlatbufferBytes) return CorruptAt("file", offset, "footer too large");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), kVerifierMaxDepth, kVerifierMaxTables);
  if (!fb::VerifyFooterBuffer(verifier)) {
    return CorruptAt("file", offset, "footer is not a valid Footer flatbuffer");
  }
  const fb::Footer* footer = fb::GetFooter(bytes.data());
  if (footer->version() < fb::MetadataVersion_V4 || footer->version() > fb::MetadataVersion_V5) {
    return Status::Unsupported(
        fmt::format("arrow IPC file at offset {}: footer metadata version V{} is not supported",
                    offset, static_cast<int>(footer->version()) + 1));
  }
  return footer;
}

Result<int32_t> WriteMessage(Sink& sink, const OutgoingMessage& message) {
  // The metadata is padded so that the body after it starts 8-aligned.
  const int64_t padded = PaddedTo8(8 + static_cast<int64_t>(message.metadata.size())) - 8;
  if (padded > std::numeric_limits<int32_t>::max() - 8) {
    return Status::InvalidInput("arrow IPC message metadata exceeds 2 GiB");
  }
  std::string head;
  head.reserve(static_cast<size_t>(8 + padded));
  AppendLE<uint32_t>(&head, kContinuation);
  AppendLE<uint32_t>(&head, static_cast<uint32_t>(padded));
  head.append(message.metadata);
  head.append(static_cast<size_t>(padded) - message.metadata.size(), '\0');
  QV_RETURN_IF_ERROR(sink.Write(head));
  static constexpr char kZeros[8] = {};
  for (const BodyPart& part : message.body) {
    QV_RETURN_IF_ERROR(sink.Write(part.bytes));
    const auto size = static_cast<int64_t>(part.bytes.size());
    if (PaddedTo8(size) != size) {
      QV_RETURN_IF_ERROR(sink.Write(std::string_view(kZeros, PaddedTo8(size) - size)));
    }
  }
  return static_cast<int32_t>(8 + padded);
}

Status WriteEndOfStream(Sink& sink) {
  static constexpr char kEos[8] = {'\xff', '\xff', '\xff', '\xff', 0, 0, 0, 0};
  return sink.Write(std::string_view(kEos, sizeof(kEos)));
}

}  // namespace quiver::arrow::ipc::internal
