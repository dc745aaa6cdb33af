#include "table/stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "format/lance_proto.h"

namespace quiver::table {
namespace {

uint64_t NearestRank(const std::vector<uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

bool IsSystemIndex(const std::string& name) { return name.rfind("__lance_", 0) == 0; }

}  // namespace

std::string IndexTypeFromUrl(const std::string& url) {
  // The details message names the kind; FM-index details were FMIndexIndexDetails until Lance
  // 9.0 renamed them (lance#7397).
  static const std::pair<const char*, const char*> kTypes[] = {
      {"BTreeIndexDetails", "BTREE"},
      {"BitmapIndexDetails", "BITMAP"},
      {"LabelListIndexDetails", "LABEL_LIST"},
      {"InvertedIndexDetails", "INVERTED"},
      {"NGramIndexDetails", "NGRAM"},
      {"ZoneMapIndexDetails", "ZONEMAP"},
      {"BloomFilterIndexDetails", "BLOOMFILTER"},
      {"RTreeIndexDetails", "RTREE"},
      {"FMIndexDetails", "FMINDEX"},
      {"FMIndexIndexDetails", "FMINDEX"},
      {"JsonIndexDetails", "JSON"},
      {"VectorIndexDetails", "VECTOR"},
  };
  for (const auto& [suffix, type] : kTypes) {
    if (url.size() >= std::strlen(suffix) &&
        url.compare(url.size() - std::strlen(suffix), std::string::npos, suffix) == 0) {
      return type;
    }
  }
  return url;
}

std::string FormatUuidBytes(const std::string& bytes) {
  std::string hex;
  for (unsigned char c : bytes) hex += fmt::format("{:02x}", c);
  if (hex.size() != 32) return hex;
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

std::map<std::string, std::string> ManifestSummary(const lance::table::Manifest& manifest) {
  uint64_t data_files = 0, data_rows = 0, deletion_files = 0, deleted_rows = 0, bytes = 0;
  for (const auto& fragment : manifest.fragments()) {
    data_files += static_cast<uint64_t>(fragment.files_size());
    data_rows += fragment.physical_rows();
    for (const auto& file : fragment.files()) bytes += file.file_size_bytes();
    if (fragment.has_deletion_file()) {
      ++deletion_files;
      deleted_rows += fragment.deletion_file().num_deleted_rows();
    }
  }
  return {{"total_fragments", std::to_string(manifest.fragments_size())},
          {"total_data_files", std::to_string(data_files)},
          {"total_data_file_rows", std::to_string(data_rows)},
          {"total_deletion_files", std::to_string(deletion_files)},
          {"total_deletion_file_rows", std::to_string(deleted_rows)},
          {"total_rows", std::to_string(data_rows - std::min(deleted_rows, data_rows))},
          {"total_files_size", std::to_string(bytes)}};
}

TableStats ComputeStats(const lance::table::Manifest& manifest,
                        const lance::table::IndexSection* indices) {
  TableStats stats;
  std::vector<uint64_t> lengths;
  for (const lance::table::DataFragment& fragment : manifest.fragments()) {
    uint64_t deleted =
        fragment.has_deletion_file() ? fragment.deletion_file().num_deleted_rows() : 0;
    uint64_t live = fragment.physical_rows() >= deleted ? fragment.physical_rows() - deleted : 0;
    stats.num_rows += live;
    stats.num_deleted_rows += deleted;
    stats.num_deletion_files += fragment.has_deletion_file() ? 1 : 0;
    stats.num_data_files += static_cast<uint64_t>(fragment.files_size());
    for (const lance::table::DataFile& file : fragment.files()) {
      stats.total_bytes += file.file_size_bytes();
    }
    if (live < kSmallFragmentRows) ++stats.num_small_fragments;
    lengths.push_back(live);
  }
  stats.num_fragments = lengths.size();
  if (!lengths.empty()) {
    std::sort(lengths.begin(), lengths.end());
    uint64_t sum = 0;
    for (uint64_t l : lengths) sum += l;
    stats.lengths = FragmentLengths{lengths.front(),
                                    lengths.back(),
                                    static_cast<double>(sum) / static_cast<double>(lengths.size()),
                                    NearestRank(lengths, 0.25),
                                    NearestRank(lengths, 0.50),
                                    NearestRank(lengths, 0.75),
                                    NearestRank(lengths, 0.99)};
  }
  if (indices != nullptr) {
    std::set<std::string> names;
    for (const lance::table::IndexMetadata& index : indices->indices()) {
      if (!IsSystemIndex(index.name())) names.insert(index.name());
    }
    stats.num_indices = names.size();
  }
  return stats;
}

std::vector<IndexInfo> ListIndices(const lance::table::IndexSection* indices,
                                   const format::Schema& schema) {
  std::vector<IndexInfo> out;
  if (indices == nullptr) return out;
  std::unordered_map<int32_t, std::string> paths;
  std::function<void(const format::SchemaField&, const std::string&)> walk =
      [&](const format::SchemaField& f, const std::string& prefix) {
        std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
        paths[f.id] = path;
        for (const format::SchemaField& c : f.children) walk(c, path);
      };
  for (const format::SchemaField& f : schema.fields) walk(f, "");
  for (const lance::table::IndexMetadata& index : indices->indices()) {
    IndexInfo info;
    info.name = index.name();
    info.uuid = FormatUuidBytes(index.uuid().uuid());
    info.dataset_version = index.dataset_version();
    info.index_type =
        index.has_index_details() ? IndexTypeFromUrl(index.index_details().type_url()) : "UNKNOWN";
    for (int32_t id : index.fields()) {
      info.field_ids.push_back(id);
      auto it = paths.find(id);
      info.columns.push_back(it != paths.end() ? it->second : fmt::format("<field {}>", id));
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace quiver::table
