// Arrow IPC readers: the stream format and the file format, with dictionaries and
// LZ4_FRAME/ZSTD body compression.
//
// All input is untrusted. Every flatbuffer is verified (bounded depth and table count), every
// buffer's offset and length is checked against its message body, decompressed sizes against
// ReadOptions::max_decompressed_bytes, message sizes against max_message_bytes, schemas against
// 64 levels of nesting and 1M fields, array lengths against 2^31 - 1 (as Arrow's Java and JS
// readers), and every batch is checked with Validate(full=true) before it is returned. Malformed
// input is Status::Corruption("arrow IPC <stream|file> at offset N:
// ..."); types and features quiver lacks are Unsupported naming them. Neither crashes, hangs nor
// allocates beyond those limits.
//
// Streams: the schema message, then dictionary batches (a new id, a replacement, or isDelta
// appending entries) and record batches in any order, until the end-of-stream marker. Both the
// continuation-marker framing and the pre-0.15 framing without it are read.
// Files: "ARROW1", the footer's schema, its dictionary Blocks (applied in order at Open: a
// second non-delta dictionary for an id is Corruption, deltas append) and record batch Blocks,
// read at random.
//
// Batches from a source in memory alias it (zero-copy slices of the Buffer) except where a
// buffer had to be decompressed or was not 8-byte aligned.
//
// Thread-safety: a StreamReader is single-consumer. FileReader is thread-safe after Open:
// ReadBatch may run concurrently (its source's ReadAt is thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/ipc/io.h"
#include "arrow/ipc/options.h"
#include "arrow/record_batch.h"
#include "common/result.h"

namespace quiver::arrow::ipc {

namespace internal {
class StreamReaderState;
class FileReaderState;
}  // namespace internal

class StreamReader final : public BatchStream {
 public:
  // Reads the schema message.
  static Result<std::unique_ptr<StreamReader>> Open(std::unique_ptr<InputStream> input,
                                                    const ReadOptions& options = {});
  static Result<std::unique_ptr<StreamReader>> Open(std::shared_ptr<Buffer> bytes,
                                                    const ReadOptions& options = {});
  ~StreamReader() override;

  const std::shared_ptr<const Schema>& schema() const override;
  // The next record batch (dictionary batches before it are applied on the way), nullopt after
  // the end-of-stream marker. An error ends the stream: later calls return it again.
  Result<std::optional<RecordBatch>> Next() override;

 private:
  explicit StreamReader(std::unique_ptr<internal::StreamReaderState> state);
  std::unique_ptr<internal::StreamReaderState> state_;
};

class FileReader {
 public:
  // Reads the trailer, the footer and all dictionaries.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<const RandomAccessSource> source,
                                                  const ReadOptions& options = {});
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<Buffer> file,
                                                  const ReadOptions& options = {});
  ~FileReader();

  const std::shared_ptr<const Schema>& schema() const;
  int num_batches() const;
  // REQUIRES: 0 <= i < num_batches().
  Result<RecordBatch> ReadBatch(int i) const;
  // The batches in order, as a stream (which keeps this reader alive).
  static std::unique_ptr<BatchStream> Batches(std::shared_ptr<const FileReader> reader);

 private:
  explicit FileReader(std::unique_ptr<internal::FileReaderState> state);
  std::unique_ptr<internal::FileReaderState> state_;
};

// A whole stream or file in memory: its schema and all batches.
struct IpcContents {
  std::shared_ptr<const Schema> schema;
  std::vector<RecordBatch> batches;
};
Result<IpcContents> ReadStream(std::shared_ptr<Buffer> bytes, const ReadOptions& options = {});
Result<IpcContents> ReadFile(std::shared_ptr<Buffer> bytes, const ReadOptions& options = {});
Result<IpcContents> ReadStreamFromString(std::string bytes, const ReadOptions& options = {});
Result<IpcContents> ReadFileFromString(std::string bytes, const ReadOptions& options = {});

}  // namespace quiver::arrow::ipc
