// Reads Lance data files (`*.lance`, file format 2.0 and 2.1) into Arrow record batches.
//
// Open() reads the file's tail once (footer, column metadata, schema; lance-file-format.md §1)
// and checks every offset in it against the file size. Read() then streams batches of at most
// `batch_rows` rows for a projection and an optional set of row ranges: pages are fetched and
// decoded one at a time per column, so memory is bounded by one decoded page per projected
// column plus one batch, whatever the file size.
//
// Files are untrusted input: any inconsistency is a Corruption naming the file (and the offset,
// column or page where it makes sense), never a crash or an unbounded allocation. Encodings this
// reader does not know yet answer Unsupported naming the encoding.
//
// Thread-safety: a LanceFileReader is immutable after Open and may be shared; each stream
// returned by Read() is single-consumer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "format/schema.h"
#include "store/object_store.h"

namespace quiver::format {

enum class FileVersion { kV2_0, kV2_1, kV2_2 };
std::string_view FileVersionName(FileVersion version);  // "2.0", "2.1", "2.2"

struct FileReadOptions {
  // DataFile.file_size_bytes from the manifest when known (saves a Head; 0 = unknown).
  uint64_t known_size = 0;
  arrow::MemoryPool* pool = nullptr;
};

struct ReadRequest {
  // Lance field ids of top-level fields to read, in output order; empty = every field.
  std::vector<int32_t> field_ids;
  // Sorted, non-overlapping [begin, end) row ranges; empty = all rows.
  std::vector<std::pair<uint64_t, uint64_t>> row_ranges;
  uint32_t batch_rows = 8192;
};

namespace internal {
struct FileContainer;
}

class LanceFileReader {
 public:
  static Result<std::unique_ptr<LanceFileReader>> Open(std::shared_ptr<ObjectStore> store,
                                                       std::string key,
                                                       const FileReadOptions& options = {});
  ~LanceFileReader();

  FileVersion version() const;
  uint64_t num_rows() const;
  uint64_t file_size() const;
  // The schema stored in the file (Lance fields with their ids) and its Arrow form.
  const Schema& lance_schema() const;
  const std::shared_ptr<const arrow::Schema>& schema() const;

  Result<std::unique_ptr<arrow::BatchStream>> Read(const ReadRequest& request = {}) const;

  // Reads every row of the projection into one batch (tests and small files).
  Result<arrow::RecordBatch> ReadAll(const std::vector<int32_t>& field_ids = {}) const;

 private:
  LanceFileReader() = default;
  // Read() for 2.0 files (internal/reader20.h).
  Result<std::unique_ptr<arrow::BatchStream>> ReadV20(const ReadRequest& request) const;

  std::shared_ptr<ObjectStore> store_;
  std::string key_;
  FileReadOptions options_;
  std::shared_ptr<const internal::FileContainer> container_;
  Schema lance_schema_;
  std::shared_ptr<const arrow::Schema> schema_;
};

}  // namespace quiver::format
