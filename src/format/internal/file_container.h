// The container of a Lance 2.x data file: footer, column metadata and pages, global buffers and
// the schema (lance-file-format.md §1–§2.1), parsed and bounds-checked, without decoding pages.
//
// Thread-safety: an immutable value after ReadFileContainer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "format/lance_file_reader.h"
#include "format/proto/encodings21.pb.h"
#include "format/proto/file.pb.h"
#include "store/object_store.h"

namespace quiver::format::internal {

struct PageBuffer {
  uint64_t offset = 0;  // absolute position in the file
  uint64_t size = 0;
};

struct PageInfo {
  std::vector<PageBuffer> buffers;
  uint64_t rows = 0;
  uint64_t first_row = 0;  // computed: rows of the column's earlier pages
  // 2.1+: the page layout; 2.0: the raw ArrayEncoding bytes (decoded by the 2.0 reader).
  lance::encodings21::PageLayout layout;
  std::string legacy_encoding;
};

struct ColumnInfo {
  std::vector<PageInfo> pages;
};

struct FileContainer {
  std::string what;  // "file <key>", for messages
  FileVersion version = FileVersion::kV2_1;
  uint16_t major = 0, minor = 0;
  uint64_t file_size = 0;
  uint64_t num_rows = 0;
  lance::file::FileDescriptor descriptor;
  std::vector<ColumnInfo> columns;
};

// Reads and checks the tail of `key`. `known_size` = 0: asks the store for the size.
Result<std::shared_ptr<const FileContainer>> ReadFileContainer(ObjectStore& store,
                                                               const std::string& key,
                                                               uint64_t known_size);

// The same over bytes already in memory (fuzzing, tests).
Result<std::shared_ptr<const FileContainer>> ParseFileContainer(std::string_view file,
                                                                const std::string& what);

}  // namespace quiver::format::internal
