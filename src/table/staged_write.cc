#include "table/staged_write.h"

#include <fmt/format.h>

#include <mutex>
#include <set>

#include "common/ids.h"
#include "common/json.h"
#include "common/logging.h"
#include "format/lance_proto.h"
#include "table/dataset.h"
#include "table/versions.h"

namespace quiver::table {

namespace {

using nlohmann::json;

constexpr std::string_view kModeProperty = "quiver.upload_mode";

// This process, as finish.json's owner (invariant 3).
const std::string& ProcessOwner() {
  static const std::string owner = NewUuidV4();
  return owner;
}

// Completes in flight in this process (invariant 3).
struct InFlight {
  std::mutex mu;
  std::set<std::string> ids;
};
InFlight& Flights() {
  static InFlight flights;
  return flights;
}

std::string UploadKey(const std::string& id, std::string_view name) {
  return fmt::format("{}/{}/{}", kUploadsDir, id, name);
}

Status CheckUploadId(const std::string& id) {
  // A UUID: nothing that could leave the upload's directory.
  bool ok = id.size() == 36;
  for (size_t i = 0; ok && i < id.size(); ++i) {
    char c = id[i];
    ok = (i == 8 || i == 13 || i == 18 || i == 23) ? c == '-' : std::isxdigit(c) != 0;
  }
  if (!ok) return Status::InvalidInput(fmt::format("'{}' is not an upload id", id));
  return Status::OK();
}

struct Upload {
  std::optional<std::string> branch;
  uint64_t created_version = 0;
};

Result<Upload> ReadUpload(ObjectStore& root, const std::string& id,
                          const std::optional<std::string>& branch) {
  QV_RETURN_IF_ERROR(CheckUploadId(id));
  auto got = root.Get(UploadKey(id, "upload.json"));
  if (!got.ok()) {
    if (got.status().IsNotFound()) {
      return Status::InvalidInput(
          fmt::format("no upload '{}' on this table (it was never begun, or it is finished)", id));
    }
    return got.status();
  }
  QV_ASSIGN_OR_RETURN(json record, ParseJson(got->data));
  Upload upload;
  if (record.contains("branch") && record["branch"].is_string()) {
    upload.branch = record["branch"].get<std::string>();
  }
  if (!record.contains("created_version") || !record["created_version"].is_number_unsigned()) {
    return Status::Corruption(fmt::format("upload record {} has no created_version", id));
  }
  upload.created_version = record["created_version"].get<uint64_t>();
  if (upload.branch != branch) {
    return Status::InvalidInput(fmt::format("upload '{}' is on {}, not {}", id,
                                            upload.branch ? "branch " + *upload.branch : "main",
                                            branch ? "branch " + *branch : "main"));
  }
  return upload;
}

struct FinishRecord {
  std::string action;  // "complete" or "abort"
  std::string owner;
  std::optional<uint64_t> version;
  std::string etag;
};

Result<std::optional<FinishRecord>> ReadFinish(ObjectStore& root, const std::string& id) {
  auto got = root.Get(UploadKey(id, "finish.json"));
  if (!got.ok()) {
    if (got.status().IsNotFound()) return std::optional<FinishRecord>();
    return got.status();
  }
  QV_ASSIGN_OR_RETURN(json record, ParseJson(got->data));
  FinishRecord finish;
  finish.action = record.value("action", "");
  finish.owner = record.value("owner", "");
  if (record.contains("version") && record["version"].is_number_unsigned()) {
    finish.version = record["version"].get<uint64_t>();
  }
  finish.etag = got->meta.etag;
  return std::optional<FinishRecord>(std::move(finish));
}

std::string FinishJson(std::string_view action, std::optional<uint64_t> version = {}) {
  json record = {{"action", action}, {"owner", ProcessOwner()}};
  if (version) record["version"] = *version;
  return record.dump();
}

Result<std::shared_ptr<const Dataset>> OpenUploadTable(const CommitTarget& target) {
  return Dataset::Open(target.root, OpenOptions{std::nullopt, std::nullopt, target.branch});
}

// The version since `after` whose transaction has the upload's id as its uuid (invariant 3).
Result<std::optional<uint64_t>> FindCommitted(const Dataset& ds, const std::string& id,
                                              uint64_t after) {
  VersionListOptions options;
  options.after = after;
  options.limit = kMaxListLimit;
  while (true) {
    QV_ASSIGN_OR_RETURN(VersionPage page, ListVersions(*ds.store(), options));
    for (const VersionInfo& info : page.versions) {
      QV_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(*ds.store(), info.ref));
      // `_transactions/{read_version}-{uuid}.txn`
      const std::string& txn_file = loaded.file.manifest->transaction_file();
      if (txn_file.find(id) != std::string::npos) return std::optional<uint64_t>(info.ref.version);
    }
    if (!page.next) return std::optional<uint64_t>();
    options.after = *page.next;
  }
}

struct UploadPart {
  std::string key;
  WriteMode mode = WriteMode::kAppend;
  std::vector<lance::table::DataFragment> fragments;
};

Result<std::vector<UploadPart>> ListParts(ObjectStore& root, const std::string& id) {
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> objects, root.ListAll(UploadKey(id, "part-")));
  std::vector<UploadPart> parts;
  for (const ObjectMeta& meta : objects) {
    QV_ASSIGN_OR_RETURN(GetResult got, root.Get(meta.key));
    lance::table::Transaction txn;
    if (!txn.ParseFromString(got.data) || !txn.has_append()) {
      return Status::Corruption(fmt::format("upload part {} is not a part record", meta.key));
    }
    UploadPart part;
    part.key = meta.key;
    auto mode = txn.transaction_properties().find(std::string(kModeProperty));
    part.mode = mode != txn.transaction_properties().end() && mode->second == "overwrite"
                    ? WriteMode::kOverwrite
                    : WriteMode::kAppend;
    for (const auto& f : txn.append().fragments()) part.fragments.push_back(f);
    parts.push_back(std::move(part));
  }
  return parts;
}

// Removes the part records (invariant 4); upload.json stays with finish.json, for a retry.
void DropParts(ObjectStore& root, const std::vector<UploadPart>& parts) {
  for (const UploadPart& part : parts) (void)root.Delete(part.key);
}

}  // namespace

Result<std::string> BeginStagedWrite(const CommitTarget& target) {
  QV_ASSIGN_OR_RETURN(auto ds, OpenUploadTable(target));
  std::string id = NewUuidV4();
  json record = {{"created_version", ds->version()}};
  if (target.branch) record["branch"] = *target.branch;
  QV_RETURN_IF_ERROR(
      target.root->Put(UploadKey(id, "upload.json"), record.dump(), PutOptions::CreateOnly())
          .status());
  QV_LOG_INFO("upload begun", {{"upload", id}, {"version", ds->version()}});
  return id;
}

Result<uint64_t> StageWritePart(const CommitTarget& target, const std::string& upload_id,
                                WriteMode mode, arrow::BatchStream& input) {
  if (mode != WriteMode::kAppend && mode != WriteMode::kOverwrite) {
    return Status::InvalidInput("an upload's parts append or overwrite");
  }
  QV_RETURN_IF_ERROR(ReadUpload(*target.root, upload_id, target.branch).status());
  QV_ASSIGN_OR_RETURN(auto finished, ReadFinish(*target.root, upload_id));
  if (finished) {
    return Status(StatusCode::kInvalidTableState,
                  fmt::format("upload '{}' is already {}; it takes no more parts", upload_id,
                              finished->action == "abort" ? "aborted" : "completed"));
  }
  QV_ASSIGN_OR_RETURN(auto ds, OpenUploadTable(target));
  QV_ASSIGN_OR_RETURN(WrittenFragments written, WriteFragments(*ds, input));
  lance::table::Transaction record;
  record.set_uuid(NewUuidV4());
  (*record.mutable_transaction_properties())[std::string(kModeProperty)] =
      mode == WriteMode::kOverwrite ? "overwrite" : "append";
  lance::table::Transaction::Append* append = record.mutable_append();  // even with no rows
  for (const auto& f : written.fragments) *append->add_fragments() = f;
  auto put = target.root->Put(UploadKey(upload_id, "part-" + record.uuid() + ".pb"),
                              record.SerializeAsString(), PutOptions::CreateOnly());
  if (!put.ok()) {
    DeleteFragmentFiles(*ds->store(), written.fragments);
    return put.status();
  }
  return written.rows;
}

Result<CommitResult> CompleteStagedWrite(const CommitTarget& target, const std::string& upload_id,
                                         const CommitOptions& options) {
  ObjectStore& root = *target.root;
  QV_RETURN_IF_ERROR(CheckUploadId(upload_id));
  // A finished upload answers what it was (invariants 2 and 3).
  QV_ASSIGN_OR_RETURN(auto finished, ReadFinish(root, upload_id));
  auto answer_committed = [&](uint64_t version) {
    CommitResult result;
    result.version = version;
    return result;
  };
  if (finished && finished->action == "complete" && finished->version) {
    return answer_committed(*finished->version);
  }
  if (finished && finished->action == "abort") {
    return Status(StatusCode::kInvalidTableState,
                  fmt::format("upload '{}' was aborted; it cannot be completed", upload_id));
  }
  QV_ASSIGN_OR_RETURN(Upload upload, ReadUpload(root, upload_id, target.branch));

  {
    std::lock_guard<std::mutex> lock(Flights().mu);
    if (!Flights().ids.insert(upload_id).second) {
      return Status::ServiceUnavailable(
          fmt::format("upload '{}' is being completed by another request; try again", upload_id));
    }
  }
  struct Landing {
    ~Landing() {
      std::lock_guard<std::mutex> lock(Flights().mu);
      Flights().ids.erase(id);
    }
    std::string id;
  } landing{upload_id};

  QV_ASSIGN_OR_RETURN(auto ds, OpenUploadTable(target));
  if (finished) {
    // A complete began before this one and did not record its version: it may have committed.
    QV_ASSIGN_OR_RETURN(auto committed, FindCommitted(*ds, upload_id, upload.created_version));
    if (committed) {
      (void)root.Put(UploadKey(upload_id, "finish.json"), FinishJson("complete", *committed),
                     PutOptions::IfMatch(finished->etag));
      return answer_committed(*committed);
    }
    if (finished->owner != ProcessOwner()) {
      return Status::ServiceUnavailable(
          fmt::format("upload '{}' is being completed by another server; try again (if that server "
                      "stopped, abort the upload and write again)",
                      upload_id));
    }
    // This process's own earlier attempt, no longer in flight and not committed: take over.
    QV_RETURN_IF_ERROR(root.Put(UploadKey(upload_id, "finish.json"), FinishJson("complete"),
                                PutOptions::IfMatch(finished->etag))
                           .status());
  } else {
    auto claimed = root.Put(UploadKey(upload_id, "finish.json"), FinishJson("complete"),
                            PutOptions::CreateOnly());
    if (!claimed.ok()) {
      if (claimed.status().IsAlreadyExists()) {
        return Status::ServiceUnavailable(
            fmt::format("upload '{}' was just finished by another request; try again", upload_id));
      }
      return claimed.status();
    }
  }

  // Until the commit's outcome is unknown or known to be a success, a failure committed nothing:
  // the claim goes again (invariant 5).
  bool release_claim = true;
  struct Release {
    ~Release() {
      if (*release) (void)root->Delete(key);
    }
    const bool* release;
    ObjectStore* root;
    std::string key;
  } release{&release_claim, &root, UploadKey(upload_id, "finish.json")};

  QV_ASSIGN_OR_RETURN(std::vector<UploadPart> parts, ListParts(root, upload_id));
  WriteMode mode = parts.empty() ? WriteMode::kAppend : parts.front().mode;
  std::vector<lance::table::DataFragment> fragments;
  for (const UploadPart& part : parts) {
    if (part.mode != mode) {
      return Status::InvalidInput(
          fmt::format("upload '{}' mixes appending and overwriting parts", upload_id));
    }
    fragments.insert(fragments.end(), part.fragments.begin(), part.fragments.end());
  }
  lance::table::Transaction txn = WriteTransaction(mode, ds->schema(), ds->version(), fragments);
  txn.set_uuid(upload_id);
  bool outcome_unknown = false;
  auto committed = CommitTransaction(*ds->store(), txn, options, &outcome_unknown);
  if (!committed.ok()) {
    release_claim = !outcome_unknown;
    return committed.status();
  }
  release_claim = false;
  (void)root.Put(UploadKey(upload_id, "finish.json"), FinishJson("complete", committed->version),
                 PutOptions::Overwrite());
  DropParts(root, parts);
  QV_LOG_INFO("upload completed", {{"upload", upload_id},
                                   {"parts", parts.size()},
                                   {"fragments", fragments.size()},
                                   {"version", committed->version}});
  return committed;
}

Status AbortStagedWrite(const CommitTarget& target, const std::string& upload_id) {
  ObjectStore& root = *target.root;
  QV_RETURN_IF_ERROR(CheckUploadId(upload_id));
  QV_ASSIGN_OR_RETURN(auto finished, ReadFinish(root, upload_id));
  if (finished && finished->action == "complete") {
    return Status(StatusCode::kInvalidTableState,
                  fmt::format("upload '{}' is completed{}; it cannot be aborted", upload_id,
                              finished->version ? fmt::format(" (version {})", *finished->version)
                                                : std::string(" or being completed")));
  }
  if (!finished) {
    QV_RETURN_IF_ERROR(ReadUpload(root, upload_id, target.branch).status());
    auto claimed = root.Put(UploadKey(upload_id, "finish.json"), FinishJson("abort"),
                            PutOptions::CreateOnly());
    if (!claimed.ok() && !claimed.status().IsAlreadyExists()) return claimed.status();
    if (!claimed.ok()) {  // a complete (or another abort) got there first
      QV_ASSIGN_OR_RETURN(finished, ReadFinish(root, upload_id));
      if (finished && finished->action == "complete") {
        return Status(
            StatusCode::kInvalidTableState,
            fmt::format("upload '{}' is being completed; it cannot be aborted", upload_id));
      }
    }
  }
  // Aborted: delete what the parts wrote, then their records (a retried abort finishes this).
  QV_ASSIGN_OR_RETURN(std::vector<UploadPart> parts, ListParts(root, upload_id));
  auto ds = OpenUploadTable(target);
  for (const UploadPart& part : parts) {
    if (ds.ok()) DeleteFragmentFiles(*(*ds)->store(), part.fragments);
  }
  DropParts(root, parts);
  QV_LOG_INFO("upload aborted", {{"upload", upload_id}, {"parts", parts.size()}});
  return Status::OK();
}

}  // namespace quiver::table
