// Which columns of a Lance 2.0 file hold which field (lance-file-format.md §1.4): columns follow
// the schema in pre-order over *all* fields. A struct owns a header column (SimpleStruct, no
// data) followed by its members' columns, unless its pages are PackedStruct (then it is one
// column); a list owns an offsets column followed by its item's columns; every other field
// (primitives, strings, fixed-size lists, dictionaries) is one column. Strings whose first page
// is a List encoding are the old list<u8> form: an offsets column plus a bytes column.
//
// Thread-safety: pure functions over an immutable container.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.h"
#include "format/internal/file_container.h"
#include "format/proto/encodings20.pb.h"
#include "format/schema.h"

namespace quiver::format::internal {

struct ColumnPlan20 {
  enum class Kind { kLeaf, kStruct, kList, kBinaryList };
  Kind kind = Kind::kLeaf;
  // kLeaf: the values column; kStruct: the header column; kList / kBinaryList: the offsets
  // column.
  uint32_t column = 0;
  // kStruct: one per member; kList: the item; kBinaryList: the bytes column (a kLeaf).
  std::vector<ColumnPlan20> children;
};

// Plans `field`, whose first column is *next_column, and advances *next_column past its
// columns. Corruption when the file has too few columns or a struct header / list offsets
// column holds other encodings.
Result<ColumnPlan20> PlanField20(const SchemaField& field, const FileContainer& container,
                                 uint32_t* next_column);

// The parsed encoding of page `page` of `column` (Corruption naming them if unreadable).
Result<lance::encodings::ArrayEncoding> PageEncoding20(const FileContainer& container,
                                                       uint32_t column, size_t page);

}  // namespace quiver::format::internal
