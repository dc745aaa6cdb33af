// Object identifiers of the Lance Namespace model (namespace-spec.md §1, §5): the list of names
// from (not including) the root down to the object. The root namespace is the empty list.
//
// quiver's naming rules (checked at every door, so nothing unrepresentable reaches storage):
// a name is 1..kMaxNameBytes bytes of UTF-8 text with no control character (NUL included), no
// '/' or '\', and is not "." or "..". An id has at most kMaxIdDepth names, together at most
// kMaxIdBytes bytes (so that every record key fits the store's key limits, store/key.h, with
// the project's name in front). Create doors refuse longer names and ids (InvalidInput, naming
// the limit, never a storage key); lookups accept them (ValidateLookupId) and find nothing, so
// that a too-long name answers exactly as any missing object does.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quiver::catalog {

using ObjectId = std::vector<std::string>;

inline constexpr size_t kMaxNameBytes = 120;
inline constexpr size_t kMaxIdDepth = 8;
inline constexpr size_t kMaxIdBytes = 360;

// Strict UTF-8 (no overlong forms, no surrogates), what JSON text may carry.
bool IsValidUtf8(std::string_view s);

// InvalidInput naming `what` ("namespace", "table", ...) and the offending name.
Status ValidateName(std::string_view name, std::string_view what);
// Every element valid, depth within bounds, and (unless allow_root) at least one element.
Status ValidateId(const ObjectId& id, std::string_view what, bool allow_root);
// ValidateId without the length limits (of a name and of the whole id), for an id that is looked
// up, not created: nothing that long can exist, and the lookup's "not found" is the answer.
Status ValidateLookupId(const ObjectId& id, std::string_view what, bool allow_root);

// "a$b$c" for delimiter "$"; "" for the root.
std::string JoinId(const ObjectId& id, std::string_view delimiter = "$");
// The parent of a non-root id, and its last name. REQUIRES: !id.empty().
ObjectId ParentOf(const ObjectId& id);
const std::string& LeafOf(const ObjectId& id);
// `child` of `parent`.
ObjectId ChildOf(const ObjectId& parent, std::string_view name);

// Lowercase hex of the name's bytes: an encoding that keeps byte order (with the ".json"
// suffix, since '.' sorts before every hex digit), so a keyed listing returns names sorted.
std::string EncodeName(std::string_view name);
// The inverse; InvalidInput when `hex` is not an encoded name.
Status DecodeName(std::string_view hex, std::string* name);

}  // namespace quiver::catalog
