#include "table/apply_data.h"

#include <algorithm>

namespace quiver::table {

namespace {

// The next fragment id: above max_fragment_id and every id present.
uint64_t NextFragmentId(const lance::table::Manifest& m) {
  uint64_t next = m.has_max_fragment_id() ? uint64_t{m.max_fragment_id()} + 1 : 0;
  for (const auto& f : m.fragments()) next = std::max(next, f.id() + 1);
  return next;
}

void AddWithIds(const google::protobuf::RepeatedPtrField<lance::table::DataFragment>& fragments,
                uint64_t* next_id, lance::table::Manifest& m) {
  for (const auto& f : fragments) {
    lance::table::DataFragment* added = m.add_fragments();
    *added = f;
    if (f.id() == 0) added->set_id((*next_id)++);
    *next_id = std::max(*next_id, added->id() + 1);
  }
  if (*next_id > 0) m.set_max_fragment_id(static_cast<uint32_t>(*next_id - 1));
}

}  // namespace

Status ApplyAppend(const lance::table::Transaction::Append& append, lance::table::Manifest& m) {
  uint64_t next = NextFragmentId(m);
  AddWithIds(append.fragments(), &next, m);
  return Status::OK();
}

Status ApplyOverwrite(const lance::table::Transaction::Overwrite& overwrite,
                      lance::table::Manifest& m, bool* drop_indices) {
  if (overwrite.schema_size() == 0) return Status::InvalidInput("an overwrite without a schema");
  uint64_t next = NextFragmentId(m);
  m.clear_fragments();
  AddWithIds(overwrite.fragments(), &next, m);
  *m.mutable_fields() = overwrite.schema();
  *m.mutable_schema_metadata() = overwrite.schema_metadata();
  for (const auto& [k, v] : overwrite.config_upsert_values()) (*m.mutable_config())[k] = v;
  *drop_indices = true;
  return Status::OK();
}

}  // namespace quiver::table
