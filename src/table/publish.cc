#include "table/publish.h"

#include <fmt/format.h>

#include "common/logging.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "format/manifest_file.h"

namespace quiver::table {

Result<VersionRef> PublishStagedManifest(ObjectStore& store, const StagedManifest& staged) {
  auto got = store.Get(staged.key);
  if (!got.ok()) {
    if (got.status().IsNotFound()) {
      return Status::InvalidInput(fmt::format("staged manifest '{}' does not exist", staged.key));
    }
    return got.status();
  }
  if (staged.size && *staged.size != got->meta.size) {
    return Status::InvalidInput(fmt::format("staged manifest '{}' is {} bytes, not {}", staged.key,
                                            got->meta.size, *staged.size));
  }
  if (staged.etag && *staged.etag != got->meta.etag) {
    return Status(StatusCode::kConcurrentModification,
                  fmt::format("staged manifest '{}' changed since it was announced", staged.key));
  }
  QV_ASSIGN_OR_RETURN(format::ManifestFile file, format::DecodeManifestFile(got->data, staged.key));
  const auto& m = *file.manifest;
  QV_RETURN_IF_ERROR(format::CheckWriterFlags(m.writer_feature_flags(), staged.key));
  if (m.version() != staged.version) {
    return Status::InvalidInput(fmt::format("staged manifest '{}' holds version {}, not {}",
                                            staged.key, m.version(), staged.version));
  }
  if (!file.transaction && m.transaction_file().empty()) {
    return Status::InvalidInput(fmt::format(
        "staged manifest '{}' carries no transaction; other writers could not check their "
        "commits against it",
        staged.key));
  }

  format::ManifestNaming naming = staged.naming.value_or(format::ManifestNaming::kV2);
  auto latest = ResolveLatestVersion(store);
  if (latest.ok()) {
    if (!staged.naming) naming = latest->naming;
    if (staged.version <= latest->version) {
      return Status(
          StatusCode::kConcurrentModification,
          fmt::format("version {} already exists (latest is {})", staged.version, latest->version));
    }
    if (staged.version != latest->version + 1) {
      return Status::InvalidInput(
          fmt::format("version {} would leave a gap after the latest version {}", staged.version,
                      latest->version));
    }
  } else if (latest.status().code() != StatusCode::kTableNotFound) {
    return latest.status();
  }

  const std::string path =
      std::string(format::kVersionsDir) + "/" + format::ManifestFileName(staged.version, naming);
  auto put = store.Put(path, got->data, PutOptions::CreateOnly());
  if (!put.ok()) {
    if (put.status().IsAlreadyExists()) {
      return Status(
          StatusCode::kConcurrentModification,
          fmt::format("version {} was committed by another writer first", staged.version));
    }
    return put.status();
  }
  Status removed = store.Delete(staged.key);
  if (!removed.ok()) {
    QV_LOG_WARN("published, but the staged manifest was not removed",
                {{"key", staged.key}, {"error", removed.ToString()}});
  }
  WriteVersionHint(store, staged.version);
  return VersionRef{staged.version, naming, path, put->size, put->etag};
}

}  // namespace quiver::table
