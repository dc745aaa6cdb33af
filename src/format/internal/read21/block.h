// The block decompressor of Lance 2.1/2.2 files: a whole buffer compressed as one block
// (lance-file-format.md §4; lance-2.2-notes.md §9.1), as used for repetition/definition levels,
// dictionary items and the levels of constant pages. 2.1 writes Flat, Variable and bit-packing
// here; 2.2 (Lance 12) first tries RLE in its block form, wraps blocks over 32 KiB in General
// (LZ4/ZSTD around an inner block encoding), and compresses dictionary items with LZ4 by
// default. Lance's own block decompressors (`create_block_decompressor`) take Flat,
// InlineBitpacking, OutOfLineBitpacking, Rle, General, Constant, Variable and FixedSizeList.
//
// Every decoder checks sizes before it reads, bounds what a General unit may decompress to by
// what the block can legitimately hold, answers Corruption for inconsistent input and
// Unsupported for an encoding it does not know.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "format/proto/encodings21.pb.h"

namespace quiver::format::internal {

// The width in bits of the fixed-width values a block encoding decodes to (Flat's, bit-packing's
// uncompressed width, RLE's values, General's inner, a Constant's value); nullopt for encodings
// that do not decode to fixed-width values (Variable, FSST, ...).
std::optional<uint64_t> BlockValueBits(const lance::encodings21::CompressiveEncoding& encoding);

// Decodes the `n` fixed-width values of `bits` bits (a multiple of 8, at most 128) that
// `buffer` holds under `encoding`, and appends their bytes (little-endian, n * bits / 8 of
// them) to `out`. Corruption when the encoding's width is not `bits`.
Status DecodeFixedWidthBlock(const lance::encodings21::CompressiveEncoding& encoding,
                             std::string_view buffer, uint64_t n, uint64_t bits,
                             std::vector<uint8_t>* out);

// A General-wrapped block decompressed, with the inner encoding it wraps: for callers that
// decode the inner encoding themselves (a Variable block of dictionary items). `max_decoded`
// bounds the decompressed size.
struct UnwrappedBlock {
  const lance::encodings21::CompressiveEncoding* inner = nullptr;
  std::vector<uint8_t> bytes;
};
Result<UnwrappedBlock> UnwrapGeneralBlock(const lance::encodings21::CompressiveEncoding& encoding,
                                          std::string_view buffer, size_t max_decoded);

}  // namespace quiver::format::internal
