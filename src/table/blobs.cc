#include "table/blobs.h"

#include <fmt/format.h>

#include "format/arrow_schema.h"
#include "format/lance_proto.h"
#include "table/fragment_rows.h"

namespace quiver::table {

std::string BlobFileName(uint32_t blob_id) {
  std::string name(32, '0');
  for (int bit = 0; bit < 32; ++bit) {
    if ((blob_id >> bit) & 1u) name[static_cast<size_t>(bit)] = '1';
  }
  return name + ".blob";
}

namespace {

template <typename T>
T ValueAt(const arrow::ArrayData& a, int64_t i) {
  return reinterpret_cast<const T*>(a.buffers[1]->data())[a.offset + i];
}

// The data file of `fragment_id` that holds field `field_id`, with its fragment.
Result<std::pair<const lance::table::DataFragment*, const lance::table::DataFile*>> FileOf(
    const Dataset& dataset, uint64_t fragment_id, int32_t field_id) {
  for (const auto& fragment : dataset.manifest().fragments()) {
    if (fragment.id() != fragment_id) continue;
    for (const auto& file : fragment.files()) {
      for (int32_t id : file.fields()) {
        if (id == field_id) return std::make_pair(&fragment, &file);
      }
    }
    return Status::Corruption(
        fmt::format("fragment {} has no data file for field id {}", fragment_id, field_id));
  }
  return Status::Corruption(fmt::format("no fragment {}", fragment_id));
}

}  // namespace

Result<arrow::ArrayPtr> FetchBlobs(const std::shared_ptr<const Dataset>& dataset,
                                   const std::string& column, const std::vector<uint64_t>& rows,
                                   RowKey key) {
  const format::SchemaField* field = nullptr;
  for (const auto& f : dataset->schema().fields) {
    if (f.name == column) field = &f;
  }
  if (field == nullptr) return Status::InvalidInput(fmt::format("no column '{}'", column));
  if (!format::IsBlobV2Field(*field)) {
    return Status::InvalidInput(fmt::format("column '{}' is not a blob v2 column", column));
  }
  TakeOptions options;
  options.columns = {column};
  options.key = key;
  options.with_row_addr = true;
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch batch, Take(dataset, rows, options));
  const arrow::ArrayData& desc = *batch.columns[0];
  const arrow::ArrayData& addrs = *batch.columns[1];
  std::vector<std::string> payloads(static_cast<size_t>(batch.length));
  std::vector<bool> valid(static_cast<size_t>(batch.length), true);
  for (int64_t i = 0; i < batch.length; ++i) {
    if (arrow::IsNull(desc, i)) {
      valid[static_cast<size_t>(i)] = false;
      continue;
    }
    const int64_t at = desc.offset + i;  // members are addressed through the struct's offset
    const uint8_t kind = ValueAt<uint8_t>(*desc.children[0], at);
    const uint64_t position = ValueAt<uint64_t>(*desc.children[1], at);
    const uint64_t size = ValueAt<uint64_t>(*desc.children[2], at);
    const uint32_t blob_id = ValueAt<uint32_t>(*desc.children[3], at);
    const uint64_t addr = ValueAt<uint64_t>(addrs, i);
    const std::string what = fmt::format("row {} (address {})", rows[static_cast<size_t>(i)], addr);
    if (kind == 3) {
      return Status::Unsupported(
          fmt::format("{}: the blob is at an external URI ('{}'), which quiver does not read", what,
                      std::string(arrow::BinaryValue(*desc.children[4], at))));
    }
    if (kind > 3) return Status::Corruption(fmt::format("{}: blob kind {}", what, kind));
    QV_ASSIGN_OR_RETURN(auto located, FileOf(*dataset, addr >> 32, field->id));
    const lance::table::DataFile& file = *located.second;
    std::optional<uint32_t> base;
    if (file.has_base_id()) base = file.base_id();
    QV_ASSIGN_OR_RETURN(auto store, StoreForBase(*dataset, base, "data file " + file.path()));
    std::string key_name = "data/" + file.path();
    if (kind != 0) {
      std::string stem = file.path();
      if (stem.size() > 6 && stem.compare(stem.size() - 6, 6, ".lance") == 0) {
        stem.resize(stem.size() - 6);
      }
      key_name = "data/" + stem + "/" + BlobFileName(blob_id);
    }
    auto got = store->Get(key_name, ByteRange{position, size});
    if (!got.ok()) {
      return got.status().WithContext(
          fmt::format("{}: blob of kind {} at {}+{} in {}", what, kind, position, size, key_name));
    }
    if (got->data.size() != size) {
      return Status::Corruption(fmt::format("{}: blob of {} bytes at {} in {}, which has {}", what,
                                            size, position, key_name, got->meta.size));
    }
    payloads[static_cast<size_t>(i)] = std::move(got->data);
  }
  return arrow::MakeBinaryArray(arrow::DataType::LargeBinary(), payloads, valid);
}

}  // namespace quiver::table
