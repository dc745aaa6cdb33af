#include "arrow/array.h"

#include "arrow/internal/utf8.h"

#include <cmath>
#include <limits>

namespace quiver::arrow {

namespace {

int OffsetWidth(TypeId id) { return IsLargeOffsets(id) ? 8 : 4; }

}  // namespace

float HalfToFloat(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);  // zero and subnormals: mant * 2^-24
  } else if (exp == 31) {
    v = mant == 0 ? std::numeric_limits<float>::infinity()
                  : std::numeric_limits<float>::quiet_NaN();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);  // 1.mant * 2^(exp - 15)
  }
  return sign ? -v : v;
}

uint16_t FloatToHalf(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double a = std::fabs(value);
  if (std::isnan(a)) return static_cast<uint16_t>(sign | 0x7E00);
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7C00);  // rounds past the largest
  if (a < std::ldexp(1.0, -14)) {
    // Subnormal (or zero): a multiple of 2^-24, rounded to even by nearbyint.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0)));
  }
  int exp = 0;
  const double frac = std::frexp(a, &exp);  // a = frac * 2^exp, frac in [0.5, 1)
  // 11 significant bits; a carry out of the mantissa moves into the exponent, as it should.
  const uint32_t mant = static_cast<uint32_t>(std::nearbyint(std::ldexp(frac, 11)));
  const uint32_t bits = (static_cast<uint32_t>(exp + 14) << 10) + (mant - 0x400);
  return static_cast<uint16_t>(sign | bits);
}

int64_t OffsetValue(const ArrayData& a, int64_t i) {
  const uint8_t* p = a.buffers[1]->data();
  if (IsLargeOffsets(a.type.id())) {
    int64_t v;
    std::memcpy(&v, p + 8 * (a.offset + i), 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, p + 4 * (a.offset + i), 4);
  return v;
}

std::string_view BinaryValue(const ArrayData& a, int64_t i) {
  int64_t begin = OffsetValue(a, i);
  int64_t end = OffsetValue(a, i + 1);
  return {reinterpret_cast<const char*>(a.buffers[2]->data()) + begin,
          static_cast<size_t>(end - begin)};
}

std::pair<int64_t, int64_t> ListRange(const ArrayData& a, int64_t i) {
  if (a.type.id() == TypeId::kFixedSizeList) {
    int64_t size = a.type.list_size();
    return {(a.offset + i) * size, (a.offset + i + 1) * size};
  }
  return {OffsetValue(a, i), OffsetValue(a, i + 1)};
}

std::string_view FixedValue(const ArrayData& a, int64_t i) {
  int64_t width = BitWidth(a.type) / 8;
  return {reinterpret_cast<const char*>(a.buffers[1]->data()) + (a.offset + i) * width,
          static_cast<size_t>(width)};
}

int64_t DictionaryIndex(const ArrayData& a, int64_t i) {
  switch (a.type.index_type()) {
    case TypeId::kInt8:
      return Values<int8_t>(a)[i];
    case TypeId::kUInt8:
      return Values<uint8_t>(a)[i];
    case TypeId::kInt16:
      return Values<int16_t>(a)[i];
    case TypeId::kUInt16:
      return Values<uint16_t>(a)[i];
    case TypeId::kInt32:
      return Values<int32_t>(a)[i];
    case TypeId::kUInt32:
      return Values<uint32_t>(a)[i];
    case TypeId::kInt64:
      return Values<int64_t>(a)[i];
    default: {
      uint64_t v = Values<uint64_t>(a)[i];
      return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? -1
                 : static_cast<int64_t>(v);
    }
  }
}

ArrayPtr StructField(const ArrayData& a, int k) {
  const ArrayPtr& child = a.children[k];
  if (a.type.id() == TypeId::kFixedSizeList) {
    int64_t size = a.type.list_size();
    return Slice(child, a.offset * size, a.length * size);
  }
  if (a.offset == 0 && child->length == a.length) return child;
  return Slice(child, a.offset, a.length);
}

ArrayPtr Slice(const ArrayPtr& array, int64_t offset, int64_t length) {
  if (offset == 0 && length == array->length) return array;
  auto out = std::make_shared<ArrayData>(*array);
  out->offset = array->offset + offset;
  out->length = length;
  if (out->type.id() == TypeId::kNull) {
    out->null_count = length;
  } else if (!out->buffers.empty() && out->buffers[0] != nullptr) {
    out->null_count = length - CountSetBits(out->buffers[0]->data(), out->offset, length);
  } else {
    out->null_count = 0;
  }
  return out;
}

Result<ArrayPtr> MakeNullArray(const DataType& type, int64_t length, MemoryPool* pool) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = length;
  out->null_count = length;
  if (type.id() == TypeId::kNull) return ArrayPtr(out);
  QV_ASSIGN_OR_RETURN(auto validity, Buffer::Allocate(BytesForBits(length), pool));
  out->buffers.push_back(std::move(validity));
  TypeId id = type.id();
  if (IsFixedWidth(type)) {
    QV_ASSIGN_OR_RETURN(auto values, Buffer::Allocate(BytesForBits(length * BitWidth(type)), pool));
    out->buffers.push_back(std::move(values));
  } else if (IsBinaryLike(id) || IsOffsetList(id)) {
    QV_ASSIGN_OR_RETURN(auto offsets, Buffer::Allocate((length + 1) * OffsetWidth(id), pool));
    out->buffers.push_back(std::move(offsets));
    if (IsBinaryLike(id)) {
      QV_ASSIGN_OR_RETURN(auto data, Buffer::Allocate(0, pool));
      out->buffers.push_back(std::move(data));
    } else {
      QV_ASSIGN_OR_RETURN(auto items, MakeNullArray(type.item().type, 0, pool));
      out->children.push_back(std::move(items));
    }
  } else if (id == TypeId::kFixedSizeList) {
    QV_ASSIGN_OR_RETURN(auto items,
                        MakeNullArray(type.item().type, length * type.list_size(), pool));
    out->children.push_back(std::move(items));
  } else if (id == TypeId::kStruct) {
    for (const Field& member : type.children()) {
      QV_ASSIGN_OR_RETURN(auto child, MakeNullArray(member.type, length, pool));
      out->children.push_back(std::move(child));
    }
  } else if (id == TypeId::kDictionary) {
    QV_ASSIGN_OR_RETURN(auto indices,
                        Buffer::Allocate(length * IntegerByteWidth(type.index_type()), pool));
    out->buffers.push_back(std::move(indices));
    QV_ASSIGN_OR_RETURN(out->dictionary, MakeNullArray(type.dictionary_value(), 0, pool));
  }
  return ArrayPtr(out);
}

// ---- Validate ----

namespace {

class Validator {
 public:
  explicit Validator(bool full) : full_(full) {}

  Status Check(const ArrayData& a, const std::string& path) {
    if (++depth_ > 64) return Fail(path, "nesting deeper than 64 levels");
    Status s = CheckNode(a, path);
    --depth_;
    return s;
  }

 private:
  // "a.b": the root has an empty path, so its children read "items", not ".items".
  static std::string Join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }

  static Status Fail(const std::string& path, const std::string& what) {
    return Status::Corruption("array " + (path.empty() ? std::string("<root>") : path) + ": " +
                              what);
  }

  // Bytes needed for `count` elements of `bits` bits each, or -1 on overflow (the bound leaves
  // room for BytesForBits' rounding, which would overflow at the very top of int64).
  static int64_t NeededBytes(int64_t count, int64_t bits) {
    if (count < 0 || bits <= 0) return 0;
    if (count > (std::numeric_limits<int64_t>::max() - 7) / bits) return -1;
    return BytesForBits(count * bits);
  }

  Status CheckBuffer(const ArrayData& a, size_t i, int64_t needed, const std::string& path,
                     const char* what) {
    if (needed < 0) return Fail(path, std::string(what) + " size overflows");
    const auto& b = a.buffers[i];
    if (b == nullptr) {
      if (needed == 0) return Status::OK();
      return Fail(path, std::string(what) + " buffer missing");
    }
    if (b->size() < static_cast<uint64_t>(needed)) {
      return Fail(path, std::string(what) + " buffer has " + std::to_string(b->size()) +
                            " bytes, needs " + std::to_string(needed));
    }
    return Status::OK();
  }

  Status CheckNode(const ArrayData& a, const std::string& path) {
    const TypeId id = a.type.id();
    if (a.length < 0 || a.offset < 0) return Fail(path, "negative length or offset");
    if (a.length > std::numeric_limits<int64_t>::max() - a.offset) {
      return Fail(path, "length + offset overflows");
    }
    const int64_t end = a.offset + a.length;
    if (id == TypeId::kNull) {
      if (!a.buffers.empty()) return Fail(path, "a null array has no buffers");
      if (a.null_count != a.length) return Fail(path, "null_count of a null array != length");
      return Status::OK();
    }
    if (a.buffers.size() != static_cast<size_t>(NumBuffers(id))) {
      return Fail(path, a.type.ToString() + " needs " + std::to_string(NumBuffers(id)) +
                            " buffers, has " + std::to_string(a.buffers.size()));
    }
    if (a.buffers[0] != nullptr) {
      if (Status s = CheckBuffer(a, 0, NeededBytes(end, 1), path, "validity"); !s.ok()) return s;
      if (full_) {
        int64_t nulls = a.length - CountSetBits(a.buffers[0]->data(), a.offset, a.length);
        if (nulls != a.null_count) {
          return Fail(path, "null_count " + std::to_string(a.null_count) + " but the bitmap has " +
                                std::to_string(nulls));
        }
      }
    } else if (a.null_count != 0) {
      return Fail(path,
                  "null_count " + std::to_string(a.null_count) + " without a validity bitmap");
    }
    if (a.null_count < 0 || a.null_count > a.length) return Fail(path, "null_count out of range");

    if (IsFixedWidth(a.type)) {
      if (a.type.id() == TypeId::kFixedSizeBinary && a.type.byte_width() < 0) {
        return Fail(path, "negative fixed_size_binary width");
      }
      return CheckBuffer(a, 1, NeededBytes(end, BitWidth(a.type)), path, "values");
    }
    if (IsBinaryLike(id) || IsOffsetList(id)) {
      int64_t first = 0, last = 0;
      if (Status s = CheckOffsets(a, path, &first, &last); !s.ok()) return s;
      if (IsBinaryLike(id)) {
        if (Status s = CheckBuffer(a, 2, last, path, "data"); !s.ok()) return s;
        if (full_ && id != TypeId::kBinary && id != TypeId::kLargeBinary)
          return CheckUtf8(a, path, first, last);
        return Status::OK();
      }
      if (a.children.size() != 1) return Fail(path, "a list needs one child");
      if (Status s = CheckChildType(a, 0, path); !s.ok()) return s;
      if (a.children[0]->length < last) {
        return Fail(path, "offsets reach " + std::to_string(last) + " but the items have " +
                              std::to_string(a.children[0]->length) + " rows");
      }
      if (id == TypeId::kMap) {
        // Arrow's map: entries are never null, nor are their keys.
        const ArrayData& entries = *a.children[0];
        if (entries.type.id() != TypeId::kStruct || entries.children.size() != 2) {
          return Fail(path, "a map's entries must be a struct of key and value");
        }
        if (entries.null_count != 0) return Fail(path, "a map has null entries");
        if (entries.children[0]->null_count != 0) return Fail(path, "a map has null keys");
      }
      return Check(*a.children[0], Join(path, "items"));
    }
    if (id == TypeId::kFixedSizeList) {
      if (a.children.size() != 1) return Fail(path, "a fixed-size list needs one child");
      if (a.type.list_size() < 0) return Fail(path, "negative list size");
      if (Status s = CheckChildType(a, 0, path); !s.ok()) return s;
      // NeededBytes of list_size bytes per row is the item count, overflow-checked.
      const int64_t needed = NeededBytes(end, a.type.list_size() * int64_t{8});
      if (needed < 0 || a.children[0]->length < needed) {
        return Fail(path, "the items have " + std::to_string(a.children[0]->length) +
                              " rows, fewer than (offset + length) * list_size");
      }
      return Check(*a.children[0], Join(path, "items"));
    }
    if (id == TypeId::kStruct) {
      if (a.children.size() != a.type.children().size()) {
        return Fail(path, "struct has " + std::to_string(a.children.size()) + " children, type " +
                              std::to_string(a.type.children().size()));
      }
      for (size_t k = 0; k < a.children.size(); ++k) {
        const std::string child_path = Join(path, a.type.children()[k].name);
        if (a.children[k] == nullptr) return Fail(child_path, "missing");
        if (Status s = CheckChildType(a, k, path); !s.ok()) return s;
        if (a.children[k]->length < end) return Fail(child_path, "shorter than its struct");
        if (Status s = Check(*a.children[k], child_path); !s.ok()) return s;
      }
      return Status::OK();
    }
    if (id == TypeId::kDictionary) {
      int64_t width = 8 * IntegerByteWidth(a.type.index_type());
      if (Status s = CheckBuffer(a, 1, NeededBytes(end, width), path, "indices"); !s.ok()) return s;
      if (a.dictionary == nullptr) return Fail(path, "dictionary missing");
      if (!(a.dictionary->type == a.type.dictionary_value())) {
        return Fail(path, "dictionary type " + a.dictionary->type.ToString() +
                              " != " + a.type.dictionary_value().ToString());
      }
      if (full_) {
        for (int64_t i = 0; i < a.length; ++i) {
          if (IsNull(a, i)) continue;
          int64_t index = DictionaryIndex(a, i);
          if (index < 0 || index >= a.dictionary->length) {
            return Fail(path, "row " + std::to_string(i) + ": dictionary index " +
                                  std::to_string(index) + " outside [0, " +
                                  std::to_string(a.dictionary->length) + ")");
          }
        }
      }
      return Check(*a.dictionary, Join(path, "dictionary"));
    }
    return Fail(path, "unknown type");
  }

  Status CheckChildType(const ArrayData& a, size_t k, const std::string& path) {
    if (a.children[k] == nullptr) return Fail(path, "child missing");
    if (!(a.children[k]->type == a.type.children()[k].type)) {
      return Fail(path, "child type " + a.children[k]->type.ToString() + " != declared " +
                            a.type.children()[k].type.ToString());
    }
    return Status::OK();
  }

  Status CheckOffsets(const ArrayData& a, const std::string& path, int64_t* first, int64_t* last) {
    const int width = OffsetWidth(a.type.id());
    const int64_t end = a.offset + a.length;
    if (a.length == 0 && (a.buffers[1] == nullptr || a.buffers[1]->size() == 0)) {
      // Some writers leave the offsets of an empty array out altogether.
      *first = *last = 0;
      return Status::OK();
    }
    if (end == std::numeric_limits<int64_t>::max()) return Fail(path, "offsets size overflows");
    if (Status s = CheckBuffer(a, 1, NeededBytes(end + 1, int64_t{8} * width), path, "offsets");
        !s.ok()) {
      return s;
    }
    *first = OffsetValue(a, 0);
    *last = OffsetValue(a, a.length);
    if (*first < 0 || *last < *first) {
      return Fail(path,
                  "offsets run from " + std::to_string(*first) + " to " + std::to_string(*last));
    }
    if (full_) {
      int64_t prev = *first;
      for (int64_t i = 1; i <= a.length; ++i) {
        int64_t v = OffsetValue(a, i);
        if (v < prev) return Fail(path, "offsets decrease at row " + std::to_string(i - 1));
        prev = v;
      }
    }
    return Status::OK();
  }

  // Whether no offset of `a` (null slots' included: this is only a fast path) points at a
  // continuation byte of `all`, the data the offsets span from `first` on.
  template <typename O>
  static bool NoOffsetInsideSequence(const ArrayData& a, std::string_view all, int64_t first) {
    const O* offsets = reinterpret_cast<const O*>(a.buffers[1]->data()) + a.offset;
    const auto* bytes = reinterpret_cast<const unsigned char*>(all.data());
    const uint64_t size = all.size();
    bool inside = false;
    for (int64_t i = 0; i <= a.length; ++i) {
      const uint64_t pos = static_cast<uint64_t>(offsets[i] - first);
      inside |= pos < size && (bytes[pos] & 0xC0) == 0x80;
    }
    return !inside;
  }

  // REQUIRES: the offsets are checked; [first, last) is the data they span.
  Status CheckUtf8(const ArrayData& a, const std::string& path, int64_t first, int64_t last) {
    if (last <= first) return Status::OK();  // only empty strings
    // Fast path: the bytes all values span are valid UTF-8 as a whole and no value starts or
    // ends inside a sequence; then every value is valid. One pass over the bytes, mostly 8 at a
    // time, instead of a call per value.
    const std::string_view all(reinterpret_cast<const char*>(a.buffers[2]->data()) + first,
                               static_cast<size_t>(last - first));
    if (internal::IsUtf8(all)) {
      const bool whole = OffsetWidth(a.type.id()) == 8
                             ? NoOffsetInsideSequence<int64_t>(a, all, first)
                             : NoOffsetInsideSequence<int32_t>(a, all, first);
      if (whole) return Status::OK();
    }
    for (int64_t i = 0; i < a.length; ++i) {
      if (IsNull(a, i)) continue;
      std::string_view v = BinaryValue(a, i);
      if (!internal::IsUtf8(v))
        return Fail(path, "row " + std::to_string(i) + " is not valid UTF-8");
    }
    return Status::OK();
  }

  const bool full_;
  int depth_ = 0;
};

}  // namespace

Status Validate(const ArrayData& array, bool full) { return Validator(full).Check(array, ""); }

// ---- Building ----

Result<std::shared_ptr<Buffer>> MakeValidity(const std::vector<bool>& valid, int64_t* null_count,
                                             MemoryPool* pool) {
  *null_count = 0;
  for (bool v : valid) *null_count += v ? 0 : 1;
  if (*null_count == 0) return std::shared_ptr<Buffer>();
  QV_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(BytesForBits(valid.size()), pool));
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) SetBit(bits->mutable_data(), static_cast<int64_t>(i));
  }
  return bits;
}

namespace {

Status CheckValidityLength(const std::vector<bool>& valid, int64_t length, const char* what) {
  if (!valid.empty() && static_cast<int64_t>(valid.size()) != length) {
    return Status::InvalidInput(std::string(what) + ": validity and values differ in length");
  }
  return Status::OK();
}

}  // namespace

Result<ArrayPtr> MakeBoolArray(const std::vector<bool>& values, const std::vector<bool>& valid,
                               MemoryPool* pool) {
  QV_RETURN_IF_ERROR(CheckValidityLength(valid, values.size(), "MakeBoolArray"));
  auto data = std::make_shared<ArrayData>();
  data->type = DataType::Bool();
  data->length = static_cast<int64_t>(values.size());
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  QV_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(BytesForBits(values.size()), pool));
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) SetBit(bits->mutable_data(), static_cast<int64_t>(i));
  }
  data->buffers = {std::move(validity), std::move(bits)};
  return ArrayPtr(std::move(data));
}

Result<ArrayPtr> MakeBinaryArray(const DataType& type, const std::vector<std::string>& values,
                                 const std::vector<bool>& valid, MemoryPool* pool) {
  QV_RETURN_IF_ERROR(CheckValidityLength(valid, values.size(), "MakeBinaryArray"));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = static_cast<int64_t>(values.size());
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  if (type.id() == TypeId::kFixedSizeBinary) {
    const size_t width = static_cast<size_t>(type.byte_width());
    BufferBuilder bytes(pool);
    for (const std::string& v : values) {
      if (v.size() != width) {
        return Status::InvalidInput("MakeBinaryArray: a value of " + std::to_string(v.size()) +
                                    " bytes in " + type.ToString());
      }
      QV_RETURN_IF_ERROR(bytes.Append(v));
    }
    QV_ASSIGN_OR_RETURN(auto buffer, bytes.Finish());
    data->buffers = {std::move(validity), std::move(buffer)};
    return ArrayPtr(std::move(data));
  }
  if (!IsBinaryLike(type.id())) {
    return Status::InvalidInput("MakeBinaryArray: " + type.ToString() + " is not binary");
  }
  BufferBuilder offsets(pool), bytes(pool);
  const bool large = IsLargeOffsets(type.id());
  int64_t total = 0;
  auto append_offset = [&](int64_t v) {
    return large ? offsets.AppendValue<int64_t>(v)
                 : offsets.AppendValue<int32_t>(static_cast<int32_t>(v));
  };
  QV_RETURN_IF_ERROR(append_offset(0));
  for (const std::string& v : values) {
    total += static_cast<int64_t>(v.size());
    if (!large && total > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidInput("MakeBinaryArray: more than 2 GiB of values in " +
                                  type.ToString());
    }
    QV_RETURN_IF_ERROR(bytes.Append(v));
    QV_RETURN_IF_ERROR(append_offset(total));
  }
  QV_ASSIGN_OR_RETURN(auto offsets_buffer, offsets.Finish());
  QV_ASSIGN_OR_RETURN(auto bytes_buffer, bytes.Finish());
  data->buffers = {std::move(validity), std::move(offsets_buffer), std::move(bytes_buffer)};
  return ArrayPtr(std::move(data));
}

Result<ArrayPtr> MakeListArray(const DataType& type, const std::vector<int64_t>& offsets,
                               ArrayPtr items, const std::vector<bool>& valid, MemoryPool* pool) {
  if (!IsOffsetList(type.id())) {
    return Status::InvalidInput("MakeListArray: " + type.ToString() + " is not a list");
  }
  if (offsets.empty())
    return Status::InvalidInput("MakeListArray: offsets need length + 1 entries");
  const int64_t length = static_cast<int64_t>(offsets.size()) - 1;
  QV_RETURN_IF_ERROR(CheckValidityLength(valid, length, "MakeListArray"));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = length;
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  BufferBuilder builder(pool);
  for (int64_t v : offsets) {
    QV_RETURN_IF_ERROR(type.id() == TypeId::kLargeList
                           ? builder.AppendValue<int64_t>(v)
                           : builder.AppendValue<int32_t>(static_cast<int32_t>(v)));
  }
  QV_ASSIGN_OR_RETURN(auto offsets_buffer, builder.Finish());
  data->buffers = {std::move(validity), std::move(offsets_buffer)};
  data->children = {std::move(items)};
  QV_RETURN_IF_ERROR(Validate(*data, true));
  return ArrayPtr(std::move(data));
}

Result<ArrayPtr> MakeFixedSizeListArray(const DataType& type, int64_t length, ArrayPtr items,
                                        const std::vector<bool>& valid, MemoryPool* pool) {
  if (type.id() != TypeId::kFixedSizeList) {
    return Status::InvalidInput("MakeFixedSizeListArray: " + type.ToString() +
                                " is not a fixed-size list");
  }
  QV_RETURN_IF_ERROR(CheckValidityLength(valid, length, "MakeFixedSizeListArray"));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = length;
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  data->buffers = {std::move(validity)};
  data->children = {std::move(items)};
  QV_RETURN_IF_ERROR(Validate(*data, true));
  return ArrayPtr(std::move(data));
}

Result<ArrayPtr> MakeStructArray(const DataType& type, int64_t length,
                                 std::vector<ArrayPtr> members, const std::vector<bool>& valid,
                                 MemoryPool* pool) {
  if (type.id() != TypeId::kStruct) {
    return Status::InvalidInput("MakeStructArray: " + type.ToString() + " is not a struct");
  }
  QV_RETURN_IF_ERROR(CheckValidityLength(valid, length, "MakeStructArray"));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = length;
  QV_ASSIGN_OR_RETURN(auto validity, MakeValidity(valid, &data->null_count, pool));
  data->buffers = {std::move(validity)};
  data->children = std::move(members);
  QV_RETURN_IF_ERROR(Validate(*data, true));
  return ArrayPtr(std::move(data));
}

Result<ArrayPtr> MakeDictionaryArray(const DataType& type, ArrayPtr indices, ArrayPtr dictionary) {
  if (type.id() != TypeId::kDictionary || indices->type.id() != type.index_type()) {
    return Status::InvalidInput("MakeDictionaryArray: indices of " + indices->type.ToString() +
                                " do not fit " + type.ToString());
  }
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = indices->length;
  data->offset = indices->offset;
  data->null_count = indices->null_count;
  data->buffers = indices->buffers;
  data->dictionary = std::move(dictionary);
  QV_RETURN_IF_ERROR(Validate(*data, true));
  return ArrayPtr(std::move(data));
}

}  // namespace quiver::arrow
