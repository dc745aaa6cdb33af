// Decoders of Lance 2.1 compressive encodings (lance-file-format.md §4) in their three contexts:
// mini-block (the buffers of one chunk), block (a whole buffer: levels, dictionary items) and
// per-value (full-zip). Each checks its input sizes before reading and answers Corruption for
// inconsistent input and Unsupported for an encoding it does not know.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "common/result.h"
#include "format/internal/leaf_values.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

using lance::encodings21::CompressiveEncoding;

// State shared by the chunks of one page: parsed FSST symbol tables (one per page, reused by
// every chunk) and scratch space.
class PageDecodeCache {
 public:
  PageDecodeCache();
  ~PageDecodeCache();
  PageDecodeCache(const PageDecodeCache&) = delete;
  PageDecodeCache& operator=(const PageDecodeCache&) = delete;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Decodes the `n` values of one mini-block chunk from its value buffers and appends them.
// `scratch` keeps decompressed buffers alive while the call runs.
Status DecodeMiniBlockValues(const CompressiveEncoding& encoding,
                             std::span<const std::string_view> buffers, int64_t n,
                             PageDecodeCache* cache, LeafValues* out);

// Decodes one full-zip value (variable width) stored with `encoding` (Variable, Fsst(Variable)
// or General(Variable)) and appends it.
Status DecodeFullZipValue(const CompressiveEncoding& encoding, std::string_view value,
                          PageDecodeCache* cache, LeafValues* out);

// Decodes `n` repetition or definition levels (u16) of a block-compressed buffer and appends
// them to `out`.
Status DecodeLevels(const CompressiveEncoding& encoding, std::string_view buffer, uint64_t n,
                    std::vector<uint16_t>* out);

// Decodes `n` dictionary items of `type` from a block-compressed buffer.
Result<arrow::ArrayPtr> DecodeDictionaryItems(const CompressiveEncoding& encoding,
                                              std::string_view buffer, uint64_t n,
                                              const arrow::DataType& type, arrow::MemoryPool* pool);

// Decodes the `n` dictionary indices of one chunk (any integer encoding), widened to int64.
Status DecodeMiniBlockIndices(const CompressiveEncoding& encoding,
                              std::span<const std::string_view> buffers, int64_t n,
                              PageDecodeCache* cache, std::vector<int64_t>* out);

// Describes an encoding for messages ("Flat(32)", "Variable(Flat(32))", ...).
std::string DescribeEncoding(const CompressiveEncoding& encoding);

}  // namespace quiver::format::internal
