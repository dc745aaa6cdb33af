// Writes Lance data files (file format 2.2 or 2.1, or 2.0 on request) from Arrow record batches.
//
// Each leaf column buffers whole rows until about `page_bytes` are pending and then cuts a page;
// pages go out through a streaming ObjectWriter as they are made, so memory is bounded by about
// one page per column whatever the file size. (A 2.1 column takes a whole batch before it checks,
// so a batch much larger than a page is buffered whole: table::WriteData hands in parts of about
// a page.) Finish() writes the schema (global buffer 0), the column metadata, the offset tables
// and the footer (lance-file-format.md §1), then publishes the file (nothing is visible under the
// key before that).
//
// The layouts and compressions follow what Lance 8.0 writes by default (§6), within the byte
// rules Lance's reader checks (§3, §7): 64-byte aligned buffers, chunks of at most 32 KiB,
// variable buffers padded to their offset width. A struct marked `lance-encoding:packed` is one
// column of member rows, as Lance stores it (internal/write21/pack_struct.h); what Lance refuses
// to pack is refused at Open or, for nulls, by Write before any column takes the batch. 2.0 files
// (FileWriteOptions::version) get lance's 2.0 default profile instead, page cuts per top-level
// field (internal/writer20.h).
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "format/lance_file_reader.h"
#include "format/schema.h"
#include "store/object_store.h"

namespace quiver::format {

struct FileWriteOptions {
  uint64_t page_bytes = 8ull << 20;  // per column, before a page is cut
  bool compress = true;              // false: Flat / Variable values and raw levels only
  PutOptions put = PutOptions::CreateOnly();
  arrow::MemoryPool* pool = nullptr;
  // kV2_0: Lance's 2.0 default profile (internal/writer20.h; `compress` does not apply), for
  // tables whose data files are 2.0. kV2_2: the 2.1 encodings in 2.2's mini-block chunk
  // grammar (u32 chunk words and buffer sizes, has_large_chunk) with the (2,2) footer, which
  // Lance 12 reads; Lance 12's own size-deciding choices (RLE levels, LZ4 dictionary items,
  // constant pages) are not made yet.
  FileVersion version = FileVersion::kV2_1;
};

// What a table's DataFile records about the file (lance-table-format.md §2.3).
struct FileWriteResult {
  uint64_t size = 0;
  uint64_t num_rows = 0;
  std::vector<int32_t> fields;          // ids of the fields that own a column, in column order
  std::vector<int32_t> column_indices;  // 0 .. columns - 1
  // DataFile.file_major/minor_version: (2,1), (2,2), or (2,0) for a 2.0 file (footer (0,3)).
  uint32_t major = 2, minor = 1;
};

namespace internal {
class FileWriterState;
}

class LanceFileWriter {
 public:
  // `schema` holds the Lance fields (ids, logical types) the batches' columns are written as;
  // batches must carry exactly its top-level fields, in order, with matching types.
  // InvalidInput when options.page_bytes is 0.
  static Result<std::unique_ptr<LanceFileWriter>> Open(std::shared_ptr<ObjectStore> store,
                                                       std::string key, const Schema& schema,
                                                       const FileWriteOptions& options = {});
  ~LanceFileWriter();

  // InvalidInput when the batch does not match the schema: nothing is written then and the
  // writer stays usable. Any other error (the store's, Unsupported data, ...) leaves the file
  // half-written, so it fails the writer: the object writer is aborted (nothing becomes visible)
  // and every later Write or Finish returns that first error.
  Status Write(const arrow::RecordBatch& batch);
  // Writes the footer and publishes the file. An error fails the writer as in Write.
  Result<FileWriteResult> Finish();
  // Drops everything; nothing becomes visible.
  void Abort();

  uint64_t rows_written() const;
  // Bytes written to the object so far (pages already cut; rows still buffered for a page are not
  // counted). A table writer rolls to a new file on it (table::WriteOptions::max_bytes_per_file).
  uint64_t bytes_written() const;

 private:
  LanceFileWriter() = default;
  // Write after its checks passed, and Finish: an error in either leaves the file half-written.
  Status AppendChecked(const arrow::RecordBatch& batch);
  Result<FileWriteResult> FinishFile();
  // Aborts the object writer and keeps `status` as the answer to every later call.
  Status Fail(Status status);

  std::unique_ptr<internal::FileWriterState> state_;
  Status failed_;  // the first error that ended the file; OK while it has none
};

}  // namespace quiver::format
