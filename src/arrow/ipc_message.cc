// Arrow IPC schema messages: flatbuffers <-> IpcSchemaSummary (see ipc_message.h). Type names
// come from ipc/internal/schema_fb, which the IPC reader uses for its messages too.
#include "arrow/ipc_message.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "arrow/internal/fbs/Message_generated.h"
#include "arrow/ipc/internal/schema_fb.h"
#include "common/little_endian.h"

namespace quiver::arrow {
namespace {

namespace fb = ::org::apache::arrow::flatbuf;

constexpr uint32_t kContinuation = 0xFFFFFFFFu;
// Bounds for the verifier: a schema nests at most this many tables deep (each nested field is
// two: Field + its type table), and holds at most this many tables in all.
constexpr flatbuffers::uoffset_t kMaxDepth = 128;
constexpr flatbuffers::uoffset_t kMaxTables = 1'000'000;

// Recursion depth is bounded by the verifier's kMaxDepth.
Result<IpcField> ConvertField(const fb::Field& field) {
  IpcField out;
  if (field.name() != nullptr) out.name = field.name()->str();
  out.nullable = field.nullable();
  QV_ASSIGN_OR_RETURN(out.type, ipc::internal::FlatbufferTypeName(field));
  if (const fb::DictionaryEncoding* dict = field.dictionary(); dict != nullptr) {
    std::string index = "int32";  // the spec's default when indexType is absent
    if (dict->indexType() != nullptr) {
      QV_ASSIGN_OR_RETURN(index, ipc::internal::FlatbufferIntName(*dict->indexType()));
    }
    out.type = fmt::format("dictionary<{}, {}>", out.type, index);
  }
  if (field.children() != nullptr) {
    out.children.reserve(field.children()->size());
    for (const fb::Field* child : *field.children()) {
      if (child == nullptr) return Status::Corruption("arrow Field with a null child");
      QV_ASSIGN_OR_RETURN(IpcField c, ConvertField(*child));
      out.children.push_back(std::move(c));
    }
  }
  return out;
}

// --- writing ---------------------------------------------------------------------------------

struct IntSpec {
  std::string_view name;
  int32_t bits;
  bool is_signed;
};
constexpr IntSpec kInts[] = {{"int8", 8, true},     {"int16", 16, true},  {"int32", 32, true},
                             {"int64", 64, true},   {"uint8", 8, false},  {"uint16", 16, false},
                             {"uint32", 32, false}, {"uint64", 64, false}};

Result<flatbuffers::Offset<fb::Field>> BuildField(flatbuffers::FlatBufferBuilder& fbb,
                                                  const IpcField& field, int depth) {
  if (depth > 32) return Status::InvalidInput("arrow schema nests deeper than 32 levels");
  // Children first: flatbuffers builds bottom-up.
  std::vector<flatbuffers::Offset<fb::Field>> children;
  children.reserve(field.children.size());
  for (const IpcField& child : field.children) {
    QV_ASSIGN_OR_RETURN(auto c, BuildField(fbb, child, depth + 1));
    children.push_back(c);
  }
  const std::string_view t = field.type;
  const bool nested = t == "list" || t == "struct";
  if (!nested && !field.children.empty()) {
    return Status::InvalidInput(
        fmt::format("arrow field '{}' of type {} cannot have children", field.name, t));
  }
  if (t == "list" && field.children.size() != 1) {
    return Status::InvalidInput(
        fmt::format("arrow list field '{}' needs exactly one child", field.name));
  }

  fb::Type type_type = fb::Type_NONE;
  flatbuffers::Offset<void> type_table;
  for (const IntSpec& spec : kInts) {
    if (t == spec.name) {
      type_type = fb::Type_Int;
      type_table = fb::CreateInt(fbb, spec.bits, spec.is_signed).Union();
    }
  }
  if (type_type != fb::Type_NONE) {
    // set above
  } else if (t == "float32" || t == "float64") {
    type_type = fb::Type_FloatingPoint;
    type_table =
        fb::CreateFloatingPoint(fbb, t == "float32" ? fb::Precision_SINGLE : fb::Precision_DOUBLE)
            .Union();
  } else if (t == "bool") {
    type_type = fb::Type_Bool;
    type_table = fb::CreateBool(fbb).Union();
  } else if (t == "binary") {
    type_type = fb::Type_Binary;
    type_table = fb::CreateBinary(fbb).Union();
  } else if (t == "utf8") {
    type_type = fb::Type_Utf8;
    type_table = fb::CreateUtf8(fbb).Union();
  } else if (t == "large_binary") {
    type_type = fb::Type_LargeBinary;
    type_table = fb::CreateLargeBinary(fbb).Union();
  } else if (t == "large_utf8") {
    type_type = fb::Type_LargeUtf8;
    type_table = fb::CreateLargeUtf8(fbb).Union();
  } else if (t == "list") {
    type_type = fb::Type_List;
    type_table = fb::CreateList(fbb).Union();
  } else if (t == "struct") {
    type_type = fb::Type_Struct_;
    type_table = fb::CreateStruct_(fbb).Union();
  } else {
    return Status::InvalidInput(
        fmt::format("arrow field '{}': cannot write type '{}'", field.name, t));
  }
  // Arrow writers always write the children vector (empty for leaves).
  return fb::CreateField(fbb, fbb.CreateString(field.name), field.nullable, type_type, type_table,
                         /*dictionary=*/0, fbb.CreateVector(children));
}

}  // namespace

Result<IpcSchemaSummary> ReadIpcSchemaMessage(std::string_view message_bytes) {
  if (message_bytes.empty()) return Status::Corruption("empty arrow IPC message");
  // Copy into 8-aligned storage: the bytes may sit at any address (a view into a file), and
  // flatbuffers reads scalars in place.
  std::vector<uint64_t> aligned((message_bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), message_bytes.data(), message_bytes.size());
  const auto* buf = reinterpret_cast<const uint8_t*>(aligned.data());

  flatbuffers::Verifier verifier(buf, message_bytes.size(), kMaxDepth, kMaxTables);
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::Corruption("arrow IPC message is not a valid Message flatbuffer");
  }
  const fb::Message* message = fb::GetMessage(buf);
  if (message->header_type() != fb::MessageHeader_Schema) {
    return Status::Unsupported(fmt::format("arrow IPC message has header type {}, not Schema",
                                           static_cast<int>(message->header_type())));
  }
  const fb::Schema* schema = message->header_as_Schema();
  if (schema == nullptr) return Status::Corruption("arrow Schema message without a Schema");

  IpcSchemaSummary out;
  out.big_endian = schema->endianness() == fb::Endianness_Big;
  if (schema->fields() != nullptr) {
    out.fields.reserve(schema->fields()->size());
    for (const fb::Field* field : *schema->fields()) {
      if (field == nullptr) return Status::Corruption("arrow Schema with a null field");
      QV_ASSIGN_OR_RETURN(IpcField f, ConvertField(*field));
      out.fields.push_back(std::move(f));
    }
  }
  return out;
}

Result<std::string> WriteIpcSchemaMessage(const IpcSchemaSummary& schema) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  fields.reserve(schema.fields.size());
  for (const IpcField& field : schema.fields) {
    QV_ASSIGN_OR_RETURN(auto f, BuildField(fbb, field, 0));
    fields.push_back(f);
  }
  const auto fb_schema =
      fb::CreateSchema(fbb, schema.big_endian ? fb::Endianness_Big : fb::Endianness_Little,
                       fbb.CreateVector(fields));
  const auto message = fb::CreateMessage(fbb, fb::MetadataVersion_V5, fb::MessageHeader_Schema,
                                         fb_schema.Union(), /*bodyLength=*/0);
  fb::FinishMessageBuffer(fbb, message);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

Result<std::string_view> FirstIpcMessageMetadata(std::string_view stream_bytes) {
  if (stream_bytes.size() < 4) {
    return Status::Corruption(
        fmt::format("arrow IPC stream of {} bytes has no message", stream_bytes.size()));
  }
  size_t pos = 0;
  uint32_t word = LoadLE<uint32_t>(stream_bytes.data());
  if (word == kContinuation) {
    if (stream_bytes.size() < 8) {
      return Status::Corruption("arrow IPC stream truncated in a message length");
    }
    word = LoadLE<uint32_t>(stream_bytes.data() + 4);
    pos = 8;
  } else {
    pos = 4;  // pre-0.15 framing: the length comes first
  }
  const auto length = static_cast<int32_t>(word);
  if (length == 0) return Status::NotFound("arrow IPC stream starts with end-of-stream");
  if (length < 0) {
    return Status::Corruption(fmt::format("arrow IPC message length {} is negative", length));
  }
  if (static_cast<size_t>(length) > stream_bytes.size() - pos) {
    return Status::Corruption(fmt::format("arrow IPC message of {} bytes truncated at {}", length,
                                          stream_bytes.size() - pos));
  }
  return stream_bytes.substr(pos, static_cast<size_t>(length));
}

std::string EncapsulateIpcMessage(std::string_view message_bytes) {
  const size_t padded = (8 + message_bytes.size() + 7) / 8 * 8 - 8;
  std::string out;
  out.reserve(8 + padded);
  AppendLE<uint32_t>(&out, kContinuation);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(padded));
  out.append(message_bytes);
  out.append(padded - message_bytes.size(), '\0');
  return out;
}

}  // namespace quiver::arrow
