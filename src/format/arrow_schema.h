// Lance schemas as Arrow schemas: the logical type strings Lance stores (lance-file-format.md
// §1.3) mapped to arrow::DataType and back, and which fields of a 2.1 data file own a column.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arrow/type.h"
#include "common/result.h"
#include "format/schema.h"

namespace quiver::format {

// The Arrow type of a Lance field (its logical type string, plus its children for structs and
// lists). Unsupported for Lance types the columnar model does not have (time, duration, map,
// blob, decimal256, ...), naming the field.
Result<arrow::DataType> ToArrowType(const SchemaField& field);
Result<arrow::Field> ToArrowField(const SchemaField& field);
// Field metadata carries over; the Lance field id is not put into the Arrow metadata.
Result<arrow::Schema> ToArrowSchema(const Schema& schema);

// The Lance logical type string of an Arrow type (the inverse of ToArrowType for every type the
// model has; structs and lists give "struct" / "list" / "large_list", their children being
// separate Lance fields). "list.struct" is what Lance writes for a list of structs.
Result<std::string> ToLogicalType(const arrow::DataType& type);

// The Lance schema for a new table with this Arrow schema: field ids assigned in pre-order from
// 0, logical types from ToLogicalType, metadata carried over. InvalidInput (naming the column)
// for a type Lance cannot store.
Result<Schema> FromArrowSchema(const arrow::Schema& schema);

// Whether a Lance field is stored as one column of its own in a 2.1 file: primitives, strings,
// binaries, fixed-size lists (of primitives) and dictionaries. Structs and lists are not; their
// validity and offsets live in the repetition/definition levels of the leaves below them.
bool IsLeaf21(const SchemaField& field);

// Blob v2 columns (Lance 12, `ARROW:extension:name: lance.blob.v2`, a struct<data, uri> in the
// manifest): data files hold a descriptor per row (kind: 0 inline in the data file, 1 in a packed
// sidecar `.blob` file, 2 in a dedicated one, 3 an external URI; position, size, blob_id,
// blob_uri), and reads answer the descriptors, as LanceDB's queries do.
bool IsBlobV2Field(const SchemaField& field);
arrow::Field BlobV2DescriptorField(std::string name, bool nullable);

// Whether a struct is marked to be stored packed (`lance-encoding:packed: true`, or the legacy
// `packed: true`): its members in one column. Lance packs it only where the file version and
// the member types allow (2.1: fixed-width members only), so a reader asks the file.
bool IsPackedStructField(const SchemaField& field);
// The first field (pre-order, at any depth) that IsPackedStructField; nullptr when none.
const SchemaField* FindPackedStructField(const std::vector<SchemaField>& fields);

// The leaves of `field` in pre-order (the column order of a 2.1 file), as paths of child
// indices from `field` (empty path = the field itself is a leaf). With `packed_leaves`, structs
// marked packed are leaves too.
void CollectLeaves21(const SchemaField& field, std::vector<std::vector<int>>* paths,
                     std::vector<int> prefix = {}, bool packed_leaves = false);

}  // namespace quiver::format
