// A Lance manifest file: the framing of lance-table-format.md §2, decoded and encoded.
//
//   [u32 len + IndexSection]  [u32 len + Transaction]  u32 len + Manifest  | i64 pos | i16 0 |
//   i16 2 | "LANC"
//
// Decoding checks every length and offset against the file size and reports a Corruption error
// naming the file for anything malformed (never a crash; a fuzz target exercises this). Unknown
// protobuf fields are kept, so a decoded manifest re-encodes with them intact.
// Thread-safety: a decoded ManifestFile is immutable and safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace lance::table {
class Manifest;
class Transaction;
class IndexSection;
}  // namespace lance::table

namespace quiver::format {

inline constexpr std::string_view kManifestMagic = "LANC";
inline constexpr size_t kManifestFooterBytes = 16;

struct ManifestFile {
  std::shared_ptr<const lance::table::Manifest> manifest;
  std::shared_ptr<const lance::table::Transaction> transaction;     // inline; null if absent
  std::shared_ptr<const lance::table::IndexSection> index_section;  // null if no indices
  uint64_t file_size = 0;
};

// `what` names the file in error messages (e.g. "_versions/1844….manifest").
Result<ManifestFile> DecodeManifestFile(std::string_view bytes, const std::string& what);

// Encodes a manifest file the way Lance 8.0 writes it: index section (if given and non-empty),
// inline transaction (if given), manifest with `index_section`/`transaction_section` set to those
// offsets (cleared when absent), footer.
std::string EncodeManifestFile(const lance::table::Manifest& manifest,
                               const lance::table::Transaction* transaction,
                               const lance::table::IndexSection* index_section);

}  // namespace quiver::format
