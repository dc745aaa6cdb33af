// Record batch and dictionary batch messages -> arrays (see batch_reader.h).
#include "arrow/ipc/internal/batch_reader.h"

#include <cstdint>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "arrow/internal/fbs/Message_generated.h"

namespace quiver::arrow::ipc::internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

constexpr int64_t kMaxArrayLength = INT32_MAX;

// Walks one RecordBatch table's field nodes and buffers in pre-order while the caller walks
// the types.
class ArrayLoader {
 public:
  ArrayLoader(std::string_view source, const IncomingMessage& message, const fb::RecordBatch& batch,
              std::optional<Compression> codec, BodyCodec* codecs, const DictionaryMemo* memo,
              const ReadOptions& options)
      : source_(source),
        message_(message),
        batch_(batch),
        codec_(codec),
        codecs_(codecs),
        memo_(memo),
        options_(options),
        budget_(options.max_decompressed_bytes) {}

  Result<ArrayPtr> Load(const DataType& type, const FieldDictionaryIds& ids) {
    QV_ASSIGN_OR_RETURN(const fb::FieldNode* node, NextNode());
    auto out = std::make_shared<ArrayData>();
    out->type = type;
    out->length = node->length();
    out->null_count = node->null_count();
    // Lengths are capped like Arrow's Java and JS implementations: arrays without buffers (null
    // type, empty structs, zero-width values) could otherwise claim any length for free, and
    // work that follows rows would be unbounded.
    if (out->length < 0 || out->length > kMaxArrayLength || out->null_count < 0 ||
        out->null_count > out->length) {
      return Corrupt(fmt::format("field node {} has length {} and null count {}", node_index_ - 1,
                                 out->length, out->null_count));
    }
    const TypeId id = type.id();
    if (id == TypeId::kNull) {
      // The null type has no buffers in IPC; its null count is its length whatever the node says.
      out->null_count = out->length;
      return ArrayPtr(std::move(out));
    }
    QV_ASSIGN_OR_RETURN(auto validity, NextBuffer());
    // An array without nulls may omit its bitmap (length 0) or carry one; either way it needs
    // none.
    out->buffers.push_back(out->null_count == 0 ? nullptr : std::move(validity));
    if (id == TypeId::kDictionary) {
      QV_ASSIGN_OR_RETURN(auto indices, NextBuffer());
      out->buffers.push_back(std::move(indices));
      const DictionaryMemo::Entry* entry = memo_ == nullptr ? nullptr : memo_->Find(ids.id);
      if (entry == nullptr || entry->dictionary == nullptr) {
        return Corrupt(
            fmt::format("a record batch uses dictionary id {} before any dictionary "
                        "batch defined it",
                        ids.id));
      }
      out->dictionary = entry->dictionary;
      return ArrayPtr(std::move(out));
    }
    if (IsFixedWidth(type)) {
      QV_ASSIGN_OR_RETURN(auto values, NextBuffer());
      out->buffers.push_back(std::move(values));
      return ArrayPtr(std::move(out));
    }
    if (IsBinaryLike(id)) {
      QV_ASSIGN_OR_RETURN(auto offsets, NextBuffer());
      QV_ASSIGN_OR_RETURN(auto data, NextBuffer());
      out->buffers.push_back(std::move(offsets));
      out->buffers.push_back(std::move(data));
      return ArrayPtr(std::move(out));
    }
    if (IsOffsetList(id)) {
      QV_ASSIGN_OR_RETURN(auto offsets, NextBuffer());
      out->buffers.push_back(std::move(offsets));
    }
    // Lists, fixed-size lists and structs: the children follow in pre-order. The schema reader
    // bounded the nesting, so this recursion is bounded too.
    const std::vector<Field>& children = type.children();
    if (ids.children.size() != children.size()) {
      return Status::Internal("dictionary ids do not match the schema");
    }
    for (size_t k = 0; k < children.size(); ++k) {
      QV_ASSIGN_OR_RETURN(auto child, Load(children[k].type, ids.children[k]));
      out->children.push_back(std::move(child));
    }
    return ArrayPtr(std::move(out));
  }

  // The verifier checks a vector's 4-byte alignment, not that of its 8-aligned structs; reading
  // a misaligned FieldNode or Buffer would be undefined behaviour.
  Status CheckAlignment() const {
    // (Empty vectors have no elements to misread; writers do not align them.)
    if ((batch_.nodes() != nullptr && batch_.nodes()->size() > 0 &&
         reinterpret_cast<uintptr_t>(batch_.nodes()->Data()) % alignof(fb::FieldNode) != 0) ||
        (batch_.buffers() != nullptr && batch_.buffers()->size() > 0 &&
         reinterpret_cast<uintptr_t>(batch_.buffers()->Data()) % alignof(fb::Buffer) != 0)) {
      return Corrupt("misaligned field nodes or buffers in the record batch metadata");
    }
    return Status::OK();
  }

  // Every node and buffer the message lists must have been used.
  Status Finish() const {
    const auto nodes = batch_.nodes() == nullptr ? 0 : batch_.nodes()->size();
    const auto buffers = batch_.buffers() == nullptr ? 0 : batch_.buffers()->size();
    if (node_index_ != nodes || buffer_index_ != buffers) {
      return Corrupt(fmt::format(
          "the record batch lists {} field nodes and {} buffers, its schema uses {} and {}", nodes,
          buffers, node_index_, buffer_index_));
    }
    return Status::OK();
  }

 private:
  Status Corrupt(std::string_view what, std::optional<uint64_t> at = std::nullopt) const {
    return CorruptAt(source_, at.value_or(message_.offset), what);
  }

  Result<const fb::FieldNode*> NextNode() {
    const auto* nodes = batch_.nodes();
    if (nodes == nullptr || node_index_ >= nodes->size()) {
      return Corrupt(
          fmt::format("the record batch has {} field nodes, its schema needs more", node_index_));
    }
    const fb::FieldNode* node = nodes->Get(node_index_++);
    if (node == nullptr) return Corrupt("missing field node");
    return node;
  }

  Result<std::shared_ptr<Buffer>> NextBuffer() {
    const auto* buffers = batch_.buffers();
    if (buffers == nullptr || buffer_index_ >= buffers->size()) {
      return Corrupt(
          fmt::format("the record batch has {} buffers, its schema needs more", buffer_index_));
    }
    const uint32_t index = buffer_index_++;
    const fb::Buffer* spec = buffers->Get(index);
    if (spec == nullptr) return Corrupt("missing buffer");
    const int64_t offset = spec->offset();
    const int64_t length = spec->length();
    const uint64_t body_size = message_.body->size();
    if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > body_size ||
        static_cast<uint64_t>(length) > body_size - static_cast<uint64_t>(offset)) {
      return Corrupt(fmt::format("buffer {} (offset {}, length {}) lies outside the {}-byte body",
                                 index, offset, length, body_size),
                     message_.body_offset);
    }
    auto buffer =
        Buffer::Slice(message_.body, static_cast<uint64_t>(offset), static_cast<uint64_t>(length));
    if (codec_.has_value()) {
      auto decompressed = codecs_->Decompress(*codec_, buffer, &budget_, options_.pool);
      if (!decompressed.ok()) {
        return Corrupt(fmt::format("buffer {}: {}", index, decompressed.status().message()),
                       message_.body_offset + static_cast<uint64_t>(offset));
      }
      buffer = std::move(decompressed).value();
    }
    return EnsureAligned(std::move(buffer), options_.pool);
  }

  std::string_view source_;
  const IncomingMessage& message_;
  const fb::RecordBatch& batch_;
  const std::optional<Compression> codec_;
  BodyCodec* codecs_;
  const DictionaryMemo* memo_;
  const ReadOptions& options_;
  uint64_t budget_;
  uint32_t node_index_ = 0;
  uint32_t buffer_index_ = 0;
};

// The body codec a RecordBatch table asks for, nullopt when it is not compressed.
Result<std::optional<Compression>> BodyCompressionOf(const fb::RecordBatch& batch,
                                                     std::string_view source, uint64_t offset) {
  const fb::BodyCompression* compression = batch.compression();
  if (compression == nullptr) return std::optional<Compression>();
  if (compression->method() != fb::BodyCompressionMethod_BUFFER) {
    return Status::Unsupported(fmt::format("arrow IPC {} at offset {}: body compression method {}",
                                           source, offset,
                                           static_cast<int>(compression->method())));
  }
  switch (compression->codec()) {
    case fb::CompressionType_LZ4_FRAME:
      return std::optional<Compression>(Compression::kLz4Frame);
    case fb::CompressionType_ZSTD:
      return std::optional<Compression>(Compression::kZstd);
  }
  return Status::Unsupported(fmt::format("arrow IPC {} at offset {}: compression codec {}", source,
                                         offset, static_cast<int>(compression->codec())));
}

}  // namespace

Result<RecordBatch> BatchDecoder::DecodeRecordBatch(const IncomingMessage& message,
                                                    const std::shared_ptr<const Schema>& schema,
                                                    const SchemaDictionaryIds& ids,
                                                    const DictionaryMemo& memo) {
  const fb::RecordBatch* batch = message.message->header_as_RecordBatch();
  if (batch == nullptr)
    return CorruptAt(source_, message.offset, "RecordBatch message without a body table");
  if (batch->length() < 0 || batch->length() > kMaxArrayLength) {
    return CorruptAt(source_, message.offset,
                     fmt::format("record batch length {} is out of range", batch->length()));
  }
  QV_ASSIGN_OR_RETURN(auto codec, BodyCompressionOf(*batch, source_, message.offset));
  ArrayLoader loader(source_, message, *batch, codec, &codec_, &memo, options_);
  QV_RETURN_IF_ERROR(loader.CheckAlignment());
  RecordBatch out;
  out.schema = schema;
  out.length = batch->length();
  out.columns.reserve(schema->fields.size());
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    QV_ASSIGN_OR_RETURN(auto column, loader.Load(schema->fields[i].type, ids[i]));
    out.columns.push_back(std::move(column));
  }
  QV_RETURN_IF_ERROR(loader.Finish());
  if (Status s = out.Validate(/*full=*/true); !s.ok()) {
    return CorruptAt(source_, message.offset, "record batch: " + s.message());
  }
  return out;
}

Status BatchDecoder::ApplyDictionaryBatch(const IncomingMessage& message, bool in_file,
                                          DictionaryMemo* memo) {
  const fb::DictionaryBatch* dict = message.message->header_as_DictionaryBatch();
  if (dict == nullptr || dict->data() == nullptr) {
    return CorruptAt(source_, message.offset, "DictionaryBatch message without its record batch");
  }
  DictionaryMemo::Entry* entry = memo->Find(dict->id());
  if (entry == nullptr) {
    return CorruptAt(
        source_, message.offset,
        fmt::format("dictionary batch for id {}, which no schema field uses", dict->id()));
  }
  const fb::RecordBatch& data = *dict->data();
  if (data.length() < 0 || data.length() > kMaxArrayLength) {
    return CorruptAt(source_, message.offset,
                     fmt::format("dictionary batch length {} is out of range", data.length()));
  }
  QV_ASSIGN_OR_RETURN(auto codec, BodyCompressionOf(data, source_, message.offset));
  // Dictionaries inside the values (nested dictionary fields) must have arrived before.
  ArrayLoader loader(source_, message, data, codec, &codec_, memo, options_);
  QV_RETURN_IF_ERROR(loader.CheckAlignment());
  QV_ASSIGN_OR_RETURN(auto values, loader.Load(entry->value_type, entry->value_ids));
  QV_RETURN_IF_ERROR(loader.Finish());
  if (values->length != data.length()) {
    return CorruptAt(source_, message.offset,
                     fmt::format("dictionary batch of length {} holds {} values", data.length(),
                                 values->length));
  }
  if (Status s = Validate(*values, /*full=*/true); !s.ok()) {
    return CorruptAt(source_, message.offset,
                     fmt::format("dictionary {}: {}", dict->id(), s.message()));
  }
  if (dict->isDelta()) {
    if (entry->dictionary == nullptr) {
      return CorruptAt(
          source_, message.offset,
          fmt::format("delta for dictionary id {} before its first batch", dict->id()));
    }
    if (entry->dictionary->length > kMaxArrayLength - values->length) {
      return CorruptAt(source_, message.offset,
                       fmt::format("deltas grow dictionary id {} beyond {} entries", dict->id(),
                                   kMaxArrayLength));
    }
    auto merged = Concatenate({entry->dictionary, values}, options_.pool);
    if (!merged.ok()) {
      return CorruptAt(
          source_, message.offset,
          fmt::format("delta for dictionary id {}: {}", dict->id(), merged.status().message()));
    }
    entry->dictionary = std::move(merged).value();
    return Status::OK();
  }
  if (in_file && entry->dictionary != nullptr) {
    return CorruptAt(source_, message.offset,
                     fmt::format("a second dictionary for id {}: files cannot replace "
                                 "dictionaries",
                                 dict->id()));
  }
  entry->dictionary = std::move(values);
  return Status::OK();
}

}  // namespace quiver::arrow::ipc::internal
