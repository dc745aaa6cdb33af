#include "table/apply.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format/feature_flags.h"
#include "format/fragment_bitmap.h"
#include "format/lance_proto.h"
#include "table/apply_data.h"
#include "table/commit.h"

namespace quiver::table {
namespace {

using lance::table::Manifest;
using lance::table::Transaction;

template <typename Map>
void ApplyUpdateMap(const Transaction::UpdateMap& update, Map& target) {
  if (update.replace()) target.clear();
  for (const auto& entry : update.update_entries()) {
    if (entry.has_value()) {
      target[entry.key()] = entry.value();
    } else {
      target.erase(entry.key());
    }
  }
}

Status ApplyUpdateConfig(const Transaction::UpdateConfig& u, Manifest& m) {
  if (u.has_config_updates()) ApplyUpdateMap(u.config_updates(), *m.mutable_config());
  if (u.has_table_metadata_updates()) {
    ApplyUpdateMap(u.table_metadata_updates(), *m.mutable_table_metadata());
  }
  if (u.has_schema_metadata_updates()) {
    ApplyUpdateMap(u.schema_metadata_updates(), *m.mutable_schema_metadata());
  }
  for (const auto& [field_id, update] : u.field_metadata_updates()) {
    auto* fields = m.mutable_fields();
    auto it = std::find_if(fields->begin(), fields->end(),
                           [id = field_id](const auto& f) { return f.id() == id; });
    if (it == fields->end()) {
      return Status(StatusCode::kTableColumnNotFound,
                    fmt::format("field id {} is not in the schema", field_id));
    }
    ApplyUpdateMap(update, *it->mutable_metadata());
  }
  // Deprecated forms, still applied so that a transaction written by an older Lance replays.
  for (const auto& [k, v] : u.upsert_values()) (*m.mutable_config())[k] = v;
  for (const auto& k : u.delete_keys()) m.mutable_config()->erase(k);
  for (const auto& [k, v] : u.schema_metadata()) (*m.mutable_schema_metadata())[k] = v;
  return Status::OK();
}

// Project: the schema is replaced; data files none of whose fields remain are dropped.
void ApplyProject(const Transaction::Project& p, Manifest& m) {
  m.mutable_fields()->CopyFrom(p.schema());
  std::set<int32_t> kept;
  for (const auto& f : p.schema()) kept.insert(f.id());
  for (auto& fragment : *m.mutable_fragments()) {
    auto* files = fragment.mutable_files();
    files->erase(std::remove_if(files->begin(), files->end(),
                                [&kept](const lance::table::DataFile& file) {
                                  return std::none_of(
                                      file.fields().begin(), file.fields().end(),
                                      [&kept](int32_t id) { return kept.count(id) != 0; });
                                }),
                 files->end());
  }
}

// Delete: fragments that lost rows are replaced by their updated form (a new deletion file);
// fully deleted ones leave the manifest. Indices keep their fragment bitmaps (Rust prunes them
// only on compaction).
Status ApplyDelete(const Transaction::Delete& d, Manifest& m) {
  std::map<uint64_t, const lance::table::DataFragment*> updated;
  for (const auto& f : d.updated_fragments()) updated[f.id()] = &f;
  const std::set<uint64_t> removed(d.deleted_fragment_ids().begin(),
                                   d.deleted_fragment_ids().end());
  google::protobuf::RepeatedPtrField<lance::table::DataFragment> kept;
  for (const auto& fragment : m.fragments()) {
    if (removed.count(fragment.id()) != 0) continue;
    auto it = updated.find(fragment.id());
    *kept.Add() = it != updated.end() ? *it->second : fragment;
    if (it != updated.end()) updated.erase(it);
  }
  if (!updated.empty()) {
    return Status::InvalidInput(
        fmt::format("the delete updates fragment {}, which the latest version does not have",
                    updated.begin()->first));
  }
  m.mutable_fragments()->Swap(&kept);
  return Status::OK();
}

// Lance's Update (build_manifest): the fragments whose rows moved are replaced (deletion files)
// or removed as a Delete does, the new fragments are added with fresh ids, and indices on a
// modified field stop claiming the fragments whose rows changed (their entries would be stale;
// the rows now live in new fragments no index covers, which readers search unindexed).
Status ApplyUpdate(const Transaction::Update& u, Manifest& m,
                   std::shared_ptr<lance::table::IndexSection>* indices) {
  Transaction::Delete as_delete;
  *as_delete.mutable_updated_fragments() = u.updated_fragments();
  *as_delete.mutable_deleted_fragment_ids() = u.removed_fragment_ids();
  QV_RETURN_IF_ERROR(ApplyDelete(as_delete, m));
  Transaction::Append as_append;
  *as_append.mutable_fragments() = u.new_fragments();
  QV_RETURN_IF_ERROR(ApplyAppend(as_append, m));
  if (!*indices || u.fields_modified_size() == 0) return Status::OK();
  std::vector<uint32_t> moved;
  for (const auto& f : u.updated_fragments()) moved.push_back(static_cast<uint32_t>(f.id()));
  for (uint64_t id : u.removed_fragment_ids()) moved.push_back(static_cast<uint32_t>(id));
  const std::set<uint32_t> modified(u.fields_modified().begin(), u.fields_modified().end());
  auto section = std::make_shared<lance::table::IndexSection>(**indices);
  for (auto& index : *section->mutable_indices()) {
    bool touched = false;
    for (int32_t field : index.fields())
      touched |= modified.count(static_cast<uint32_t>(field)) != 0;
    if (!touched || index.fragment_bitmap().empty()) continue;
    QV_ASSIGN_OR_RETURN(std::string pruned,
                        format::RemoveFromFragmentBitmap(index.fragment_bitmap(), moved));
    index.set_fragment_bitmap(std::move(pruned));
  }
  *indices = std::move(section);
  return Status::OK();
}

// Merge (Lance's add_columns and merge_columns): the fragments and the schema are the
// transaction's, the ids it names kept; indices on fields the schema no longer has go.
Status ApplyMerge(const Transaction::Merge& mg, Manifest& m,
                  std::shared_ptr<lance::table::IndexSection>* indices) {
  uint32_t max_id = m.max_fragment_id();
  for (const auto& f : mg.fragments()) max_id = std::max(max_id, static_cast<uint32_t>(f.id()));
  *m.mutable_fragments() = mg.fragments();
  if (m.has_max_fragment_id() || !mg.fragments().empty()) m.set_max_fragment_id(max_id);
  *m.mutable_fields() = mg.schema();
  *m.mutable_schema_metadata() = mg.schema_metadata();
  if (!*indices) return Status::OK();
  std::set<int32_t> fields;
  for (const auto& f : mg.schema()) fields.insert(f.id());
  auto section = std::make_shared<lance::table::IndexSection>();
  for (const auto& index : (*indices)->indices()) {
    bool kept = std::all_of(index.fields().begin(), index.fields().end(),
                            [&fields](int32_t id) { return fields.count(id) != 0; });
    if (kept) *section->add_indices() = index;
  }
  *indices = section->indices_size() > 0 ? section : nullptr;
  return Status::OK();
}

}  // namespace

void StampManifest(lance::table::Manifest& manifest, uint64_t version, int64_t now_nanos,
                   const std::string& transaction_file) {
  manifest.set_version(version);
  manifest.mutable_timestamp()->set_seconds(now_nanos / 1'000'000'000);
  manifest.mutable_timestamp()->set_nanos(static_cast<int32_t>(now_nanos % 1'000'000'000));
  auto* writer = manifest.mutable_writer_version();
  writer->Clear();
  writer->set_library(std::string(kWriterLibrary));
  writer->set_version(QUIVER_VERSION);
  manifest.set_transaction_file(transaction_file);
  manifest.clear_tag();
}

void RecomputeFeatureFlags(Manifest& m) {
  uint64_t reader = m.reader_feature_flags() & format::kFlagStableRowIds;
  for (const auto& fragment : m.fragments()) {
    if (fragment.has_deletion_file()) reader |= format::kFlagDeletionFiles;
    if (fragment.row_id_sequence_case() != lance::table::DataFragment::ROW_ID_SEQUENCE_NOT_SET) {
      reader |= format::kFlagStableRowIds;
    }
  }
  if (m.base_paths_size() > 0) reader |= format::kFlagBasePaths;
  uint64_t writer = reader;
  if (m.config_size() > 0) writer |= format::kFlagTableConfig;
  m.set_reader_feature_flags(reader);
  m.set_writer_feature_flags(writer);
}

Result<AppliedManifest> ApplyTransaction(const Transaction& txn, const format::ManifestFile& latest,
                                         const VersionLoader& load_version) {
  AppliedManifest out;
  out.manifest = std::make_shared<Manifest>(*latest.manifest);
  if (latest.index_section) {
    out.index_section = std::make_shared<lance::table::IndexSection>(*latest.index_section);
  }
  Manifest& m = *out.manifest;
  switch (txn.operation_case()) {
    case Transaction::kRestore: {
      QV_ASSIGN_OR_RETURN(format::ManifestFile target, load_version(txn.restore().version()));
      // The restored content, but ids keep growing: Lance keeps the current high-water marks.
      const uint32_t max_fragment_id =
          std::max(latest.manifest->max_fragment_id(), target.manifest->max_fragment_id());
      const bool had_max =
          latest.manifest->has_max_fragment_id() || target.manifest->has_max_fragment_id();
      const uint64_t next_row_id =
          std::max(latest.manifest->next_row_id(), target.manifest->next_row_id());
      m = *target.manifest;
      if (had_max) m.set_max_fragment_id(max_fragment_id);
      m.set_next_row_id(next_row_id);
      out.index_section = target.index_section
                              ? std::make_shared<lance::table::IndexSection>(*target.index_section)
                              : nullptr;
      break;
    }
    case Transaction::kUpdateConfig:
      QV_RETURN_IF_ERROR(ApplyUpdateConfig(txn.update_config(), m));
      break;
    case Transaction::kAppend:
      QV_RETURN_IF_ERROR(ApplyAppend(txn.append(), m));
      break;
    case Transaction::kOverwrite: {
      bool drop_indices = false;
      QV_RETURN_IF_ERROR(ApplyOverwrite(txn.overwrite(), m, &drop_indices));
      if (drop_indices) {
        out.index_section = nullptr;
        m.clear_index_section();
      }
      break;
    }
    case Transaction::kProject:
      ApplyProject(txn.project(), m);
      break;
    case Transaction::kMerge:
      QV_RETURN_IF_ERROR(ApplyMerge(txn.merge(), m, &out.index_section));
      if (!out.index_section) m.clear_index_section();
      break;
    case Transaction::kReserveFragments:
      m.set_max_fragment_id(m.max_fragment_id() + txn.reserve_fragments().num_fragments());
      break;
    case Transaction::kDelete:
      QV_RETURN_IF_ERROR(ApplyDelete(txn.delete_(), m));
      break;
    case Transaction::kUpdate:
      if (txn.update().update_mode() != Transaction::REWRITE_ROWS) {
        return Status::Unsupported("quiver cannot commit column-rewriting updates yet");
      }
      QV_RETURN_IF_ERROR(ApplyUpdate(txn.update(), m, &out.index_section));
      break;
    case Transaction::kCreateIndex: {
      // Only index removal (drop_index) is applied here; building indices is not supported.
      if (txn.create_index().new_indices_size() > 0) {
        return Status::Unsupported("quiver cannot commit new indices yet");
      }
      auto section = std::make_shared<lance::table::IndexSection>();
      if (out.index_section) {
        for (const auto& index : out.index_section->indices()) {
          bool removed = false;
          for (const auto& gone : txn.create_index().removed_indices()) {
            removed |= gone.uuid().uuid() == index.uuid().uuid();
          }
          if (!removed) *section->add_indices() = index;
        }
      }
      out.index_section = section->indices_size() > 0 ? section : nullptr;
      break;
    }
    default:
      return Status::Unsupported("quiver cannot commit this kind of transaction yet");
  }
  RecomputeFeatureFlags(m);
  return out;
}

}  // namespace quiver::table
