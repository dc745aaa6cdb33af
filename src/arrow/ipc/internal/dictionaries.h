// Dictionary ids of a schema's fields and the dictionaries an IPC reader has seen so far,
// internal to the IPC reader and writer.
//
// Arrow IPC puts a dictionary id on every dictionary-encoded field (Schema.fbs
// DictionaryEncoding.id); dictionary batches carry the values for an id. quiver's DataType has
// no id, so the ids travel next to the schema as a tree that mirrors the fields' types: the node
// of a field holds its id (or -1) and one child node per child of its type, where the children of
// a dictionary field are those of its value type (a dictionary's values may themselves contain
// dictionary fields).
//
// Thread-safety: plain values; a DictionaryMemo is used by one thread at a time, or read-only.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "arrow/array.h"
#include "arrow/type.h"
#include "common/result.h"

namespace quiver::arrow::ipc::internal {

struct FieldDictionaryIds {
  int64_t id = -1;  // >= 0 when the field is dictionary-encoded
  std::vector<FieldDictionaryIds> children;

  bool operator==(const FieldDictionaryIds& other) const = default;
};
using SchemaDictionaryIds = std::vector<FieldDictionaryIds>;  // one per top-level field

// Ids 0, 1, 2, ... for the dictionary fields in pre-order (a field before the dictionary
// fields inside its values), the way Arrow's writers number them.
SchemaDictionaryIds AssignDictionaryIds(const Schema& schema);

class DictionaryMemo {
 public:
  struct Entry {
    DataType value_type;
    FieldDictionaryIds value_ids;  // id -1; children: the ids inside the value type
    ArrayPtr dictionary;           // nullptr until a dictionary batch arrived
  };

  // Registers every dictionary field of the schema. Corruption when one id stands for two
  // different value types (fields may share a dictionary only when their values agree).
  Status AddFields(const Schema& schema, const SchemaDictionaryIds& ids);

  Entry* Find(int64_t id);
  const Entry* Find(int64_t id) const;
  const std::map<int64_t, Entry>& entries() const { return entries_; }

 private:
  Status AddField(const DataType& type, const FieldDictionaryIds& ids);

  std::map<int64_t, Entry> entries_;
};

}  // namespace quiver::arrow::ipc::internal
