#include "cli/table_data_commands.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include "arrow/concatenate.h"
#include "arrow/ipc/io.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "arrow/json_lines.h"
#include "cli/cli_util.h"
#include "cli/rows_output.h"
#include "common/numbers.h"
#include "table/blobs.h"
#include "table/dataset.h"
#include "table/scan.h"
#include "table/take.h"
#include "table/write.h"

namespace quiver::cli {
namespace {

struct HeadArgs {
  std::string uri;
  uint64_t rows = 10;
  std::string columns;
  std::optional<uint64_t> version;
  std::string branch;  // empty = main
  bool json = false;
  bool with_row_id = false;
  bool with_row_addr = false;
};

// A scan of one version (the latest when `version` is empty) of the dataset at `uri`, on
// `branch` (main when empty).
Result<std::unique_ptr<arrow::BatchStream>> ScanVersion(const std::string& uri,
                                                        std::optional<uint64_t> version,
                                                        const std::string& branch,
                                                        table::ScanOptions scan) {
  QV_ASSIGN_OR_RETURN(auto dataset, OpenVersion(uri, version, branch));
  return table::Scan(dataset, scan);
}

int RunHead(const HeadArgs& args) {
  table::ScanOptions scan;
  scan.columns = SplitComma(args.columns);
  scan.limit = args.rows;
  scan.with_row_id = args.with_row_id;
  scan.with_row_addr = args.with_row_addr;
  scan.batch_rows = static_cast<uint32_t>(std::clamp<uint64_t>(args.rows, 1, 8192));
  auto stream = ScanVersion(args.uri, args.version, args.branch, scan);
  if (!stream.ok()) return Fail(stream.status());
  // JSON Lines are printed batch by batch, as they come; the text table once every row is in.
  std::vector<arrow::RecordBatch> batches;
  while (true) {
    auto batch = (*stream)->Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!*batch) break;
    batches.push_back(std::move(**batch));
    if (args.json) {
      if (int rc = PrintBatches(*(*stream)->schema(), batches, true); rc != 0) return rc;
      batches.clear();
    }
  }
  return args.json ? 0 : PrintBatches(*(*stream)->schema(), batches, false);
}

struct TakeArgs {
  std::string uri;
  std::string rows;
  bool by_id = false;
  std::string columns;
  std::optional<uint64_t> version;
  std::string branch;  // empty = main
  bool json = false;
  bool with_row_id = false;
  bool with_row_addr = false;
};

// Strictly: every comma-separated part a decimal u64 (not SplitComma, which drops empty parts, so
// that a typo like "1,,2" is refused rather than read as two rows).
Result<std::vector<uint64_t>> ParseRows(const std::string& list) {
  std::vector<uint64_t> rows;
  size_t begin = 0;
  while (true) {
    const size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view part(list.data() + begin, comma - begin);
    auto v = ParseUint64(part);
    if (!v.ok()) return v.status().WithContext("--rows");
    rows.push_back(*v);
    if (comma == list.size()) break;
    begin = comma + 1;
  }
  return rows;
}

int RunTake(const TakeArgs& args) {
  auto rows = ParseRows(args.rows);
  if (!rows.ok()) return UsageError(rows.status());
  auto dataset = OpenVersion(args.uri, args.version, args.branch);
  if (!dataset.ok()) return Fail(dataset.status());
  table::TakeOptions options;
  options.columns = SplitComma(args.columns);
  options.key = args.by_id ? table::RowKey::kId : table::RowKey::kAddress;
  options.with_row_id = args.with_row_id;
  options.with_row_addr = args.with_row_addr;
  auto batch = table::Take(*dataset, *rows, options);
  if (!batch.ok()) return Fail(batch.status());
  std::vector<arrow::RecordBatch> batches;
  batches.push_back(*batch);
  return PrintBatches(*batch->schema, batches, args.json);
}

struct ImportArgs {
  std::string uri;
  std::string from;
  std::string mode = "append";
  uint64_t max_rows_per_file = 1024 * 1024;
  std::string storage_version = "2.2";  // of a table the import creates (Lance 12's default)
  bool stable_row_ids = false;          // ...and whether it gets stable row ids
  uint64_t page_bytes = 8ull << 20;
  uint64_t max_bytes_per_file = 90ull << 30;
};

// The root store of a dataset that may not exist yet (import creates it).
Result<std::shared_ptr<ObjectStore>> OpenOrCreateRoot(const std::string& uri) {
  auto existing = OpenExistingStore(uri);
  if (existing.ok()) return existing;
  if (uri.find("://") != std::string::npos && uri.rfind("file://", 0) != 0) return existing;
  const std::string path = uri.rfind("file://", 0) == 0 ? uri.substr(7) : uri;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IOError("cannot create " + path + ": " + ec.message());
  return OpenExistingStore(uri);
}

int RunImport(const ImportArgs& args) {
  table::WriteOptions options;
  if (args.mode == "append") {
    options.mode = table::WriteMode::kAppend;
  } else if (args.mode == "overwrite") {
    options.mode = table::WriteMode::kOverwrite;
  } else if (args.mode == "create") {
    options.mode = table::WriteMode::kCreate;
  } else {
    return Fail(Status::InvalidInput("--mode must be append, overwrite or create"));
  }
  options.max_rows_per_file = args.max_rows_per_file;
  options.max_bytes_per_file = args.max_bytes_per_file;
  if (args.storage_version != "2.0" && args.storage_version != "2.1" &&
      args.storage_version != "2.2") {
    return Fail(Status::InvalidInput("--storage-version must be 2.0, 2.1 or 2.2"));
  }
  // Only a new table takes it; existing tables keep their data files' version.
  options.commit.new_table_storage_version = args.storage_version;
  options.commit.new_table_stable_row_ids = args.stable_row_ids;
  if (args.page_bytes == 0) return Fail(Status::InvalidInput("--page-bytes must be > 0"));
  options.file.page_bytes = args.page_bytes;
  auto root = OpenOrCreateRoot(args.uri);
  if (!root.ok()) return Fail(root.status());
  // Appending to a table that does not exist yet creates it.
  if (options.mode == table::WriteMode::kAppend && !table::Dataset::Open(*root).ok()) {
    options.mode = table::WriteMode::kCreate;
  }
  auto input = OpenIpcInput(args.from);
  if (!input.ok()) return Fail(input.status());
  auto written = table::WriteData(table::CommitTarget{*root, std::nullopt}, **input, options);
  if (!written.ok()) return Fail(written.status());
  std::cout << fmt::format("wrote {} rows in {} fragments ({} bytes); version {}\n", written->rows,
                           written->fragments, written->bytes, written->commit.version);
  return 0;
}

struct ExportArgs {
  std::string uri;
  std::string to;
  std::optional<uint64_t> version;
  std::string branch;  // empty = main
  std::string columns;
};

int RunExport(const ExportArgs& args) {
  table::ScanOptions scan;
  scan.columns = SplitComma(args.columns);
  auto stream = ScanVersion(args.uri, args.version, args.branch, scan);
  if (!stream.ok()) return Fail(stream.status());
  const int fd = args.to == "-"
                     ? STDOUT_FILENO
                     : ::open(args.to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(StatusFromErrno(errno, "creating " + args.to));
  arrow::ipc::FdSink sink(fd);
  uint64_t rows = 0;
  Status status = [&]() -> Status {
    QV_ASSIGN_OR_RETURN(auto writer, arrow::ipc::StreamWriter::Open(&sink, (*stream)->schema()));
    while (true) {
      QV_ASSIGN_OR_RETURN(auto batch, (*stream)->Next());
      if (!batch) break;
      rows += static_cast<uint64_t>(batch->length);
      QV_RETURN_IF_ERROR(writer->Write(*batch));
    }
    return writer->Finish();
  }();
  if (fd != STDOUT_FILENO && ::close(fd) != 0 && status.ok()) {
    status = StatusFromErrno(errno, "closing " + args.to);
  }
  if (!status.ok()) return Fail(status);
  if (args.to != "-") std::cerr << fmt::format("exported {} rows to {}\n", rows, args.to);
  return 0;
}

struct BlobsArgs {
  std::string uri;
  std::string column;
  std::string rows;
  bool by_id = false;
  std::optional<uint64_t> version;
  std::string branch;  // empty = main
  std::string to;
};

// The payloads of a blob v2 column at the given rows, as an Arrow IPC stream of one
// large_binary column named after it (table/blobs.h).
int RunBlobs(const BlobsArgs& args) {
  auto rows = ParseRows(args.rows);
  if (!rows.ok()) return UsageError(rows.status());
  auto dataset = OpenVersion(args.uri, args.version, args.branch);
  if (!dataset.ok()) return Fail(dataset.status());
  auto blobs = table::FetchBlobs(*dataset, args.column, *rows,
                                 args.by_id ? table::RowKey::kId : table::RowKey::kAddress);
  if (!blobs.ok()) return Fail(blobs.status());
  arrow::RecordBatch batch;
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back(args.column, arrow::DataType::LargeBinary(), true);
  batch.schema = schema;
  batch.length = (*blobs)->length;
  batch.columns.push_back(*blobs);
  const int fd = args.to == "-"
                     ? STDOUT_FILENO
                     : ::open(args.to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(StatusFromErrno(errno, "creating " + args.to));
  arrow::ipc::FdSink sink(fd);
  Status status = [&]() -> Status {
    QV_ASSIGN_OR_RETURN(auto writer, arrow::ipc::StreamWriter::Open(&sink, schema));
    QV_RETURN_IF_ERROR(writer->Write(batch));
    return writer->Finish();
  }();
  if (fd != STDOUT_FILENO && ::close(fd) != 0 && status.ok()) {
    status = StatusFromErrno(errno, "closing " + args.to);
  }
  if (!status.ok()) return Fail(status);
  if (args.to != "-") {
    uint64_t bytes = 0;
    for (int64_t i = 0; i < batch.length; ++i) bytes += arrow::BinaryValue(**blobs, i).size();
    std::cerr << fmt::format("fetched {} blobs ({} bytes, {} null) to {}\n", batch.length, bytes,
                             (*blobs)->null_count, args.to);
  }
  return 0;
}

}  // namespace

void AddTableDataCommands(CLI::App& table, int* exit_code) {
  auto head_args = std::make_shared<HeadArgs>();
  CLI::App* head = table.add_subcommand("head", "Print the first rows of a dataset version");
  head->add_option("uri", head_args->uri, "dataset root")->required();
  head->add_option("-n,--rows", head_args->rows, "how many rows (default 10)");
  head->add_option("--columns", head_args->columns, "top-level columns to show, comma-separated");
  head->add_option("--version", head_args->version, "a version number (default: the latest)");
  head->add_option("--branch", head_args->branch,
                   "a branch (default: main); --version then numbers its versions");
  head->add_flag("--json", head_args->json,
                 "JSON Lines: one object per row (64-bit integers beyond 2^53, NaN/Inf and "
                 "decimals as strings; binary as base64; dates and timestamps as ISO-8601)");
  head->add_flag(
      "--with-row-id", head_args->with_row_id,
      "append `_rowid` (the row address, or the stable row id on tables that have them)");
  head->add_flag("--with-row-addr", head_args->with_row_addr,
                 "append `_rowaddr` (fragment id << 32 | row offset)");
  head->callback([head_args, exit_code] { *exit_code = RunHead(*head_args); });

  auto take_args = std::make_shared<TakeArgs>();
  CLI::App* take =
      table.add_subcommand("take", "Print given rows of a dataset version, in the order given");
  take->add_option("uri", take_args->uri, "dataset root")->required();
  take->add_option("--rows", take_args->rows,
                   "row addresses (fragment id << 32 | row offset), comma-separated; repeats "
                   "allowed")
      ->required();
  take->add_flag("--by-id", take_args->by_id,
                 "--rows are row ids (`_rowid`) rather than row addresses");
  take->add_option("--columns", take_args->columns, "top-level columns to show, comma-separated");
  take->add_option("--version", take_args->version, "a version number (default: the latest)");
  take->add_option("--branch", take_args->branch,
                   "a branch (default: main); --version then numbers its versions");
  take->add_flag("--with-row-id", take_args->with_row_id, "append `_rowid`");
  take->add_flag("--with-row-addr", take_args->with_row_addr, "append `_rowaddr`");
  take->add_flag("--json", take_args->json, "JSON Lines, as `table head --json`");
  take->callback([take_args, exit_code] { *exit_code = RunTake(*take_args); });

  auto import_args = std::make_shared<ImportArgs>();
  CLI::App* import = table.add_subcommand(
      "import", "Write rows from an Arrow IPC stream into a dataset (creating it if missing)");
  import->add_option("uri", import_args->uri, "dataset root")->required();
  import->add_option("--from", import_args->from, "Arrow IPC stream file ('-' = stdin)")
      ->required();
  import->add_option("--mode", import_args->mode,
                     "append (default; creates a missing table), overwrite or create");
  import->add_option("--max-rows-per-file", import_args->max_rows_per_file,
                     "rows per data file / fragment (default 1048576)");
  import->add_option("--max-bytes-per-file", import_args->max_bytes_per_file,
                     "about this many bytes per data file / fragment (default 90 GiB)");
  import->add_option("--storage-version", import_args->storage_version,
                     "Lance file format of a table the import creates: 2.2 (default, as Lance 12 / "
                     "LanceDB 0.39), 2.1 (for Lance 8 / LanceDB 0.31 readers) or 2.0; existing "
                     "tables keep theirs");
  import->add_flag("--stable-row-ids", import_args->stable_row_ids,
                   "give a table the import creates stable row ids (`_rowid` survives "
                   "compaction and updates; Lance's enable_stable_row_ids); refused for an "
                   "existing table without them");
  import->add_option("--page-bytes", import_args->page_bytes,
                     "bytes buffered per column (2.0: per top-level field) before a page is cut "
                     "(default 8388608)");
  import->callback([import_args, exit_code] { *exit_code = RunImport(*import_args);
});

auto export_args = std::make_shared<ExportArgs>();
CLI::App* exp = table.add_subcommand("export", "Write a dataset version as an Arrow IPC stream");
exp->add_option("uri", export_args->uri, "dataset root")->required();
exp->add_option("--to", export_args->to, "output file ('-' = stdout)")->required();
exp->add_option("--version", export_args->version, "a version number (default: the latest)");
exp->add_option("--branch", export_args->branch,
                "a branch (default: main); --version then numbers its versions");
exp->add_option("--columns", export_args->columns, "top-level columns, comma-separated");
exp->callback([export_args, exit_code] { *exit_code = RunExport(*export_args); });

auto blobs_args = std::make_shared<BlobsArgs>();
CLI::App* blobs = table.add_subcommand(
    "blobs", "Write the payload bytes of a blob v2 column at given rows as an Arrow IPC stream");
blobs->add_option("uri", blobs_args->uri, "dataset root")->required();
blobs->add_option("--column", blobs_args->column, "the blob v2 column")->required();
blobs
    ->add_option("--rows", blobs_args->rows,
                 "comma-separated row addresses (fragment id << 32 | offset), or ids")
    ->required();
blobs->add_flag("--by-id", blobs_args->by_id, "the rows are row ids (`_rowid`)");
blobs->add_option("--version", blobs_args->version, "a version number (default: the latest)");
blobs->add_option("--branch", blobs_args->branch,
                  "a branch (default: main); --version then numbers its versions");
blobs->add_option("--to", blobs_args->to, "output Arrow IPC stream file ('-' = stdout)")
    ->required();
blobs->callback([blobs_args, exit_code] { *exit_code = RunBlobs(*blobs_args); });
}  // namespace quiver::cli

}  // namespace quiver::cli
