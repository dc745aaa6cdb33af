#include "format/manifest_file.h"

#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include <google/protobuf/stubs/logging.h>

#include "common/logging.h"
#include "format/lance_proto.h"

namespace quiver::format {
namespace {

template <typename T>
T LoadLe(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86-64 and aarch64 are little-endian, as the format is
  return v;
}

template <typename T>
void AppendLe(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

// Parses "u32 length + message" at `offset`, requiring it to end at or before `limit`.
template <typename Message>
Status ParseSection(std::string_view bytes, uint64_t offset, uint64_t limit, const char* section,
                    const std::string& what, Message* out) {
  if (offset > limit || limit - offset < 4) {
    return Status::Corruption(
        fmt::format("{}: {} offset {} is outside the file", what, section, offset));
  }
  uint32_t len = LoadLe<uint32_t>(bytes.data() + offset);
  if (len > limit - offset - 4) {
    return Status::Corruption(fmt::format("{}: {} at offset {} claims {} bytes, only {} remain",
                                          what, section, offset, len, limit - offset - 4));
  }
  if (!out->ParseFromArray(bytes.data() + offset + 4, static_cast<int>(len))) {
    return Status::Corruption(
        fmt::format("{}: {} at offset {} is not a valid protobuf message", what, section, offset));
  }
  return Status::OK();
}

void AppendSection(std::string& out, const google::protobuf::MessageLite& message) {
  std::string body = message.SerializeAsString();
  AppendLe<uint32_t>(out, static_cast<uint32_t>(body.size()));
  out += body;
}

// protobuf logs malformed input to stderr itself; route that to our logger at debug level (the
// caller gets a Corruption status naming the file, which is what matters).
void RouteProtobufLogs() {
  static std::once_flag once;
  std::call_once(once, [] {
    google::protobuf::SetLogHandler(
        [](google::protobuf::LogLevel, const char*, int, const std::string& message) {
          QV_LOG_DEBUG("protobuf", {{"message", message}});
        });
  });
}

}  // namespace

Result<ManifestFile> DecodeManifestFile(std::string_view bytes, const std::string& what) {
  RouteProtobufLogs();
  const uint64_t size = bytes.size();
  if (size < kManifestFooterBytes + 4) {
    return Status::Corruption(
        fmt::format("{}: {} bytes is too short to be a Lance manifest", what, size));
  }
  const char* footer = bytes.data() + size - kManifestFooterBytes;
  if (std::string_view(footer + 12, 4) != kManifestMagic) {
    return Status::Corruption(
        fmt::format("{}: no LANC magic at the end: not a Lance manifest "
                    "(or truncated)",
                    what));
  }
  int64_t pos = LoadLe<int64_t>(footer);
  int16_t major = LoadLe<int16_t>(footer + 8);
  int16_t minor = LoadLe<int16_t>(footer + 10);
  const uint64_t body_end = size - kManifestFooterBytes;
  if (pos < 0 || static_cast<uint64_t>(pos) + 4 > body_end) {
    return Status::Corruption(fmt::format("{}: manifest offset {} is outside the file", what, pos));
  }
  // The manifest is the last section: its length prefix must account for every byte up to the
  // footer (this is how Lance detects a truncated or spliced file).
  uint32_t len = LoadLe<uint32_t>(bytes.data() + pos);
  if (uint64_t{len} != body_end - static_cast<uint64_t>(pos) - 4) {
    return Status::Corruption(fmt::format(
        "{}: manifest length {} does not reach the footer ({} bytes between offset {} and it)",
        what, len, body_end - static_cast<uint64_t>(pos) - 4, pos));
  }
  // Checked after the structure: a garbage file that happens to end in "LANC" is corrupt, not a
  // manifest of an unknown version.
  if (major != 0 || minor != 2) {
    return Status::Unsupported(
        fmt::format("{}: manifest format version {}.{} is not 0.2", what, major, minor));
  }
  auto manifest = std::make_shared<lance::table::Manifest>();
  QV_RETURN_IF_ERROR(
      ParseSection(bytes, static_cast<uint64_t>(pos), body_end, "manifest", what, manifest.get()));
  ManifestFile file;
  file.file_size = size;
  if (manifest->has_index_section()) {
    auto section = std::make_shared<lance::table::IndexSection>();
    QV_RETURN_IF_ERROR(ParseSection(bytes, manifest->index_section(), static_cast<uint64_t>(pos),
                                    "index section", what, section.get()));
    file.index_section = std::move(section);
  }
  if (manifest->has_transaction_section()) {
    auto txn = std::make_shared<lance::table::Transaction>();
    QV_RETURN_IF_ERROR(ParseSection(bytes, manifest->transaction_section(),
                                    static_cast<uint64_t>(pos), "transaction section", what,
                                    txn.get()));
    file.transaction = std::move(txn);
  }
  file.manifest = std::move(manifest);
  return file;
}

std::string EncodeManifestFile(const lance::table::Manifest& manifest,
                               const lance::table::Transaction* transaction,
                               const lance::table::IndexSection* index_section) {
  std::string out;
  lance::table::Manifest copy = manifest;
  copy.clear_index_section();
  copy.clear_transaction_section();
  if (index_section != nullptr && index_section->indices_size() > 0) {
    copy.set_index_section(out.size());
    AppendSection(out, *index_section);
  }
  if (transaction != nullptr) {
    copy.set_transaction_section(out.size());
    AppendSection(out, *transaction);
  }
  const int64_t pos = static_cast<int64_t>(out.size());
  AppendSection(out, copy);
  AppendLe<int64_t>(out, pos);
  AppendLe<int16_t>(out, 0);
  AppendLe<int16_t>(out, 2);
  out += kManifestMagic;
  return out;
}

}  // namespace quiver::format
