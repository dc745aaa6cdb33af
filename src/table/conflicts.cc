#include "table/conflicts.h"

#include <set>
#include <string>

#include <fmt/format.h>

#include "format/lance_proto.h"

namespace quiver::table {
namespace {

using lance::table::Transaction;

std::string OperationName(const Transaction& t) {
  const auto* field =
      Transaction::GetDescriptor()->FindFieldByNumber(static_cast<int>(t.operation_case()));
  return field != nullptr ? field->name() : "unknown";
}

Status Conflict(const Transaction& mine, const Transaction& theirs, uint64_t version,
                bool retryable) {
  return Status(StatusCode::kConcurrentModification,
                fmt::format("{} conflicts with the {} committed as version {}{}",
                            OperationName(mine), OperationName(theirs), version,
                            retryable ? "; retry on the new latest version" : ""),
                Subcode::kConflict, retryable);
}

// Keys an UpdateConfig touches, per map ("config:k", "schema:k", "table:k", "field:<id>:k"; a
// replace touches the whole map: "config:*").
std::set<std::string> TouchedKeys(const Transaction::UpdateConfig& u) {
  std::set<std::string> keys;
  auto add = [&keys](const std::string& map, const Transaction::UpdateMap& m) {
    if (m.replace()) keys.insert(map + ":*");
    for (const auto& e : m.update_entries()) keys.insert(map + ":" + e.key());
  };
  if (u.has_config_updates()) add("config", u.config_updates());
  if (u.has_table_metadata_updates()) add("table", u.table_metadata_updates());
  if (u.has_schema_metadata_updates()) add("schema", u.schema_metadata_updates());
  for (const auto& [id, m] : u.field_metadata_updates()) add(fmt::format("field:{}", id), m);
  for (const auto& [k, v] : u.upsert_values()) keys.insert("config:" + k);
  for (const auto& k : u.delete_keys()) keys.insert("config:" + k);
  for (const auto& [k, v] : u.schema_metadata()) keys.insert("schema:" + k);
  for (const auto& [id, m] : u.field_metadata()) keys.insert(fmt::format("field:{}:*", id));
  return keys;
}

bool Overlap(const std::set<std::string>& a, const std::set<std::string>& b) {
  for (const std::string& k : a) {
    if (b.count(k) != 0) return true;
    std::string map = k.substr(0, k.rfind(':'));
    if (b.count(map + ":*") != 0 || a.count(map + ":*") != 0) {
      for (const std::string& other : b) {
        if (other.rfind(map + ":", 0) == 0) return true;
      }
    }
  }
  return false;
}

bool TouchesSchemaMetadata(const Transaction::UpdateConfig& u) {
  return u.has_schema_metadata_updates() || u.field_metadata_updates_size() > 0 ||
         u.schema_metadata_size() > 0 || u.field_metadata_size() > 0;
}

std::set<std::string> ConfigKeys(const Transaction::Overwrite& o) {
  std::set<std::string> keys;
  for (const auto& [k, v] : o.config_upsert_values()) keys.insert("config:" + k);
  return keys;
}

// Fragment ids a Delete or Update changes or removes ("disjoint" in §3.3 is on these).
std::set<uint64_t> TouchedFragments(const Transaction& t) {
  std::set<uint64_t> ids;
  if (t.has_delete_()) {
    for (const auto& f : t.delete_().updated_fragments()) ids.insert(f.id());
    ids.insert(t.delete_().deleted_fragment_ids().begin(),
               t.delete_().deleted_fragment_ids().end());
  } else if (t.has_update()) {
    for (const auto& f : t.update().updated_fragments()) ids.insert(f.id());
    ids.insert(t.update().removed_fragment_ids().begin(), t.update().removed_fragment_ids().end());
  }
  return ids;
}

// A Delete (§3.3, row "Delete / Update"). Where Rust would rebase onto a concurrent change of
// the same fragment (merging deletion vectors), quiver asks for a retry: redoing the delete on
// the new latest version reads the merged state.
Status CheckDeleteConflict(const Transaction& mine, const Transaction& theirs,
                           uint64_t their_version) {
  using Op = Transaction::OperationCase;
  switch (theirs.operation_case()) {
    case Op::kAppend:
    case Op::kCreateIndex:
    case Op::kProject:
    case Op::kReserveFragments:
    case Op::kUpdateConfig:
    case Op::kClone:
    case Op::kUpdateBases:
      return Status::OK();
    case Op::kOverwrite:
    case Op::kRestore:
      return Conflict(mine, theirs, their_version, /*retryable=*/false);
    case Op::kDelete:
    case Op::kUpdate: {
      const std::set<uint64_t> a = TouchedFragments(mine);
      for (uint64_t id : TouchedFragments(theirs)) {
        if (a.count(id) != 0) return Conflict(mine, theirs, their_version, /*retryable=*/true);
      }
      return Status::OK();
    }
    default:  // Rewrite, Merge, DataReplacement, anything newer: redo on the new version
      return Conflict(mine, theirs, their_version, /*retryable=*/true);
  }
}

// Lance 12's nullability barrier (conflict_resolver.rs `may_alter_nullability`,
// `supplies_values`): a Project or Merge that does not assert preserves_nullability (older
// writers never do) may have made a field required, so data written against the schema before
// it may be missing values: the two conflict, retryably, in either order.
bool MayAlterNullability(const Transaction& t) {
  return (t.has_project() && !t.project().preserves_nullability()) ||
         (t.has_merge() && !t.merge().preserves_nullability());
}
bool SuppliesValues(const Transaction& t) {
  return t.has_append() || t.has_update() || t.has_data_replacement();
}

}  // namespace

Status CheckConflict(const Transaction& mine, const Transaction& theirs, uint64_t their_version) {
  using Op = Transaction::OperationCase;
  const Op other = theirs.operation_case();
  if ((MayAlterNullability(mine) && SuppliesValues(theirs)) ||
      (SuppliesValues(mine) && MayAlterNullability(theirs))) {
    return Conflict(mine, theirs, their_version, /*retryable=*/true);
  }
  switch (mine.operation_case()) {
    case Op::kRestore:
      return Status::OK();  // a restore replaces whatever happened since
    case Op::kReserveFragments:
      if (other == Op::kOverwrite || other == Op::kRestore) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      return Status::OK();
    case Op::kProject:
      if (other == Op::kOverwrite || other == Op::kRestore) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      if (other == Op::kMerge || other == Op::kProject) {
        return Conflict(mine, theirs, their_version, /*retryable=*/true);
      }
      return Status::OK();
    case Op::kCreateIndex:
      // Index removal: anything that replaces the table or rewrites indexed data or indices
      // invalidates what was removed; redo it on the new latest version.
      if (other == Op::kOverwrite || other == Op::kRestore) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      if (other == Op::kCreateIndex || other == Op::kRewrite || other == Op::kMerge ||
          other == Op::kProject || other == Op::kDataReplacement) {
        return Conflict(mine, theirs, their_version, /*retryable=*/true);
      }
      return Status::OK();
    case Op::kUpdateConfig: {
      const auto& u = mine.update_config();
      if (other == Op::kOverwrite) {
        if (TouchesSchemaMetadata(u) || Overlap(TouchedKeys(u), ConfigKeys(theirs.overwrite()))) {
          return Conflict(mine, theirs, their_version, /*retryable=*/true);
        }
        return Status::OK();
      }
      if (other == Op::kUpdateConfig &&
          Overlap(TouchedKeys(u), TouchedKeys(theirs.update_config()))) {
        return Conflict(mine, theirs, their_version, /*retryable=*/true);
      }
      return Status::OK();
    }
    case Op::kDelete:
    case Op::kUpdate:
      return CheckDeleteConflict(mine, theirs, their_version);
    case Op::kAppend:
      // Appended fragments get their ids at commit time, so appends rebase onto anything that
      // keeps the table; an overwrite or restore since makes them meaningless (§3.3).
      if (other == Op::kOverwrite || other == Op::kRestore) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      return Status::OK();
    case Op::kOverwrite:
      // An overwrite replaces everything; it only conflicts with config changes to the same keys.
      if (other == Op::kOverwrite &&
          Overlap(ConfigKeys(mine.overwrite()), ConfigKeys(theirs.overwrite()))) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      if (other == Op::kUpdateConfig &&
          Overlap(ConfigKeys(mine.overwrite()), TouchedKeys(theirs.update_config()))) {
        return Conflict(mine, theirs, their_version, /*retryable=*/false);
      }
      return Status::OK();
    default:
      return Status::Unsupported(
          fmt::format("quiver cannot commit a {} transaction yet", OperationName(mine)));
  }
}

}  // namespace quiver::table
