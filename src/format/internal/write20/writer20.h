// The Lance 2.0 side of LanceFileWriter: Arrow batches turned into the columns and pages of a 2.0
// file (lance-file-format.md §1.4, §5), with lance 8.0's default 2.0 profile and no compression.
//
// Columns follow the Lance schema in pre-order over every field: a struct owns a header column
// (one SimpleStruct page without buffers, written at Finish: lance's reader refuses any other
// page count), a list owns an offsets column (List pages; its item columns follow), everything
// else (primitives, strings, fixed-size lists, dictionaries) is one column (values20.h).
//
// Pages are cut per top-level field: once a field has about `page_bytes` buffered, every column
// under it gets a page (0-row pages included, as lance writes them), so an items page never
// spans two list offsets pages (lance's 2.0 list reader cannot share one). A dictionary column
// may also cut early so its items stay addressable by its index type.
//
// 2.0 stores no struct validity: a null struct is written as a struct whose members are null
// (members that are not nullable keep their values), which is how LanceDB reads it back.
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "format/proto/encodings20.pb.h"
#include "format/schema.h"

namespace quiver::format::internal {

struct EncodedPage20 {
  uint32_t column = 0;
  uint64_t rows = 0;
  std::vector<std::string> buffers;
  lance::encodings::ArrayEncoding encoding;
};

// Receives each page as it is cut; it writes the buffers and records the page.
using PageSink20 = std::function<Status(EncodedPage20&&)>;

class WriteNode20;

class FileWriter20 {
 public:
  // `arrow_schema` is ToArrowSchema(schema). Unsupported for fields 2.0 cannot hold (fixed-size
  // lists of non-fixed-width items, dictionaries of bools or of nested values).
  static Result<std::unique_ptr<FileWriter20>> Make(const Schema& schema,
                                                    const arrow::Schema& arrow_schema,
                                                    uint64_t page_bytes);
  ~FileWriter20();

  uint32_t num_columns() const { return num_columns_; }
  // REQUIRES: the batch matches the schema and passed LanceFileWriter's checks.
  Status Write(const arrow::RecordBatch& batch, const PageSink20& sink);
  // Pages for everything buffered, then the struct header pages.
  Status Finish(const PageSink20& sink);

 private:
  FileWriter20() = default;
  struct Field;
  std::vector<Field> fields_;
  uint32_t num_columns_ = 0;
  uint64_t page_bytes_ = 0;
};

// The ids of the fields that own a column of a 2.0 file, in column order: every field, pre-order
// (the table's DataFile.fields for a 2.0 file).
void CollectFieldIds20(const SchemaField& field, std::vector<int32_t>* ids);

}  // namespace quiver::format::internal
