#include "format/internal/codecs/general.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "format/internal/codecs/bytes.h"

namespace quiver::format::codecs {
namespace {

using internal::LoadLE;
using internal::StoreLE;

constexpr uint32_t kZstdMagic = 0xFD2FB528;

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}
ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}

// Lance's rule (block.rs, is_raw_stream_format): shorter than 8 bytes, or the zstd magic
// followed by a frame header descriptor whose bit 0x10 is clear.
bool IsBareZstd(std::span<const uint8_t> in) {
  if (in.size() < 8) return true;
  if (LoadLE<uint32_t>(in.data()) != kZstdMagic) return false;
  return (in[4] & 0x10) == 0;
}

Status DecompressBareZstd(std::span<const uint8_t> in, size_t max_decoded,
                          std::vector<uint8_t>* out) {
  ZSTD_DCtx* dctx = ThreadDCtx();
  if (dctx == nullptr) return Status::Internal("zstd: cannot create a decompression context");
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  const size_t base = out->size();
  // One byte beyond the limit is allowed into the buffer so an overflow is detected.
  const size_t hard_cap =
      max_decoded == std::numeric_limits<size_t>::max() ? max_decoded : max_decoded + 1;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t produced = 0;
  size_t hint = 0;
  size_t step = std::max<size_t>(std::min<size_t>(in.size() * 4, max_decoded), 4096);
  while (true) {
    const size_t cap = std::min(hard_cap, produced + step);
    out->resize(base + cap);
    ZSTD_outBuffer output{out->data() + base, cap, produced};
    const size_t in_before = input.pos;
    hint = ZSTD_decompressStream(dctx, &output, &input);
    if (ZSTD_isError(hint)) {
      out->resize(base);
      return Status::Corruption(
          fmt::format("zstd stream: {} (input offset {})", ZSTD_getErrorName(hint), input.pos));
    }
    const bool progressed = output.pos != produced || input.pos != in_before;
    produced = output.pos;
    if (produced > max_decoded) {
      out->resize(base);
      return Status::Corruption(
          fmt::format("zstd stream: decompresses to more than the {}-byte limit", max_decoded));
    }
    if (input.pos == input.size && output.pos < output.size) break;  // everything flushed
    if (output.pos == output.size) {
      step = std::min<size_t>(step * 2, size_t{1} << 40);
    } else if (!progressed) {
      out->resize(base);
      return Status::Corruption(
          fmt::format("zstd stream: decoder stalled at input offset {}", input.pos));
    }
  }
  out->resize(base + produced);
  if (hint != 0) {
    out->resize(base);
    return Status::Corruption(
        fmt::format("zstd stream: truncated frame ({} bytes of input)", in.size()));
  }
  return Status::OK();
}

}  // namespace

Status DecompressLz4Unit(std::span<const uint8_t> in, size_t max_decoded,
                         std::vector<uint8_t>* out) {
  if (in.size() < 4) {
    return Status::Corruption(
        fmt::format("lz4 unit: {} bytes cannot hold the 4-byte length prefix", in.size()));
  }
  const uint32_t declared = LoadLE<uint32_t>(in.data());
  if (declared > max_decoded) {
    return Status::Corruption(
        fmt::format("lz4 unit: declared length {} at offset 0 exceeds the {}-byte limit", declared,
                    max_decoded));
  }
  if (declared > static_cast<uint32_t>(std::numeric_limits<int>::max()) ||
      in.size() - 4 > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corruption("lz4 unit: sizes of 2 GiB or more are not supported by lz4");
  }
  const size_t base = out->size();
  out->resize(base + declared);
  const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + 4),
                                      reinterpret_cast<char*>(out->data() + base),
                                      static_cast<int>(in.size() - 4), static_cast<int>(declared));
  if (got < 0 || static_cast<uint32_t>(got) != declared) {
    out->resize(base);
    if (got < 0) {
      return Status::Corruption(
          fmt::format("lz4 unit: malformed lz4 block at offset 4 ({} bytes, declared length {})",
                      in.size() - 4, declared));
    }
    return Status::Corruption(fmt::format(
        "lz4 unit: block decompresses to {} bytes, length prefix says {}", got, declared));
  }
  return Status::OK();
}

Status CompressLz4Unit(std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::InvalidInput(fmt::format("lz4 unit: {} bytes exceed lz4's {}-byte limit",
                                            in.size(), LZ4_MAX_INPUT_SIZE));
  }
  const int bound = LZ4_compressBound(static_cast<int>(in.size()));
  const size_t base = out->size();
  out->resize(base + 4 + static_cast<size_t>(bound));
  StoreLE<uint32_t>(out->data() + base, static_cast<uint32_t>(in.size()));
  const int written = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                           reinterpret_cast<char*>(out->data() + base + 4),
                                           static_cast<int>(in.size()), bound);
  if (written <= 0 && !in.empty()) {
    out->resize(base);
    return Status::Internal("lz4 unit: compression failed");
  }
  out->resize(base + 4 + static_cast<size_t>(written));
  return Status::OK();
}

Status DecompressZstdUnit(std::span<const uint8_t> in, size_t max_decoded,
                          std::vector<uint8_t>* out) {
  if (in.empty()) return Status::OK();  // Lance: an empty unit decodes to nothing
  if (IsBareZstd(in)) return DecompressBareZstd(in, max_decoded, out);
  const uint64_t declared = LoadLE<uint64_t>(in.data());
  if (declared > max_decoded) {
    return Status::Corruption(
        fmt::format("zstd unit: declared length {} at offset 0 exceeds the {}-byte limit", declared,
                    max_decoded));
  }
  ZSTD_DCtx* dctx = ThreadDCtx();
  if (dctx == nullptr) return Status::Internal("zstd: cannot create a decompression context");
  const size_t base = out->size();
  out->resize(base + static_cast<size_t>(declared));
  const size_t got = ZSTD_decompressDCtx(dctx, out->data() + base, static_cast<size_t>(declared),
                                         in.data() + 8, in.size() - 8);
  if (ZSTD_isError(got)) {
    out->resize(base);
    return Status::Corruption(
        fmt::format("zstd unit: {} (frame starts at offset 8)", ZSTD_getErrorName(got)));
  }
  if (got != declared) {
    out->resize(base);
    return Status::Corruption(fmt::format(
        "zstd unit: frame decompresses to {} bytes, length prefix says {}", got, declared));
  }
  return Status::OK();
}

Status CompressZstdUnit(std::span<const uint8_t> in, int level, std::vector<uint8_t>* out) {
  ZSTD_CCtx* cctx = ThreadCCtx();
  if (cctx == nullptr) return Status::Internal("zstd: cannot create a compression context");
  const size_t bound = ZSTD_compressBound(in.size());
  const size_t base = out->size();
  out->resize(base + 8 + bound);
  StoreLE<uint64_t>(out->data() + base, in.size());
  const size_t written = ZSTD_compressCCtx(cctx, out->data() + base + 8, bound, in.data(),
                                           in.size(), level == 0 ? kZstdDefaultLevel : level);
  if (ZSTD_isError(written)) {
    out->resize(base);
    return Status::Internal(fmt::format("zstd unit: {}", ZSTD_getErrorName(written)));
  }
  out->resize(base + 8 + written);
  return Status::OK();
}

Status DecompressGeneral(GeneralCodec codec, std::span<const uint8_t> in, size_t max_decoded,
                         std::vector<uint8_t>* out) {
  return codec == GeneralCodec::kLz4 ? DecompressLz4Unit(in, max_decoded, out)
                                     : DecompressZstdUnit(in, max_decoded, out);
}

Status CompressGeneral(GeneralCodec codec, std::span<const uint8_t> in, int level,
                       std::vector<uint8_t>* out) {
  return codec == GeneralCodec::kLz4 ? CompressLz4Unit(in, out) : CompressZstdUnit(in, level, out);
}

}  // namespace quiver::format::codecs
