// Arrow IPC stream and file writers (see writer.h).
#include "arrow/ipc/writer.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "arrow/compare.h"
#include "arrow/internal/fbs/File_generated.h"
#include "arrow/ipc/internal/batch_writer.h"
#include "arrow/ipc/internal/dictionaries.h"
#include "arrow/ipc/internal/message.h"
#include "arrow/ipc/internal/schema_fb.h"

namespace quiver::arrow::ipc {
namespace internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

constexpr std::string_view kFileMagic("ARROW1\0\0", 8);

bool SameFields(const Schema& a, const Schema& b) {
  if (a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const Field& x = a.fields[i];
    const Field& y = b.fields[i];
    if (x.name != y.name || x.nullable != y.nullable || !(x.type == y.type)) return false;
  }
  return true;
}

}  // namespace

// What the stream and file writers share: the schema message, dictionary tracking, batches,
// and (for files) the Blocks the footer lists.
class IpcWriterCore {
 public:
  IpcWriterCore(Sink* sink, std::shared_ptr<const Schema> schema, const WriteOptions& options,
                bool file)
      : sink_(sink),
        schema_(std::move(schema)),
        ids_(AssignDictionaryIds(*schema_)),
        options_(options),
        file_(file),
        encoder_(options) {}

  Status Start() {
    if (file_) QV_RETURN_IF_ERROR(Write(kFileMagic));
    OutgoingMessage message;
    QV_ASSIGN_OR_RETURN(message.metadata, EncodeSchemaMessage(*schema_, ids_));
    return WriteMessage(message, nullptr);
  }

  Status WriteBatch(const RecordBatch& batch) {
    if (finished_) return Status::InvalidInput("arrow IPC writer: Write after Finish");
    if (batch.schema == nullptr || !SameFields(*batch.schema, *schema_)) {
      return Status::InvalidInput(
          "arrow IPC writer: the batch's fields differ from the writer's schema");
    }
    // Structural checks only (cheap): the encoder reads offsets and slices by them.
    if (Status s = batch.Validate(/*full=*/false); !s.ok()) {
      return Status::InvalidInput("arrow IPC writer: " + s.message());
    }
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      QV_RETURN_IF_ERROR(WriteDictionaries(*batch.columns[i], ids_[i]));
    }
    QV_ASSIGN_OR_RETURN(auto message, encoder_.EncodeRecordBatch(batch));
    ++num_batches_;
    return WriteMessage(message, &batch_blocks_);
  }

  Status Finish() {
    if (finished_) return Status::InvalidInput("arrow IPC writer: Finish called twice");
    finished_ = true;
    QV_RETURN_IF_ERROR(WriteEndOfStream(*sink_));
    position_ += 8;
    if (!file_) return Status::OK();
    flatbuffers::FlatBufferBuilder fbb(1024);
    QV_ASSIGN_OR_RETURN(uint32_t schema, SchemaToFlatbuffer(fbb, *schema_, ids_));
    const auto dictionaries = fbb.CreateVectorOfStructs(dictionary_blocks_);
    const auto batches = fbb.CreateVectorOfStructs(batch_blocks_);
    const auto footer =
        fb::CreateFooter(fbb, fb::MetadataVersion_V5, flatbuffers::Offset<fb::Schema>(schema),
                         dictionaries, batches);
    fb::FinishFooterBuffer(fbb, footer);
    const auto size = static_cast<uint32_t>(fbb.GetSize());
    std::string trailer(reinterpret_cast<const char*>(fbb.GetBufferPointer()), size);
    for (int i = 0; i < 4; ++i) trailer.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
    trailer.append("ARROW1");
    return Write(trailer);
  }

 private:
  Status Write(std::string_view bytes) {
    QV_RETURN_IF_ERROR(sink_->Write(bytes));
    position_ += bytes.size();
    return Status::OK();
  }

  Status WriteMessage(const OutgoingMessage& message, std::vector<fb::Block>* blocks) {
    const uint64_t start = position_;
    QV_ASSIGN_OR_RETURN(int32_t metadata_length, internal::WriteMessage(*sink_, message));
    position_ +=
        static_cast<uint64_t>(metadata_length) + static_cast<uint64_t>(message.body_length);
    if (blocks != nullptr) {
      blocks->emplace_back(static_cast<int64_t>(start), metadata_length, message.body_length);
    }
    return Status::OK();
  }

  // Writes the dictionaries `array` (of the field with `ids`) needs that the reader does not
  // have yet. Inner dictionaries (inside a dictionary's values) go first, since reading the
  // outer dictionary batch needs them.
  Status WriteDictionaries(const ArrayData& array, const FieldDictionaryIds& ids) {
    if (ids.id >= 0) {
      const ArrayPtr& dictionary = array.dictionary;
      if (dictionary == nullptr) return Status::InvalidInput("dictionary array without values");
      FieldDictionaryIds value_ids;
      value_ids.children = ids.children;
      QV_RETURN_IF_ERROR(WriteDictionaries(*dictionary, value_ids));
      return WriteDictionary(ids.id, dictionary);
    }
    if (ids.children.empty()) return Status::OK();
    if (array.children.size() != ids.children.size()) {
      return Status::Internal("dictionary ids do not match the array");
    }
    for (size_t k = 0; k < ids.children.size(); ++k) {
      QV_RETURN_IF_ERROR(WriteDictionaries(*array.children[k], ids.children[k]));
    }
    return Status::OK();
  }

  Status WriteDictionary(int64_t id, const ArrayPtr& dictionary) {
    auto it = written_.find(id);
    bool is_delta = false;
    ArrayPtr to_write = dictionary;
    if (it != written_.end()) {
      const ArrayPtr& previous = it->second;
      if (previous == dictionary) return Status::OK();
      if (ArrayEquals(*previous, *dictionary)) {
        it->second = dictionary;  // same values: remember the new array so the next check is cheap
        return Status::OK();
      }
      if (options_.emit_dictionary_deltas && dictionary->length > previous->length &&
          ArrayEquals(*previous, *Slice(dictionary, 0, previous->length))) {
        is_delta = true;
        to_write = Slice(dictionary, previous->length, dictionary->length - previous->length);
      } else if (file_) {
        return Status::InvalidInput(fmt::format(
            "arrow IPC file: dictionary {} changes at batch {}; files hold one dictionary per "
            "field (write a stream, or only append to the dictionary with "
            "emit_dictionary_deltas)",
            id, num_batches_));
      }
    }
    QV_ASSIGN_OR_RETURN(auto message, encoder_.EncodeDictionaryBatch(id, *to_write, is_delta));
    QV_RETURN_IF_ERROR(WriteMessage(message, &dictionary_blocks_));
    written_[id] = dictionary;
    return Status::OK();
  }

  Sink* sink_;
  std::shared_ptr<const Schema> schema_;
  SchemaDictionaryIds ids_;
  WriteOptions options_;
  bool file_;
  BatchEncoder encoder_;
  uint64_t position_ = 0;
  int64_t num_batches_ = 0;
  bool finished_ = false;
  std::map<int64_t, ArrayPtr> written_;
  std::vector<fb::Block> dictionary_blocks_;
  std::vector<fb::Block> batch_blocks_;
};

}  // namespace internal

namespace {

Result<std::unique_ptr<internal::IpcWriterCore>> OpenCore(Sink* sink,
                                                          std::shared_ptr<const Schema> schema,
                                                          const WriteOptions& options, bool file) {
  if (sink == nullptr || schema == nullptr) {
    return Status::InvalidInput("arrow IPC writer needs a sink and a schema");
  }
  auto core = std::make_unique<internal::IpcWriterCore>(sink, std::move(schema), options, file);
  QV_RETURN_IF_ERROR(core->Start());
  return core;
}

template <typename Writer>
Result<std::string> WriteAll(const std::shared_ptr<const Schema>& schema,
                             const std::vector<RecordBatch>& batches, const WriteOptions& options) {
  std::string out;
  StringSink sink(&out);
  QV_ASSIGN_OR_RETURN(auto writer, Writer::Open(&sink, schema, options));
  for (const RecordBatch& batch : batches) QV_RETURN_IF_ERROR(writer->Write(batch));
  QV_RETURN_IF_ERROR(writer->Finish());
  return out;
}

}  // namespace

StreamWriter::StreamWriter(std::unique_ptr<internal::IpcWriterCore> core)
    : core_(std::move(core)) {}
StreamWriter::~StreamWriter() = default;

Result<std::unique_ptr<StreamWriter>> StreamWriter::Open(Sink* sink,
                                                         std::shared_ptr<const Schema> schema,
                                                         const WriteOptions& options) {
  QV_ASSIGN_OR_RETURN(auto core, OpenCore(sink, std::move(schema), options, /*file=*/false));
  return std::unique_ptr<StreamWriter>(new StreamWriter(std::move(core)));
}

Status StreamWriter::Write(const RecordBatch& batch) { return core_->WriteBatch(batch); }
Status StreamWriter::Finish() { return core_->Finish(); }

FileWriter::FileWriter(std::unique_ptr<internal::IpcWriterCore> core) : core_(std::move(core)) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(Sink* sink,
                                                     std::shared_ptr<const Schema> schema,
                                                     const WriteOptions& options) {
  QV_ASSIGN_OR_RETURN(auto core, OpenCore(sink, std::move(schema), options, /*file=*/true));
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(core)));
}

Status FileWriter::Write(const RecordBatch& batch) { return core_->WriteBatch(batch); }
Status FileWriter::Finish() { return core_->Finish(); }

Result<std::string> WriteStreamToString(const std::shared_ptr<const Schema>& schema,
                                        const std::vector<RecordBatch>& batches,
                                        const WriteOptions& options) {
  return WriteAll<StreamWriter>(schema, batches, options);
}

Result<std::string> WriteFileToString(const std::shared_ptr<const Schema>& schema,
                                      const std::vector<RecordBatch>& batches,
                                      const WriteOptions& options) {
  return WriteAll<FileWriter>(schema, batches, options);
}

}  // namespace quiver::arrow::ipc
