// Concatenation of arrays of one type, row selection by a mask, and dictionary encoding of an
// array.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "arrow/array.h"
#include "common/result.h"

namespace quiver::arrow {

// One array holding the rows of `arrays` in order (offsets and slices honoured; fresh buffers,
// zero-based offsets). A single input is returned as is. Dictionary arrays concatenate their
// dictionaries and shift the indices. REQUIRES: every array is valid (Validate).
// InvalidInput when there are no arrays, the types differ, or 32-bit offsets would overflow.
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays, MemoryPool* pool = nullptr);

// The rows of `array` where `keep` is true, in order (runs of kept rows copied as slices).
// REQUIRES: keep.size() == array->length; the array is valid.
Result<ArrayPtr> SelectRows(const ArrayPtr& array, const std::vector<bool>& keep,
                            MemoryPool* pool = nullptr);

// `array` (of type.dictionary_value()) encoded as a dictionary array of `type`, the dictionary
// holding each distinct value once, in order of first appearance. InvalidInput when the types
// do not fit or the distinct values overflow the index type; Unsupported for value types that
// are neither binary-like nor fixed-width.
Result<ArrayPtr> DictionaryEncode(const ArrayPtr& array, const DataType& type,
                                  MemoryPool* pool = nullptr);

}  // namespace quiver::arrow
