#include "format/internal/file_container.h"

#include <cstring>

#include <fmt/format.h>

#include "common/little_endian.h"
#include "format/proto/file2.pb.h"

namespace quiver::format::internal {

namespace {

constexpr uint64_t kFooterSize = 40;
constexpr uint64_t kTailReadSize = 64 * 1024;
constexpr char kMagic[] = "LANC";
// Page-layout type URLs lance writes (lance-file-format.md §2.1).
constexpr std::string_view kPageLayout21 = "/lance.encodings21.PageLayout";
constexpr std::string_view kArrayEncoding20 = "/lance.encodings.ArrayEncoding";
// Bounds that keep a hostile footer from making us allocate or loop without limit.
constexpr uint64_t kMaxColumns = 1u << 20;
constexpr uint64_t kMaxGlobalBuffers = 1u << 16;

// Bytes [base, base + bytes.size()) of the file.
struct Region {
  uint64_t base = 0;
  std::string_view bytes;
  const std::string* what;

  Result<std::string_view> Slice(uint64_t offset, uint64_t length, const char* item) const {
    if (offset < base || length > bytes.size() || offset - base > bytes.size() - length) {
      return Status::Corruption(
          fmt::format("{}: {} at offset {} ({} bytes) lies outside the "
                      "file's metadata region [{}, {})",
                      *what, item, offset, length, base, base + bytes.size()));
    }
    return bytes.substr(offset - base, length);
  }
};

struct Footer {
  uint64_t column_meta_start, cmo_offset, gbo_offset;
  uint32_t num_global_buffers, num_columns;
  uint16_t major, minor;
};

Result<Footer> ParseFooter(std::string_view tail_end, uint64_t file_size, const std::string& what) {
  if (file_size < kFooterSize || tail_end.size() < kFooterSize) {
    return Status::Corruption(
        fmt::format("{}: {} bytes is too small for a Lance file", what, file_size));
  }
  const char* f = tail_end.data() + tail_end.size() - kFooterSize;
  if (std::memcmp(f + 36, kMagic, 4) != 0) {
    return Status::Corruption(fmt::format("{}: no 'LANC' magic at offset {}", what, file_size - 4));
  }
  Footer footer{LoadLE<uint64_t>(f),      LoadLE<uint64_t>(f + 8),  LoadLE<uint64_t>(f + 16),
                LoadLE<uint32_t>(f + 24), LoadLE<uint32_t>(f + 28), LoadLE<uint16_t>(f + 32),
                LoadLE<uint16_t>(f + 34)};
  const uint64_t limit = file_size - kFooterSize;
  if (footer.column_meta_start > limit || footer.cmo_offset > limit || footer.gbo_offset > limit) {
    return Status::Corruption(
        fmt::format("{}: footer offsets point past the footer at {}", what, limit));
  }
  if (footer.num_columns > kMaxColumns || footer.num_global_buffers > kMaxGlobalBuffers) {
    return Status::Corruption(fmt::format("{}: footer claims {} columns and {} global buffers",
                                          what, footer.num_columns, footer.num_global_buffers));
  }
  if (footer.cmo_offset + 16ull * footer.num_columns > limit ||
      footer.gbo_offset + 16ull * footer.num_global_buffers > limit) {
    return Status::Corruption(fmt::format("{}: offset tables run into the footer", what));
  }
  return footer;
}

Result<FileVersion> VersionOf(const Footer& footer, const std::string& what) {
  if ((footer.major == 0 && footer.minor == 3) || (footer.major == 2 && footer.minor == 0)) {
    return FileVersion::kV2_0;
  }
  if (footer.major == 2 && footer.minor == 1) return FileVersion::kV2_1;
  if (footer.major == 2 && footer.minor == 2) return FileVersion::kV2_2;
  if (footer.major == 0 && footer.minor < 3) {
    return Status::Unsupported(
        fmt::format("{}: legacy Lance file format {}.{} (before 2.0) is "
                    "not supported",
                    what, footer.major, footer.minor));
  }
  return Status::Unsupported(fmt::format("{}: Lance file format version {}.{} is not supported",
                                         what, footer.major, footer.minor));
}

// The page layout inside an Encoding{direct{Any}}.
Status ParsePageEncoding(const lance::file::v2::Encoding& encoding, FileVersion version,
                         PageInfo* page, const std::string& where) {
  if (!encoding.has_direct()) {
    return Status::Unsupported(where + ": only directly stored page encodings are supported");
  }
  lance::file::v2::AnyBytes any;
  if (!any.ParseFromString(encoding.direct().encoding())) {
    return Status::Corruption(where + ": unreadable page encoding");
  }
  if (version == FileVersion::kV2_0) {
    if (any.type_url() != kArrayEncoding20) {
      return Status::Corruption(where + ": 2.0 page encoding of type '" + any.type_url() + "'");
    }
    page->legacy_encoding = any.value();
    return Status::OK();
  }
  if (any.type_url() != kPageLayout21) {
    return Status::Corruption(where + ": page layout of type '" + any.type_url() + "'");
  }
  if (!page->layout.ParseFromString(any.value())) {
    return Status::Corruption(where + ": unreadable page layout");
  }
  return Status::OK();
}

Result<std::shared_ptr<const FileContainer>> Parse(const Region& region, const Footer& footer,
                                                   uint64_t file_size, const std::string& what) {
  auto out = std::make_shared<FileContainer>();
  out->what = what;
  out->file_size = file_size;
  out->major = footer.major;
  out->minor = footer.minor;
  QV_ASSIGN_OR_RETURN(out->version, VersionOf(footer, what));
  if (footer.num_global_buffers == 0) {
    return Status::Corruption(what + ": no global buffers (the schema is global buffer 0)");
  }
  QV_ASSIGN_OR_RETURN(
      std::string_view gbo,
      region.Slice(footer.gbo_offset, 16ull * footer.num_global_buffers, "global buffer table"));
  const uint64_t gb0_pos = LoadLE<uint64_t>(gbo.data());
  const uint64_t gb0_len = LoadLE<uint64_t>(gbo.data() + 8);
  QV_ASSIGN_OR_RETURN(std::string_view schema_bytes, region.Slice(gb0_pos, gb0_len, "schema"));
  if (!out->descriptor.ParseFromArray(schema_bytes.data(), static_cast<int>(schema_bytes.size()))) {
    return Status::Corruption(fmt::format("{}: unreadable schema at offset {}", what, gb0_pos));
  }
  out->num_rows = out->descriptor.length();

  QV_ASSIGN_OR_RETURN(
      std::string_view cmo,
      region.Slice(footer.cmo_offset, 16ull * footer.num_columns, "column metadata table"));
  // Page buffers live before the metadata; anything else is corrupt.
  const uint64_t data_end = std::min({gb0_pos, footer.column_meta_start, footer.cmo_offset});
  out->columns.resize(footer.num_columns);
  for (uint32_t c = 0; c < footer.num_columns; ++c) {
    const uint64_t pos = LoadLE<uint64_t>(cmo.data() + 16 * c);
    const uint64_t len = LoadLE<uint64_t>(cmo.data() + 16 * c + 8);
    QV_ASSIGN_OR_RETURN(std::string_view bytes, region.Slice(pos, len, "column metadata"));
    lance::file::v2::ColumnMetadata meta;
    if (!meta.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Status::Corruption(
          fmt::format("{}: unreadable metadata of column {} at offset {}", what, c, pos));
    }
    ColumnInfo& column = out->columns[c];
    column.pages.resize(meta.pages_size());
    uint64_t first_row = 0;
    for (int p = 0; p < meta.pages_size(); ++p) {
      const auto& src = meta.pages(p);
      const std::string where = fmt::format("{} column {} page {}", what, c, p);
      if (src.buffer_offsets_size() != src.buffer_sizes_size()) {
        return Status::Corruption(where + ": buffer offsets and sizes differ in count");
      }
      PageInfo& page = column.pages[p];
      for (int b = 0; b < src.buffer_offsets_size(); ++b) {
        const uint64_t off = src.buffer_offsets(b), size = src.buffer_sizes(b);
        if (off > data_end || size > data_end - off) {
          return Status::Corruption(
              fmt::format("{}: buffer {} at offset {} ({} bytes) lies "
                          "outside the data region [0, {})",
                          where, b, off, size, data_end));
        }
        page.buffers.push_back({off, size});
      }
      page.rows = src.length();
      page.first_row = first_row;
      // (2.0 list item columns count items, not rows.)
      if (out->version != FileVersion::kV2_0 && page.rows > out->num_rows - first_row) {
        return Status::Corruption(where + ": pages hold more rows than the file");
      }
      first_row += page.rows;
      QV_RETURN_IF_ERROR(ParsePageEncoding(src.encoding(), out->version, &page, where));
    }
  }
  return std::shared_ptr<const FileContainer>(std::move(out));
}

}  // namespace

Result<std::shared_ptr<const FileContainer>> ParseFileContainer(std::string_view file,
                                                                const std::string& what) {
  QV_ASSIGN_OR_RETURN(Footer footer, ParseFooter(file, file.size(), what));
  Region region{0, file, &what};
  return Parse(region, footer, file.size(), what);
}

Result<std::shared_ptr<const FileContainer>> ReadFileContainer(ObjectStore& store,
                                                               const std::string& key,
                                                               uint64_t known_size) {
  const std::string what = "file " + key;
  uint64_t size = known_size;
  if (size == 0) {
    QV_ASSIGN_OR_RETURN(ObjectMeta meta, store.Head(key));
    size = meta.size;
  }
  const uint64_t tail_start = size > kTailReadSize ? size - kTailReadSize : 0;
  QV_ASSIGN_OR_RETURN(GetResult tail, store.Get(key, ByteRange{tail_start, size - tail_start}));
  if (tail.data.size() != size - tail_start) {
    return Status::Corruption(
        fmt::format("{}: expected {} bytes, the store has {}", what, size, tail.meta.size));
  }
  QV_ASSIGN_OR_RETURN(Footer footer, ParseFooter(tail.data, size, what));
  // The metadata region runs from global buffer 0 (the schema, written before the column
  // metadata) to the end; read what the tail read missed.
  uint64_t gb0 = footer.gbo_offset;
  if (footer.num_global_buffers > 0) {
    if (footer.gbo_offset >= tail_start) {
      gb0 = LoadLE<uint64_t>(tail.data.data() + (footer.gbo_offset - tail_start));
    } else {
      QV_ASSIGN_OR_RETURN(GetResult entry, store.Get(key, ByteRange{footer.gbo_offset, 8}));
      if (entry.data.size() != 8) return Status::Corruption(what + ": short global buffer table");
      gb0 = LoadLE<uint64_t>(entry.data.data());
    }
  }
  uint64_t region_start =
      std::min({footer.column_meta_start, footer.cmo_offset, footer.gbo_offset, gb0});
  if (region_start > size) {
    return Status::Corruption(fmt::format("{}: schema at offset {} lies past the end", what, gb0));
  }
  if (region_start >= tail_start) {
    Region region{tail_start, tail.data, &what};
    return Parse(region, footer, size, what);
  }
  QV_ASSIGN_OR_RETURN(GetResult head,
                      store.Get(key, ByteRange{region_start, tail_start - region_start}));
  std::string bytes = std::move(head.data);
  bytes += tail.data;
  Region region{region_start, bytes, &what};
  return Parse(region, footer, size, what);
}

}  // namespace quiver::format::internal
