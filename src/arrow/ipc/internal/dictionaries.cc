// Dictionary ids and the reader's dictionary memo (see dictionaries.h).
#include "arrow/ipc/internal/dictionaries.h"

#include <fmt/format.h>

namespace quiver::arrow::ipc::internal {
namespace {

// The fields an ids node's children stand for: a dictionary's are its value type's.
const std::vector<Field>& IdChildren(const DataType& type) {
  return type.id() == TypeId::kDictionary ? type.dictionary_value().children() : type.children();
}

FieldDictionaryIds Assign(const DataType& type, int64_t* next) {
  FieldDictionaryIds node;
  if (type.id() == TypeId::kDictionary) node.id = (*next)++;
  for (const Field& child : IdChildren(type)) node.children.push_back(Assign(child.type, next));
  return node;
}

}  // namespace

SchemaDictionaryIds AssignDictionaryIds(const Schema& schema) {
  SchemaDictionaryIds ids;
  int64_t next = 0;
  for (const Field& field : schema.fields) ids.push_back(Assign(field.type, &next));
  return ids;
}

Status DictionaryMemo::AddFields(const Schema& schema, const SchemaDictionaryIds& ids) {
  if (ids.size() != schema.fields.size()) {
    return Status::Internal("dictionary ids do not match the schema");
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    QV_RETURN_IF_ERROR(AddField(schema.fields[i].type, ids[i]));
  }
  return Status::OK();
}

Status DictionaryMemo::AddField(const DataType& type, const FieldDictionaryIds& ids) {
  const std::vector<Field>& children = IdChildren(type);
  if ((type.id() == TypeId::kDictionary) != (ids.id >= 0) ||
      ids.children.size() != children.size()) {
    return Status::Internal("dictionary ids do not match the schema");
  }
  if (ids.id >= 0) {
    FieldDictionaryIds value_ids;
    value_ids.children = ids.children;
    auto [it, inserted] = entries_.try_emplace(ids.id);
    if (inserted) {
      it->second.value_type = type.dictionary_value();
      it->second.value_ids = std::move(value_ids);
    } else if (!(it->second.value_type == type.dictionary_value()) ||
               !(it->second.value_ids == value_ids)) {
      return Status::Corruption(fmt::format("dictionary id {} is used for {} and for {}", ids.id,
                                            it->second.value_type.ToString(),
                                            type.dictionary_value().ToString()));
    }
  }
  for (size_t k = 0; k < children.size(); ++k) {
    QV_RETURN_IF_ERROR(AddField(children[k].type, ids.children[k]));
  }
  return Status::OK();
}

DictionaryMemo::Entry* DictionaryMemo::Find(int64_t id) {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

const DictionaryMemo::Entry* DictionaryMemo::Find(int64_t id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace quiver::arrow::ipc::internal
