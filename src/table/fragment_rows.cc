#include "table/fragment_rows.h"

#include <algorithm>

#include <fmt/format.h>

#include "format/deletion.h"
#include "format/lance_proto.h"
#include "store/prefix_store.h"

namespace quiver::table {

Result<std::shared_ptr<ObjectStore>> StoreForBase(const Dataset& dataset,
                                                  std::optional<uint32_t> base_id,
                                                  const std::string& what) {
  if (!base_id) return dataset.store();
  for (const auto& base : dataset.manifest().base_paths()) {
    if (base.id() != *base_id) continue;
    const auto& root = dataset.root();
    if (base.path() == root->ExternalPath("")) return root;
    if (base.has_name()) {
      const std::string prefix = "tree/" + base.name();
      if (base.path() == root->ExternalPath(prefix)) {
        QV_ASSIGN_OR_RETURN(auto store, PrefixStore::Make(root, prefix + "/"));
        return std::shared_ptr<ObjectStore>(std::move(store));
      }
    }
    return Status::Unsupported(what + " lives under base path " + base.path() +
                               ", outside this dataset's roots");
  }
  return Status::Corruption(
      fmt::format("{} names base path {} which the manifest does not have", what, *base_id));
}

Result<format::DeletionVector> FragmentDeletions(const Dataset& dataset,
                                                 const lance::table::DataFragment& fragment) {
  if (!fragment.has_deletion_file()) return format::DeletionVector();
  const auto& file = fragment.deletion_file();
  const std::string what = fmt::format("the deletion file of fragment {}", fragment.id());
  std::optional<uint32_t> base;
  if (file.has_base_id()) base = file.base_id();
  QV_ASSIGN_OR_RETURN(auto store, StoreForBase(dataset, base, what));
  return format::ReadDeletionFile(*store, fragment.id(), file, fragment.physical_rows());
}

Result<RowRanges> KeptRows(const Dataset& dataset, const lance::table::DataFragment& fragment) {
  const uint64_t rows = fragment.physical_rows();
  if (!fragment.has_deletion_file()) return RowRanges{{0, rows}};
  QV_ASSIGN_OR_RETURN(format::DeletionVector deleted, FragmentDeletions(dataset, fragment));
  return deleted.SelectedRanges(rows);
}

std::optional<uint64_t> KnownKeptRows(const lance::table::DataFragment& fragment) {
  const uint64_t rows = fragment.physical_rows();
  if (!fragment.has_deletion_file()) return rows;
  const uint64_t deleted = fragment.deletion_file().num_deleted_rows();
  if (deleted == 0 || deleted > rows) return std::nullopt;  // unknown, or wrong: read the file
  return rows - deleted;
}

uint64_t CountRows(const RowRanges& ranges) {
  uint64_t n = 0;
  for (const auto& [b, e] : ranges) n += e - b;
  return n;
}

RowRanges SliceRows(const RowRanges& ranges, uint64_t skip, uint64_t take) {
  RowRanges out;
  for (auto [b, e] : ranges) {
    if (take == 0) break;
    const uint64_t len = e - b;
    if (skip >= len) {
      skip -= len;
      continue;
    }
    b += skip;
    skip = 0;
    const uint64_t n = std::min(e - b, take);  // not b + take: take may be UINT64_MAX
    take -= n;
    out.emplace_back(b, b + n);
  }
  return out;
}

RowRanges SplitEvery(const RowRanges& ranges, uint64_t group) {
  if (group == 0) return ranges;
  RowRanges out;
  uint64_t room = group;  // rows left in the current group
  for (auto [b, e] : ranges) {
    while (e - b > room) {
      out.emplace_back(b, b + room);
      b += room;
      room = group;
    }
    if (b < e) out.emplace_back(b, e);
    room -= e - b;
    if (room == 0) room = group;
  }
  return out;
}

RowRanges CoalesceReads(const RowRanges& kept, uint64_t max_gap, uint64_t group) {
  RowRanges out;
  uint64_t count = 0;  // kept rows before the current range
  for (const auto& [b, e] : kept) {
    const bool group_starts = group != 0 && count % group == 0;
    if (!out.empty() && !group_starts && b - out.back().second <= max_gap) {
      out.back().second = e;
    } else {
      out.emplace_back(b, e);
    }
    count += e - b;
  }
  return out;
}

RowSelector::RowSelector(std::shared_ptr<const RowRanges> reads,
                         std::shared_ptr<const RowRanges> kept)
    : reads_(std::move(reads)), kept_(std::move(kept)) {
  if (!reads_->empty()) pos_ = reads_->front().first;
}

Result<std::vector<std::pair<int64_t, int64_t>>> RowSelector::Next(uint64_t rows) {
  if (read_ >= reads_->size() || rows > (*reads_)[read_].second - pos_) {
    return Status::Corruption(fmt::format(
        "the reader returned {} rows at row {}, past the ranges it was asked for", rows, pos_));
  }
  const uint64_t end = pos_ + rows;
  std::vector<std::pair<int64_t, int64_t>> slices;
  while (kept_at_ < kept_->size() && (*kept_)[kept_at_].first < end) {
    const auto [b, e] = (*kept_)[kept_at_];
    const uint64_t from = std::max(b, pos_);
    const uint64_t to = std::min(e, end);
    if (from < to) {
      slices.emplace_back(static_cast<int64_t>(from - pos_), static_cast<int64_t>(to - from));
    }
    if (e > end) break;
    ++kept_at_;
  }
  pos_ = end;
  if (pos_ == (*reads_)[read_].second && ++read_ < reads_->size()) pos_ = (*reads_)[read_].first;
  return slices;
}

void RowRangeCursor::Take(uint64_t n, uint64_t high, std::vector<uint64_t>* out) {
  while (n > 0 && range_ < ranges_->size()) {
    const auto [b, e] = (*ranges_)[range_];
    const uint64_t here = std::min(n, e - b - at_);
    for (uint64_t i = 0; i < here; ++i) out->push_back(high | (b + at_ + i));
    at_ += here;
    n -= here;
    if (at_ == e - b) {
      ++range_;
      at_ = 0;
    }
  }
}

}  // namespace quiver::table
