// Writing rows into a Lance dataset: new data files (format/lance_file_writer.h) committed as one
// Append or Overwrite transaction through the commit protocol (commit.h), or a new dataset
// created from them.
//
// Input batches are split into data files of at most `max_rows_per_file` rows (and about
// `max_bytes_per_file` bytes: a new file starts once the written pages reach it, checked every
// page's worth of rows, inside large batches too); each file is one fragment. Files are written
// before the commit. If reading the input, writing or the commit fails, the files written are
// deleted (best effort; cleanup removes what remains) — except when the commit's outcome is
// unknown (its manifest put failed without saying whether it landed, CommitTransaction's
// outcome_unknown): then they stay, since a committed version may reference them, and cleanup
// removes them if none does.
//
// Tables keep one data file version (Lance refuses mixed versions): appends and overwrites use
// the table's (2.0, 2.1 or 2.2), new tables CommitOptions::new_table_storage_version ("2.2" by
// default, as Lance 12's; "2.1" or "2.0"); `file.version` is set from it.
//
// Thread-safety: reentrant; concurrent writers are arbitrated by the commit protocol (two
// appends both succeed; an overwrite conflicts with anything committed since its read version).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arrow/record_batch.h"
#include "common/result.h"
#include "format/lance_file_writer.h"
#include "format/lance_proto.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/operations.h"

namespace quiver::table {

enum class WriteMode {
  kCreate,     // the dataset must not exist yet (AlreadyExists otherwise)
  kAppend,     // the dataset must exist (TableNotFound otherwise)
  kOverwrite,  // replaces schema and rows; creates the dataset when missing
};

struct WriteOptions {
  WriteMode mode = WriteMode::kAppend;
  uint64_t max_rows_per_file = 1024 * 1024;
  uint64_t max_bytes_per_file = 90ull << 30;
  format::FileWriteOptions file;
  CommitOptions commit;
};

struct WriteResult {
  CommitResult commit;
  uint64_t rows = 0;
  uint64_t fragments = 0;
  uint64_t bytes = 0;
};

// InvalidInput when the input's schema does not match the table's (appends) or has a type Lance
// cannot store, or when CommitOptions::new_table_stable_row_ids asks for stable row ids on an
// existing table without them; Unsupported for types a file of the table's format cannot hold
// and for tables whose data files are in a format quiver cannot write (legacy 0.1). Tables with
// stable row ids get ids for the new rows at commit time (apply_data.h).
Result<WriteResult> WriteData(const CommitTarget& target, arrow::BatchStream& input,
                              const WriteOptions& options = {});

// For writers that build their own transaction (updates): `input`'s rows, in `ds`'s Arrow schema,
// written under `ds`'s data/ in its file format and schema as fragments (ids 0: assigned at
// commit), cut as WriteData cuts them (options.mode and options.commit are not used). Nothing
// is committed; on error the files written are deleted.
struct WrittenFragments {
  std::vector<lance::table::DataFragment> fragments;
  uint64_t rows = 0;
  uint64_t bytes = 0;
};
Result<WrittenFragments> WriteFragments(const Dataset& ds, arrow::BatchStream& input,
                                        const WriteOptions& options = {});
// `f` and the fields under it, parents first, as a manifest's (or a transaction's) flat field
// list holds them (with the encodings Lance records).
void AppendLanceFields(const format::SchemaField& f,
                       google::protobuf::RepeatedPtrField<lance::file::Field>* out);

// InvalidInput unless `input` has the table's columns: the same names, types and order
// (nullability may be stricter in the input). What appends check.
Status CheckAppendSchema(const arrow::Schema& table, const arrow::Schema& input);

// The transaction WriteData commits: `fragments` appended to (kAppend) or replacing the rows of
// (kOverwrite, kCreate) a dataset that gets `schema`, built against `read_version`.
lance::table::Transaction WriteTransaction(
    WriteMode mode, const format::Schema& schema, uint64_t read_version,
    const std::vector<lance::table::DataFragment>& fragments);
// One data file holding the fields of `fields` (their ids as in the table's schema) for the rows
// given, written under `ds`'s data/ in its file format: a column group added to an existing
// fragment (add_columns.h). Nothing is committed.
class ColumnGroupWriter {
 public:
  static Result<std::unique_ptr<ColumnGroupWriter>> Open(const Dataset& ds, format::Schema fields);
  ~ColumnGroupWriter();
  Status Write(const arrow::RecordBatch& batch);
  // The file as a fragment's DataFile (path, fields, column indices, version, size).
  Result<lance::table::DataFile> Finish();
  // Drops the file (unfinished or finished); best effort.
  void Abort();

 private:
  ColumnGroupWriter() = default;
  std::shared_ptr<ObjectStore> store_;
  format::Schema fields_;
  std::string name_;
  std::unique_ptr<format::LanceFileWriter> writer_;
  bool finished_ = false;
};

// Deletes the data files of fragments no committed manifest references (best effort: cleanup
// removes what remains).
void DeleteFragmentFiles(ObjectStore& store,
                         const std::vector<lance::table::DataFragment>& fragments);

}  // namespace quiver::table
