// FSST string compression as Lance stores it (lance-file-format.md §4.8).
//
// Symbol table: a buffer of exactly 2312 bytes (8 + 256*8 + 256, room for 256 symbols) holding
//   an 8-byte header, a little-endian u64: bits 32-63 = 0x46535354 ("FSST"), bit 24 = encoder
//     switch (0: the strings are stored verbatim), bits 16-23 suffix limit, bits 8-15
//     terminator, bits 0-7 n_symbols;
//   n_symbols symbols, 8 bytes each (symbol i as a little-endian u64);
//   directly after them, n_symbols length bytes (1..8) — at offset 8 + 8*n_symbols, not at a
//     fixed offset (Lance's fsst.rs export/init write and read them sequentially);
//   zeros up to 2312 bytes.
// A compressed string is a sequence of codes: code c < n_symbols emits the first len[c] bytes
// of symbol c; code 255 is an escape and the next byte is emitted literally. Lance's decoder
// (rust/compression/fsst/src/fsst.rs) reads only the magic, the switch bit, n_symbols, the
// symbols and the lengths; suffix limit and terminator are informational.
//
// FsstDecoder parses a table and decodes strings with the classic unaligned 8-byte store per
// code (hence the output slack). FsstEncoder trains a table with the published FSST algorithm
// (Boncz, Neumann, Leis, VLDB 2020: five rounds of greedy compression of a <= 16 KiB sample,
// counting symbol and symbol-pair frequencies, keeping the 255 candidates of highest
// frequency x length) and compresses strings with it.
//
// Untrusted input: Parse checks the table; decoders check offsets, codes without a symbol, and
// an escape at the end of a string, and return Status::Corruption; they never read outside
// their inputs or write outside [out, out + out_capacity).
//
// Thread-safety: FsstDecoder and FsstEncoder are immutable after construction; their const
// methods may be called from several threads at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace quiver::format::codecs {

inline constexpr size_t kFsstSymbolTableBytes = 2312;
inline constexpr uint32_t kFsstMagic = 0x46535354;  // "FSST"
inline constexpr uint8_t kFsstEscape = 255;
inline constexpr size_t kFsstMaxSymbols = 255;
inline constexpr size_t kFsstMaxSymbolLength = 8;
// Bytes the decoders may write beyond the decoded data (the 8-byte store of the last symbol).
inline constexpr size_t kFsstDecodeSlack = 8;
// The training sample is at most this many bytes.
inline constexpr size_t kFsstSampleBytes = 16 * 1024;

class FsstDecoder {
 public:
  // Parses a 2312-byte symbol table (Corruption if the size, magic or a symbol length is bad).
  static Result<FsstDecoder> Parse(std::span<const uint8_t> table);

  bool compressed() const { return compressed_; }
  int num_symbols() const { return num_symbols_; }

  // An upper bound of the decoded size of `compressed_bytes` input bytes (input size times the
  // longest symbol; the input size itself when the table says "stored verbatim").
  size_t MaxDecodedSize(size_t compressed_bytes) const;

  // Decodes one string into `out` and returns its decoded length.
  // InvalidInput unless out_capacity >= MaxDecodedSize(in.size()) + kFsstDecodeSlack.
  Result<size_t> DecodeString(std::span<const uint8_t> in, uint8_t* out, size_t out_capacity) const;

  // Decodes the strings data[offsets[i], offsets[i+1]) for i < offsets.size() - 1 (Variable-
  // style offsets into `data`, non-decreasing, at least one entry). Writes the decoded bytes to
  // `out` and offsets.size() entries to `out_offsets`: out_offsets[0] = out_base, out_offsets[i+1]
  // = out_base + end of decoded string i. Returns the decoded byte count. InvalidInput unless
  // out_capacity >= MaxDecodedSize(offsets.back() - offsets.front()) + kFsstDecodeSlack;
  // Corruption if an output offset does not fit in Offset. Offset: uint32_t or uint64_t.
  template <typename Offset>
  Result<size_t> DecodeStrings(std::span<const uint8_t> data, std::span<const Offset> offsets,
                               uint8_t* out, size_t out_capacity, Offset* out_offsets,
                               Offset out_base = 0) const;

  // Convenience form: replaces *out_bytes and *out_offsets (offsets.size() entries from 0).
  template <typename Offset>
  Status DecodeStrings(std::span<const uint8_t> data, std::span<const Offset> offsets,
                       std::vector<uint8_t>* out_bytes, std::vector<Offset>* out_offsets) const;

 private:
  FsstDecoder() = default;
  // Decodes [in, in_end) to `out`; returns the end of the output, nullptr on bad input (the
  // caller re-scans to describe the error).
  uint8_t* DecodeRun(const uint8_t* in, const uint8_t* in_end, uint8_t* out) const;
  Status DescribeError(std::span<const uint8_t> in, size_t string_index, size_t base_offset) const;

  std::array<uint64_t, 256> symbols_{};
  std::array<uint8_t, 256> lens_{};  // 0 for codes without a symbol (and for the escape)
  bool compressed_ = false;
  int num_symbols_ = 0;
  size_t max_len_ = 1;
};

class FsstEncoder {
 public:
  // Trains a symbol table on a sample (at most kFsstSampleBytes) of the strings
  // data[offsets[i], offsets[i+1]). InvalidInput for bad offsets. Offset: uint32_t/uint64_t.
  template <typename Offset>
  static Result<FsstEncoder> Train(std::span<const uint8_t> data, std::span<const Offset> offsets);
  static FsstEncoder Train(std::span<const std::string_view> strings);
  // Note: a table trained on no bytes has no symbols (every byte escaped, 2x the input); like
  // Lance (under 32 KiB of string data), callers should use Uncompressed() for small pages.
  // A table with the encoder switch off: strings are stored verbatim (Lance does this for pages
  // under 32 KiB of string data).
  static FsstEncoder Uncompressed();

  FsstEncoder(FsstEncoder&&) noexcept;
  FsstEncoder& operator=(FsstEncoder&&) noexcept;
  ~FsstEncoder();

  bool compressed() const;
  int num_symbols() const;
  // The 2312-byte table for the page description.
  std::array<uint8_t, kFsstSymbolTableBytes> SerializeTable() const;

  // Worst case of CompressString: every byte escaped.
  static constexpr size_t MaxCompressedSize(size_t n) { return 2 * n; }
  // Compresses one string into `out` (room for MaxCompressedSize(in.size()) bytes); returns the
  // compressed length.
  size_t CompressString(std::span<const uint8_t> in, uint8_t* out) const;
  // Compresses data[offsets[i], offsets[i+1]) into *out_bytes / *out_offsets (replaced;
  // offsets.size() entries from 0). InvalidInput for bad offsets or if an output offset would
  // not fit in Offset.
  template <typename Offset>
  Status CompressStrings(std::span<const uint8_t> data, std::span<const Offset> offsets,
                         std::vector<uint8_t>* out_bytes, std::vector<Offset>* out_offsets) const;

 private:
  struct Impl;
  explicit FsstEncoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

#define QV_FSST_EXTERN(Offset)                                                                     \
  extern template Result<size_t> FsstDecoder::DecodeStrings<Offset>(                               \
      std::span<const uint8_t>, std::span<const Offset>, uint8_t*, size_t, Offset*, Offset) const; \
  extern template Status FsstDecoder::DecodeStrings<Offset>(                                       \
      std::span<const uint8_t>, std::span<const Offset>, std::vector<uint8_t>*,                    \
      std::vector<Offset>*) const;                                                                 \
  extern template Result<FsstEncoder> FsstEncoder::Train<Offset>(std::span<const uint8_t>,         \
                                                                 std::span<const Offset>);         \
  extern template Status FsstEncoder::CompressStrings<Offset>(                                     \
      std::span<const uint8_t>, std::span<const Offset>, std::vector<uint8_t>*,                    \
      std::vector<Offset>*) const;
QV_FSST_EXTERN(uint32_t)
QV_FSST_EXTERN(uint64_t)
#undef QV_FSST_EXTERN

}  // namespace quiver::format::codecs
