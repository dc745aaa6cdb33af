#include "arrow/concatenate.h"

#include <limits>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace quiver::arrow {

namespace {

// The combined validity bitmap, or nullptr when no input has nulls.
Result<std::shared_ptr<Buffer>> ConcatValidity(const std::vector<ArrayPtr>& arrays, int64_t total,
                                               int64_t* null_count, MemoryPool* pool) {
  *null_count = 0;
  for (const ArrayPtr& a : arrays) *null_count += a->null_count;
  if (*null_count == 0) return std::shared_ptr<Buffer>();
  QV_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(BytesForBits(total), pool));
  int64_t at = 0;
  for (const ArrayPtr& a : arrays) {
    if (a->type.id() == TypeId::kNull) {
      at += a->length;  // all null: bits stay 0
    } else if (a->buffers[0] == nullptr) {
      SetBitRange(bits->mutable_data(), at, a->length);
      at += a->length;
    } else {
      CopyBits(a->buffers[0]->data(), a->offset, a->length, bits->mutable_data(), at);
      at += a->length;
    }
  }
  return bits;
}

// Offsets rebased to one running total, plus the [begin, end) of each input's children/data.
Result<std::shared_ptr<Buffer>> ConcatOffsets(const std::vector<ArrayPtr>& arrays, int64_t total,
                                              std::vector<std::pair<int64_t, int64_t>>* ranges,
                                              MemoryPool* pool) {
  const bool large = IsLargeOffsets(arrays[0]->type.id());
  BufferBuilder out(pool);
  QV_RETURN_IF_ERROR(out.Reserve((total + 1) * (large ? 8 : 4)));
  int64_t running = 0;
  auto push = [&](int64_t v) {
    return large ? out.AppendValue<int64_t>(v) : out.AppendValue<int32_t>(static_cast<int32_t>(v));
  };
  QV_RETURN_IF_ERROR(push(0));
  for (const ArrayPtr& a : arrays) {
    if (a->length == 0) {
      ranges->push_back({0, 0});
      continue;
    }
    const int64_t begin = OffsetValue(*a, 0), end = OffsetValue(*a, a->length);
    ranges->push_back({begin, end});
    for (int64_t i = 1; i <= a->length; ++i) {
      const int64_t v = running + OffsetValue(*a, i) - begin;
      if (!large && v > std::numeric_limits<int32_t>::max()) {
        return Status::InvalidInput("concatenation overflows 32-bit offsets of " +
                                    a->type.ToString());
      }
      QV_RETURN_IF_ERROR(push(v));
    }
    running += end - begin;
  }
  return out.Finish();
}

}  // namespace

Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays, MemoryPool* pool) {
  if (arrays.empty()) return Status::InvalidInput("Concatenate: no arrays");
  if (arrays.size() == 1) return arrays[0];
  const DataType& type = arrays[0]->type;
  int64_t total = 0;
  for (const ArrayPtr& a : arrays) {
    if (!(a->type == type)) {
      return Status::InvalidInput("Concatenate: " + a->type.ToString() + " and " + type.ToString());
    }
    total += a->length;
  }
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = total;
  if (type.id() == TypeId::kNull) {
    out->null_count = total;
    return ArrayPtr(out);
  }
  QV_ASSIGN_OR_RETURN(auto validity, ConcatValidity(arrays, total, &out->null_count, pool));
  out->buffers.push_back(std::move(validity));
  const TypeId id = type.id();
  if (IsFixedWidth(type)) {
    const int64_t bits = BitWidth(type);
    QV_ASSIGN_OR_RETURN(auto values, Buffer::Allocate(BytesForBits(total * bits), pool));
    int64_t at = 0;
    for (const ArrayPtr& a : arrays) {
      if (bits == 1) {
        CopyBits(a->buffers[1]->data(), a->offset, a->length, values->mutable_data(), at);
      } else if (a->length > 0) {
        std::memcpy(values->mutable_data() + at * (bits / 8),
                    a->buffers[1]->data() + a->offset * (bits / 8), a->length * (bits / 8));
      }
      at += a->length;
    }
    out->buffers.push_back(std::move(values));
    return ArrayPtr(out);
  }
  if (IsBinaryLike(id) || IsOffsetList(id)) {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    QV_ASSIGN_OR_RETURN(auto offsets, ConcatOffsets(arrays, total, &ranges, pool));
    out->buffers.push_back(std::move(offsets));
    if (IsBinaryLike(id)) {
      BufferBuilder data(pool);
      for (size_t i = 0; i < arrays.size(); ++i) {
        if (ranges[i].second > ranges[i].first) {
          QV_RETURN_IF_ERROR(data.Append(arrays[i]->buffers[2]->data() + ranges[i].first,
                                         ranges[i].second - ranges[i].first));
        }
      }
      QV_ASSIGN_OR_RETURN(auto bytes, data.Finish());
      out->buffers.push_back(std::move(bytes));
      return ArrayPtr(out);
    }
    std::vector<ArrayPtr> items;
    for (size_t i = 0; i < arrays.size(); ++i) {
      items.push_back(
          Slice(arrays[i]->children[0], ranges[i].first, ranges[i].second - ranges[i].first));
    }
    QV_ASSIGN_OR_RETURN(auto child, Concatenate(items, pool));
    out->children.push_back(std::move(child));
    return ArrayPtr(out);
  }
  if (id == TypeId::kFixedSizeList || id == TypeId::kStruct) {
    const size_t num_children = arrays[0]->children.size();
    for (size_t k = 0; k < num_children; ++k) {
      std::vector<ArrayPtr> parts;
      for (const ArrayPtr& a : arrays) parts.push_back(StructField(*a, static_cast<int>(k)));
      QV_ASSIGN_OR_RETURN(auto child, Concatenate(parts, pool));
      out->children.push_back(std::move(child));
    }
    return ArrayPtr(out);
  }
  if (id == TypeId::kDictionary) {
    std::vector<ArrayPtr> dictionaries;
    BufferBuilder indices(pool);
    int64_t base = 0;
    const int64_t width = IntegerByteWidth(type.index_type());
    for (const ArrayPtr& a : arrays) {
      dictionaries.push_back(a->dictionary);
      for (int64_t i = 0; i < a->length; ++i) {
        const int64_t v = IsNull(*a, i) ? 0 : DictionaryIndex(*a, i) + base;
        QV_RETURN_IF_ERROR(indices.Append(&v, width));  // little-endian: low bytes first
      }
      base += a->dictionary->length;
    }
    QV_ASSIGN_OR_RETURN(auto index_buffer, indices.Finish());
    out->buffers.push_back(std::move(index_buffer));
    QV_ASSIGN_OR_RETURN(out->dictionary, Concatenate(dictionaries, pool));
    return ArrayPtr(out);
  }
  return Status::InvalidInput("Concatenate: unsupported type " + type.ToString());
}

Result<ArrayPtr> DictionaryEncode(const ArrayPtr& array, const DataType& type, MemoryPool* pool) {
  if (type.id() != TypeId::kDictionary || !(array->type == type.dictionary_value())) {
    return Status::InvalidInput("DictionaryEncode: " + array->type.ToString() + " into " +
                                type.ToString());
  }
  const DataType& value_type = type.dictionary_value();
  const bool binary = IsBinaryLike(value_type.id());
  if (!binary && (!IsFixedWidth(value_type) || value_type.id() == TypeId::kBool)) {
    return Status::Unsupported("DictionaryEncode: values of " + value_type.ToString());
  }
  std::unordered_map<std::string_view, int64_t> seen;
  std::vector<int64_t> first_row;  // dictionary entry -> row of the array holding it
  std::vector<int64_t> index(array->length, 0);
  for (int64_t i = 0; i < array->length; ++i) {
    if (IsNull(*array, i)) continue;
    std::string_view v = binary ? BinaryValue(*array, i) : FixedValue(*array, i);
    auto [it, inserted] = seen.emplace(v, static_cast<int64_t>(first_row.size()));
    if (inserted) first_row.push_back(i);
    index[i] = it->second;
  }
  const int64_t distinct = static_cast<int64_t>(first_row.size());
  int64_t max_index;
  int width;
  switch (type.index_type()) {
    case TypeId::kInt8:
      max_index = INT8_MAX, width = 1;
      break;
    case TypeId::kUInt8:
      max_index = UINT8_MAX, width = 1;
      break;
    case TypeId::kInt16:
      max_index = INT16_MAX, width = 2;
      break;
    case TypeId::kUInt16:
      max_index = UINT16_MAX, width = 2;
      break;
    case TypeId::kInt32:
      max_index = INT32_MAX, width = 4;
      break;
    case TypeId::kUInt32:
      max_index = UINT32_MAX, width = 4;
      break;
    default:
      max_index = INT64_MAX, width = 8;
      break;
  }
  if (distinct > 0 && distinct - 1 > max_index) {
    return Status::InvalidInput("DictionaryEncode: " + std::to_string(distinct) +
                                " distinct values do not fit " + type.ToString());
  }
  BufferBuilder indices(pool);
  QV_RETURN_IF_ERROR(indices.Reserve(array->length * width));
  for (int64_t v : index) QV_RETURN_IF_ERROR(indices.Append(&v, width));
  // The dictionary: the rows holding each first appearance.
  std::vector<ArrayPtr> rows;
  rows.reserve(first_row.size());
  for (int64_t r : first_row) rows.push_back(Slice(array, r, 1));
  ArrayPtr dictionary;
  if (rows.empty()) {
    QV_ASSIGN_OR_RETURN(dictionary, MakeNullArray(value_type, 0, pool));
    auto empty = std::make_shared<ArrayData>(*dictionary);
    empty->null_count = 0;
    empty->buffers[0] = nullptr;
    dictionary = empty;
  } else {
    QV_ASSIGN_OR_RETURN(dictionary, Concatenate(rows, pool));
  }
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = array->length;
  out->null_count = array->null_count;
  std::shared_ptr<Buffer> validity;
  if (array->null_count > 0) {
    QV_ASSIGN_OR_RETURN(validity, Buffer::Allocate(BytesForBits(array->length), pool));
    CopyBits(array->buffers[0]->data(), array->offset, array->length, validity->mutable_data(), 0);
  }
  QV_ASSIGN_OR_RETURN(auto index_buffer, indices.Finish());
  out->buffers = {std::move(validity), std::move(index_buffer)};
  out->dictionary = std::move(dictionary);
  return ArrayPtr(out);
}

Result<ArrayPtr> SelectRows(const ArrayPtr& array, const std::vector<bool>& keep,
                            MemoryPool* pool) {
  if (static_cast<int64_t>(keep.size()) != array->length) {
    return Status::InvalidInput(fmt::format("SelectRows: a mask of {} rows for an array of {}",
                                            keep.size(), array->length));
  }
  std::vector<ArrayPtr> runs;
  int64_t kept = 0;
  for (int64_t k = 0; k < array->length;) {
    if (!keep[static_cast<size_t>(k)]) {
      ++k;
      continue;
    }
    int64_t end = k;
    while (end < array->length && keep[static_cast<size_t>(end)]) ++end;
    runs.push_back(Slice(array, k, end - k));
    kept += end - k;
    k = end;
  }
  if (kept == array->length) return array;
  if (runs.empty()) return Slice(array, 0, 0);
  return Concatenate(runs, pool);
}

}  // namespace quiver::arrow
