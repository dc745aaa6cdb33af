// Encodes schemas, record batches and dictionary batches as Arrow IPC messages, internal to the
// IPC writers.
//
// Field nodes and buffers are emitted in pre-order. Sliced arrays are written as if they started
// at row 0: bitmaps at a non-byte offset are shifted into a copy, offsets are rebased to start at
// zero, and only the referenced range of data and child rows is written. Buffers that need no
// change are referenced, not copied, until the sink takes them. Dictionary-encoded columns
// contribute their indices; their dictionaries go into dictionary batches.
//
// Thread-safety: a BatchEncoder is used by one thread at a time.
#pragma once

#include <cstdint>
#include <string>

#include "arrow/ipc/internal/compression.h"
#include "arrow/ipc/internal/dictionaries.h"
#include "arrow/ipc/internal/message.h"
#include "arrow/ipc/options.h"
#include "arrow/record_batch.h"

namespace quiver::arrow::ipc::internal {

// The bytes of a Schema flatbuffer table wrapped in a Message (no body).
Result<std::string> EncodeSchemaMessage(const Schema& schema, const SchemaDictionaryIds& ids);

class BatchEncoder {
 public:
  explicit BatchEncoder(const WriteOptions& options) : options_(options) {}

  // REQUIRES: the batch's columns are valid arrays of the schema's types.
  Result<OutgoingMessage> EncodeRecordBatch(const RecordBatch& batch);
  // `dictionary` holds the values (of the field's value type) for dictionary `id`.
  Result<OutgoingMessage> EncodeDictionaryBatch(int64_t id, const ArrayData& dictionary,
                                                bool is_delta);

 private:
  const WriteOptions options_;
  BodyCodec codec_;
};

}  // namespace quiver::arrow::ipc::internal
