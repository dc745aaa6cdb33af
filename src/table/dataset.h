// Dataset: one opened version of a Lance dataset (main or a branch), at the manifest level.
//
// Opening resolves the version (latest, explicit, by tag, on a branch), reads and decodes its
// manifest, checks the feature flags like Lance 8.0 and builds the schema tree. Nothing here reads
// data files. A Dataset is a snapshot: it never changes after Open.
// Thread-safety: immutable after Open; safe to share across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "format/manifest_file.h"
#include "format/schema.h"
#include "store/object_store.h"
#include "table/stats.h"
#include "table/versions.h"

namespace quiver::table {

struct OpenOptions {
  std::optional<uint64_t> version;
  std::optional<std::string> tag;     // not together with version
  std::optional<std::string> branch;  // with a tag: must match the tag's branch
};

class Dataset {
 public:
  // `root` is a store rooted at the dataset's root directory (for a branch, Open looks under
  // tree/<branch>/ itself). Errors: TableNotFound (no manifests), TableVersionNotFound,
  // TableTagNotFound, TableBranchNotFound, InvalidInput (conflicting options), Corruption,
  // Unsupported (unknown feature flags).
  static Result<std::shared_ptr<const Dataset>> Open(std::shared_ptr<ObjectStore> root,
                                                     const OpenOptions& options = {});

  uint64_t version() const { return ref_.version; }
  const VersionRef& version_ref() const { return ref_; }
  const format::ManifestFile& manifest_file() const { return file_; }
  const lance::table::Manifest& manifest() const { return *file_.manifest; }
  const format::Schema& schema() const { return schema_; }
  const std::optional<std::string>& branch() const { return branch_; }
  // The store rooted at this dataset's (branch's) root, and the dataset's main root.
  const std::shared_ptr<ObjectStore>& store() const { return store_; }
  const std::shared_ptr<ObjectStore>& root() const { return root_; }

  TableStats Stats() const;
  std::vector<IndexInfo> Indices() const;
  std::string DataStorageVersion() const;  // "2.1"; "" when the manifest does not say
  int64_t TimestampMillis() const;
  uint64_t ReaderFlags() const;
  uint64_t WriterFlags() const;

 private:
  Dataset() = default;

  std::shared_ptr<ObjectStore> root_;
  std::shared_ptr<ObjectStore> store_;
  std::optional<std::string> branch_;
  VersionRef ref_;
  format::ManifestFile file_;
  format::Schema schema_;
};

}  // namespace quiver::table
