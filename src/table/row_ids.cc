#include "table/row_ids.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "format/proto/rowids.pb.h"
#include "table/fragment_rows.h"

namespace quiver::table {

namespace {

namespace pb = lance::table;

// The values of an EncodedU64Array (at most bytes / 2 of them, so bounded by the input).
Result<std::vector<uint64_t>> DecodeArray(const pb::EncodedU64Array& array) {
  std::vector<uint64_t> out;
  auto widths = [&](const std::string& bytes, size_t width, uint64_t base) -> Status {
    if (bytes.size() % width != 0) {
      return Status::Corruption(
          fmt::format("a row id array of {}-byte offsets has {} bytes", width, bytes.size()));
    }
    out.reserve(bytes.size() / width);
    for (size_t at = 0; at < bytes.size(); at += width) {
      uint64_t v = 0;
      std::memcpy(&v, bytes.data() + at, width);  // little-endian, as the host
      if (v > UINT64_MAX - base) return Status::Corruption("a row id array overflows u64");
      out.push_back(base + v);
    }
    return Status::OK();
  };
  switch (array.array_case()) {
    case pb::EncodedU64Array::kU16Array:
      QV_RETURN_IF_ERROR(widths(array.u16_array().offsets(), 2, array.u16_array().base()));
      break;
    case pb::EncodedU64Array::kU32Array:
      QV_RETURN_IF_ERROR(widths(array.u32_array().offsets(), 4, array.u32_array().base()));
      break;
    case pb::EncodedU64Array::kU64Array:
      QV_RETURN_IF_ERROR(widths(array.u64_array().values(), 8, 0));
      break;
    default:
      return Status::Corruption("a row id array has no values");
  }
  return out;
}

// The bytes an external sequence names: relative to the branch's root, as Rust's
// load_row_id_sequence reads them. Short of a transient failure (worth retrying as is), the
// manifest names bytes that are not there (a missing file, a range past its end): the table is
// broken. NotFound in particular must not leak out, as Take's callers read it as "no such row".
Result<std::string> ReadExternal(const Dataset& dataset, const pb::ExternalFile& file,
                                 const std::string& what) {
  auto got = dataset.store()->Get(file.path(), ByteRange{file.offset(), file.size()});
  if (!got.ok() && got.status().retryable()) {
    return got.status().WithContext(fmt::format("{} ({})", what, file.path()));
  }
  if (!got.ok()) {
    return Status::Corruption(
        fmt::format("{} ({}): {}", what, file.path(), got.status().ToString()));
  }
  if (got->data.size() != file.size()) {
    return Status::Corruption(fmt::format("{} ({}) is cut short", what, file.path()));
  }
  return std::move(*got).data;
}

// How many values a segment holds (a version run's span: row offsets).
Result<uint64_t> SegmentLength(const pb::U64Segment& seg) {
  switch (seg.segment_case()) {
    case pb::U64Segment::kRange:
      if (seg.range().end() < seg.range().start()) {
        return Status::Corruption("a version run's range ends before it starts");
      }
      return seg.range().end() - seg.range().start();
    case pb::U64Segment::kRangeWithHoles: {
      const auto& r = seg.range_with_holes();
      QV_ASSIGN_OR_RETURN(auto holes, DecodeArray(r.holes()));
      if (r.end() < r.start() || holes.size() > r.end() - r.start()) {
        return Status::Corruption("a version run's range with holes is malformed");
      }
      return r.end() - r.start() - holes.size();
    }
    case pb::U64Segment::kRangeWithBitmap: {
      uint64_t n = 0;
      for (char byte : seg.range_with_bitmap().bitmap()) {
        n += static_cast<uint64_t>(std::popcount(static_cast<uint8_t>(byte)));
      }
      return n;
    }
    case pb::U64Segment::kSortedArray:
    case pb::U64Segment::kArray: {
      QV_ASSIGN_OR_RETURN(auto values, DecodeArray(seg.segment_case() == pb::U64Segment::kArray
                                                       ? seg.array()
                                                       : seg.sorted_array()));
      return values.size();
    }
    case pb::U64Segment::SEGMENT_NOT_SET:
      break;
  }
  return Status::Corruption("a version run has no span");
}

}  // namespace

static_assert(std::endian::native == std::endian::little, "row id arrays are little-endian");

RowIdSequence RowIdSequence::Range(uint64_t start, uint64_t rows) {
  RowIdSequence s;
  if (rows > 0) s.segments_.push_back(Segment{Segment::Kind::kRange, 0, rows, start, 0, {}, {}});
  s.size_ = rows;
  return s;
}

Result<RowIdSequence> RowIdSequence::Decode(std::string_view bytes, uint64_t expected_rows) {
  pb::RowIdSequence proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("a row id sequence does not parse");
  }
  RowIdSequence s;
  for (const auto& seg : proto.segments()) {
    Segment out;
    out.offset = s.size_;
    switch (seg.segment_case()) {
      case pb::U64Segment::kRange:
        out.kind = Segment::Kind::kRange;
        out.start = seg.range().start();
        out.end = seg.range().end();
        if (out.end < out.start) return Status::Corruption("a row id range ends before it starts");
        out.length = out.end - out.start;
        break;
      case pb::U64Segment::kRangeWithHoles: {
        const auto& r = seg.range_with_holes();
        out.kind = Segment::Kind::kHoles;
        out.start = r.start();
        out.end = r.end();
        if (out.end < out.start) return Status::Corruption("a row id range ends before it starts");
        // Ascending and distinct, so that a position's id is found by binary search (IdAt).
        QV_ASSIGN_OR_RETURN(out.values, DecodeArray(r.holes()));
        for (size_t k = 0; k < out.values.size(); ++k) {
          const uint64_t hole = out.values[k];
          if (hole < out.start || hole >= out.end || (k > 0 && hole <= out.values[k - 1])) {
            return Status::Corruption(
                "a row id range's holes are unsorted, repeated or outside it");
          }
        }
        out.length = out.end - out.start - out.values.size();
        break;
      }
      case pb::U64Segment::kRangeWithBitmap: {
        const auto& r = seg.range_with_bitmap();
        out.kind = Segment::Kind::kBitmap;
        out.start = r.start();
        out.end = r.end();
        const uint64_t span = out.end < out.start ? 0 : out.end - out.start;
        const uint64_t needed = span / 8 + (span % 8 != 0);
        if (out.end < out.start || r.bitmap().size() < needed) {
          return Status::Corruption("a row id bitmap is shorter than its range");
        }
        // As 64-bit words (bits past the range cleared) with the bits set before each, so that
        // a position is found by binary search and an id by a popcount.
        out.values.assign(span / 64 + (span % 64 != 0), 0);
        for (uint64_t k = 0; k < needed; ++k) {
          out.values[k / 8] |= uint64_t{static_cast<uint8_t>(r.bitmap()[k])} << (8 * (k % 8));
        }
        if (span % 64 != 0) out.values.back() &= (uint64_t{1} << (span % 64)) - 1;
        out.ranks.reserve(out.values.size());
        for (uint64_t word : out.values) {
          out.ranks.push_back(out.length);
          out.length += static_cast<uint64_t>(std::popcount(word));
        }
        break;
      }
      case pb::U64Segment::kSortedArray:
      case pb::U64Segment::kArray: {
        out.kind = Segment::Kind::kValues;
        QV_ASSIGN_OR_RETURN(out.values, DecodeArray(seg.segment_case() == pb::U64Segment::kArray
                                                        ? seg.array()
                                                        : seg.sorted_array()));
        out.length = out.values.size();
        break;
      }
      case pb::U64Segment::SEGMENT_NOT_SET:
        return Status::Corruption("a row id segment has no values");
    }
    if (out.length > expected_rows - std::min(s.size_, expected_rows)) {
      return Status::Corruption(
          fmt::format("a row id sequence holds more than the fragment's {} rows", expected_rows));
    }
    s.size_ += out.length;
    if (out.length > 0) s.segments_.push_back(std::move(out));
  }
  if (s.size_ != expected_rows) {
    return Status::Corruption(
        fmt::format("a row id sequence holds {} ids for {} rows", s.size_, expected_rows));
  }
  return s;
}

uint64_t RowIdSequence::IdAt(const Segment& seg, uint64_t i) {
  switch (seg.kind) {
    case Segment::Kind::kRange:
      return seg.start + i;
    case Segment::Kind::kHoles: {
      // Hole k has k holes below it, so start + i is at or past it (less k) exactly when
      // holes[k] - k <= start + i; that is true for a prefix of the holes, which all lie below
      // the id.
      size_t lo = 0, hi = seg.values.size();
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (seg.values[mid] - mid <= seg.start + i) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return seg.start + i + lo;
    }
    case Segment::Kind::kBitmap: {
      // The last word with fewer than i + 1 bits set before it holds the id.
      const size_t w = static_cast<size_t>(std::upper_bound(seg.ranks.begin(), seg.ranks.end(), i) -
                                           seg.ranks.begin() - 1);
      uint64_t word = seg.values[w];
      for (uint64_t r = i - seg.ranks[w]; r > 0; --r) word &= word - 1;  // drop the lowest bits
      return seg.start + 64 * w + static_cast<uint64_t>(std::countr_zero(word));
    }
    case Segment::Kind::kValues:
      break;
  }
  return seg.values[i];
}

uint64_t RowIdSequence::Get(uint64_t offset) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                             [](uint64_t o, const Segment& s) { return o < s.offset; });
  const Segment& seg = *(it - 1);
  return IdAt(seg, offset - seg.offset);
}

void RowIdSequence::Find(const std::vector<uint64_t>& sorted_ids,
                         const std::function<void(size_t, uint64_t)>& found) const {
  for (const Segment& seg : segments_) {
    if (seg.kind == Segment::Kind::kValues) {
      for (uint64_t k = 0; k < seg.length; ++k) {
        auto it = std::lower_bound(sorted_ids.begin(), sorted_ids.end(), seg.values[k]);
        if (it != sorted_ids.end() && *it == seg.values[k]) {
          found(static_cast<size_t>(it - sorted_ids.begin()), seg.offset + k);
        }
      }
      continue;
    }
    // The ids asked for that lie in the segment's range (`end` is unset for a plain range, and
    // start + length may wrap for the last fragment's addresses: compare spans).
    const uint64_t span = seg.kind == Segment::Kind::kRange ? seg.length : seg.end - seg.start;
    auto it = std::lower_bound(sorted_ids.begin(), sorted_ids.end(), seg.start);
    for (; it != sorted_ids.end() && *it - seg.start < span; ++it) {
      const uint64_t b = *it - seg.start;
      uint64_t position = b;
      if (seg.kind == Segment::Kind::kHoles) {
        auto hole = std::lower_bound(seg.values.begin(), seg.values.end(), *it);
        if (hole != seg.values.end() && *hole == *it) continue;
        position = b - static_cast<uint64_t>(hole - seg.values.begin());
      } else if (seg.kind == Segment::Kind::kBitmap) {
        const uint64_t word = seg.values[b / 64], bit = b % 64;
        if (((word >> bit) & 1) == 0) continue;
        position = seg.ranks[b / 64] +
                   static_cast<uint64_t>(std::popcount(word & ((uint64_t{1} << bit) - 1)));
      }
      found(static_cast<size_t>(it - sorted_ids.begin()), seg.offset + position);
    }
  }
}

bool UsesStableRowIds(const Dataset& dataset) {
  return (dataset.ReaderFlags() & format::kFlagStableRowIds) != 0;
}

Result<std::shared_ptr<const RowIdSequence>> FragmentRowIds(
    const Dataset& dataset, const lance::table::DataFragment& fragment) {
  // Also bounds what a sequence may hold: physical rows come from the manifest unchecked.
  QV_RETURN_IF_ERROR(CheckAddressable(fragment));
  const uint64_t rows = fragment.physical_rows();
  if (!UsesStableRowIds(dataset)) {
    return std::make_shared<const RowIdSequence>(
        RowIdSequence::Range(RowAddress::Make(fragment.id(), 0), rows));
  }
  const std::string what = fmt::format("the row id sequence of fragment {}", fragment.id());
  std::string external;
  std::string_view bytes;
  switch (fragment.row_id_sequence_case()) {
    case lance::table::DataFragment::kInlineRowIds:
      bytes = fragment.inline_row_ids();
      break;
    case lance::table::DataFragment::kExternalRowIds: {
      QV_ASSIGN_OR_RETURN(external, ReadExternal(dataset, fragment.external_row_ids(), what));
      bytes = external;
      break;
    }
    default:
      return Status::Corruption(what + " is missing (the table uses stable row ids)");
  }
  auto decoded = RowIdSequence::Decode(bytes, rows);
  if (!decoded.ok()) return decoded.status().WithContext(what);
  return std::make_shared<const RowIdSequence>(std::move(*decoded));
}

Result<std::vector<uint64_t>> FragmentCreatedAtVersions(
    const Dataset& dataset, const lance::table::DataFragment& fragment) {
  QV_RETURN_IF_ERROR(CheckAddressable(fragment));
  const uint64_t rows = fragment.physical_rows();
  const std::string what = fmt::format("the created-at versions of fragment {}", fragment.id());
  std::string bytes;
  switch (fragment.created_at_version_sequence_case()) {
    case lance::table::DataFragment::kCreatedAtVersionInline:
      bytes = fragment.created_at_version_inline();
      break;
    case lance::table::DataFragment::kCreatedAtVersionExternal: {
      QV_ASSIGN_OR_RETURN(bytes,
                          ReadExternal(dataset, fragment.created_at_version_external(), what));
      break;
    }
    case lance::table::DataFragment::CREATED_AT_VERSION_SEQUENCE_NOT_SET:
      return std::vector<uint64_t>{};
  }
  pb::RowDatasetVersionSequence sequence;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !sequence.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption(what + " do not parse");
  }
  std::vector<uint64_t> out;
  for (const auto& run : sequence.runs()) {
    QV_ASSIGN_OR_RETURN(uint64_t length, SegmentLength(run.span()));
    if (length > rows - out.size()) {
      return Status::Corruption(
          fmt::format("{} hold more than the fragment's {} rows", what, rows));
    }
    out.insert(out.end(), length, run.version());
  }
  // Fewer than the physical rows: versions of rows already gone were left out (a sequence
  // masked after deletions). Which rows they were is not recorded, so no row's is known.
  if (out.size() != rows) out.clear();
  return out;
}

std::string EncodeRowIds(const std::vector<uint64_t>& ids) {
  pb::RowIdSequence sequence;
  std::string pending;  // u64 values of the array being built
  auto flush_array = [&] {
    if (pending.empty()) return;
    sequence.add_segments()->mutable_array()->mutable_u64_array()->set_values(pending);
    pending.clear();
  };
  for (size_t k = 0; k < ids.size();) {
    size_t run = k + 1;
    while (run < ids.size() && ids[run] == ids[run - 1] + 1) ++run;
    if (run - k >= 8) {  // a range is worth it
      flush_array();
      auto* range = sequence.add_segments()->mutable_range();
      range->set_start(ids[k]);
      range->set_end(ids[run - 1] + 1);
    } else {
      for (size_t j = k; j < run; ++j) {
        pending.append(reinterpret_cast<const char*>(&ids[j]), sizeof(uint64_t));
      }
    }
    k = run;
  }
  flush_array();
  return sequence.SerializeAsString();
}

std::string EncodeRowVersions(const std::vector<uint64_t>& versions) {
  pb::RowDatasetVersionSequence sequence;
  for (size_t k = 0; k < versions.size();) {
    size_t run = k + 1;
    while (run < versions.size() && versions[run] == versions[k]) ++run;
    pb::RowDatasetVersionRun* out = sequence.add_runs();
    out->mutable_span()->mutable_range()->set_start(k);
    out->mutable_span()->mutable_range()->set_end(run);
    out->set_version(versions[k]);
    k = run;
  }
  return sequence.SerializeAsString();
}

}  // namespace quiver::table
