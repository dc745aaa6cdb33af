// The data plane's writes: CreateTable, InsertIntoTable and MergeInsertIntoTable (Arrow IPC
// stream bodies), UpdateTable
// (column = SQL expression where a predicate holds) and DeleteFromTable (a SQL predicate), each
// one Lance transaction through the commit protocol (table/write.h, query/update_where.h,
// query/delete_where.h).
//
// A body that is not an Arrow IPC stream, or whose schema does not match the table's, is
// InvalidInput before anything is written; a stream that breaks off midway fails the write and
// the files written for it are removed (table/write.h), so a bad request leaves the table as it
// was. A CreateTable that fails after declaring the name removes the declaration again.
#include <fmt/format.h>

#include <algorithm>

#include "arrow/ipc/io.h"
#include "arrow/ipc/reader.h"
#include "common/json.h"
#include "common/logging.h"
#include "query/delete_where.h"
#include "query/merge_insert.h"
#include "query/update_where.h"
#include "server/internal/handlers.h"
#include "table/dataset.h"
#include "table/staged_write.h"
#include "table/write.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

// A malformed IPC body is the client's error (InvalidInput), not stored data gone bad
// (Corruption, what the IPC reader calls it).
Status BodyError(const Status& s) {
  if (s.ok() || s.code() != StatusCode::kInternal || s.subcode() != Subcode::kCorruption) return s;
  return Status::InvalidInput("the body must be an Arrow IPC stream: " + s.message());
}

// The request body as an Arrow IPC stream, read batch by batch as the write consumes it. A
// streamed body is read to its end after the stream's end-of-stream marker (so that the
// connection can serve the next request), and bytes after the marker refuse the write.
class BodyStream final : public arrow::BatchStream {
 public:
  BodyStream(std::unique_ptr<arrow::BatchStream> reader, std::shared_ptr<BodyReader> body)
      : reader_(std::move(reader)), body_(std::move(body)) {}
  const std::shared_ptr<const arrow::Schema>& schema() const override { return reader_->schema(); }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    auto batch = reader_->Next();
    if (!batch.ok()) return BodyError(batch.status());
    if (!*batch && body_) {
      QV_ASSIGN_OR_RETURN(std::string rest, body_->Read(64 * 1024));
      if (!rest.empty()) {
        return Status::InvalidInput(
            "the body goes on after the end of its Arrow IPC stream (one stream per request)");
      }
    }
    return batch;
  }

 private:
  std::unique_ptr<arrow::BatchStream> reader_;
  std::shared_ptr<BodyReader> body_;
};

// A streamed body's messages are decoded one at a time, each held whole: bounded as a whole
// buffered body is (max_body_bytes' default), and what they decompress to.
constexpr uint64_t kMaxStreamedMessageBytes = 256ull << 20;
constexpr uint64_t kMaxStreamedDecompressedBytes = 512ull << 20;

// A streamed body (BodyKind::kArrowStream) is read as the writer consumes it: only the batch
// being written is in memory, whatever the body's size.
Result<std::unique_ptr<arrow::BatchStream>> ArrowBody(const Call& call) {
  Result<std::unique_ptr<arrow::ipc::StreamReader>> reader = Status::OK();
  if (const auto& body_reader = call.http->body_reader) {
    auto input = std::make_unique<arrow::ipc::CallbackInputStream>(
        [body_reader](char* dst, uint64_t max) -> Result<uint64_t> {
          QV_ASSIGN_OR_RETURN(std::string part, body_reader->Read(max));
          std::copy(part.begin(), part.end(), dst);
          return part.size();
        });
    arrow::ipc::ReadOptions options;
    options.max_message_bytes = kMaxStreamedMessageBytes;
    options.max_decompressed_bytes = kMaxStreamedDecompressedBytes;
    reader = arrow::ipc::StreamReader::Open(std::move(input), options);
    if (!reader.ok() && body_reader->bytes_read() == 0) {
      return Status::InvalidInput("the body must be an Arrow IPC stream (it is empty)");
    }
  } else {
    const std::string& body = call.http->body;
    if (body.empty()) {
      return Status::InvalidInput("the body must be an Arrow IPC stream (it is empty)");
    }
    auto bytes =
        arrow::Buffer::Wrap(reinterpret_cast<const uint8_t*>(body.data()), body.size(), nullptr);
    reader = arrow::ipc::StreamReader::Open(std::move(bytes));
  }
  if (!reader.ok()) return BodyError(reader.status());
  return std::unique_ptr<arrow::BatchStream>(
      new BodyStream(std::move(*reader), call.http->body_reader));
}

// Whether the table's location holds a version yet (a declared table does not).
Result<bool> HasVersion(const OpenedTable& table) {
  auto dataset = table::Dataset::Open(table.root);
  if (dataset.ok()) return true;
  if (dataset.status().code() == StatusCode::kTableNotFound) return false;
  return dataset.status();
}

// Query parameter `properties` (the remote and Rust clients send it JSON-encoded), else the body.
Result<catalog::Properties> PropertiesParam(const Call& call) {
  if (auto text = call.Query("properties")) {
    auto parsed_or = ParseJson(*text);
    if (!parsed_or.ok() || !parsed_or->is_object()) {
      return Status::InvalidInput("'properties' must be a JSON object of strings");
    }
    const json& parsed = *parsed_or;
    catalog::Properties out;
    for (auto it = parsed.begin(); it != parsed.end(); ++it) {
      if (!it.value().is_string()) {
        return Status::InvalidInput(fmt::format("'properties.{}' must be a string", it.key()));
      }
      out[it.key()] = it.value().get<std::string>();
    }
    return out;
  }
  QV_ASSIGN_OR_RETURN(auto body, call.StringMap("properties"));
  return body.value_or(catalog::Properties{});
}

// quiver's `storage_version` query parameter: the Lance file format of a table's data files (2.2,
// Lance 12's default; 2.1 for readers on Lance 8; 2.0).
Result<std::string> StorageVersionParam(const Call& call) {
  auto v = call.Query("storage_version");
  if (!v) return std::string("2.2");
  if (*v != "2.0" && *v != "2.1" && *v != "2.2") {
    return Status::InvalidInput(
        fmt::format("'storage_version' must be 2.0, 2.1 or 2.2, not '{}'", *v));
  }
  return *v;
}

json CreatedReply(const HandlerContext& ctx, const catalog::TableInfo& info, uint64_t version) {
  return {{"location", ctx.catalog.ExternalLocation(info)},
          {"version", version},
          {"properties", info.properties}};
}

}  // namespace

Result<HttpResponse> HandleCreateTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(auto mode_text, call.StringParam("mode"));
  QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
  QV_ASSIGN_OR_RETURN(catalog::Properties properties, PropertiesParam(call));
  QV_ASSIGN_OR_RETURN(std::string storage_version, StorageVersionParam(call));
  QV_ASSIGN_OR_RETURN(auto input, ArrowBody(call));

  // An existing table: refused (create), answered as it is (exist_ok) or overwritten. A table
  // only declared so far gets its first version whatever the mode.
  std::optional<catalog::TableInfo> declared;
  auto existing = ctx.catalog.GetTable(call.id);
  if (existing.ok()) {
    QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, ctx.catalog.TableStore(*existing));
    OpenedTable table{*existing, root};
    QV_ASSIGN_OR_RETURN(bool has_version, HasVersion(table));
    if (has_version) {
      if (mode == catalog::CreateMode::kCreate) {
        return Status(StatusCode::kTableAlreadyExists,
                      fmt::format("table '{}' already exists (mode exist_ok keeps it, overwrite "
                                  "replaces its rows)",
                                  catalog::JoinId(SpecId(existing->id), call.delimiter)));
      }
      if (mode == catalog::CreateMode::kExistOk) {
        QV_ASSIGN_OR_RETURN(auto dataset, table::Dataset::Open(root));
        return JsonReply(CreatedReply(ctx, *existing, dataset->version()));
      }
    }
    table::WriteOptions options;
    options.mode = has_version ? table::WriteMode::kOverwrite : table::WriteMode::kCreate;
    options.commit.new_table_storage_version = storage_version;
    QV_ASSIGN_OR_RETURN(table::WriteResult written,
                        table::WriteData(table::CommitTarget{root, std::nullopt}, *input, options));
    return JsonReply(CreatedReply(ctx, *existing, written.commit.version));
  }
  if (existing.status().code() != StatusCode::kTableNotFound) return existing.status();

  // A new table: declare the name, write the first version, and undo the declaration if the
  // write fails (nothing else can have used the name meanwhile: it is reserved).
  QV_ASSIGN_OR_RETURN(catalog::TableInfo info,
                      ctx.catalog.DeclareTable(call.id, properties, ActorOf(call)));
  auto written = [&]() -> Result<table::WriteResult> {
    QV_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> root, ctx.catalog.TableStore(info));
    table::WriteOptions options;
    options.mode = table::WriteMode::kCreate;
    options.commit.new_table_storage_version = storage_version;
    return table::WriteData(table::CommitTarget{root, std::nullopt}, *input, options);
  }();
  if (!written.ok()) {
    if (auto undone = ctx.catalog.DropTable(call.id, ActorOf(call)); !undone.ok()) {
      QV_LOG_WARN("create table: the write failed and the declaration could not be removed",
                  {{"table", catalog::JoinId(call.id)}, {"error", undone.status().ToString()}});
    }
    return written.status();
  }
  return JsonReply(CreatedReply(ctx, info, written->commit.version));
}

Result<HttpResponse> HandleInsertIntoTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto mode_text, call.StringParam("mode"));
  QV_ASSIGN_OR_RETURN(auto choice, ParseEnumChoice("mode", mode_text, {"Append", "Overwrite"}));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(auto input, ArrowBody(call));
  table::WriteOptions options;
  options.mode = choice.value_or(0) == 1 ? table::WriteMode::kOverwrite : table::WriteMode::kAppend;
  // A part of a multipart write (multipart_handlers.cc): staged, committed by its complete.
  if (auto upload = call.Query("upload_id")) {
    QV_ASSIGN_OR_RETURN(uint64_t rows,
                        table::StageWritePart(table::CommitTarget{table.root, branch}, *upload,
                                              options.mode, *input));
    return JsonReply({{"num_inserted_rows", rows}});
  }
  // A declared table gets its first version from its first insert.
  if (options.mode == table::WriteMode::kAppend && !branch) {
    QV_ASSIGN_OR_RETURN(bool has_version, HasVersion(table));
    if (!has_version) options.mode = table::WriteMode::kCreate;
  }
  QV_ASSIGN_OR_RETURN(table::WriteResult written,
                      table::WriteData(table::CommitTarget{table.root, branch}, *input, options));
  return JsonReply({{"version", written.commit.version}, {"num_inserted_rows", written.rows}});
}

Result<HttpResponse> HandleMergeInsertIntoTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  query::MergeInsertSpec spec;
  for (auto [it, end] = call.http->query.equal_range("on"); it != end; ++it) {
    if (it->second.empty()) return Status::InvalidInput("'on' must name a column");
    spec.on.push_back(it->second);
  }
  if (spec.on.empty()) return Status::InvalidInput("'on' is required (the key column)");
  auto flag = [&](const char* name, bool* out) -> Status {
    QV_ASSIGN_OR_RETURN(auto value, call.QueryBool(name));
    *out = value.value_or(false);
    return Status::OK();
  };
  QV_RETURN_IF_ERROR(flag("when_matched_update_all", &spec.when_matched_update_all));
  QV_RETURN_IF_ERROR(flag("when_not_matched_insert_all", &spec.when_not_matched_insert_all));
  QV_RETURN_IF_ERROR(
      flag("when_not_matched_by_source_delete", &spec.when_not_matched_by_source_delete));
  spec.when_matched_update_all_filt = call.Query("when_matched_update_all_filt").value_or("");
  spec.when_not_matched_by_source_delete_filt =
      call.Query("when_not_matched_by_source_delete_filt").value_or("");
  // `use_index` is accepted either way: the join is exact and needs no index.
  QV_RETURN_IF_ERROR(call.QueryBool("use_index").status());
  // `x-request-timeout-ms` (LanceDB) or `timeout` (the spec) bounds the retrying, as Lance's.
  QV_ASSIGN_OR_RETURN(spec.retry_deadline, RequestDeadline(ctx, call));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(auto input, ArrowBody(call));
  std::vector<arrow::RecordBatch> source;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, input->Next());
    if (!batch) break;
    source.push_back(std::move(*batch));
  }
  QV_ASSIGN_OR_RETURN(query::MergeInsertResult merged,
                      query::MergeInsert(table::CommitTarget{table.root, branch}, input->schema(),
                                         std::move(source), spec));
  return JsonReply({{"version", merged.version},
                    {"num_inserted_rows", merged.inserted},
                    {"num_updated_rows", merged.updated},
                    {"num_deleted_rows", merged.deleted},
                    {"num_attempts", merged.attempts},
                    {"num_rows", merged.inserted + merged.updated}});
}

Result<HttpResponse> HandleUpdateTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  auto list = call.body.find("updates");
  if (list == call.body.end() || !list->is_array() || list->empty()) {
    return Status::InvalidInput("'updates' must be a non-empty list of [column, SQL expression]");
  }
  std::vector<std::pair<std::string, std::string>> updates;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& pair = (*list)[i];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      return Status::InvalidInput(
          fmt::format("'updates[{}]' must be a [column, SQL expression] pair of strings", i));
    }
    updates.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  QV_ASSIGN_OR_RETURN(auto predicate, call.String("predicate"));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(
      query::UpdateWhereResult updated,
      query::UpdateWhere(table::CommitTarget{table.root, branch}, updates, predicate.value_or("")));
  // The spec names the count `updated_rows`; LanceDB's remote client reads `rows_updated`.
  return JsonReply({{"version", updated.version},
                    {"updated_rows", updated.rows_updated},
                    {"rows_updated", updated.rows_updated}});
}

Result<HttpResponse> HandleDeleteFromTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(std::string predicate, call.RequiredString("predicate"));
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  QV_ASSIGN_OR_RETURN(query::DeleteWhereResult deleted,
                      query::DeleteWhere(table::CommitTarget{table.root, branch}, predicate));
  // `num_deleted_rows` is what LanceDB's remote client reads; the spec has only `version`.
  return JsonReply({{"version", deleted.version}, {"num_deleted_rows", deleted.rows_deleted}});
}

}  // namespace quiver::server::internal
