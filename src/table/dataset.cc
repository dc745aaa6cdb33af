#include "table/dataset.h"

#include <fmt/format.h>

#include "format/lance_proto.h"
#include "table/refs.h"

namespace quiver::table {

Result<std::shared_ptr<const Dataset>> Dataset::Open(std::shared_ptr<ObjectStore> root,
                                                     const OpenOptions& options) {
  if (options.tag && options.version) {
    return Status::InvalidInput("open by tag or by version, not both");
  }
  std::optional<uint64_t> version = options.version;
  std::optional<std::string> branch = options.branch;
  if (options.tag) {
    QV_ASSIGN_OR_RETURN(TagInfo tag, GetTag(*root, *options.tag));
    if (branch && tag.branch != branch) {
      return Status::InvalidInput(fmt::format("tag '{}' is on {}, not on branch '{}'", *options.tag,
                                              tag.branch ? "branch '" + *tag.branch + "'" : "main",
                                              *branch));
    }
    version = tag.version;
    branch = tag.branch;
  }
  std::shared_ptr<ObjectStore> store = root;
  if (branch) {
    QV_ASSIGN_OR_RETURN(store, OpenBranchStore(root, *branch));
  }
  LoadedManifest loaded;
  if (version) {
    QV_ASSIGN_OR_RETURN(loaded, LoadVersion(*store, *version));
  } else {
    QV_ASSIGN_OR_RETURN(VersionRef latest, ResolveLatestVersion(*store));
    QV_ASSIGN_OR_RETURN(loaded, LoadManifest(*store, latest));
  }
  std::shared_ptr<Dataset> dataset(new Dataset());
  QV_ASSIGN_OR_RETURN(dataset->schema_,
                      format::SchemaFromManifest(*loaded.file.manifest, loaded.ref.path));
  dataset->root_ = std::move(root);
  dataset->store_ = std::move(store);
  dataset->branch_ = std::move(branch);
  dataset->ref_ = std::move(loaded.ref);
  dataset->file_ = std::move(loaded.file);
  return std::shared_ptr<const Dataset>(std::move(dataset));
}

TableStats Dataset::Stats() const {
  return ComputeStats(*file_.manifest, file_.index_section.get());
}

std::vector<IndexInfo> Dataset::Indices() const {
  return ListIndices(file_.index_section.get(), schema_);
}

std::string Dataset::DataStorageVersion() const {
  return file_.manifest->has_data_format() ? file_.manifest->data_format().version() : "";
}

int64_t Dataset::TimestampMillis() const {
  return ManifestTimestampNanos(*file_.manifest) / 1'000'000;
}

uint64_t Dataset::ReaderFlags() const { return file_.manifest->reader_feature_flags(); }
uint64_t Dataset::WriterFlags() const { return file_.manifest->writer_feature_flags(); }

}  // namespace quiver::table
