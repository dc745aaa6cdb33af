// What a Lance logical type string (lance-file-format.md §1.3, `Field.logical_type`) says about
// a field's shape, shared by the schema mapping, the 2.0 column planner and the 2.0 writer so that
// they cannot disagree about which fields own child columns.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace quiver::format::internal {

inline bool IsStructLogicalType(std::string_view t) { return t == "struct"; }

// list and large_list ("list.struct" / "large_list.struct" when the items are structs).
inline bool IsListLogicalType(std::string_view t) {
  return t == "list" || t == "list.struct" || t == "large_list" || t == "large_list.struct";
}

// utf8 and binary, regular or large.
inline bool IsBinaryLogicalType(std::string_view t) {
  return t == "string" || t == "binary" || t == "large_string" || t == "large_binary";
}

}  // namespace quiver::format::internal
