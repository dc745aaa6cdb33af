// Table statistics computed from a manifest alone (no data file is read): the spec's
// GetTableStats fields plus the counts `quiver table inspect` prints.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/schema.h"

namespace lance::table {
class Manifest;
class IndexSection;
}  // namespace lance::table

namespace quiver::table {

// Fragments with fewer live rows than this count as "small" (LanceDB's threshold).
inline constexpr uint64_t kSmallFragmentRows = 100'000;

struct FragmentLengths {  // live rows per fragment; all 0 when there are no fragments
  uint64_t min = 0;
  uint64_t max = 0;
  double mean = 0;
  uint64_t p25 = 0;
  uint64_t p50 = 0;
  uint64_t p75 = 0;
  uint64_t p99 = 0;
};

struct TableStats {
  uint64_t num_rows = 0;  // physical rows minus deleted rows
  uint64_t num_deleted_rows = 0;
  uint64_t num_fragments = 0;
  uint64_t num_small_fragments = 0;
  uint64_t num_data_files = 0;
  uint64_t num_deletion_files = 0;
  uint64_t total_bytes = 0;  // sum of data file sizes recorded in the manifest
  uint64_t num_indices = 0;  // distinct index names (user indices; system ones excluded)
  FragmentLengths lengths;
};

TableStats ComputeStats(const lance::table::Manifest& manifest,
                        const lance::table::IndexSection* indices);

struct IndexInfo {
  std::string name;
  std::string uuid;  // hyphenated
  std::vector<int32_t> field_ids;
  std::vector<std::string> columns;  // dotted field paths
  std::string index_type;  // "BTREE", "BITMAP", "LABEL_LIST", "INVERTED", "VECTOR", or the URL
  uint64_t dataset_version = 0;
};

// A version's summary as Lance reports it in a Version's `metadata` (LanceDB's listVersions):
// total_fragments, total_data_files, total_data_file_rows, total_deletion_files,
// total_deletion_file_rows, total_rows (data rows less deleted ones) and total_files_size (the
// data files' recorded sizes), each as a decimal string.
std::map<std::string, std::string> ManifestSummary(const lance::table::Manifest& manifest);

// The index kind its details' type URL names ("/lance.table.BTreeIndexDetails" -> "BTREE";
// also BITMAP, LABEL_LIST, INVERTED, NGRAM, ZONEMAP, BLOOMFILTER, RTREE, FMINDEX, JSON, VECTOR),
// or the URL itself for a kind this version does not know.
std::string IndexTypeFromUrl(const std::string& url);

// One entry per index segment, in manifest order.
std::vector<IndexInfo> ListIndices(const lance::table::IndexSection* indices,
                                   const format::Schema& schema);

// "550e8400-e29b-41d4-a716-446655440000" from 16 raw bytes (hex of whatever length otherwise).
std::string FormatUuidBytes(const std::string& bytes);

}  // namespace quiver::table
