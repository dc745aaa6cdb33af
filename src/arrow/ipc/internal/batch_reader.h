// Turns record batch and dictionary batch messages into arrays, internal to the IPC readers.
//
// Field nodes and buffers are consumed in pre-order over the schema's types; every buffer's
// offset and length is checked against the body, compressed buffers are decompressed within the
// ReadOptions limit, and buffers that are not 8-aligned in memory are copied (the rest alias the
// body). Everything loaded is checked with arrow::Validate(full) before it is handed out.
//
// Thread-safety: a BatchDecoder is used by one thread at a time; the DictionaryMemo passed to
// DecodeRecordBatch is only read.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "arrow/ipc/internal/compression.h"
#include "arrow/ipc/internal/dictionaries.h"
#include "arrow/ipc/internal/message.h"
#include "arrow/ipc/options.h"
#include "arrow/record_batch.h"

namespace quiver::arrow::ipc::internal {

class BatchDecoder {
 public:
  // `source` names the input in error messages ("stream", "file").
  BatchDecoder(std::string_view source, const ReadOptions& options)
      : source_(source), options_(options) {}

  // REQUIRES: message.message's header is a RecordBatch.
  Result<RecordBatch> DecodeRecordBatch(const IncomingMessage& message,
                                        const std::shared_ptr<const Schema>& schema,
                                        const SchemaDictionaryIds& ids, const DictionaryMemo& memo);

  // Applies a DictionaryBatch message to `memo`: a new dictionary, a replacement, or (isDelta)
  // entries appended to the current one. In a file (`in_file`) a second non-delta batch for
  // the same id is Corruption: files cannot replace dictionaries.
  // REQUIRES: message.message's header is a DictionaryBatch.
  Status ApplyDictionaryBatch(const IncomingMessage& message, bool in_file, DictionaryMemo* memo);

 private:
  std::string_view source_;
  const ReadOptions options_;
  BodyCodec codec_;
};

}  // namespace quiver::arrow::ipc::internal
