#include "format/deletion.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "arrow/array.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "common/ids.h"
#include "format/lance_proto.h"

namespace quiver::format {

struct DeletionVectorAccess {
  static DeletionVector FromSorted(std::vector<uint32_t> sorted) {
    DeletionVector v;
    v.sorted_ = std::move(sorted);
    return v;
  }
  static DeletionVector FromBitmap(roaring_bitmap_t* bitmap) {
    DeletionVector v;
    v.bitmap_ = std::shared_ptr<const roaring_bitmap_s>(
        bitmap, [](const roaring_bitmap_s* b) { roaring_bitmap_free(b); });
    return v;
  }
  static const roaring_bitmap_t* bitmap(const DeletionVector& v) { return v.bitmap_.get(); }
  static const std::vector<uint32_t>& sorted(const DeletionVector& v) { return v.sorted_; }
};

namespace {

using Access = DeletionVectorAccess;

// Values handed out per ForEachChunk call when iterating a bitmap.
constexpr uint32_t kChunkValues = 4096;

Status OutOfMemory(std::string_view what) {
  return Status::Internal(fmt::format("{}: CRoaring could not allocate a bitmap", what));
}

// A bitmap of ascending unique `values` (CRoaring's add_many appends cheaply in order). Only
// array and bitset containers are made, never runs.
Result<roaring_bitmap_t*> BitmapOf(std::span<const uint32_t> values) {
  roaring_bitmap_t* b = roaring_bitmap_create();
  if (b == nullptr) return OutOfMemory("deletion vector");
  roaring_bitmap_add_many(b, values.size(), values.data());
  return b;
}

// ---- Portable Roaring structure check (RoaringFormatSpec) ----

constexpr uint32_t kCookieNoRuns = 12346;   // 3A30: u32 cookie, u32 container count
constexpr uint32_t kCookieRuns = 12347;     // 3B30: u16 cookie, u16 count-1, run flags
constexpr uint32_t kNoOffsetThreshold = 4;  // 3B30 files with fewer containers have no offsets
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  bool Has(size_t n) const { return bytes_.size() - pos_ >= n; }
  size_t pos() const { return pos_; }
  uint16_t U16At(size_t at) const {
    uint16_t v;
    std::memcpy(&v, bytes_.data() + at, 2);
    return v;  // little-endian hosts only (x86-64, aarch64)
  }
  uint32_t U32At(size_t at) const {
    uint32_t v;
    std::memcpy(&v, bytes_.data() + at, 4);
    return v;
  }
  uint64_t U64At(size_t at) const {
    uint64_t v;
    std::memcpy(&v, bytes_.data() + at, 8);
    return v;
  }
  void Skip(size_t n) { pos_ += n; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

struct BitmapShape {
  uint64_t cardinality = 0;
  std::optional<uint32_t> max_value;
};

// Checks that `bytes` is exactly one well-formed portable Roaring bitmap: a known cookie, keys
// strictly increasing, offsets (when present) pointing at the containers, array values strictly
// increasing, runs sorted, disjoint and inside their 16-bit key space, every container's
// cardinality equal to its header's, and no trailing bytes. CRoaring 0.2's deserializer checks
// only that it stays within the buffer.
Result<BitmapShape> CheckPortableBitmap(std::string_view bytes, const std::string& what) {
  auto bad = [&what](std::string_view why) {
    return Status::Corruption(
        fmt::format("deletion file {}: not a valid Roaring bitmap: {}", what, why));
  };
  ByteReader in(bytes);
  if (!in.Has(4)) return bad("shorter than its cookie");
  const uint32_t cookie = in.U32At(0);
  uint32_t n = 0;
  bool has_runs = false;
  in.Skip(4);
  size_t run_flags_at = 0;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    has_runs = true;
    n = (cookie >> 16) + 1;
    run_flags_at = in.pos();
    if (!in.Has((n + 7) / 8)) return bad("truncated run flags");
    in.Skip((n + 7) / 8);
  } else if (cookie == kCookieNoRuns) {
    if (!in.Has(4)) return bad("truncated container count");
    n = in.U32At(in.pos());
    in.Skip(4);
    if (n > 65536) return bad(fmt::format("{} containers (at most 65536)", n));
  } else {
    return bad(fmt::format("unknown cookie 0x{:08x}", cookie));
  }
  const bool has_offsets = !has_runs || n >= kNoOffsetThreshold;
  const size_t header_at = in.pos();
  if (!in.Has(size_t{4} * n)) return bad("truncated container headers");
  in.Skip(size_t{4} * n);
  const size_t offsets_at = in.pos();
  if (has_offsets) {
    if (!in.Has(size_t{4} * n)) return bad("truncated container offsets");
    in.Skip(size_t{4} * n);
  }
  BitmapShape shape;
  int64_t prev_key = -1;
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t key = in.U16At(header_at + size_t{4} * i);
    const uint32_t card = uint32_t{in.U16At(header_at + size_t{4} * i + 2)} + 1;
    if (key <= prev_key) return bad(fmt::format("container keys not increasing at {}", i));
    prev_key = key;
    if (has_offsets && in.U32At(offsets_at + size_t{4} * i) != in.pos()) {
      return bad(fmt::format("container {} offset {} is not where it starts ({})", i,
                             in.U32At(offsets_at + size_t{4} * i), in.pos()));
    }
    const bool is_run =
        has_runs && ((static_cast<uint8_t>(bytes[run_flags_at + i / 8]) >> (i % 8)) & 1) != 0;
    uint32_t last = 0;  // the container's largest low 16 bits
    if (is_run) {
      if (!in.Has(2)) return bad(fmt::format("container {} truncated", i));
      const uint32_t runs = in.U16At(in.pos());
      in.Skip(2);
      if (runs == 0) return bad(fmt::format("run container {} has no runs", i));
      if (!in.Has(size_t{4} * runs)) return bad(fmt::format("container {} truncated", i));
      uint32_t seen = 0;
      int64_t prev_end = -1;  // last value of the previous run
      for (uint32_t r = 0; r < runs; ++r) {
        const uint32_t start = in.U16At(in.pos() + size_t{4} * r);
        const uint32_t end = start + in.U16At(in.pos() + size_t{4} * r + 2);
        if (static_cast<int64_t>(start) <= prev_end || end > 0xFFFF) {
          return bad(fmt::format("run container {} has overlapping or overflowing runs", i));
        }
        prev_end = end;
        seen += end - start + 1;
      }
      in.Skip(size_t{4} * runs);
      if (seen != card) {
        return bad(
            fmt::format("run container {} holds {} values, its header says {}", i, seen, card));
      }
      last = static_cast<uint32_t>(prev_end);
    } else if (card <= kMaxArrayCardinality) {
      if (!in.Has(size_t{2} * card)) return bad(fmt::format("container {} truncated", i));
      int64_t prev = -1;
      for (uint32_t k = 0; k < card; ++k) {
        const uint16_t v = in.U16At(in.pos() + size_t{2} * k);
        if (v <= prev) return bad(fmt::format("array container {} not strictly increasing", i));
        prev = v;
      }
      in.Skip(size_t{2} * card);
      last = static_cast<uint32_t>(prev);
    } else {
      if (!in.Has(kBitsetBytes)) return bad(fmt::format("container {} truncated", i));
      uint32_t ones = 0;
      for (size_t w = 0; w < kBitsetBytes / 8; ++w) {
        const uint64_t word = in.U64At(in.pos() + 8 * w);
        ones += static_cast<uint32_t>(std::popcount(word));
        if (word != 0) last = static_cast<uint32_t>(64 * w + 63 - std::countl_zero(word));
      }
      in.Skip(kBitsetBytes);
      if (ones != card) {
        return bad(
            fmt::format("bitset container {} holds {} values, its header says {}", i, ones, card));
      }
    }
    shape.cardinality += card;
    shape.max_value = (uint32_t{key} << 16) | last;
  }
  if (in.pos() != bytes.size()) {
    return bad(fmt::format("{} bytes after the bitmap", bytes.size() - in.pos()));
  }
  return shape;
}

Result<DeletionVector> DecodeBitmap(std::string_view bytes, const std::string& what,
                                    std::optional<uint64_t> physical_rows) {
  QV_ASSIGN_OR_RETURN(BitmapShape shape, CheckPortableBitmap(bytes, what));
  if (physical_rows && shape.max_value && *shape.max_value >= *physical_rows) {
    return Status::Corruption(
        fmt::format("deletion file {}: deletes row {} of a fragment of {} rows", what,
                    *shape.max_value, *physical_rows));
  }
  // The size pre-check keeps CRoaring from reading past the input even if the check above
  // missed something; both must agree on where the bitmap ends.
  if (roaring_bitmap_portable_deserialize_size(bytes.data(), bytes.size()) != bytes.size()) {
    return Status::Corruption(
        fmt::format("deletion file {}: CRoaring does not read it as one bitmap", what));
  }
  roaring_bitmap_t* b = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (b == nullptr) {
    return Status::Corruption(fmt::format("deletion file {}: CRoaring rejects the bitmap", what));
  }
  DeletionVector v = Access::FromBitmap(b);
  if (roaring_bitmap_get_cardinality(b) != shape.cardinality) {
    return Status::Corruption(
        fmt::format("deletion file {}: bitmap cardinality disagrees with its containers", what));
  }
  return v;
}

std::shared_ptr<const arrow::Schema> DeletionFileSchema() {
  static const auto* schema =
      new std::shared_ptr<const arrow::Schema>(std::make_shared<const arrow::Schema>(arrow::Schema{
          {arrow::Field("row_id", arrow::DataType::UInt32(), /*is_nullable=*/false)}, {}}));
  return *schema;
}

Result<DeletionVector> DecodeArrow(std::string_view bytes, const std::string& what,
                                   std::optional<uint64_t> physical_rows) {
  auto bad = [&what](const std::string& why) {
    return Status::Corruption(fmt::format("deletion file {}: {}", what, why));
  };
  arrow::ipc::ReadOptions options;
  if (physical_rows) {
    // At most one u32 per row (plus a validity bitmap a writer may add): more cannot be a
    // deletion file of this fragment, so a zstd bomb stops here.
    options.max_decompressed_bytes = 4 * *physical_rows + *physical_rows / 8 + 4096;
  }
  QV_ASSIGN_OR_RETURN(auto copy, arrow::Buffer::CopyOf(bytes));
  auto reader = arrow::ipc::FileReader::Open(std::move(copy), options);
  if (!reader.ok()) return bad(reader.status().message());
  if (!(*(*reader)->schema() == *DeletionFileSchema())) {
    return bad("schema is " + (*reader)->schema()->ToString() + ", not row_id: uint32 not null");
  }
  if ((*reader)->num_batches() != 1) {
    return bad(fmt::format("{} record batches, not exactly one", (*reader)->num_batches()));
  }
  auto batch = (*reader)->ReadBatch(0);
  if (!batch.ok()) return bad(batch.status().message());
  const arrow::ArrayData& column = *batch->columns.at(0);
  if (column.null_count != 0) return bad("row_id has nulls");
  const uint64_t n = static_cast<uint64_t>(column.length);
  std::vector<uint32_t> values(n);
  if (n > 0) {
    // Validated by the reader: the values buffer covers offset + length u32s.
    std::memcpy(values.data(), column.buffers.at(1)->data() + column.offset * 4, n * 4);
  }
  // Rust writes the values from a hash set, in no order.
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (physical_rows && !values.empty() && values.back() >= *physical_rows) {
    return bad(
        fmt::format("deletes row {} of a fragment of {} rows", values.back(), *physical_rows));
  }
  return DeletionVector::FromOffsets(std::move(values));
}

Result<std::string> EncodeArrow(const DeletionVector& deletions) {
  QV_ASSIGN_OR_RETURN(auto column,
                      arrow::MakeFixedArray(arrow::DataType::UInt32(), deletions.ToVector()));
  arrow::RecordBatch batch;
  batch.schema = DeletionFileSchema();
  batch.length = column->length;
  batch.columns.push_back(std::move(column));
  arrow::ipc::WriteOptions options;
  options.compression = arrow::ipc::Compression::kZstd;  // as Lance 8.0 writes them
  return arrow::ipc::WriteFileToString(batch.schema, {batch}, options);
}

Result<std::string> EncodeBitmap(const DeletionVector& deletions) {
  roaring_bitmap_t* copy = nullptr;
  if (const roaring_bitmap_t* b = Access::bitmap(deletions)) {
    copy = roaring_bitmap_copy(b);
    if (copy == nullptr) return OutOfMemory("deletion vector");
  } else {
    QV_ASSIGN_OR_RETURN(copy, BitmapOf(Access::sorted(deletions)));
  }
  std::unique_ptr<roaring_bitmap_t, void (*)(roaring_bitmap_t*)> owned(
      copy, [](roaring_bitmap_t* b) { roaring_bitmap_free(b); });
  // A bitmap read from a 3B30 file may hold run containers; Rust's roaring writes none (3A30),
  // so neither do we. Never run_optimize here.
  roaring_bitmap_remove_run_compression(copy);
  std::string out(roaring_bitmap_portable_size_in_bytes(copy), '\0');
  const size_t written = roaring_bitmap_portable_serialize(copy, out.data());
  if (written != out.size() || out.size() < 4 || out[0] != 0x3A || out[1] != 0x30) {
    return Status::Internal("CRoaring did not write a 3A30 portable bitmap");
  }
  return out;
}

}  // namespace

std::string_view DeletionFileExtension(DeletionFileType type) {
  return type == DeletionFileType::kBitmap ? "bin" : "arrow";
}

std::string DeletionFileKey(uint64_t fragment_id, uint64_t read_version, uint64_t id,
                            DeletionFileType type) {
  return fmt::format("_deletions/{}-{}-{}.{}", fragment_id, read_version, id,
                     DeletionFileExtension(type));
}

// ---- DeletionVector ----

DeletionVector DeletionVector::FromOffsets(std::vector<uint32_t> offsets) {
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  if (offsets.size() > kDeletionBitmapThreshold) {
    // Many offsets: a bitmap is at most ~2 bytes per value and far less for dense deletes.
    auto bitmap = BitmapOf(offsets);
    if (bitmap.ok()) return Access::FromBitmap(*bitmap);
  }
  return Access::FromSorted(std::move(offsets));
}

DeletionVector DeletionVector::Union(const DeletionVector& a, const DeletionVector& b) {
  if (a.bitmap_ == nullptr && b.bitmap_ == nullptr) {
    std::vector<uint32_t> merged;
    merged.reserve(a.sorted_.size() + b.sorted_.size());
    std::set_union(a.sorted_.begin(), a.sorted_.end(), b.sorted_.begin(), b.sorted_.end(),
                   std::back_inserter(merged));
    return FromOffsets(std::move(merged));
  }
  if (a.empty()) return b;
  if (b.empty()) return a;
  auto as_bitmap = [](const DeletionVector& v) -> roaring_bitmap_t* {
    if (v.bitmap_ != nullptr) return roaring_bitmap_copy(v.bitmap_.get());
    auto made = BitmapOf(v.sorted_);
    return made.ok() ? *made : nullptr;
  };
  roaring_bitmap_t* x = as_bitmap(a);
  roaring_bitmap_t* y = as_bitmap(b);
  roaring_bitmap_t* both = (x != nullptr && y != nullptr) ? roaring_bitmap_or(x, y) : nullptr;
  if (x != nullptr) roaring_bitmap_free(x);
  if (y != nullptr) roaring_bitmap_free(y);
  if (both != nullptr) return Access::FromBitmap(both);
  // Out of memory in CRoaring: fall back to plain vectors.
  std::vector<uint32_t> merged;
  auto all_a = a.ToVector();
  auto all_b = b.ToVector();
  std::set_union(all_a.begin(), all_a.end(), all_b.begin(), all_b.end(),
                 std::back_inserter(merged));
  return Access::FromSorted(std::move(merged));
}

bool DeletionVector::Contains(uint32_t offset) const {
  if (bitmap_ != nullptr) return roaring_bitmap_contains(bitmap_.get(), offset);
  return std::binary_search(sorted_.begin(), sorted_.end(), offset);
}

uint64_t DeletionVector::size() const {
  return bitmap_ != nullptr ? roaring_bitmap_get_cardinality(bitmap_.get()) : sorted_.size();
}

void DeletionVector::ForEachChunk(
    const std::function<void(std::span<const uint32_t>)>& chunk) const {
  if (bitmap_ == nullptr) {
    if (!sorted_.empty()) chunk(sorted_);
    return;
  }
  roaring_uint32_iterator_t it;
  roaring_init_iterator(bitmap_.get(), &it);
  std::vector<uint32_t> buffer(kChunkValues);
  while (true) {
    const uint32_t got = roaring_read_uint32_iterator(&it, buffer.data(), kChunkValues);
    if (got == 0) break;
    chunk(std::span<const uint32_t>(buffer.data(), got));
    if (got < kChunkValues) break;
  }
}

std::vector<uint32_t> DeletionVector::ToVector() const {
  if (bitmap_ == nullptr) return sorted_;
  std::vector<uint32_t> out(size());
  roaring_bitmap_to_uint32_array(bitmap_.get(), out.data());
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> DeletionVector::SelectedRanges(
    uint64_t physical_rows) const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t begin = 0;  // first row not yet known to be deleted
  ForEachChunk([&](std::span<const uint32_t> values) {
    for (uint32_t v : values) {
      if (v >= physical_rows) return;
      if (v > begin) ranges.emplace_back(begin, v);
      begin = uint64_t{v} + 1;
    }
  });
  if (begin < physical_rows) ranges.emplace_back(begin, physical_rows);
  return ranges;
}

bool operator==(const DeletionVector& a, const DeletionVector& b) {
  if (a.size() != b.size()) return false;
  if (a.bitmap_ != nullptr && b.bitmap_ != nullptr) {
    return roaring_bitmap_equals(a.bitmap_.get(), b.bitmap_.get());
  }
  return a.ToVector() == b.ToVector();
}

// ---- Files ----

Result<DeletionVector> DecodeDeletionFile(std::string_view bytes, DeletionFileType type,
                                          const std::string& what,
                                          std::optional<uint64_t> physical_rows) {
  switch (type) {
    case DeletionFileType::kArrowArray:
      return DecodeArrow(bytes, what, physical_rows);
    case DeletionFileType::kBitmap:
      return DecodeBitmap(bytes, what, physical_rows);
  }
  return Status::Unsupported(
      fmt::format("deletion file {}: unknown file type {}", what, static_cast<int>(type)));
}

Result<std::string> EncodeDeletionFile(const DeletionVector& deletions, DeletionFileType type) {
  switch (type) {
    case DeletionFileType::kArrowArray:
      return EncodeArrow(deletions);
    case DeletionFileType::kBitmap:
      return EncodeBitmap(deletions);
  }
  return Status::InvalidInput(fmt::format("unknown deletion file type {}", static_cast<int>(type)));
}

Result<DeletionVector> ReadDeletionFile(ObjectStore& store, const std::string& key,
                                        DeletionFileType type, uint64_t expected_count,
                                        std::optional<uint64_t> physical_rows) {
  QV_ASSIGN_OR_RETURN(GetResult got, store.Get(key));
  QV_ASSIGN_OR_RETURN(DeletionVector v, DecodeDeletionFile(got.data, type, key, physical_rows));
  if (expected_count != 0 && v.size() != expected_count) {
    return Status::Corruption(fmt::format("deletion file {}: holds {} rows, the manifest says {}",
                                          key, v.size(), expected_count));
  }
  return v;
}

Result<DeletionVector> ReadDeletionFile(ObjectStore& store, uint64_t fragment_id,
                                        const lance::table::DeletionFile& file,
                                        std::optional<uint64_t> physical_rows) {
  if (file.file_type() != lance::table::DeletionFile::ARROW_ARRAY &&
      file.file_type() != lance::table::DeletionFile::BITMAP) {
    return Status::Unsupported(fmt::format("fragment {}: deletion file of unknown type {}",
                                           fragment_id, static_cast<int>(file.file_type())));
  }
  const auto type = static_cast<DeletionFileType>(file.file_type());
  return ReadDeletionFile(store, DeletionFileKey(fragment_id, file.read_version(), file.id(), type),
                          type, file.num_deleted_rows(), physical_rows);
}

Result<lance::table::DeletionFile> WriteDeletionFile(ObjectStore& store, uint64_t fragment_id,
                                                     uint64_t read_version,
                                                     const DeletionVector& deletions,
                                                     std::optional<DeletionFileType> type) {
  const DeletionFileType chosen =
      type.value_or(deletions.size() <= kDeletionBitmapThreshold ? DeletionFileType::kArrowArray
                                                                 : DeletionFileType::kBitmap);
  QV_ASSIGN_OR_RETURN(std::string bytes, EncodeDeletionFile(deletions, chosen));
  // A random id as Lance draws it; CreateOnly turns the (2^-64) collision into a retry instead of
  // replacing a file another version may reference.
  for (int attempt = 0;; ++attempt) {
    uint64_t id = 0;
    RandomBytes(&id, sizeof(id));
    const std::string key = DeletionFileKey(fragment_id, read_version, id, chosen);
    auto put = store.Put(key, bytes, PutOptions::CreateOnly());
    if (!put.ok() && put.status().IsAlreadyExists() && attempt < 3) continue;
    QV_RETURN_IF_ERROR(put.status());
    lance::table::DeletionFile file;
    file.set_file_type(static_cast<lance::table::DeletionFile::DeletionFileType>(chosen));
    file.set_read_version(read_version);
    file.set_id(id);
    file.set_num_deleted_rows(deletions.size());
    return file;
  }
}

}  // namespace quiver::format
