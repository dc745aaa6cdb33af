#include "table/take.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "format/lance_file_reader.h"
#include "format/lance_proto.h"
#include "table/fragment_rows.h"
#include "table/row_ids.h"

namespace quiver::table {

namespace {

constexpr uint32_t kReadBatchRows = 8192;

// A file the manifest names that the store does not have means a broken table, not a missing
// row: IsNotFound() on a Take result must mean only "not in this version" (RowNotFound).
Status MissingFileIsCorruption(const Status& status) {
  if (!status.IsNotFound()) return status;
  return Status::Corruption(status.message());
}

// What a take needs of one fragment, each part loaded at most once.
struct FragmentState {
  const lance::table::DataFragment* fragment = nullptr;
  std::optional<format::DeletionVector> deletions;
  // Only for `_rowid` of rows asked by address (a fragment's sequence is found once, then looked
  // up per row); ResolveIds holds one fragment's sequence at a time instead.
  std::shared_ptr<const RowIdSequence> row_ids;
};

// The rows asked for from one fragment.
struct Group {
  FragmentState* state;
  std::vector<uint64_t> offsets;         // distinct, ascending: what is read
  std::vector<arrow::ArrayPtr> columns;  // one per projected field, one row per offset
};

class Taker {
 public:
  Taker(const Dataset& dataset, const TakeOptions& options, Projection projection)
      : dataset_(dataset), options_(options), projection_(std::move(projection)) {
    for (const auto& fragment : dataset_.manifest().fragments()) {
      fragments_[fragment.id()].fragment = &fragment;
    }
  }

  Result<arrow::RecordBatch> Run(const std::vector<uint64_t>& rows) {
    std::vector<uint64_t> addrs = rows;
    const bool stable = UsesStableRowIds(dataset_);
    if (options_.key == RowKey::kId && stable) {
      QV_ASSIGN_OR_RETURN(addrs, ResolveIds(rows));
    }
    // What the rows are called in errors: what the caller passed, unless ids were resolved to
    // addresses (then the addresses are what is checked).
    const char* key = options_.key == RowKey::kId && !stable ? "row id" : "row address";
    // Every row is checked before anything is read.
    std::vector<size_t> group_of(addrs.size());
    std::unordered_map<uint64_t, size_t> group_index;  // by fragment id
    for (size_t i = 0; i < addrs.size(); ++i) {
      const uint64_t fragment_id = RowAddress::Fragment(addrs[i]);
      auto [it, added] = group_index.try_emplace(fragment_id, groups_.size());
      if (added) {
        auto state = fragments_.find(fragment_id);
        if (state == fragments_.end()) {
          return RowNotFound(
              fmt::format("{} {}: fragment {} is not in version {} (removed, or never written)",
                          key, addrs[i], fragment_id, dataset_.version()));
        }
        QV_RETURN_IF_ERROR(CheckAddressable(*state->second.fragment));
        groups_.push_back(Group{&state->second, {}, {}});
      }
      group_of[i] = it->second;
      QV_RETURN_IF_ERROR(CheckRow(*groups_[it->second].state, addrs[i], key));
      groups_[it->second].offsets.push_back(RowAddress::Offset(addrs[i]));
    }
    for (Group& group : groups_) {
      std::sort(group.offsets.begin(), group.offsets.end());
      group.offsets.erase(std::unique(group.offsets.begin(), group.offsets.end()),
                          group.offsets.end());
      QV_RETURN_IF_ERROR(MissingFileIsCorruption(ReadGroup(group)));
    }

    arrow::RecordBatch batch;
    batch.schema = projection_.schema;
    batch.length = static_cast<int64_t>(addrs.size());
    // Where each row asked for is in its group's columns.
    std::vector<int64_t> index_in_group(addrs.size());
    for (size_t i = 0; i < addrs.size(); ++i) {
      const auto& offsets = groups_[group_of[i]].offsets;
      index_in_group[i] =
          std::lower_bound(offsets.begin(), offsets.end(), RowAddress::Offset(addrs[i])) -
          offsets.begin();
    }
    for (size_t o = 0; o < projection_.fields.size(); ++o) {
      QV_ASSIGN_OR_RETURN(arrow::ArrayPtr column, Gather(o, group_of, index_in_group));
      batch.columns.push_back(std::move(column));
    }
    if (options_.with_row_id) {
      std::vector<uint64_t> ids;
      if (options_.key == RowKey::kId || !stable) {
        ids = rows;  // an id asked for, or an address (= the id without stable row ids)
      } else {
        ids.reserve(addrs.size());
        for (size_t i = 0; i < addrs.size(); ++i) {
          FragmentState& state = *groups_[group_of[i]].state;
          if (!state.row_ids) {
            QV_ASSIGN_OR_RETURN(state.row_ids, FragmentRowIds(dataset_, *state.fragment));
          }
          ids.push_back(state.row_ids->Get(RowAddress::Offset(addrs[i])));
        }
      }
      QV_ASSIGN_OR_RETURN(arrow::ArrayPtr column,
                          arrow::MakeFixedArray(arrow::DataType::UInt64(), ids, {}, options_.pool));
      batch.columns.push_back(std::move(column));
    }
    if (options_.with_row_addr) {
      QV_ASSIGN_OR_RETURN(arrow::ArrayPtr column, arrow::MakeFixedArray(arrow::DataType::UInt64(),
                                                                        addrs, {}, options_.pool));
      batch.columns.push_back(std::move(column));
    }
    return batch;
  }

 private:
  Result<const format::DeletionVector*> Deletions(FragmentState& state) {
    if (!state.deletions) {
      auto deletions = FragmentDeletions(dataset_, *state.fragment);
      if (!deletions.ok()) return MissingFileIsCorruption(deletions.status());
      state.deletions = std::move(*deletions);
    }
    return &*state.deletions;
  }

  // `key` names what the caller passed ("row address" or "row id") in errors.
  Status CheckRow(FragmentState& state, uint64_t addr, const char* key) {
    const uint32_t offset = RowAddress::Offset(addr);
    if (offset >= state.fragment->physical_rows()) {
      return Status::InvalidInput(fmt::format("{} {}: row offset {} is past fragment {}'s {} rows",
                                              key, addr, offset, state.fragment->id(),
                                              state.fragment->physical_rows()));
    }
    if (!state.fragment->has_deletion_file()) return Status::OK();
    QV_ASSIGN_OR_RETURN(const format::DeletionVector* deleted, Deletions(state));
    if (deleted->Contains(offset)) {
      return RowNotFound(fmt::format("{} {}: row {} of fragment {} is deleted", key, addr, offset,
                                     state.fragment->id()));
    }
    return Status::OK();
  }

  // The addresses of the kept rows with the stable row ids `ids`. An id may also name deleted
  // rows (an update leaves a tombstone under the row's id in its old fragment): only the kept one
  // counts. Every fragment's sequence is searched, one at a time: none is kept.
  Result<std::vector<uint64_t>> ResolveIds(const std::vector<uint64_t>& ids) {
    std::vector<uint64_t> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<std::optional<uint64_t>> addr_of(sorted.size());
    size_t found = 0;
    for (const auto& fragment : dataset_.manifest().fragments()) {
      if (found == sorted.size()) break;
      std::vector<std::pair<size_t, uint64_t>> hits;
      {
        QV_ASSIGN_OR_RETURN(std::shared_ptr<const RowIdSequence> row_ids,
                            FragmentRowIds(dataset_, fragment));
        row_ids->Find(sorted, [&](size_t i, uint64_t offset) { hits.emplace_back(i, offset); });
      }
      if (hits.empty()) continue;
      FragmentState& state = fragments_[fragment.id()];
      const format::DeletionVector* deleted = nullptr;
      if (fragment.has_deletion_file()) {
        QV_ASSIGN_OR_RETURN(deleted, Deletions(state));
      }
      for (const auto& [i, offset] : hits) {
        if (addr_of[i] || (deleted && deleted->Contains(static_cast<uint32_t>(offset)))) continue;
        // FragmentRowIds checked that the fragment's rows have addresses.
        addr_of[i] = RowAddress::Make(fragment.id(), offset);
        ++found;
      }
    }
    std::vector<uint64_t> addrs;
    addrs.reserve(ids.size());
    for (uint64_t id : ids) {
      const auto& addr = addr_of[static_cast<size_t>(
          std::lower_bound(sorted.begin(), sorted.end(), id) - sorted.begin())];
      if (!addr) {
        return RowNotFound(fmt::format(
            "row id {} is not in version {} (deleted, or never assigned)", id, dataset_.version()));
      }
      addrs.push_back(*addr);
    }
    return addrs;
  }

  // Reads `group.offsets` of every projected field: each data file once, over the runs of
  // consecutive offsets (runs a few rows apart merged into one read, the rows between dropped).
  Status ReadGroup(Group& group) {
    const lance::table::DataFragment& fragment = *group.state->fragment;
    auto wanted = std::make_shared<RowRanges>();
    for (uint64_t offset : group.offsets) {
      if (!wanted->empty() && wanted->back().second == offset) {
        ++wanted->back().second;
      } else {
        wanted->emplace_back(offset, offset + 1);
      }
    }
    auto reads = std::make_shared<const RowRanges>(CoalesceReads(*wanted, kMaxDroppedGap, 0));
    const auto rows = static_cast<int64_t>(group.offsets.size());
    std::vector<size_t> missing;
    group.columns.resize(projection_.fields.size());
    for (const FileFields& file : AssignFields(fragment, projection_.fields, &missing)) {
      QV_ASSIGN_OR_RETURN(auto reader, OpenDataFile(dataset_, fragment, *file.file, options_.pool));
      format::ReadRequest request;
      for (size_t o : file.outputs) {
        request.field_ids.push_back(
            dataset_.schema().fields[projection_.fields[o].schema_index].id);
      }
      request.row_ranges = *reads;
      request.batch_rows = kReadBatchRows;
      QV_ASSIGN_OR_RETURN(auto stream, reader->Read(request));
      RowSelector selector(reads, wanted);
      std::vector<std::vector<arrow::ArrayPtr>> pieces(file.outputs.size());
      int64_t got = 0;
      while (true) {
        QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
        if (!batch) break;
        if (batch->length <= 0) return Status::Corruption("a data file returned an empty batch");
        QV_ASSIGN_OR_RETURN(auto slices, selector.Next(static_cast<uint64_t>(batch->length)));
        for (const auto& [offset, length] : slices) {
          for (size_t k = 0; k < pieces.size(); ++k) {
            pieces[k].push_back(arrow::Slice(batch->columns[k], offset, length));
          }
          got += length;
        }
      }
      if (got != rows) {
        return Status::Corruption(fmt::format("fragment {}: data file {} returned {} of {} rows",
                                              fragment.id(), file.file->path(), got, rows));
      }
      for (size_t k = 0; k < pieces.size(); ++k) {
        QV_ASSIGN_OR_RETURN(group.columns[file.outputs[k]], Join(pieces[k]));
      }
    }
    for (size_t o : missing) {
      QV_ASSIGN_OR_RETURN(group.columns[o], arrow::MakeNullArray(projection_.schema->fields[o].type,
                                                                 rows, options_.pool));
    }
    return Status::OK();
  }

  // Output field `o` in the order asked: one slice per run of rows that are consecutive in one
  // group (a take in address order is a few slices; a shuffled one, one slice per row).
  Result<arrow::ArrayPtr> Gather(size_t o, const std::vector<size_t>& group_of,
                                 const std::vector<int64_t>& index_in_group) {
    std::vector<arrow::ArrayPtr> pieces;
    for (size_t i = 0; i < group_of.size();) {
      size_t end = i + 1;
      while (end < group_of.size() && group_of[end] == group_of[i] &&
             index_in_group[end] == index_in_group[end - 1] + 1) {
        ++end;
      }
      pieces.push_back(arrow::Slice(groups_[group_of[i]].columns[o], index_in_group[i],
                                    static_cast<int64_t>(end - i)));
      i = end;
    }
    if (pieces.empty()) {
      return arrow::MakeNullArray(projection_.schema->fields[o].type, 0, options_.pool);
    }
    return Join(pieces);
  }

  Result<arrow::ArrayPtr> Join(std::vector<arrow::ArrayPtr>& pieces) {
    if (pieces.size() == 1) return std::move(pieces[0]);
    return arrow::Concatenate(pieces, options_.pool);
  }

  const Dataset& dataset_;
  const TakeOptions& options_;
  Projection projection_;
  std::unordered_map<uint64_t, FragmentState> fragments_;  // by fragment id
  std::vector<Group> groups_;
};

}  // namespace

Result<arrow::RecordBatch> Take(const std::shared_ptr<const Dataset>& dataset,
                                const std::vector<uint64_t>& rows, const TakeOptions& options) {
  QV_ASSIGN_OR_RETURN(Projection projection, Project(*dataset, options.columns, options.with_row_id,
                                                     options.with_row_addr));
  Taker taker(*dataset, options, std::move(projection));
  return taker.Run(rows);
}

}  // namespace quiver::table
