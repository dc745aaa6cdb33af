// Record batches, dictionary batches and schemas -> IPC messages (see batch_writer.h).
#include "arrow/ipc/internal/batch_writer.h"

#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "arrow/internal/fbs/Message_generated.h"
#include "arrow/ipc/internal/schema_fb.h"

namespace quiver::arrow::ipc::internal {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

BodyPart Empty() { return BodyPart{}; }

BodyPart View(const std::shared_ptr<Buffer>& buffer, int64_t offset, int64_t length) {
  if (length <= 0) return Empty();
  return BodyPart{std::string_view(reinterpret_cast<const char*>(buffer->data()) + offset,
                                   static_cast<size_t>(length)),
                  buffer};
}

BodyPart Owned(std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  return BodyPart{std::string_view(*owner), owner};
}

// `length` bits of `bits` from bit `offset`, starting at bit 0 of the result.
BodyPart Bitmap(const std::shared_ptr<Buffer>& bits, int64_t offset, int64_t length) {
  if (length == 0) return Empty();
  const int64_t bytes = BytesForBits(length);
  if (offset % 8 == 0) return View(bits, offset / 8, bytes);
  std::string shifted(static_cast<size_t>(bytes), '\0');
  CopyBits(bits->data(), offset, length, reinterpret_cast<uint8_t*>(shifted.data()), 0);
  return Owned(std::move(shifted));
}

// Collects the field nodes and body buffers of arrays in pre-order.
class Flattener {
 public:
  std::vector<fb::FieldNode> nodes;
  std::vector<BodyPart> parts;

  Status Visit(const ArrayData& a) {
    const TypeId id = a.type.id();
    if (id == TypeId::kNull) {
      nodes.emplace_back(a.length, a.length);
      return Status::OK();  // no buffers
    }
    nodes.emplace_back(a.length, a.null_count);
    // Arrays without nulls are written without a bitmap (a zero-length buffer).
    parts.push_back(a.null_count > 0 && a.buffers[0] != nullptr
                        ? Bitmap(a.buffers[0], a.offset, a.length)
                        : Empty());
    if (id == TypeId::kDictionary) {
      const int64_t width = IntegerByteWidth(a.type.index_type());
      parts.push_back(View(a.buffers[1], a.offset * width, a.length * width));
      return Status::OK();
    }
    if (id == TypeId::kBool) {
      parts.push_back(Bitmap(a.buffers[1], a.offset, a.length));
      return Status::OK();
    }
    if (IsFixedWidth(a.type)) {
      const int64_t width = BitWidth(a.type) / 8;
      parts.push_back(View(a.buffers[1], a.offset * width, a.length * width));
      return Status::OK();
    }
    if (IsBinaryLike(id) || IsOffsetList(id)) {
      int64_t first = 0, last = 0;
      parts.push_back(Offsets(a, &first, &last));
      if (IsBinaryLike(id)) {
        parts.push_back(View(a.buffers[2], first, last - first));
        return Status::OK();
      }
      return Visit(*Slice(a.children[0], first, last - first));
    }
    if (id == TypeId::kFixedSizeList || id == TypeId::kStruct) {
      for (size_t k = 0; k < a.children.size(); ++k) {
        QV_RETURN_IF_ERROR(Visit(*StructField(a, static_cast<int>(k))));
      }
      return Status::OK();
    }
    return Status::InvalidInput("arrow IPC cannot write arrays of " + a.type.ToString());
  }

 private:
  // Offsets of rows [offset, offset + length] rebased to start at zero; [first, last) is the
  // range of data bytes or child rows they cover.
  static BodyPart Offsets(const ArrayData& a, int64_t* first, int64_t* last) {
    const bool large = IsLargeOffsets(a.type.id());
    const int64_t width = large ? 8 : 4;
    if (a.length == 0) {
      // One zero offset: readers expect length + 1 entries.
      *first = *last = 0;
      return Owned(std::string(static_cast<size_t>(width), '\0'));
    }
    *first = OffsetValue(a, 0);
    *last = OffsetValue(a, a.length);
    if (*first == 0) return View(a.buffers[1], a.offset * width, (a.length + 1) * width);
    std::string rebased(static_cast<size_t>((a.length + 1) * width), '\0');
    for (int64_t i = 0; i <= a.length; ++i) {
      const int64_t v = OffsetValue(a, i) - *first;
      if (large) {
        std::memcpy(rebased.data() + 8 * i, &v, 8);
      } else {
        const auto v32 = static_cast<int32_t>(v);
        std::memcpy(rebased.data() + 4 * i, &v32, 4);
      }
    }
    return Owned(std::move(rebased));
  }
};

fb::CompressionType FbCodec(Compression compression) {
  return compression == Compression::kZstd ? fb::CompressionType_ZSTD
                                           : fb::CompressionType_LZ4_FRAME;
}

std::string Finish(flatbuffers::FlatBufferBuilder& fbb, fb::MessageHeader header_type,
                   flatbuffers::Offset<void> header, int64_t body_length) {
  const auto message =
      fb::CreateMessage(fbb, fb::MetadataVersion_V5, header_type, header, body_length);
  fb::FinishMessageBuffer(fbb, message);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

}  // namespace

Result<std::string> EncodeSchemaMessage(const Schema& schema, const SchemaDictionaryIds& ids) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  QV_ASSIGN_OR_RETURN(uint32_t raw, SchemaToFlatbuffer(fbb, schema, ids));
  return Finish(fbb, fb::MessageHeader_Schema, flatbuffers::Offset<void>(raw), 0);
}

namespace {

// Builds the RecordBatch table of `columns` (compressing the parts when asked) in `fbb`, and
// moves the body parts into `out`.
Result<flatbuffers::Offset<fb::RecordBatch>> BuildRecordBatch(
    flatbuffers::FlatBufferBuilder& fbb, int64_t length,
    const std::vector<const ArrayData*>& columns, const WriteOptions& options, BodyCodec& codec,
    OutgoingMessage* out) {
  Flattener flat;
  for (const ArrayData* column : columns) QV_RETURN_IF_ERROR(flat.Visit(*column));
  std::vector<fb::Buffer> specs;
  specs.reserve(flat.parts.size());
  int64_t offset = 0;
  for (BodyPart& part : flat.parts) {
    if (options.compression != Compression::kNone && !part.bytes.empty()) {
      std::string compressed;
      QV_RETURN_IF_ERROR(
          codec.Compress(options.compression, options.zstd_level, part.bytes, &compressed));
      part = Owned(std::move(compressed));
    }
    const auto size = static_cast<int64_t>(part.bytes.size());
    specs.emplace_back(offset, size);
    offset += PaddedTo8(size);
  }
  out->body = std::move(flat.parts);
  out->body_length = offset;
  const auto nodes = fbb.CreateVectorOfStructs(flat.nodes);
  const auto buffers = fbb.CreateVectorOfStructs(specs);
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (options.compression != Compression::kNone) {
    compression = fb::CreateBodyCompression(fbb, FbCodec(options.compression),
                                            fb::BodyCompressionMethod_BUFFER);
  }
  return fb::CreateRecordBatch(fbb, length, nodes, buffers, compression);
}

}  // namespace

Result<OutgoingMessage> BatchEncoder::EncodeRecordBatch(const RecordBatch& batch) {
  std::vector<const ArrayData*> columns;
  columns.reserve(batch.columns.size());
  for (const ArrayPtr& column : batch.columns) columns.push_back(column.get());
  OutgoingMessage out;
  flatbuffers::FlatBufferBuilder fbb(1024);
  QV_ASSIGN_OR_RETURN(auto record_batch,
                      BuildRecordBatch(fbb, batch.length, columns, options_, codec_, &out));
  out.metadata = Finish(fbb, fb::MessageHeader_RecordBatch, record_batch.Union(), out.body_length);
  return out;
}

Result<OutgoingMessage> BatchEncoder::EncodeDictionaryBatch(int64_t id, const ArrayData& dictionary,
                                                            bool is_delta) {
  OutgoingMessage out;
  flatbuffers::FlatBufferBuilder fbb(1024);
  QV_ASSIGN_OR_RETURN(
      auto data, BuildRecordBatch(fbb, dictionary.length, {&dictionary}, options_, codec_, &out));
  const auto batch = fb::CreateDictionaryBatch(fbb, id, data, is_delta);
  out.metadata = Finish(fbb, fb::MessageHeader_DictionaryBatch, batch.Union(), out.body_length);
  return out;
}

}  // namespace quiver::arrow::ipc::internal
