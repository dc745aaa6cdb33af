#include "table/write.h"

#include <algorithm>

#include <fmt/format.h>

#include "arrow/compare.h"
#include "common/ids.h"
#include "common/ignore_status.h"
#include "format/arrow_schema.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "table/dataset.h"

namespace quiver::table {

namespace {

// Lance-shaped data file names: 24 random bits as '0'/'1' and 26 random hex digits (the shape
// Rust Lance uses; any unique name works since the manifest records it).
std::string NewDataFileName() {
  uint8_t bytes[16];
  RandomBytes(bytes, sizeof(bytes));
  std::string name;
  for (int i = 0; i < 24; ++i) name += ((bytes[i / 8] >> (i % 8)) & 1) ? '1' : '0';
  static const char* hex = "0123456789abcdef";
  for (int i = 0; i < 13; ++i) {
    name += hex[bytes[3 + i] >> 4];
    name += hex[bytes[3 + i] & 15];
  }
  return name + ".lance";
}

// The data storage version of an existing table: the manifest's, or when it records none (older
// writers) the version of its first data file.
std::string TableStorageVersion(const Dataset& ds) {
  std::string version = ds.DataStorageVersion();
  if (!version.empty()) return version;
  for (const auto& fragment : ds.manifest().fragments()) {
    for (const auto& file : fragment.files()) {
      return fmt::format("{}.{}", file.file_major_version(), file.file_minor_version());
    }
  }
  return version;
}

// The file version quiver writes for a data storage version ("" = the default, 2.1).
Result<format::FileVersion> WriteFileVersion(const std::string& storage_version) {
  if (storage_version.empty() || storage_version == "2.1") return format::FileVersion::kV2_1;
  if (storage_version == "2.0") return format::FileVersion::kV2_0;
  if (storage_version == "2.2") return format::FileVersion::kV2_2;
  return Status::Unsupported(
      fmt::format("writing Lance file format {} is not supported (quiver writes 2.0, 2.1 and 2.2)",
                  storage_version));
}

// The smallest page size a small max_bytes_per_file brings pages down to: below it a file would
// be mostly page and buffer overhead (64-byte alignment, page metadata).
constexpr uint64_t kMinPageBytes = 4 * 1024;

// About how many bytes the rows of `a` hold before compression: its own rows only (a slice is
// not charged for the whole buffers it shares), dictionaries whole. REQUIRES: `a` passed
// Validate(full=false), which checks the first and last offsets against the child / data (the
// file writer checks the rest).
uint64_t ApproxBytes(const arrow::ArrayData& a) {
  const auto length = static_cast<uint64_t>(a.length);
  uint64_t bytes = a.null_count > 0 ? (length + 7) / 8 : 0;
  const arrow::TypeId id = a.type.id();
  if (id == arrow::TypeId::kNull || a.length == 0) return bytes;
  if (id == arrow::TypeId::kStruct) {
    for (size_t k = 0; k < a.children.size(); ++k) {
      bytes += ApproxBytes(*arrow::StructField(a, static_cast<int>(k)));
    }
    return bytes;
  }
  if (id == arrow::TypeId::kFixedSizeList) return bytes + ApproxBytes(*arrow::StructField(a, 0));
  if (id == arrow::TypeId::kDictionary) {
    return bytes + length * static_cast<uint64_t>(arrow::IntegerByteWidth(a.type.index_type())) +
           ApproxBytes(*a.dictionary);
  }
  if (arrow::IsBinaryLike(id) || arrow::IsOffsetList(id)) {
    bytes += length * (arrow::IsLargeOffsets(id) ? 8 : 4);
    const int64_t first = arrow::OffsetValue(a, 0);
    const int64_t last = arrow::OffsetValue(a, a.length);
    if (arrow::IsBinaryLike(id)) return bytes + static_cast<uint64_t>(last - first);
    return bytes + ApproxBytes(*arrow::Slice(a.children[0], first, last - first));
  }
  return bytes + (length * static_cast<uint64_t>(arrow::BitWidth(a.type)) + 7) / 8;
}

// Writes data files from `input` until it ends; one fragment per file.
class FragmentWriter {
 public:
  FragmentWriter(std::shared_ptr<ObjectStore> store, const format::Schema& schema,
                 const WriteOptions& options)
      : store_(std::move(store)),
        schema_(schema),
        options_(options),
        // A file can only end between pages, which are cut every page_bytes per column: pages
        // of at most a quarter of max_bytes_per_file let a small limit be kept (the default
        // limit is far above the default page size), down to kMinPageBytes.
        page_bytes_(std::min(options.file.page_bytes,
                             std::max(options.max_bytes_per_file / 4, kMinPageBytes))) {}

  Status Add(const arrow::RecordBatch& batch) {
    // Parts of about a page's bytes: the byte limit is checked after each part, so a large batch
    // is still cut into files of about max_bytes_per_file (and the file writer buffers about a
    // part per column, not the whole batch, before it cuts pages).
    QV_RETURN_IF_ERROR(batch.Validate(/*full=*/false));
    uint64_t batch_bytes = 0;
    for (const auto& c : batch.columns) batch_bytes += ApproxBytes(*c);
    const uint64_t row_bytes =
        batch.length > 0 ? std::max<uint64_t>(1, batch_bytes / static_cast<uint64_t>(batch.length))
                         : 1;
    const uint64_t part_rows = std::max<uint64_t>(1, page_bytes_ / row_bytes);
    int64_t at = 0;
    while (at < batch.length) {
      if (!writer_) QV_RETURN_IF_ERROR(OpenFile());
      const uint64_t room = options_.max_rows_per_file - writer_->rows_written();
      const int64_t n = static_cast<int64_t>(
          std::min({room, part_rows, static_cast<uint64_t>(batch.length - at)}));
      arrow::RecordBatch part = batch;
      if (n != batch.length) {
        part.length = n;
        for (auto& c : part.columns) c = arrow::Slice(c, at, n);
      }
      QV_RETURN_IF_ERROR(writer_->Write(part));
      at += n;
      // Roll over on either limit. Bytes count once pages are cut (every page_bytes per column),
      // so a file ends up to about a page per column (and a part) past max_bytes_per_file, as
      // Lance's do.
      if (writer_->rows_written() >= options_.max_rows_per_file ||
          writer_->bytes_written() >= options_.max_bytes_per_file) {
        QV_RETURN_IF_ERROR(CloseFile());
      }
    }
    return Status::OK();
  }

  Status Finish() {
    if (writer_) return CloseFile();
    return Status::OK();
  }

  // Drops the open file and deletes the finished ones (best effort: what remains is
  // unreferenced, and cleanup removes it later). REQUIRES: no committed manifest can reference
  // the files (the commit failed with a known outcome, or was never tried).
  void Abort() {
    if (writer_) writer_->Abort();
    writer_.reset();
    DeleteFragmentFiles(*store_, fragments_);
  }

  std::vector<lance::table::DataFragment>& fragments() { return fragments_; }
  uint64_t rows() const { return rows_; }
  uint64_t bytes() const { return bytes_; }

 private:
  Status OpenFile() {
    name_ = NewDataFileName();
    format::FileWriteOptions file = options_.file;
    file.page_bytes = page_bytes_;
    QV_ASSIGN_OR_RETURN(writer_,
                        format::LanceFileWriter::Open(store_, "data/" + name_, schema_, file));
    return Status::OK();
  }

  Status CloseFile() {
    QV_ASSIGN_OR_RETURN(format::FileWriteResult result, writer_->Finish());
    writer_.reset();
    if (result.num_rows == 0) return Status::OK();
    lance::table::DataFragment fragment;
    fragment.set_id(0);  // assigned at commit
    fragment.set_physical_rows(result.num_rows);
    auto* file = fragment.add_files();
    file->set_path(name_);
    for (int32_t id : result.fields) file->add_fields(id);
    for (int32_t c : result.column_indices) file->add_column_indices(c);
    file->set_file_major_version(result.major);
    file->set_file_minor_version(result.minor);
    file->set_file_size_bytes(result.size);
    fragments_.push_back(std::move(fragment));
    rows_ += result.num_rows;
    bytes_ += result.size;
    return Status::OK();
  }

  std::shared_ptr<ObjectStore> store_;
  const format::Schema& schema_;
  const WriteOptions& options_;
  const uint64_t page_bytes_;  // the files' page size
  std::unique_ptr<format::LanceFileWriter> writer_;
  std::string name_;
  std::vector<lance::table::DataFragment> fragments_;
  uint64_t rows_ = 0, bytes_ = 0;
};

// Writes every batch of `input` through `writer`; on error the files written are deleted.
Status WriteAll(arrow::BatchStream& input, FragmentWriter& writer) {
  while (true) {
    Result<std::optional<arrow::RecordBatch>> batch = input.Next();
    if (!batch.ok()) {
      writer.Abort();
      return batch.status();
    }
    if (!*batch) break;
    Status added = writer.Add(**batch);
    if (!added.ok()) {
      writer.Abort();
      return added;
    }
  }
  if (Status finished = writer.Finish(); !finished.ok()) {
    writer.Abort();
    return finished;
  }
  return Status::OK();
}

}  // namespace

void AppendLanceFields(const format::SchemaField& f,
                       google::protobuf::RepeatedPtrField<lance::file::Field>* out) {
  lance::file::Field* field = out->Add();
  field->set_name(f.name);
  field->set_id(f.id);
  field->set_parent_id(f.parent_id);
  field->set_logical_type(f.logical_type);
  field->set_nullable(f.nullable);
  const std::string& t = f.logical_type;
  if (t == "string" || t == "binary" || t == "large_string" || t == "large_binary") {
    field->set_encoding(lance::file::VAR_BINARY);
  } else if (t.rfind("dict:", 0) == 0) {
    field->set_encoding(lance::file::DICTIONARY);
    field->mutable_dictionary();
  } else if (t != "struct" && t.rfind("list", 0) != 0 && t.rfind("large_list", 0) != 0) {
    field->set_encoding(lance::file::PLAIN);
  }
  for (const auto& [k, v] : f.metadata) (*field->mutable_metadata())[k] = v;
  for (const auto& c : f.children) AppendLanceFields(c, out);
}

Status CheckAppendSchema(const arrow::Schema& table, const arrow::Schema& input) {
  if (table.fields.size() != input.fields.size()) {
    return Status::InvalidInput(fmt::format("the data has {} columns, the table {} ({})",
                                            input.fields.size(), table.fields.size(),
                                            table.ToString()));
  }
  for (size_t i = 0; i < table.fields.size(); ++i) {
    const auto& t = table.fields[i];
    const auto& in = input.fields[i];
    auto empty_t = arrow::MakeNullArray(t.type, 0);
    auto empty_in = arrow::MakeNullArray(in.type, 0);
    arrow::EqualOptions loose;
    loose.check_field_names = false;
    if (t.name != in.name || !empty_t.ok() || !empty_in.ok() ||
        arrow::Diff(**empty_t, **empty_in, loose)) {
      return Status::InvalidInput(fmt::format("column {} of the data is '{}', the table has '{}'",
                                              i, in.ToString(), t.ToString()));
    }
  }
  return Status::OK();
}

void DeleteFragmentFiles(ObjectStore& store,
                         const std::vector<lance::table::DataFragment>& fragments) {
  for (const auto& f : fragments) {
    for (const auto& file : f.files()) {
      IgnoreStatus(store.Delete("data/" + file.path()),
                   "an unreferenced data file that cleanup removes later");
    }
  }
}

lance::table::Transaction WriteTransaction(
    WriteMode mode, const format::Schema& schema, uint64_t read_version,
    const std::vector<lance::table::DataFragment>& fragments) {
  lance::table::Transaction txn;
  txn.set_read_version(read_version);
  if (mode == WriteMode::kAppend) {
    for (const auto& f : fragments) *txn.mutable_append()->add_fragments() = f;
  } else {
    auto* overwrite = txn.mutable_overwrite();
    for (const auto& f : fragments) *overwrite->add_fragments() = f;
    for (const auto& f : schema.fields) AppendLanceFields(f, overwrite->mutable_schema());
    for (const auto& [k, v] : schema.metadata) (*overwrite->mutable_schema_metadata())[k] = v;
  }
  return txn;
}

Result<WrittenFragments> WriteFragments(const Dataset& ds, arrow::BatchStream& input,
                                        const WriteOptions& options) {
  if (options.max_rows_per_file == 0) return Status::InvalidInput("max_rows_per_file must be > 0");
  if (options.max_bytes_per_file == 0) {
    return Status::InvalidInput("max_bytes_per_file must be > 0");
  }
  QV_ASSIGN_OR_RETURN(arrow::Schema table_schema, format::ToArrowSchema(ds.schema()));
  QV_RETURN_IF_ERROR(CheckAppendSchema(table_schema, *input.schema()));
  WriteOptions write_options = options;
  QV_ASSIGN_OR_RETURN(write_options.file.version, WriteFileVersion(TableStorageVersion(ds)));
  const format::Schema& schema = ds.schema();
  FragmentWriter writer(ds.store(), schema, write_options);
  QV_RETURN_IF_ERROR(WriteAll(input, writer));
  WrittenFragments out;
  out.fragments = std::move(writer.fragments());
  out.rows = writer.rows();
  out.bytes = writer.bytes();
  return out;
}

Result<WriteResult> WriteData(const CommitTarget& target, arrow::BatchStream& input,
                              const WriteOptions& options) {
  if (options.max_rows_per_file == 0) return Status::InvalidInput("max_rows_per_file must be > 0");
  if (options.max_bytes_per_file == 0) {
    return Status::InvalidInput("max_bytes_per_file must be > 0");
  }
  if (options.file.page_bytes == 0) return Status::InvalidInput("file.page_bytes must be > 0");
  Result<std::shared_ptr<const Dataset>> opened =
      Dataset::Open(target.root, OpenOptions{std::nullopt, std::nullopt, target.branch});
  const bool exists = opened.ok();
  if (!exists && opened.status().code() != StatusCode::kTableNotFound) return opened.status();
  if (exists && options.mode == WriteMode::kCreate) {
    return Status(StatusCode::kTableAlreadyExists, "the dataset already exists");
  }
  if (!exists && options.mode == WriteMode::kAppend) return opened.status();

  const arrow::Schema& input_schema = *input.schema();
  format::Schema schema;
  std::shared_ptr<ObjectStore> store;
  uint64_t read_version = 0;
  std::string storage_version = options.commit.new_table_storage_version;
  if (exists) {
    const Dataset& ds = **opened;
    store = ds.store();
    read_version = ds.version();
    if (options.commit.new_table_stable_row_ids &&
        (ds.WriterFlags() & format::kFlagStableRowIds) == 0) {
      // Lance's rule: ids cannot be given to rows that exist already.
      return Status::InvalidInput(
          "stable row ids can only be turned on when a table is created; this table has none");
    }
    // A table keeps one data file version (Lance refuses mixed versions), overwritten or not.
    storage_version = TableStorageVersion(ds);
    if (options.mode == WriteMode::kAppend) {
      schema = ds.schema();
      QV_ASSIGN_OR_RETURN(arrow::Schema table_schema, format::ToArrowSchema(schema));
      QV_RETURN_IF_ERROR(CheckAppendSchema(table_schema, input_schema));
    }
  } else {
    store = target.root;
    if (target.branch) return Status::InvalidInput("cannot create a dataset on a branch");
  }
  if (options.mode != WriteMode::kAppend) {
    QV_ASSIGN_OR_RETURN(schema, format::FromArrowSchema(input_schema));
  }
  WriteOptions write_options = options;
  QV_ASSIGN_OR_RETURN(write_options.file.version, WriteFileVersion(storage_version));

  FragmentWriter writer(store, schema, write_options);
  QV_RETURN_IF_ERROR(WriteAll(input, writer));

  const uint64_t num_fragments = writer.fragments().size();
  lance::table::Transaction txn =
      WriteTransaction(options.mode, schema, read_version, writer.fragments());
  CommitOptions commit = options.commit;
  if (!storage_version.empty()) commit.new_table_storage_version = storage_version;
  // The transaction owns copies of the fragments; the writer still knows the files to delete.
  bool outcome_unknown = false;
  Result<CommitResult> committed_or = CommitTransaction(*store, txn, commit, &outcome_unknown);
  if (!committed_or.ok()) {
    // Files a manifest may reference stay, whatever the error: deleting them could break a
    // version that did commit. Cleanup removes them if it did not.
    if (!outcome_unknown) writer.Abort();
    return committed_or.status();
  }
  CommitResult committed = std::move(committed_or).value();
  WriteResult result;
  result.commit = std::move(committed);
  result.rows = writer.rows();
  result.fragments = num_fragments;
  result.bytes = writer.bytes();
  return result;
}

Result<std::unique_ptr<ColumnGroupWriter>> ColumnGroupWriter::Open(const Dataset& ds,
                                                                   format::Schema fields) {
  std::unique_ptr<ColumnGroupWriter> out(new ColumnGroupWriter());
  out->store_ = ds.store();
  out->fields_ = std::move(fields);
  out->name_ = NewDataFileName();
  format::FileWriteOptions file;
  QV_ASSIGN_OR_RETURN(file.version, WriteFileVersion(TableStorageVersion(ds)));
  QV_ASSIGN_OR_RETURN(out->writer_, format::LanceFileWriter::Open(out->store_, "data/" + out->name_,
                                                                  out->fields_, file));
  return out;
}

ColumnGroupWriter::~ColumnGroupWriter() = default;

Status ColumnGroupWriter::Write(const arrow::RecordBatch& batch) { return writer_->Write(batch); }

Result<lance::table::DataFile> ColumnGroupWriter::Finish() {
  QV_ASSIGN_OR_RETURN(format::FileWriteResult result, writer_->Finish());
  finished_ = true;
  lance::table::DataFile file;
  file.set_path(name_);
  for (int32_t id : result.fields) file.add_fields(id);
  for (int32_t c : result.column_indices) file.add_column_indices(c);
  file.set_file_major_version(result.major);
  file.set_file_minor_version(result.minor);
  file.set_file_size_bytes(result.size);
  return file;
}

void ColumnGroupWriter::Abort() {
  if (!finished_) {
    writer_->Abort();
  } else {
    (void)store_->Delete("data/" + name_);
  }
}

}  // namespace quiver::table
