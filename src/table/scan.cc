#include "table/scan.h"

#include <algorithm>

#include <fmt/format.h>

#include "arrow/concatenate.h"
#include "format/lance_file_reader.h"
#include "format/lance_proto.h"
#include "table/fragment_rows.h"
#include "table/row_ids.h"

namespace quiver::table {

namespace {

// One data file of the open fragment, read for the output fields it holds.
struct Part {
  std::unique_ptr<format::LanceFileReader> reader;  // outlives `stream` (declared first)
  std::unique_ptr<arrow::BatchStream> stream;
  std::vector<size_t> outputs;  // which output fields (indices into fields_) it produces
  RowSelector selector;         // which rows of the stream's batches are kept
};

class DatasetStream final : public arrow::BatchStream {
 public:
  DatasetStream(std::shared_ptr<const Dataset> dataset, ScanOptions options,
                std::shared_ptr<const arrow::Schema> out_schema, std::vector<ProjectedField> fields)
      : dataset_(std::move(dataset)),
        options_(std::move(options)),
        schema_(std::move(out_schema)),
        fields_(std::move(fields)),
        to_skip_(options_.offset),
        left_(options_.limit.value_or(UINT64_MAX)),
        next_fragment_(options_.fragments_begin) {
    if (options_.batch_rows == 0) options_.batch_rows = 8192;
  }

  const std::shared_ptr<const arrow::Schema>& schema() const override { return schema_; }

  Result<std::optional<arrow::RecordBatch>> Next() override {
    const auto& fragments = dataset_->manifest().fragments();
    const size_t end = std::min(options_.fragments_end, static_cast<size_t>(fragments.size()));
    while (left_ > 0) {
      if (!fragment_open_) {
        if (next_fragment_ >= end) break;
        QV_RETURN_IF_ERROR(OpenFragment(fragments[static_cast<int>(next_fragment_++)]));
        if (!fragment_open_) continue;  // skipped whole
      }
      QV_ASSIGN_OR_RETURN(auto batch, NextFromFragment());
      if (batch) return batch;
      fragment_open_ = false;
    }
    return std::optional<arrow::RecordBatch>();
  }

 private:
  Status OpenFragment(const lance::table::DataFragment& fragment) {
    parts_.clear();
    // Row offsets and addresses are u32 parts of a u64; a manifest that says otherwise would
    // make them wrap silently.
    QV_RETURN_IF_ERROR(CheckAddressable(fragment));
    QV_ASSIGN_OR_RETURN(std::optional<RowRanges> rows, RowsToRead(fragment));
    if (!rows) return Status::OK();
    auto kept = std::make_shared<const RowRanges>(std::move(*rows));
    auto reads = std::make_shared<const RowRanges>(
        CoalesceReads(*kept, kMaxDroppedGap, options_.batch_rows));
    QV_RETURN_IF_ERROR(OpenParts(fragment, reads, kept));
    row_ids_.reset();
    if (options_.with_row_id && UsesStableRowIds(*dataset_)) {
      QV_ASSIGN_OR_RETURN(row_ids_, FragmentRowIds(*dataset_, fragment));
    }
    remaining_ = CountRows(*kept);
    rows_ = RowRangeCursor(kept);
    fragment_id_ = fragment.id();
    fragment_open_ = true;
    return Status::OK();
  }

  // The rows of `fragment` this scan reads: its kept rows (physical rows minus deletions) after
  // the rest of the offset and within the limit, cut at batch boundaries. nullopt when the offset
  // skips the whole fragment (decided from the manifest when it tells the deleted-row count).
  Result<std::optional<RowRanges>> RowsToRead(const lance::table::DataFragment& fragment) {
    std::optional<uint64_t> known = options_.with_deleted_rows
                                        ? std::optional<uint64_t>(fragment.physical_rows())
                                        : KnownKeptRows(fragment);
    if (known && to_skip_ >= *known) {
      to_skip_ -= *known;
      return std::optional<RowRanges>();
    }
    RowRanges kept;
    if (options_.with_deleted_rows) {
      if (fragment.physical_rows() > 0) kept.push_back({0, fragment.physical_rows()});
    } else {
      QV_ASSIGN_OR_RETURN(kept, KeptRows(*dataset_, fragment));
    }
    const uint64_t count = CountRows(kept);
    if (to_skip_ >= count) {
      to_skip_ -= count;
      return std::optional<RowRanges>();
    }
    RowRanges rows = SliceRows(kept, to_skip_, left_);
    to_skip_ = 0;
    // Cut at batch boundaries, so that no reader batch straddles two of the scan's batches.
    return std::optional<RowRanges>(SplitEvery(rows, options_.batch_rows));
  }

  // Opens a reader over `reads` for each data file that holds projected fields, keeping the rows
  // of `kept`; the projected fields no file holds read as nulls.
  Status OpenParts(const lance::table::DataFragment& fragment,
                   const std::shared_ptr<const RowRanges>& reads,
                   const std::shared_ptr<const RowRanges>& kept) {
    for (FileFields& file : AssignFields(fragment, fields_, &missing_)) {
      QV_ASSIGN_OR_RETURN(auto reader,
                          OpenDataFile(*dataset_, fragment, *file.file, options_.pool));
      format::ReadRequest request;
      for (size_t o : file.outputs) {
        request.field_ids.push_back(dataset_->schema().fields[fields_[o].schema_index].id);
      }
      request.row_ranges = *reads;
      request.batch_rows = options_.batch_rows;
      QV_ASSIGN_OR_RETURN(auto stream, reader->Read(request));
      parts_.push_back(Part{std::move(reader), std::move(stream), std::move(file.outputs),
                            RowSelector(reads, kept)});
    }
    return Status::OK();
  }

  Result<std::optional<arrow::RecordBatch>> NextFromFragment() {
    if (remaining_ == 0) return std::optional<arrow::RecordBatch>();
    const uint64_t length = std::min<uint64_t>(options_.batch_rows, remaining_);
    arrow::RecordBatch batch;
    batch.schema = schema_;
    batch.columns.resize(schema_->fields.size());
    for (Part& part : parts_) {
      QV_ASSIGN_OR_RETURN(std::vector<arrow::ArrayPtr> columns, ReadRows(part, length));
      for (size_t k = 0; k < part.outputs.size(); ++k) {
        batch.columns[part.outputs[k]] = std::move(columns[k]);
      }
    }
    for (size_t o : missing_) {
      QV_ASSIGN_OR_RETURN(batch.columns[o],
                          arrow::MakeNullArray(schema_->fields[o].type,
                                               static_cast<int64_t>(length), options_.pool));
    }
    if (options_.with_row_id || options_.with_row_addr) {
      QV_RETURN_IF_ERROR(AddRowColumns(length, &batch));
    }
    batch.length = static_cast<int64_t>(length);
    remaining_ -= length;
    left_ -= length;
    return std::optional<arrow::RecordBatch>(std::move(batch));
  }

  // `_rowid` and/or `_rowaddr` of the next `length` rows: addresses are the rows' physical offsets
  // (deleted rows leave gaps in them); ids are the addresses too unless the table has stable row
  // ids.
  Status AddRowColumns(uint64_t length, arrow::RecordBatch* batch) {
    std::vector<uint64_t> addrs;
    addrs.reserve(length);
    rows_.Take(length, RowAddress::Make(fragment_id_, 0), &addrs);
    size_t column = fields_.size();
    if (options_.with_row_id) {
      std::vector<uint64_t> ids;
      if (row_ids_) {
        ids.reserve(length);
        for (uint64_t addr : addrs) ids.push_back(row_ids_->Get(RowAddress::Offset(addr)));
      }
      QV_ASSIGN_OR_RETURN(batch->columns[column++],
                          arrow::MakeFixedArray(arrow::DataType::UInt64(), row_ids_ ? ids : addrs,
                                                {}, options_.pool));
    }
    if (options_.with_row_addr) {
      QV_ASSIGN_OR_RETURN(batch->columns[column], arrow::MakeFixedArray(arrow::DataType::UInt64(),
                                                                        addrs, {}, options_.pool));
    }
    return Status::OK();
  }

  // Exactly `rows` rows of a part's fields: the kept rows of as many reader batches as it takes
  // (deleted rows cut them into slices), joined.
  Result<std::vector<arrow::ArrayPtr>> ReadRows(Part& part, uint64_t rows) {
    std::vector<std::vector<arrow::ArrayPtr>> pieces(part.outputs.size());
    uint64_t got = 0;
    while (got < rows) {
      QV_ASSIGN_OR_RETURN(auto batch, part.stream->Next());
      if (!batch) return Status::Corruption("a data file ended before its fragment");
      if (batch->length <= 0) return Status::Corruption("a data file returned an empty batch");
      QV_ASSIGN_OR_RETURN(auto slices, part.selector.Next(static_cast<uint64_t>(batch->length)));
      for (const auto& [offset, length] : slices) {
        for (size_t k = 0; k < pieces.size(); ++k) {
          pieces[k].push_back(length == batch->length
                                  ? std::move(batch->columns[k])
                                  : arrow::Slice(batch->columns[k], offset, length));
        }
        got += static_cast<uint64_t>(length);
      }
      if (got > rows) {
        return Status::Corruption(fmt::format(
            "data file of fragment {} returned more rows than the batch holds", fragment_id_));
      }
    }
    std::vector<arrow::ArrayPtr> out;
    for (auto& column : pieces) {
      if (column.size() == 1) {
        out.push_back(std::move(column[0]));
      } else {
        QV_ASSIGN_OR_RETURN(auto joined, arrow::Concatenate(column, options_.pool));
        out.push_back(std::move(joined));
      }
    }
    return out;
  }

  std::shared_ptr<const Dataset> dataset_;
  ScanOptions options_;
  std::shared_ptr<const arrow::Schema> schema_;
  std::vector<ProjectedField> fields_;
  uint64_t to_skip_;  // offset rows still to skip
  uint64_t left_;     // limit rows still to return

  size_t next_fragment_;
  bool fragment_open_ = false;
  uint64_t fragment_id_ = 0;
  uint64_t remaining_ = 0;                        // rows of the open fragment still to return
  RowRangeCursor rows_;                           // their offsets, for row addresses
  std::shared_ptr<const RowIdSequence> row_ids_;  // the fragment's, when `_rowid` needs them
  std::vector<Part> parts_;
  std::vector<size_t> missing_;
};

}  // namespace

Result<std::unique_ptr<arrow::BatchStream>> Scan(std::shared_ptr<const Dataset> dataset,
                                                 const ScanOptions& options) {
  QV_ASSIGN_OR_RETURN(Projection projection, Project(*dataset, options.columns, options.with_row_id,
                                                     options.with_row_addr));
  return std::unique_ptr<arrow::BatchStream>(std::make_unique<DatasetStream>(
      std::move(dataset), options, std::move(projection.schema), std::move(projection.fields)));
}

}  // namespace quiver::table
