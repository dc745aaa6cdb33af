// Arrow IPC writers: the stream format and the file format, with dictionaries and optional
// LZ4_FRAME/ZSTD body compression.
//
// Stream: the schema message, then for every batch the dictionary batches it needs (each
// field's dictionary before the first batch that uses it, and again whenever it changes:
// replaced, or with WriteOptions::emit_dictionary_deltas only the appended entries), then the
// record batch; Finish() writes the end-of-stream marker (0xFFFFFFFF 0x00000000).
// File: "ARROW1\0\0", the same stream, then the footer (schema and the Blocks of every
// dictionary and record batch), its int32 length and "ARROW1". A file holds one dictionary per
// field (deltas allowed): a batch whose dictionary replaces an earlier one is InvalidInput.
//
// Metadata version V5, little endian, 8-byte aligned and zero-padded metadata and buffers.
// Dictionary ids are assigned 0, 1, ... to the dictionary fields in pre-order.
//
// Thread-safety: a writer is used by one thread at a time; the Sink must outlive it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/ipc/io.h"
#include "arrow/ipc/options.h"
#include "arrow/record_batch.h"
#include "common/result.h"

namespace quiver::arrow::ipc {

namespace internal {
class IpcWriterCore;
}

class StreamWriter {
 public:
  // Writes the schema message. InvalidInput for a schema IPC cannot express.
  static Result<std::unique_ptr<StreamWriter>> Open(Sink* sink,
                                                    std::shared_ptr<const Schema> schema,
                                                    const WriteOptions& options = {});
  ~StreamWriter();

  // REQUIRES: the batch's columns are valid arrays (Validate). InvalidInput when its fields do
  // not match the writer's schema.
  Status Write(const RecordBatch& batch);
  // Writes the end-of-stream marker. The writer accepts nothing afterwards.
  Status Finish();

 private:
  explicit StreamWriter(std::unique_ptr<internal::IpcWriterCore> core);
  std::unique_ptr<internal::IpcWriterCore> core_;
};

class FileWriter {
 public:
  // Writes the magic and the schema message.
  static Result<std::unique_ptr<FileWriter>> Open(Sink* sink, std::shared_ptr<const Schema> schema,
                                                  const WriteOptions& options = {});
  ~FileWriter();

  Status Write(const RecordBatch& batch);
  // Writes the end-of-stream marker, the footer and the trailing magic.
  Status Finish();

 private:
  explicit FileWriter(std::unique_ptr<internal::IpcWriterCore> core);
  std::unique_ptr<internal::IpcWriterCore> core_;
};

// Whole streams and files in memory (tests, tools, small outputs).
Result<std::string> WriteStreamToString(const std::shared_ptr<const Schema>& schema,
                                        const std::vector<RecordBatch>& batches,
                                        const WriteOptions& options = {});
Result<std::string> WriteFileToString(const std::shared_ptr<const Schema>& schema,
                                      const std::vector<RecordBatch>& batches,
                                      const WriteOptions& options = {});

}  // namespace quiver::arrow::ipc
