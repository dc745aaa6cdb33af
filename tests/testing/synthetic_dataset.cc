#include "testing/synthetic_dataset.h"

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"

namespace quiver::testing {

Status WriteSyntheticDataset(ObjectStore& store, const std::string& dir, bool with_index) {
  lance::table::Manifest m;
  m.set_version(1);
  const char* names[] = {"id", "name"};
  const char* types[] = {"int64", "string"};
  for (int i = 0; i < 2; ++i) {
    auto* f = m.add_fields();
    f->set_id(i);
    f->set_parent_id(-1);
    f->set_name(names[i]);
    f->set_logical_type(types[i]);
    f->set_nullable(true);
  }
  for (uint64_t id = 0; id < 2; ++id) {
    auto* frag = m.add_fragments();
    frag->set_id(id);
    frag->set_physical_rows(100);
    auto* file = frag->add_files();
    file->set_path("f" + std::to_string(id) + ".lance");
    file->add_fields(0);
    file->add_fields(1);
    file->set_file_size_bytes(1000);
  }
  m.set_max_fragment_id(1);
  (*m.mutable_schema_metadata())["a"] = "1";
  lance::table::Transaction txn;
  txn.set_uuid("00000000-0000-4000-8000-000000000001");
  txn.mutable_overwrite();
  lance::table::IndexSection indices;
  for (int segment = 0; segment < 2; ++segment) {
    auto* index = indices.add_indices();
    index->mutable_uuid()->set_uuid(std::string(15, '\0') + static_cast<char>(1 + segment));
    index->add_fields(0);
    index->set_name("id_idx");
    index->set_dataset_version(1);
    index->mutable_index_details()->set_type_url("/lance.table.BTreeIndexDetails");
  }
  std::string prefix = dir.empty() ? "" : dir + "/";
  return store
      .Put(prefix + "_versions/" + format::ManifestFileName(1, format::ManifestNaming::kV2),
           format::EncodeManifestFile(m, &txn, with_index ? &indices : nullptr))
      .status();
}

Result<uint64_t> StageNextManifest(ObjectStore& store, const std::string& dir, uint64_t version,
                                   const std::string& staging_key) {
  std::string prefix = dir.empty() ? "" : dir + "/";
  QV_ASSIGN_OR_RETURN(GetResult prev, store.Get(prefix + "_versions/" +
                                                format::ManifestFileName(
                                                    version - 1, format::ManifestNaming::kV2)));
  QV_ASSIGN_OR_RETURN(format::ManifestFile file, format::DecodeManifestFile(prev.data, "previous"));
  lance::table::Manifest m = *file.manifest;
  m.set_version(version);
  lance::table::Transaction txn;
  txn.set_uuid("00000000-0000-4000-8000-0000000000" + std::to_string(10 + version % 90));
  txn.set_read_version(version - 1);
  (*txn.mutable_update_config()->mutable_upsert_values())["staged"] = std::to_string(version);
  std::string bytes = format::EncodeManifestFile(m, &txn, nullptr);
  QV_RETURN_IF_ERROR(store.Put(prefix + staging_key, bytes).status());
  return static_cast<uint64_t>(bytes.size());
}

}  // namespace quiver::testing
