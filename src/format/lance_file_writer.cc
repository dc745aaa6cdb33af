#include "format/lance_file_writer.h"

#include <fmt/format.h>

#include "arrow/compare.h"
#include "format/arrow_schema.h"
#include "format/internal/write20/writer20.h"
#include "format/internal/write21/pack_struct.h"
#include "format/internal/write21/page_encoder21.h"
#include "format/internal/write21/shred.h"
#include "format/lance_proto.h"
#include "format/proto/file2.pb.h"

namespace quiver::format {

namespace internal {

namespace {

constexpr uint64_t kAlignment = 64;  // every page and global buffer starts 64-byte aligned (§1.2)

// The column-level encoding Lance writes for every column: ColumnEncoding{values: Empty}.
std::string ColumnEncodingAny() {
  lance::file::v2::AnyBytes any;
  any.set_type_url("/lance.encodings.ColumnEncoding");
  any.set_value(std::string("\x0a\x00", 2));  // field 1 (values), length 0
  return any.SerializeAsString();
}

lance::file::Encoding FieldEncoding(const std::string& logical) {
  if (logical == "struct" || logical.rfind("list", 0) == 0 || logical.rfind("large_list", 0) == 0) {
    return lance::file::NONE;
  }
  if (logical.rfind("dict:", 0) == 0) return lance::file::DICTIONARY;
  if (logical == "string" || logical == "binary" || logical == "large_string" ||
      logical == "large_binary") {
    return lance::file::VAR_BINARY;
  }
  return lance::file::PLAIN;
}

void AddFields(const SchemaField& f, lance::file::Schema* out) {
  lance::file::Field* field = out->add_fields();
  field->set_name(f.name);
  field->set_id(f.id);
  field->set_parent_id(f.parent_id);
  field->set_logical_type(f.logical_type);
  field->set_nullable(f.nullable);
  field->set_encoding(FieldEncoding(f.logical_type));
  if (f.logical_type.rfind("dict:", 0) == 0) field->mutable_dictionary();
  for (const auto& [k, v] : f.metadata) (*field->mutable_metadata())[k] = v;
  for (const auto& child : f.children) AddFields(child, out);
}

// The field ids of the file's columns in order: its leaves, and (`packed`: 2.1 and 2.2) each
// packed struct as one (Lance lists the struct's id, not its members').
void CollectLeafIds(const SchemaField& f, bool packed, std::vector<int32_t>* ids) {
  if (IsLeaf21(f) || (packed && IsPackedStructField(f))) {
    ids->push_back(f.id);
    return;
  }
  for (const auto& c : f.children) CollectLeafIds(c, packed, ids);
}

// The field and Arrow type at `path` below `field` (child indices).
std::pair<const SchemaField*, const arrow::DataType*> AtPath(const SchemaField& field,
                                                             const arrow::DataType& type,
                                                             const std::vector<int>& path) {
  const SchemaField* f = &field;
  const arrow::DataType* t = &type;
  for (int c : path) {
    f = &f->children[static_cast<size_t>(c)];
    t = &t->children()[static_cast<size_t>(c)].type;
  }
  return {f, t};
}

// The struct arrays of `array` (a column of `type`) at `path` (child indices: struct members
// and list items), every row of them, for checks that look at a nested leaf's values.
void ArraysAtPath(const arrow::ArrayData& array, const std::vector<int>& path, size_t depth,
                  std::vector<arrow::ArrayPtr>* out, const arrow::ArrayPtr& self) {
  if (depth == path.size()) {
    out->push_back(self);
    return;
  }
  const arrow::TypeId id = array.type.id();
  if (id == arrow::TypeId::kStruct) {
    arrow::ArrayPtr child = arrow::StructField(array, path[depth]);
    ArraysAtPath(*child, path, depth + 1, out, child);
  } else if (arrow::IsOffsetList(id) && array.length > 0) {
    auto [begin, unused] = arrow::ListRange(array, 0);
    auto [unused2, end] = arrow::ListRange(array, array.length - 1);
    arrow::ArrayPtr items = arrow::Slice(array.children[0], begin, end - begin);
    ArraysAtPath(*items, path, depth + 1, out, items);
  }
}

// Nulls where the schema says a nested field cannot hold them (Lance's Arrow readers refuse such
// data). `path` names the field in the message.
Status CheckNestedNulls(const arrow::Field& field, const arrow::ArrayData& array,
                        const std::string& path) {
  if (!field.nullable && array.null_count > 0) {
    return Status::InvalidInput(
        fmt::format("{} is not nullable but has {} nulls", path, array.null_count));
  }
  const arrow::TypeId id = field.type.id();
  if (id == arrow::TypeId::kStruct) {
    for (size_t k = 0; k < field.type.children().size(); ++k) {
      const arrow::Field& member = field.type.children()[k];
      arrow::ArrayPtr child = arrow::StructField(array, static_cast<int>(k));
      if (!member.nullable && child->null_count > 0) {
        // Arrow allows a non-nullable member to be null only where its struct is null.
        for (int64_t i = 0; i < child->length; ++i) {
          if (arrow::IsNull(*child, i) && arrow::IsValid(array, i)) {
            return Status::InvalidInput(
                fmt::format("{}.{} is not nullable but row {} is null", path, member.name, i));
          }
        }
        continue;
      }
      QV_RETURN_IF_ERROR(CheckNestedNulls(member, *child, path + "." + member.name));
    }
  } else if (arrow::IsOffsetList(id)) {
    QV_RETURN_IF_ERROR(CheckNestedNulls(field.type.item(), *array.children[0], path + ".item"));
  }
  return Status::OK();
}

}  // namespace

class FileWriterState {
 public:
  FileWriterState() = default;
  // sink20 captures `this`: a copy or a move would write through the old object.
  FileWriterState(const FileWriterState&) = delete;
  FileWriterState& operator=(const FileWriterState&) = delete;
  FileWriterState(FileWriterState&&) = delete;
  FileWriterState& operator=(FileWriterState&&) = delete;

  std::shared_ptr<ObjectStore> store;
  std::string key;
  Schema schema;
  arrow::Schema arrow_schema;
  FileWriteOptions options;
  std::unique_ptr<ObjectWriter> out;
  uint64_t position = 0;
  uint64_t rows = 0;

  struct Column {
    size_t field;  // top-level field index
    std::unique_ptr<LeafShredder> shredder;
    lance::file::v2::ColumnMetadata meta;
    uint64_t rows_written = 0;
  };
  std::vector<Column> columns;
  // 2.2: the packed struct leaves, whose members Write checks before any column takes a batch.
  struct PackedLeaf {
    size_t field;
    std::vector<int> path;
    std::string name;
    std::shared_ptr<const PackedStructLayout> layout;
  };
  std::vector<PackedLeaf> packed;
  // Set for 2.0 files: it makes the pages, `columns` only records them (no shredders).
  std::unique_ptr<FileWriter20> v20;
  PageSink20 sink20 = [this](EncodedPage20&& page) { return WritePage20(std::move(page)); };

  Status WriteBytes(std::string_view bytes) {
    QV_RETURN_IF_ERROR(out->Append(bytes));
    position += bytes.size();
    return Status::OK();
  }

  Status Pad() {
    const uint64_t pad = (kAlignment - position % kAlignment) % kAlignment;
    if (pad == 0) return Status::OK();
    return WriteBytes(std::string(pad, '\0'));
  }

  // Writes a page's buffers, each 64-byte aligned, and records where they went in `meta`.
  Status WriteBuffers(const std::vector<std::string>& buffers,
                      lance::file::v2::ColumnMetadata::Page* meta) {
    for (const std::string& buffer : buffers) {
      QV_RETURN_IF_ERROR(Pad());
      meta->add_buffer_offsets(position);
      meta->add_buffer_sizes(buffer.size());
      QV_RETURN_IF_ERROR(WriteBytes(buffer));
    }
    return Status::OK();
  }

  Status WritePage20(EncodedPage20&& page) {
    if (page.column >= columns.size()) {
      return Status::Internal(
          fmt::format("a 2.0 page for column {} of {}", page.column, columns.size()));
    }
    auto* meta = columns[page.column].meta.add_pages();
    QV_RETURN_IF_ERROR(WriteBuffers(page.buffers, meta));
    meta->set_length(page.rows);  // priority stays 0, as lance's 2.0 writer leaves it
    lance::file::v2::AnyBytes any;
    any.set_type_url("/lance.encodings.ArrayEncoding");
    any.set_value(page.encoding.SerializeAsString());
    meta->mutable_encoding()->mutable_direct()->set_encoding(any.SerializeAsString());
    return Status::OK();
  }

  Status FlushColumn(Column& column) {
    if (column.shredder->rows() == 0) return Status::OK();
    QV_ASSIGN_OR_RETURN(LeafPageData data, column.shredder->TakePage());
    PageEncodeOptions encode;
    encode.compress = options.compress;
    encode.large_chunks = options.version == FileVersion::kV2_2;
    // Usually one page; more when the rows' levels do not fit one (page_encoder21.h).
    QV_ASSIGN_OR_RETURN(std::vector<EncodedPage> pages, EncodePages21(data, encode));
    for (const EncodedPage& page : pages) {
      auto* meta = column.meta.add_pages();
      QV_RETURN_IF_ERROR(WriteBuffers(page.buffers, meta));
      meta->set_length(page.rows);
      meta->set_priority(column.rows_written);
      lance::file::v2::AnyBytes any;
      any.set_type_url("/lance.encodings21.PageLayout");
      any.set_value(page.layout.SerializeAsString());
      meta->mutable_encoding()->mutable_direct()->set_encoding(any.SerializeAsString());
      column.rows_written += page.rows;
    }
    return Status::OK();
  }
};

}  // namespace internal

LanceFileWriter::~LanceFileWriter() { Abort(); }

Result<std::unique_ptr<LanceFileWriter>> LanceFileWriter::Open(std::shared_ptr<ObjectStore> store,
                                                               std::string key,
                                                               const Schema& schema,
                                                               const FileWriteOptions& options) {
  if (options.page_bytes == 0) return Status::InvalidInput("page_bytes must be > 0");
  auto state = std::make_unique<internal::FileWriterState>();
  QV_ASSIGN_OR_RETURN(state->arrow_schema, ToArrowSchema(schema));
  for (const SchemaField& field : schema.fields) {
    if (IsBlobV2Field(field)) {
      return Status::Unsupported(fmt::format(
          "column '{}' (id {}) is a blob v2 column (lance.blob.v2): quiver reads its descriptors "
          "but cannot write blobs yet",
          field.name, field.id));
    }
  }
  if (options.version != FileVersion::kV2_2) {
    for (const arrow::Field& field : state->arrow_schema.fields) {
      if (arrow::ContainsType(field.type, arrow::TypeId::kMap)) {
        // Lance's own rule: its 2.0 and 2.1 grammars have no map.
        return Status::InvalidInput(fmt::format(
            "column '{}' ({}): Map columns are only supported in Lance file format 2.2 and later; "
            "this file is {} (create the table with --storage-version 2.2)",
            field.name, field.type.ToString(),
            options.version == FileVersion::kV2_0 ? "2.0" : "2.1"));
      }
    }
  }
  arrow::MemoryPool* pool = options.pool != nullptr ? options.pool : arrow::MemoryPool::Default();
  if (options.version == FileVersion::kV2_0) {
    QV_ASSIGN_OR_RETURN(
        state->v20, internal::FileWriter20::Make(schema, state->arrow_schema, options.page_bytes));
    state->columns.resize(state->v20->num_columns());
    for (auto& column : state->columns) {
      column.meta.mutable_encoding()->mutable_direct()->set_encoding(internal::ColumnEncodingAny());
    }
  }
  // Lance stores a struct marked packed as one column (and reads it only so): Lance 12 in 2.2,
  // Lance 8 in 2.1 when its members are fixed-width (pack_struct.h).
  const bool packed = options.version != FileVersion::kV2_0;
  const bool v22 = options.version == FileVersion::kV2_2;
  for (size_t i = 0; i < schema.fields.size() && !state->v20; ++i) {
    std::vector<std::vector<int>> leaves;
    CollectLeaves21(schema.fields[i], &leaves, {}, packed);
    for (auto& path : leaves) {
      internal::FileWriterState::Column column;
      column.field = i;
      const arrow::DataType& top = state->arrow_schema.fields[i].type;
      std::shared_ptr<const internal::PackedStructLayout> layout;
      if (auto [leaf, leaf_type] = internal::AtPath(schema.fields[i], top, path);
          packed && IsPackedStructField(*leaf)) {
        QV_ASSIGN_OR_RETURN(internal::PackedStructLayout made,
                            internal::PackedStructLayout::Make(*leaf_type, leaf->name, v22));
        layout = std::make_shared<const internal::PackedStructLayout>(std::move(made));
        state->packed.push_back({i, path, leaf->name, layout});
      }
      QV_ASSIGN_OR_RETURN(column.shredder,
                          internal::LeafShredder::Make(top, path, pool, std::move(layout)));
      column.meta.mutable_encoding()->mutable_direct()->set_encoding(internal::ColumnEncodingAny());
      state->columns.push_back(std::move(column));
    }
  }
  QV_ASSIGN_OR_RETURN(state->out, store->OpenWriter(key, options.put));
  state->store = std::move(store);
  state->key = std::move(key);
  state->schema = schema;
  state->options = options;
  std::unique_ptr<LanceFileWriter> writer(new LanceFileWriter());
  writer->state_ = std::move(state);
  return writer;
}

uint64_t LanceFileWriter::rows_written() const { return state_ ? state_->rows : 0; }

uint64_t LanceFileWriter::bytes_written() const { return state_ ? state_->position : 0; }

Status LanceFileWriter::Fail(Status status) {
  if (state_ && state_->out) state_->out->Abort();
  state_.reset();
  failed_ = status;
  return status;
}

Status LanceFileWriter::Write(const arrow::RecordBatch& batch) {
  if (!failed_.ok()) return failed_;
  if (!state_) return Status::InvalidInput("write to a finished or aborted Lance file writer");
  auto& s = *state_;
  const auto& fields = s.arrow_schema.fields;
  if (batch.columns.size() != fields.size()) {
    return Status::InvalidInput(fmt::format("a batch of {} columns for a schema of {} fields",
                                            batch.columns.size(), fields.size()));
  }
  arrow::EqualOptions loose;
  loose.check_field_names = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& column = *batch.columns[i];
    if (column.length != batch.length) {
      return Status::InvalidInput(fmt::format("column {} has {} rows, the batch {}", fields[i].name,
                                              column.length, batch.length));
    }
    auto empty = arrow::MakeNullArray(fields[i].type, 0);
    if (!empty.ok() || arrow::Diff(**empty, *arrow::Slice(batch.columns[i], 0, 0), loose)) {
      return Status::InvalidInput(fmt::format("column {} is {}, the table has {}", fields[i].name,
                                              column.type.ToString(), fields[i].type.ToString()));
    }
  }
  // Null counts are trusted below: check them against the bitmaps first.
  QV_RETURN_IF_ERROR(batch.Validate(/*full=*/true));
  for (size_t i = 0; i < fields.size(); ++i) {
    QV_RETURN_IF_ERROR(internal::CheckNestedNulls(fields[i], *batch.columns[i], fields[i].name));
  }
  for (const auto& leaf : s.packed) {
    std::vector<arrow::ArrayPtr> structs;
    internal::ArraysAtPath(*batch.columns[leaf.field], leaf.path, 0, &structs,
                           batch.columns[leaf.field]);
    for (const arrow::ArrayPtr& a : structs) {
      QV_RETURN_IF_ERROR(leaf.layout->CheckMembers(*a, leaf.name));
    }
  }
  // From here on columns take the rows one after another: an error leaves some with the batch
  // and some without, so it ends the file.
  if (Status appended = AppendChecked(batch); !appended.ok()) return Fail(std::move(appended));
  return Status::OK();
}

Status LanceFileWriter::AppendChecked(const arrow::RecordBatch& batch) {
  auto& s = *state_;
  if (s.v20) QV_RETURN_IF_ERROR(s.v20->Write(batch, s.sink20));
  for (auto& column : s.columns) {
    if (s.v20) break;
    QV_RETURN_IF_ERROR(column.shredder->Append(*batch.columns[column.field]));
    if (column.shredder->buffered_bytes() >= s.options.page_bytes) {
      QV_RETURN_IF_ERROR(s.FlushColumn(column));
    }
  }
  s.rows += static_cast<uint64_t>(batch.length);
  return Status::OK();
}

Result<FileWriteResult> LanceFileWriter::Finish() {
  if (!failed_.ok()) return failed_;
  if (!state_) return Status::InvalidInput("finish of a finished or aborted Lance file writer");
  Result<FileWriteResult> result = FinishFile();
  if (!result.ok()) return Fail(result.status());
  state_.reset();
  return result;
}

Result<FileWriteResult> LanceFileWriter::FinishFile() {
  auto& s = *state_;
  if (s.v20) QV_RETURN_IF_ERROR(s.v20->Finish(s.sink20));
  for (auto& column : s.columns) {
    if (!s.v20) QV_RETURN_IF_ERROR(s.FlushColumn(column));
  }
  // Global buffer 0: the schema.
  QV_RETURN_IF_ERROR(s.Pad());
  const uint64_t gb0 = s.position;
  lance::file::FileDescriptor descriptor;
  for (const auto& f : s.schema.fields) internal::AddFields(f, descriptor.mutable_schema());
  for (const auto& [k, v] : s.schema.metadata)
    (*descriptor.mutable_schema()->mutable_metadata())[k] = v;
  descriptor.set_length(s.rows);
  const std::string schema_bytes = descriptor.SerializeAsString();
  QV_RETURN_IF_ERROR(s.WriteBytes(schema_bytes));
  // Column metadata, back to back, then the offset tables and the footer.
  const uint64_t column_meta_start = s.position;
  std::string cmo;
  for (const auto& column : s.columns) {
    const std::string bytes = column.meta.SerializeAsString();
    const uint64_t at = s.position;
    cmo.append(reinterpret_cast<const char*>(&at), 8);
    const uint64_t len = bytes.size();
    cmo.append(reinterpret_cast<const char*>(&len), 8);
    QV_RETURN_IF_ERROR(s.WriteBytes(bytes));
  }
  const uint64_t cmo_offset = s.position;
  QV_RETURN_IF_ERROR(s.WriteBytes(cmo));
  const uint64_t gbo_offset = s.position;
  std::string tail;
  const uint64_t schema_len = schema_bytes.size();
  tail.append(reinterpret_cast<const char*>(&gb0), 8);
  tail.append(reinterpret_cast<const char*>(&schema_len), 8);
  tail.append(reinterpret_cast<const char*>(&column_meta_start), 8);
  tail.append(reinterpret_cast<const char*>(&cmo_offset), 8);
  tail.append(reinterpret_cast<const char*>(&gbo_offset), 8);
  const uint32_t num_global = 1, num_columns = static_cast<uint32_t>(s.columns.size());
  tail.append(reinterpret_cast<const char*>(&num_global), 4);
  tail.append(reinterpret_cast<const char*>(&num_columns), 4);
  // lance writes 2.0 files as (0,3) (lance-file-format.md §1.1).
  const uint16_t major = s.v20 ? 0 : 2,
                 minor = s.v20 ? 3 : (s.options.version == FileVersion::kV2_2 ? 2 : 1);
  tail.append(reinterpret_cast<const char*>(&major), 2);
  tail.append(reinterpret_cast<const char*>(&minor), 2);
  tail += "LANC";
  QV_RETURN_IF_ERROR(s.WriteBytes(tail));
  FileWriteResult result;
  result.num_rows = s.rows;
  for (const auto& f : s.schema.fields) {
    if (s.v20) {
      internal::CollectFieldIds20(f, &result.fields);
    } else {
      internal::CollectLeafIds(f, /*packed=*/true, &result.fields);
    }
  }
  // DataFile.fields maps fields to columns one to one: a mismatch would be a table that reads
  // the wrong column for a field, so it stops the file before it is published.
  if (result.fields.size() != s.columns.size()) {
    return Status::Internal(fmt::format("{} field ids for the {} columns of {}",
                                        result.fields.size(), s.columns.size(), s.key));
  }
  if (s.v20) result.minor = 0;
  if (s.options.version == FileVersion::kV2_2) result.minor = 2;
  for (size_t i = 0; i < result.fields.size(); ++i) {
    result.column_indices.push_back(static_cast<int32_t>(i));
  }
  QV_ASSIGN_OR_RETURN(ObjectMeta meta, s.out->Finish());
  result.size = meta.size;
  return result;
}

void LanceFileWriter::Abort() {
  if (state_ && state_->out) state_->out->Abort();
  state_.reset();
}

}  // namespace quiver::format
