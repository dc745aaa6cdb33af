// LZ4 frame and zstd body compression of Arrow IPC buffers (see compression.h).
#include "arrow/ipc/internal/compression.h"

#include <lz4frame.h>
#include <zstd.h>

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "common/little_endian.h"

namespace quiver::arrow::ipc {

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kLz4Frame:
      return "lz4_frame";
    case Compression::kZstd:
      return "zstd";
  }
  return "?";
}

namespace internal {
namespace {

constexpr int64_t kStoredRaw = -1;

int64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}

// LZ4 spends at least one byte per 255 bytes of match length, so no frame expands more than
// about 255x: a larger claim for a frame that does not record its size is a lie.
constexpr uint64_t kLz4MaxExpansion = 256;

// Checks the sizes a frame's header can tell before any allocation: the content size when the
// frame records it, else (LZ4) the largest expansion the format allows.
Status CheckFrameHeader(Compression codec, const uint8_t* src, uint64_t src_size,
                        uint64_t claimed) {
  if (codec == Compression::kZstd) {
    const unsigned long long content = ZSTD_getFrameContentSize(src, src_size);
    if (content == ZSTD_CONTENTSIZE_ERROR) return Status::Corruption("zstd frame header");
    // Only a single frame's recorded size is the whole content.
    if (content != ZSTD_CONTENTSIZE_UNKNOWN &&
        ZSTD_findFrameCompressedSize(src, src_size) == src_size && content != claimed) {
      return Status::Corruption(
          fmt::format("zstd frame holds {} bytes, its buffer declares {}", content, claimed));
    }
    return Status::OK();
  }
  // LZ4 frame header: magic, FLG, BD, [content size: 8 bytes LE if FLG bit 3], ...
  if (src_size < 7 || LoadLE<uint32_t>(src) != 0x184D2204u)
    return Status::Corruption("lz4 frame header");
  if ((src[4] & 0x08) != 0) {
    if (src_size < 14) return Status::Corruption("lz4 frame header");
    uint64_t content = 0;
    for (int i = 7; i >= 0; --i) content = (content << 8) | src[6 + i];
    if (content != claimed) {
      return Status::Corruption(
          fmt::format("lz4 frame holds {} bytes, its buffer declares {}", content, claimed));
    }
  } else if (claimed / kLz4MaxExpansion > src_size) {
    return Status::Corruption(fmt::format(
        "lz4 frame of {} bytes cannot hold the {} bytes its buffer declares", src_size, claimed));
  }
  return Status::OK();
}

}  // namespace

struct BodyCodec::Contexts {
  LZ4F_dctx* lz4_dctx = nullptr;
  ZSTD_CCtx* zstd_cctx = nullptr;
  ZSTD_DCtx* zstd_dctx = nullptr;

  ~Contexts() {
    if (lz4_dctx != nullptr) LZ4F_freeDecompressionContext(lz4_dctx);
    ZSTD_freeCCtx(zstd_cctx);  // both accept nullptr
    ZSTD_freeDCtx(zstd_dctx);
  }
};

BodyCodec::BodyCodec() : contexts_(std::make_unique<Contexts>()) {}

BodyCodec::~BodyCodec() = default;

Status BodyCodec::Compress(Compression codec, int zstd_level, std::string_view raw,
                           std::string* out) {
  if (raw.empty()) return Status::OK();
  const size_t start = out->size();
  AppendLE<int64_t>(out, static_cast<int64_t>(raw.size()));
  size_t written = 0;
  if (codec == Compression::kLz4Frame) {
    LZ4F_preferences_t prefs;
    std::memset(&prefs, 0, sizeof(prefs));
    // Recording the size lets readers check it before they allocate.
    prefs.frameInfo.contentSize = raw.size();
    const size_t bound = LZ4F_compressFrameBound(raw.size(), &prefs);
    out->resize(start + 8 + bound);
    written = LZ4F_compressFrame(out->data() + start + 8, bound, raw.data(), raw.size(), &prefs);
    if (LZ4F_isError(written)) {
      out->resize(start);
      return Status::Internal(
          fmt::format("lz4 frame compression failed: {}", LZ4F_getErrorName(written)));
    }
  } else {
    if (contexts_->zstd_cctx == nullptr) contexts_->zstd_cctx = ZSTD_createCCtx();
    if (contexts_->zstd_cctx == nullptr) return Status::IOError("out of memory (zstd context)");
    const size_t bound = ZSTD_compressBound(raw.size());
    out->resize(start + 8 + bound);
    written = ZSTD_compressCCtx(contexts_->zstd_cctx, out->data() + start + 8, bound, raw.data(),
                                raw.size(), zstd_level);
    if (ZSTD_isError(written)) {
      out->resize(start);
      return Status::Internal(
          fmt::format("zstd compression failed: {}", ZSTD_getErrorName(written)));
    }
  }
  if (written >= raw.size()) {
    // Compression does not pay: store the bytes as they are.
    out->resize(start);
    AppendLE<int64_t>(out, kStoredRaw);
    out->append(raw);
    return Status::OK();
  }
  out->resize(start + 8 + written);
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BodyCodec::Decompress(Compression codec,
                                                      const std::shared_ptr<Buffer>& stored,
                                                      uint64_t* budget, MemoryPool* pool) {
  if (stored->size() == 0) return stored;
  if (stored->size() < 8) {
    return Status::Corruption(fmt::format(
        "compressed buffer of {} bytes is shorter than its 8-byte length prefix", stored->size()));
  }
  const int64_t length = LoadLe64(stored->data());
  if (length == kStoredRaw) return Buffer::Slice(stored, 8, stored->size() - 8);
  if (length < 0) {
    return Status::Corruption(fmt::format("compressed buffer declares length {}", length));
  }
  if (static_cast<uint64_t>(length) > *budget) {
    return Status::Corruption(fmt::format(
        "compressed buffer declares {} bytes, more than the {} bytes left of the message's "
        "decompression limit",
        length, *budget));
  }
  const uint8_t* src = stored->data() + 8;
  const uint64_t src_size = stored->size() - 8;
  // Check what the frame header says before allocating what the prefix claims.
  QV_RETURN_IF_ERROR(CheckFrameHeader(codec, src, src_size, static_cast<uint64_t>(length)));
  *budget -= static_cast<uint64_t>(length);
  QV_ASSIGN_OR_RETURN(auto out, Buffer::Allocate(static_cast<uint64_t>(length), pool));
  if (codec == Compression::kLz4Frame) {
    QV_RETURN_IF_ERROR(DecompressLz4(src, src_size, out->mutable_data(), out->size()));
  } else {
    QV_RETURN_IF_ERROR(DecompressZstd(src, src_size, out->mutable_data(), out->size()));
  }
  return out;
}

Status BodyCodec::DecompressLz4(const uint8_t* src, uint64_t src_size, uint8_t* dst,
                                uint64_t dst_size) {
  if (contexts_->lz4_dctx == nullptr) {
    const size_t rc = LZ4F_createDecompressionContext(&contexts_->lz4_dctx, LZ4F_VERSION);
    if (LZ4F_isError(rc)) return Status::IOError("out of memory (lz4 context)");
  } else {
    LZ4F_resetDecompressionContext(contexts_->lz4_dctx);
  }
  LZ4F_dctx* dctx = contexts_->lz4_dctx;
  auto fail = [&](std::string what) {
    // A context that saw an error must be reset before its next use.
    LZ4F_resetDecompressionContext(dctx);
    return Status::Corruption("lz4 frame " + what);
  };
  LZ4F_frameInfo_t info;
  std::memset(&info, 0, sizeof(info));
  size_t consumed = src_size;
  size_t rc = LZ4F_getFrameInfo(dctx, &info, src, &consumed);
  if (LZ4F_isError(rc)) return fail(fmt::format("header: {}", LZ4F_getErrorName(rc)));
  if (info.contentSize != 0 && info.contentSize != dst_size) {
    return fail(fmt::format("holds {} bytes, its buffer declares {}", info.contentSize, dst_size));
  }
  uint64_t in = consumed, out = 0;
  for (;;) {
    size_t dst_avail = static_cast<size_t>(dst_size - out);
    size_t src_avail = static_cast<size_t>(src_size - in);
    rc = LZ4F_decompress(dctx, dst + out, &dst_avail, src + in, &src_avail, nullptr);
    if (LZ4F_isError(rc)) return fail(fmt::format("data: {}", LZ4F_getErrorName(rc)));
    in += src_avail;
    out += dst_avail;
    if (rc == 0) break;  // the frame is complete
    if (in == src_size) return fail("truncated");
    if (dst_avail == 0 && src_avail == 0) {
      // No progress although input remains: the output is full and the frame wants more.
      return fail(fmt::format("holds more than the {} bytes its buffer declares", dst_size));
    }
  }
  if (in != src_size) return fail(fmt::format("followed by {} stray bytes", src_size - in));
  if (out != dst_size) {
    return fail(fmt::format("holds {} bytes, its buffer declares {}", out, dst_size));
  }
  return Status::OK();
}

Status BodyCodec::DecompressZstd(const uint8_t* src, uint64_t src_size, uint8_t* dst,
                                 uint64_t dst_size) {
  if (contexts_->zstd_dctx == nullptr) contexts_->zstd_dctx = ZSTD_createDCtx();
  if (contexts_->zstd_dctx == nullptr) return Status::IOError("out of memory (zstd context)");
  const size_t got = ZSTD_decompressDCtx(contexts_->zstd_dctx, dst, dst_size, src, src_size);
  if (ZSTD_isError(got)) {
    return Status::Corruption(fmt::format("zstd frame: {}", ZSTD_getErrorName(got)));
  }
  if (got != dst_size) {
    return Status::Corruption(
        fmt::format("zstd frame holds {} bytes, its buffer declares {}", got, dst_size));
  }
  return Status::OK();
}

}  // namespace internal
}  // namespace quiver::arrow::ipc
