// Arrow IPC stream and file readers (see reader.h).
#include "arrow/ipc/reader.h"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "arrow/internal/fbs/File_generated.h"
#include "arrow/internal/fbs/Message_generated.h"
#include "arrow/ipc/internal/batch_reader.h"
#include "arrow/ipc/internal/dictionaries.h"
#include "arrow/ipc/internal/message.h"
#include "arrow/ipc/internal/schema_fb.h"

namespace quiver::arrow::ipc {
namespace internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

constexpr std::string_view kMagic = "ARROW1";
// "ARROW1" + 2 padding bytes at the start; footer length + "ARROW1" at the end.
constexpr uint64_t kHeadBytes = 8;
constexpr uint64_t kTailBytes = 4 + 6;

Status Unexpected(std::string_view source, uint64_t offset, fb::MessageHeader type) {
  switch (type) {
    case fb::MessageHeader_Tensor:
    case fb::MessageHeader_SparseTensor:
      return Status::Unsupported(fmt::format("arrow IPC {} at offset {}: {} messages", source,
                                             offset, fb::EnumNameMessageHeader(type)));
    default:
      return CorruptAt(source, offset,
                       fmt::format("unexpected message header type {}", static_cast<int>(type)));
  }
}

ReadOptions WithPool(ReadOptions options) {
  if (options.pool == nullptr) options.pool = MemoryPool::Default();
  return options;
}

}  // namespace

class StreamReaderState {
 public:
  StreamReaderState(std::unique_ptr<InputStream> input, const ReadOptions& options)
      : input_(std::move(input)), options_(WithPool(options)), decoder_("stream", options_) {}

  Status Start() {
    QV_ASSIGN_OR_RETURN(auto message, ReadStreamMessage(*input_, options_));
    if (!message.has_value()) {
      return CorruptAt("stream", 0, "the stream ends before its schema message");
    }
    if (message->message->header_type() != fb::MessageHeader_Schema) {
      return CorruptAt("stream", message->offset,
                       fmt::format("the first message is a {}, not a Schema",
                                   static_cast<int>(message->message->header_type())));
    }
    const fb::Schema* schema = message->message->header_as_Schema();
    if (schema == nullptr)
      return CorruptAt("stream", message->offset, "Schema message without a schema");
    auto converted = SchemaFromFlatbuffer(*schema);
    if (!converted.ok()) return WithOffset(converted.status(), message->offset);
    schema_ = std::move(converted->schema);
    ids_ = std::move(converted->ids);
    Status s = memo_.AddFields(*schema_, ids_);
    if (!s.ok()) return WithOffset(s, message->offset);
    return Status::OK();
  }

  const std::shared_ptr<const Schema>& schema() const { return schema_; }

  Result<std::optional<RecordBatch>> Next() {
    if (!error_.ok()) return error_;
    if (done_) return std::optional<RecordBatch>();
    auto batch = NextBatch();
    if (!batch.ok()) error_ = batch.status();
    return batch;
  }

 private:
  // Prefixes schema errors (which carry no position) with where the schema message was.
  static Status WithOffset(const Status& s, uint64_t offset) {
    if (s.message().rfind("arrow IPC ", 0) == 0) return s;
    return Status(s.code(), fmt::format("arrow IPC stream at offset {}: {}", offset, s.message()),
                  s.subcode());
  }

  Result<std::optional<RecordBatch>> NextBatch() {
    for (;;) {
      QV_ASSIGN_OR_RETURN(auto message, ReadStreamMessage(*input_, options_));
      if (!message.has_value()) {
        done_ = true;
        return std::optional<RecordBatch>();
      }
      switch (message->message->header_type()) {
        case fb::MessageHeader_RecordBatch: {
          QV_ASSIGN_OR_RETURN(auto batch,
                              decoder_.DecodeRecordBatch(*message, schema_, ids_, memo_));
          return std::optional<RecordBatch>(std::move(batch));
        }
        case fb::MessageHeader_DictionaryBatch:
          QV_RETURN_IF_ERROR(decoder_.ApplyDictionaryBatch(*message, /*in_file=*/false, &memo_));
          continue;
        case fb::MessageHeader_Schema:
          return CorruptAt("stream", message->offset, "a second Schema message");
        default:
          return Unexpected("stream", message->offset, message->message->header_type());
      }
    }
  }

  std::unique_ptr<InputStream> input_;
  const ReadOptions options_;
  BatchDecoder decoder_;
  std::shared_ptr<const Schema> schema_;
  SchemaDictionaryIds ids_;
  DictionaryMemo memo_;
  Status error_;
  bool done_ = false;
};

class FileReaderState {
 public:
  FileReaderState(std::shared_ptr<const RandomAccessSource> source, const ReadOptions& options)
      : source_(std::move(source)), options_(WithPool(options)) {}

  Status Start() {
    const uint64_t size = source_->size();
    if (size < kHeadBytes + kTailBytes) {
      return CorruptAt("file", 0, fmt::format("{} bytes are too few for an arrow file", size));
    }
    QV_ASSIGN_OR_RETURN(auto head, source_->ReadAt(0, kMagic.size()));
    if (head->view() != kMagic) return CorruptAt("file", 0, "no ARROW1 magic at the start");
    QV_ASSIGN_OR_RETURN(auto tail, source_->ReadAt(size - kTailBytes, kTailBytes));
    if (tail->view().substr(4) != kMagic) {
      return CorruptAt("file", size - 6, "no ARROW1 magic at the end");
    }
    const uint8_t* t = tail->data();
    const auto footer_length =
        static_cast<int32_t>(static_cast<uint32_t>(t[0]) | static_cast<uint32_t>(t[1]) << 8 |
                             static_cast<uint32_t>(t[2]) << 16 | static_cast<uint32_t>(t[3]) << 24);
    const uint64_t data_end = size - kTailBytes;
    if (footer_length <= 0 || static_cast<uint64_t>(footer_length) > data_end - kHeadBytes) {
      return CorruptAt("file", size - kTailBytes,
                       fmt::format("footer length {} does not fit the file", footer_length));
    }
    if (static_cast<uint64_t>(footer_length) > options_.max_message_bytes) {
      return CorruptAt("file", size - kTailBytes,
                       fmt::format("footer of {} bytes exceeds the {}-byte limit", footer_length,
                                   options_.max_message_bytes));
    }
    footer_offset_ = data_end - static_cast<uint64_t>(footer_length);
    QV_ASSIGN_OR_RETURN(auto footer_bytes,
                        source_->ReadAt(footer_offset_, static_cast<uint64_t>(footer_length)));
    QV_ASSIGN_OR_RETURN(footer_bytes_, EnsureAligned(std::move(footer_bytes), options_.pool));
    QV_ASSIGN_OR_RETURN(footer_, VerifyFooter(*footer_bytes_, footer_offset_));
    if (footer_->schema() == nullptr)
      return CorruptAt("file", footer_offset_, "footer without a schema");
    // The verifier checks the vectors' 4-byte alignment, not that of their 8-aligned Blocks.
    for (const auto* blocks : {footer_->dictionaries(), footer_->recordBatches()}) {
      if (blocks != nullptr && blocks->size() > 0 &&
          reinterpret_cast<uintptr_t>(blocks->Data()) % alignof(fb::Block) != 0) {
        return CorruptAt("file", footer_offset_, "misaligned blocks in the footer");
      }
    }
    auto converted = SchemaFromFlatbuffer(*footer_->schema());
    if (!converted.ok()) return InFooter(converted.status());
    schema_ = std::move(converted->schema);
    ids_ = std::move(converted->ids);
    if (Status s = memo_.AddFields(*schema_, ids_); !s.ok()) return InFooter(s);
    // Dictionaries are applied in footer order (deltas append), once, here: afterwards the memo
    // is read-only and ReadBatch can run on any thread.
    if (footer_->dictionaries() != nullptr) {
      BatchDecoder decoder("file", options_);
      for (const fb::Block* block : *footer_->dictionaries()) {
        QV_ASSIGN_OR_RETURN(auto message, ReadBlock(block));
        if (message.message->header_type() != fb::MessageHeader_DictionaryBatch) {
          return CorruptAt("file", message.offset, "a dictionary block holds no DictionaryBatch");
        }
        QV_RETURN_IF_ERROR(decoder.ApplyDictionaryBatch(message, /*in_file=*/true, &memo_));
      }
    }
    if (footer_->recordBatches() != nullptr) {
      if (footer_->recordBatches()->size() > static_cast<uint32_t>(INT32_MAX)) {
        return CorruptAt("file", footer_offset_, "too many record batches");
      }
      num_batches_ = static_cast<int>(footer_->recordBatches()->size());
    }
    return Status::OK();
  }

  const std::shared_ptr<const Schema>& schema() const { return schema_; }
  int num_batches() const { return num_batches_; }

  Result<RecordBatch> ReadBatch(int i) const {
    if (i < 0 || i >= num_batches_) {
      return Status::InvalidInput(
          fmt::format("arrow IPC file has {} record batches, not {}", num_batches_, i + 1));
    }
    QV_ASSIGN_OR_RETURN(auto message, ReadBlock(footer_->recordBatches()->Get(i)));
    if (message.message->header_type() != fb::MessageHeader_RecordBatch) {
      return CorruptAt("file", message.offset, "a record batch block holds no RecordBatch");
    }
    // A decoder per call keeps concurrent ReadBatch calls independent.
    BatchDecoder decoder("file", options_);
    return decoder.DecodeRecordBatch(message, schema_, ids_, memo_);
  }

 private:
  Status InFooter(const Status& s) const {
    return Status(
        s.code(),
        fmt::format("arrow IPC file at offset {}: footer schema: {}", footer_offset_, s.message()),
        s.subcode());
  }

  Result<IncomingMessage> ReadBlock(const fb::Block* block) const {
    if (block == nullptr) return CorruptAt("file", footer_offset_, "missing block");
    const int64_t offset = block->offset();
    const int32_t metadata_length = block->metaDataLength();
    const int64_t body_length = block->bodyLength();
    // Blocks must lie between the leading magic and the footer.
    const uint64_t end = footer_offset_;
    if (offset < static_cast<int64_t>(kHeadBytes) || metadata_length <= 0 || body_length < 0 ||
        static_cast<uint64_t>(offset) > end ||
        static_cast<uint64_t>(metadata_length) > end - static_cast<uint64_t>(offset) ||
        static_cast<uint64_t>(body_length) >
            end - static_cast<uint64_t>(offset) - static_cast<uint64_t>(metadata_length)) {
      return CorruptAt("file", footer_offset_,
                       fmt::format("block (offset {}, metadata {}, body {}) lies outside the "
                                   "file's {} data bytes",
                                   offset, metadata_length, body_length, end));
    }
    return ReadFileMessage(*source_, static_cast<uint64_t>(offset),
                           static_cast<uint64_t>(metadata_length),
                           static_cast<uint64_t>(body_length), options_);
  }

  std::shared_ptr<const RandomAccessSource> source_;
  const ReadOptions options_;
  uint64_t footer_offset_ = 0;
  std::shared_ptr<Buffer> footer_bytes_;
  const fb::Footer* footer_ = nullptr;  // points into footer_bytes_
  std::shared_ptr<const Schema> schema_;
  SchemaDictionaryIds ids_;
  DictionaryMemo memo_;
  int num_batches_ = 0;
};

}  // namespace internal

// ---- StreamReader ----

StreamReader::StreamReader(std::unique_ptr<internal::StreamReaderState> state)
    : state_(std::move(state)) {}
StreamReader::~StreamReader() = default;

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::unique_ptr<InputStream> input,
                                                         const ReadOptions& options) {
  if (input == nullptr) return Status::InvalidInput("arrow IPC stream reader needs an input");
  auto state = std::make_unique<internal::StreamReaderState>(std::move(input), options);
  QV_RETURN_IF_ERROR(state->Start());
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(state)));
}

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::shared_ptr<Buffer> bytes,
                                                         const ReadOptions& options) {
  if (bytes == nullptr) return Status::InvalidInput("arrow IPC stream reader needs an input");
  return Open(std::make_unique<BufferInputStream>(std::move(bytes)), options);
}

const std::shared_ptr<const Schema>& StreamReader::schema() const { return state_->schema(); }

Result<std::optional<RecordBatch>> StreamReader::Next() { return state_->Next(); }

// ---- FileReader ----

FileReader::FileReader(std::unique_ptr<internal::FileReaderState> state)
    : state_(std::move(state)) {}
FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(
    std::shared_ptr<const RandomAccessSource> source, const ReadOptions& options) {
  if (source == nullptr) return Status::InvalidInput("arrow IPC file reader needs a source");
  auto state = std::make_unique<internal::FileReaderState>(std::move(source), options);
  QV_RETURN_IF_ERROR(state->Start());
  return std::unique_ptr<FileReader>(new FileReader(std::move(state)));
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<Buffer> file,
                                                     const ReadOptions& options) {
  if (file == nullptr) return Status::InvalidInput("arrow IPC file reader needs a source");
  return Open(std::make_shared<BufferSource>(std::move(file)), options);
}

const std::shared_ptr<const Schema>& FileReader::schema() const { return state_->schema(); }
int FileReader::num_batches() const { return state_->num_batches(); }
Result<RecordBatch> FileReader::ReadBatch(int i) const { return state_->ReadBatch(i); }

namespace {

class FileBatchStream final : public BatchStream {
 public:
  explicit FileBatchStream(std::shared_ptr<const FileReader> reader) : reader_(std::move(reader)) {}
  const std::shared_ptr<const Schema>& schema() const override { return reader_->schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= reader_->num_batches()) return std::optional<RecordBatch>();
    QV_ASSIGN_OR_RETURN(auto batch, reader_->ReadBatch(next_));
    ++next_;
    return std::optional<RecordBatch>(std::move(batch));
  }

 private:
  std::shared_ptr<const FileReader> reader_;
  int next_ = 0;
};

}  // namespace

std::unique_ptr<BatchStream> FileReader::Batches(std::shared_ptr<const FileReader> reader) {
  return std::make_unique<FileBatchStream>(std::move(reader));
}

// ---- whole inputs ----

Result<IpcContents> ReadStream(std::shared_ptr<Buffer> bytes, const ReadOptions& options) {
  QV_ASSIGN_OR_RETURN(auto reader, StreamReader::Open(std::move(bytes), options));
  IpcContents out;
  out.schema = reader->schema();
  for (;;) {
    QV_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch.has_value()) break;
    out.batches.push_back(std::move(*batch));
  }
  return out;
}

Result<IpcContents> ReadFile(std::shared_ptr<Buffer> bytes, const ReadOptions& options) {
  QV_ASSIGN_OR_RETURN(auto reader, FileReader::Open(std::move(bytes), options));
  IpcContents out;
  out.schema = reader->schema();
  for (int i = 0; i < reader->num_batches(); ++i) {
    QV_ASSIGN_OR_RETURN(auto batch, reader->ReadBatch(i));
    out.batches.push_back(std::move(batch));
  }
  return out;
}

Result<IpcContents> ReadStreamFromString(std::string bytes, const ReadOptions& options) {
  return ReadStream(Buffer::FromString(std::move(bytes)), options);
}

Result<IpcContents> ReadFileFromString(std::string bytes, const ReadOptions& options) {
  return ReadFile(Buffer::FromString(std::move(bytes)), options);
}

}  // namespace quiver::arrow::ipc
