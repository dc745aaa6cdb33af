// Packed structs as Lance writes them (docs/research/packed-struct-writes.md): a struct marked
// `lance-encoding:packed: true` is one leaf column whose values are rows of its members' bytes,
// back to back in schema order, little-endian, unpadded. File format 2.2 (Lance 12) packs both
// kinds below; 2.1 (Lance 8) only fixed-width members.
//
// - Fixed-width members only (no bool): rows of one width, written mini-block as
//   `PackedStruct{bits_per_value: [per member], values: Flat(row bits)}`; Lance refuses such
//   rows of 256 bytes or more (it would need per-value compression, which it refuses for
//   fixed-width-only structs), and so does quiver.
// - Any variable-width or fixed-size-list member: rows of varying width, written full-zip as
//   `VariablePackedStruct`, a variable member as its u32 (u64 for the large types) length and
//   bytes.
// - Lance refuses nulls in members ("Per-value compression not yet supported for block type
//   Nullable"; quiver: in a valid struct row), bool members (it writes them but cannot read them
//   back) and members that are structs, lists, maps or dictionaries; quiver refuses them too,
//   naming the member. Null struct rows are levels: a mini-block row keeps its slot (zeros), a
//   full-zip row stores nothing.
//
// Thread-safety: a PackedStructLayout is immutable once made; the functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

// Lance 12's size bound for fixed-width packed rows (its full-zip threshold).
constexpr int64_t kMaxFixedPackedRowBytes = 255;

class PackedStructLayout {
 public:
  // `type` is the struct; `column` names it in errors. Unsupported for the member types Lance
  // refuses to pack (see above), and in file format 2.1 (`v22` false) for variable-width
  // members: Lance 8 packs fixed-width members only and refuses the rest ("Variable packed
  // struct encoding requires Lance file version 2.2 or later"), yet reads a packed struct only
  // as one column, so such a struct has no 2.1 form LanceDB 0.31 reads.
  static Result<PackedStructLayout> Make(const arrow::DataType& type, std::string_view column,
                                         bool v22);

  // Whether every member is fixed-width: rows of row_bytes() each (mini-block); else rows vary
  // (full-zip).
  bool fixed_only() const { return fixed_only_; }
  int64_t row_bytes() const { return row_bytes_; }  // fixed_only() only
  // The Arrow type one row's bytes are held in: FixedSizeBinary(row_bytes) or Binary.
  arrow::DataType row_type() const;
  // The page's value_compression (PackedStruct or VariablePackedStruct).
  const lance::encodings21::CompressiveEncoding& encoding() const { return encoding_; }

  // Appends row `i` (a logical index, the struct's offset not applied) of struct array `s`.
  // REQUIRES: the members are valid at `i` (CheckMembers).
  void AppendRow(const arrow::ArrayData& s, int64_t i, std::string* out) const;

  // Unsupported naming the member and the row when a member of `s` is null in a valid struct
  // row (Lance refuses to pack nulls); nulls under null struct rows are no values and pass.
  Status CheckMembers(const arrow::ArrayData& s, std::string_view column) const;

 private:
  struct Member {
    enum class Kind { kFixed, kFixedSizeList, kVariable } kind;
    int64_t bytes = 0;       // fixed: bytes per value; fsl: bytes per list
    int64_t item_bytes = 0;  // fsl: bytes per item
    int length_bytes = 0;    // variable: 4 or 8
  };
  std::vector<Member> members_;
  std::vector<std::string> names_;
  bool fixed_only_ = true;
  int64_t row_bytes_ = 0;
  lance::encodings21::CompressiveEncoding encoding_;
};

}  // namespace quiver::format::internal
