// Arrays in Arrow's physical layout, and the checks that make untrusted ones safe to read.
//
// ArrayData is exactly Arrow's in-memory layout, so IPC reads and writes are copies of buffers
// and Lance decoders write straight into them:
//   null                 no buffers
//   fixed-width, bool    [validity, values]          (bool values are LSB-first bits)
//   binary/utf8 (large)  [validity, offsets, data]   (int32 offsets; int64 for large)
//   list (large)         [validity, offsets]  + children[0]
//   fixed-size list      [validity]           + children[0] (length * list_size items)
//   struct               [validity]           + one child per member
//   dictionary           [validity, indices]  + dictionary (an ArrayData of the value type)
// buffers[0] (validity) is nullptr when the array has no nulls. `offset` is the logical start
// inside the buffers (slices share buffers); children of lists are addressed through offsets,
// children of structs and fixed-size lists through the parent's offset.
//
// Arrays built by quiver are valid by construction; arrays read from files are not trusted until
// Validate(full=true) accepts them. Accessors below do no checking.
//
// Thread-safety: an ArrayData is immutable once shared (held through shared_ptr<const>), and may
// then be read by any number of threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/buffer.h"
#include "arrow/type.h"
#include "common/result.h"

namespace quiver::arrow {

struct ArrayData;
using ArrayPtr = std::shared_ptr<const ArrayData>;

struct ArrayData {
  DataType type;
  int64_t length = 0;
  int64_t offset = 0;
  int64_t null_count = 0;  // exact; 0 when buffers[0] is null (except for the null type)
  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<ArrayPtr> children;
  ArrayPtr dictionary;
};

// ---- Reading (no checks: REQUIRES a valid array and an in-range index) ----

inline bool IsNull(const ArrayData& a, int64_t i) {
  if (a.type.id() == TypeId::kNull) return true;
  const auto& validity = a.buffers.empty() ? nullptr : a.buffers[0];
  return validity != nullptr && !GetBit(validity->data(), a.offset + i);
}
inline bool IsValid(const ArrayData& a, int64_t i) { return !IsNull(a, i); }

// The values buffer of a fixed-width array, as T, starting at the array's offset.
template <typename T>
const T* Values(const ArrayData& a) {
  return reinterpret_cast<const T*>(a.buffers[1]->data()) + a.offset;
}
inline bool BoolValue(const ArrayData& a, int64_t i) {
  return GetBit(a.buffers[1]->data(), a.offset + i);
}
// An IEEE 754 binary16 value (float16 arrays hold them as uint16_t) widened to float, exactly.
float HalfToFloat(uint16_t bits);
// `value` rounded to the nearest binary16 (ties to even; overflow to infinity, NaN kept), as
// Rust's half::f16::from_f64 does.
uint16_t FloatToHalf(double value);
// Offset i (0 <= i <= length) of a binary-like or list array, int32 or int64 by type, with the
// array's offset applied.
int64_t OffsetValue(const ArrayData& a, int64_t i);
// Value i of a binary-like array.
std::string_view BinaryValue(const ArrayData& a, int64_t i);
// [begin, end) of list i's items in children[0] (list, large list, fixed-size list).
std::pair<int64_t, int64_t> ListRange(const ArrayData& a, int64_t i);
// The bytes of value i of a fixed-width, non-bool array (fixed_size_binary, decimal, ints...).
std::string_view FixedValue(const ArrayData& a, int64_t i);
// Index i of a dictionary array, widened.
int64_t DictionaryIndex(const ArrayData& a, int64_t i);
// Child `k` of a struct or fixed-size list, with the parent's offset and length applied (a
// zero-copy slice), so child rows line up with parent rows (fsl: length * list_size items).
ArrayPtr StructField(const ArrayData& a, int k);

// A zero-copy slice of rows [offset, offset + length). REQUIRES: within the array.
ArrayPtr Slice(const ArrayPtr& array, int64_t offset, int64_t length);

// An array of `length` nulls of any type (children all-null too, offsets all zero).
Result<ArrayPtr> MakeNullArray(const DataType& type, int64_t length, MemoryPool* pool = nullptr);

// Checks the layout: buffer count and sizes against length + offset, child lengths, offsets
// monotonic and within the child/data, dictionary indices within the dictionary, null_count
// equal to the bitmap's, utf8 validity when `full`. The checks that need a pass over the values
// (offsets, indices, utf8, null counts) run only when `full`. Corruption naming the first problem
// (with a path such as "s.items[3]") when the array is not valid.
Status Validate(const ArrayData& array, bool full = true);

// ---- Building (for tests, tools and generators; decoders fill buffers directly) ----

// A validity bitmap from per-row flags, or nullptr when every row is valid. `null_count` gets
// the number of false flags.
Result<std::shared_ptr<Buffer>> MakeValidity(const std::vector<bool>& valid, int64_t* null_count,
                                             MemoryPool* pool = nullptr);

// A fixed-width array of `type` from raw values (T must match the type's width; for bool use
// MakeBoolArray). `valid` empty = no nulls; otherwise one flag per value.
template <typename T>
Result<ArrayPtr> MakeFixedArray(const DataType& type, const std::vector<T>& values,
                                const std::vector<bool>& valid = {}, MemoryPool* pool = nullptr);
Result<ArrayPtr> MakeBoolArray(const std::vector<bool>& values, const std::vector<bool>& valid = {},
                               MemoryPool* pool = nullptr);
// utf8 / binary / large variants / fixed_size_binary (every value exactly byte_width bytes).
Result<ArrayPtr> MakeBinaryArray(const DataType& type, const std::vector<std::string>& values,
                                 const std::vector<bool>& valid = {}, MemoryPool* pool = nullptr);
// list / large_list: `offsets` has length + 1 entries into `items`.
Result<ArrayPtr> MakeListArray(const DataType& type, const std::vector<int64_t>& offsets,
                               ArrayPtr items, const std::vector<bool>& valid = {},
                               MemoryPool* pool = nullptr);
// fixed-size list: items has length * list_size rows.
Result<ArrayPtr> MakeFixedSizeListArray(const DataType& type, int64_t length, ArrayPtr items,
                                        const std::vector<bool>& valid = {},
                                        MemoryPool* pool = nullptr);
Result<ArrayPtr> MakeStructArray(const DataType& type, int64_t length,
                                 std::vector<ArrayPtr> members, const std::vector<bool>& valid = {},
                                 MemoryPool* pool = nullptr);
// dictionary: `indices` is an integer array of the type's index type; the value type must match.
Result<ArrayPtr> MakeDictionaryArray(const DataType& type, ArrayPtr indices, ArrayPtr dictionary);

// ---- template implementation ----

template <typename T>
Result<ArrayPtr> MakeFixedArray(const DataType& type, const std::vector<T>& values,
                                const std::vector<bool>& valid, MemoryPool* pool) {
  if (BitWidth(type) != static_cast<int64_t>(8 * sizeof(T)) || type.id() == TypeId::kBool) {
    return Status::InvalidInput("MakeFixedArray: " + type.ToString() + " does not hold values of " +
                                std::to_string(sizeof(T)) + " bytes");
  }
  if (!valid.empty() && valid.size() != values.size()) {
    return Status::InvalidInput("MakeFixedArray: validity and values differ in length");
  }
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = static_cast<int64_t>(values.size());
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  QV_ASSIGN_OR_RETURN(auto buffer, Buffer::Allocate(values.size() * sizeof(T), pool));
  if (!values.empty())
    std::memcpy(buffer->mutable_data(), values.data(), values.size() * sizeof(T));
  data->buffers = {std::move(validity), std::move(buffer)};
  return ArrayPtr(std::move(data));
}

}  // namespace quiver::arrow
