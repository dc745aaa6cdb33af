#include "table/operations.h"

#include <set>

#include <fmt/format.h>

#include "format/lance_proto.h"
#include "table/dataset.h"

namespace quiver::table {
namespace {

using lance::table::Transaction;

// The latest version of the target, which a transaction is built against.
Result<std::shared_ptr<const Dataset>> OpenLatest(const CommitTarget& target) {
  return Dataset::Open(target.root, OpenOptions{std::nullopt, std::nullopt, target.branch});
}

Result<CommitResult> Commit(const Dataset& ds, Transaction txn, const CommitOptions& options) {
  txn.set_read_version(ds.version());
  return CommitTransaction(*ds.store(), std::move(txn), options);
}

// The id of the field at dotted `path` in the manifest's flattened schema.
Result<int32_t> ResolveFieldPath(const lance::table::Manifest& m, const std::string& path) {
  int32_t parent = -1;
  size_t start = 0;
  int32_t found = -1;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string segment =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    found = -1;
    for (const auto& f : m.fields()) {
      if (f.parent_id() == parent && f.name() == segment) {
        found = f.id();
        break;
      }
    }
    if (found < 0 || segment.empty()) {
      return Status(StatusCode::kTableColumnNotFound,
                    fmt::format("column '{}' does not exist", path));
    }
    if (dot == std::string::npos) break;
    parent = found;
    start = dot + 1;
  }
  return found;
}

Transaction::UpdateMap ToUpdateMap(const MetadataUpdates& updates, bool replace) {
  Transaction::UpdateMap map;
  map.set_replace(replace);
  for (const auto& [key, value] : updates) {
    auto* entry = map.add_update_entries();
    entry->set_key(key);
    if (value) entry->set_value(*value);
  }
  return map;
}

}  // namespace

Result<CommitResult> RestoreVersion(const CommitTarget& target, uint64_t version,
                                    const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  QV_RETURN_IF_ERROR(LoadVersion(*ds->store(), version).status());
  Transaction txn;
  txn.mutable_restore()->set_version(version);
  return Commit(*ds, std::move(txn), options);
}

Result<CommitResult> UpdateSchemaMetadata(const CommitTarget& target,
                                          const MetadataUpdates& updates, bool replace,
                                          const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  Transaction txn;
  *txn.mutable_update_config()->mutable_schema_metadata_updates() = ToUpdateMap(updates, replace);
  return Commit(*ds, std::move(txn), options);
}

Result<CommitResult> UpdateFieldMetadata(const CommitTarget& target, const std::string& path,
                                         const MetadataUpdates& updates, bool replace,
                                         const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  QV_ASSIGN_OR_RETURN(int32_t id, ResolveFieldPath(ds->manifest(), path));
  Transaction txn;
  (*txn.mutable_update_config()->mutable_field_metadata_updates())[id] =
      ToUpdateMap(updates, replace);
  return Commit(*ds, std::move(txn), options);
}

Result<CommitResult> DropColumns(const CommitTarget& target, const std::vector<std::string>& paths,
                                 const CommitOptions& options) {
  if (paths.empty()) return Status::InvalidInput("no columns to drop");
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  const auto& m = ds->manifest();
  std::set<int32_t> dropped;
  for (const std::string& path : paths) {
    QV_ASSIGN_OR_RETURN(int32_t id, ResolveFieldPath(m, path));
    dropped.insert(id);
  }
  // Children follow their parents (pre-order), so one pass collects whole subtrees.
  for (const auto& f : m.fields()) {
    if (dropped.count(f.parent_id()) != 0) dropped.insert(f.id());
  }
  if (ds->manifest_file().index_section) {
    for (const auto& index : ds->manifest_file().index_section->indices()) {
      for (int32_t id : index.fields()) {
        if (dropped.count(id) != 0) {
          return Status::InvalidInput(fmt::format(
              "column of field id {} is indexed by '{}'; drop the index first", id, index.name()));
        }
      }
    }
  }
  Transaction txn;
  // A drop changes no field's nullability (Lance 12 says so too).
  txn.mutable_project()->set_preserves_nullability(true);
  auto* schema = txn.mutable_project()->mutable_schema();
  bool any_top_level_left = false;
  for (const auto& f : m.fields()) {
    if (dropped.count(f.id()) != 0) continue;
    *schema->Add() = f;
    any_top_level_left |= f.parent_id() < 0;
  }
  if (!any_top_level_left) return Status::InvalidInput("cannot drop every column of a table");
  return Commit(*ds, std::move(txn), options);
}

Result<CommitResult> AlterColumns(const CommitTarget& target,
                                  const std::vector<ColumnAlteration>& alterations,
                                  const CommitOptions& options) {
  if (alterations.empty()) return Status::InvalidInput("no column alterations given");
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  Transaction txn;
  // Renames and relaxed nullability (the only alterations quiver makes) tighten nothing.
  txn.mutable_project()->set_preserves_nullability(true);
  auto* fields = txn.mutable_project()->mutable_schema();
  fields->CopyFrom(ds->manifest().fields());
  for (const ColumnAlteration& alt : alterations) {
    QV_ASSIGN_OR_RETURN(int32_t id, ResolveFieldPath(ds->manifest(), alt.path));
    auto it = std::find_if(fields->begin(), fields->end(),
                           [id](const lance::file::Field& f) { return f.id() == id; });
    if (alt.rename) {
      if (alt.rename->empty() || alt.rename->find('.') != std::string::npos) {
        return Status::InvalidInput(
            fmt::format("'{}' is not a valid column name (non-empty, no '.')", *alt.rename));
      }
      for (const auto& sibling : *fields) {
        if (sibling.parent_id() == it->parent_id() && sibling.id() != id &&
            sibling.name() == *alt.rename) {
          return Status::InvalidInput(
              fmt::format("cannot rename '{}' to '{}': that name is taken", alt.path, *alt.rename));
        }
      }
      it->set_name(*alt.rename);
    }
    if (alt.nullable) {
      if (!*alt.nullable && it->nullable()) {
        return Status::Unsupported(fmt::format(
            "making '{}' non-nullable needs a scan of its data, which quiver cannot do yet",
            alt.path));
      }
      it->set_nullable(*alt.nullable || it->nullable());
    }
  }
  return Commit(*ds, std::move(txn), options);
}

Result<CommitResult> DropIndex(const CommitTarget& target, const std::string& name,
                               const CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(auto ds, OpenLatest(target));
  Transaction txn;
  auto* create_index = txn.mutable_create_index();
  if (ds->manifest_file().index_section) {
    for (const auto& index : ds->manifest_file().index_section->indices()) {
      if (index.name() == name) *create_index->add_removed_indices() = index;
    }
  }
  if (create_index->removed_indices_size() == 0) {
    return Status(StatusCode::kTableIndexNotFound,
                  fmt::format("the table has no index named '{}'", name));
  }
  return Commit(*ds, std::move(txn), options);
}

}  // namespace quiver::table
