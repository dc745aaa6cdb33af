// Cursors over the columns of one field of a Lance 2.0 file, moving forward through its rows.
//
// A leaf cursor walks its column's pages, reading and decoding a page when rows of it are first
// taken (skipped pages are never read) and dropping it once passed, so it holds at most one
// decoded page. A list cursor does the same with its offsets column and moves its item cursor
// by the items the taken or skipped lists span (item pages are independent of offsets pages; a
// page's items start after the items of the pages before it). A struct cursor moves its members
// in step. 2.0 stores no struct validity: structs come out without nulls.
//
// Errors name the file, column and page; file data is untrusted (see decode20.h).
//
// Thread-safety: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arrow/array.h"
#include "common/result.h"
#include "format/internal/file_container.h"
#include "format/internal/read20/columns20.h"
#include "store/object_store.h"

namespace quiver::format::internal {

class ColumnNode20 {
 public:
  virtual ~ColumnNode20() = default;
  // Moves forward `rows` rows without producing them.
  virtual Status Skip(uint64_t rows) = 0;
  // The next `rows` rows.
  virtual Result<arrow::ArrayPtr> Take(uint64_t rows) = 0;
};

struct NodeContext20 {
  std::shared_ptr<ObjectStore> store;
  std::string key;
  std::shared_ptr<const FileContainer> container;
  arrow::MemoryPool* pool = nullptr;
};

// The cursor of a field planned as `plan` whose Arrow type is `type`; Corruption when the plan
// (the file's columns) and the type disagree.
Result<std::unique_ptr<ColumnNode20>> MakeColumnNode20(const ColumnPlan20& plan,
                                                       const arrow::DataType& type,
                                                       const NodeContext20& context);

}  // namespace quiver::format::internal
