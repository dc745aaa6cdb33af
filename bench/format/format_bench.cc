// Format benchmark: quiver's Lance 2.1 writer and reader against LanceDB 0.31 (Rust Lance 8.0),
// or with --storage-version 2.2 its 2.2 writer against LanceDB 0.39 (Lance 12; the peer then
// runs with QV_LANCEDB=0.39), on the same data, machine and run, next to physical floors.
// bench/format/run.sh drives it.
//
//   format_bench [--rows N] [--rounds R] [--work DIR] [--peer SCRIPT] [--json FILE]
//                [--batch-rows B] [--keep] [--storage-version 2.1|2.2]
//   format_bench --scan-only TABLE_DIR [--columns a,b] [--rounds R]   (profiling aid: quiver
//                scans of one table, no peer, no floors)
//   format_bench --write-only DIR [--rows N] [--rounds R]   (profiling aid: quiver writes of the
//                generated data into DIR/w<r>.lance, no peer)
//
// 1. Generates the dataset deterministically (N rows, default 1,000,000, in batches of B =
//    65,536): id int64 (sequential), x float64 (uniform [0,1)), s utf8 (30 % drawn from 1,000
//    distinct values, the rest random printable ASCII of 8–64 bytes; the distinct values too),
//    v fixed_size_list<float32,128> (uniform [-1,1)). It writes them once as an Arrow IPC stream
//    (DIR/data.arrows) and starts `node SCRIPT` (lancedb_format_bench.mjs), which reads that
//    stream with apache-arrow and keeps the table in memory: both sides write identical data.
// 2. Write rounds: each round quiver WriteData (mode create, from the in-memory batches, one
//    1M-row file) and LanceDB createTable (from the in-memory Arrow table) each create a fresh
//    table, in alternating order. fsync is included on both sides (quiver's local store fsyncs
//    every file and directory; LanceDB's never does, so its side fsyncs the new table's files and
//    directories inside the timed region). sync(2) runs untimed before every timed operation.
// 3. The tables of the last write round are scanned: full, `x` only, `v` only, by each side on
//    its own table (quiver: Dataset::Open untimed, then table::Scan draining every batch;
//    LanceDB: openTable untimed, then query().toArrow() end-to-end and analyzePlan() for the Rust
//    side), plus quiver on LanceDB's table. Scans are warm (the files are in the page cache on
//    both sides; an untimed pass reads everything first and checks the rows against the data).
//    Floors, measured in the same rounds: memcpy of the decoded bytes (into a pre-faulted
//    buffer) and a cold sequential pread of the bytes the projection needs (whole data file for a
//    full scan, the column's pages otherwise) after posix_fadvise(DONTNEED) of those ranges.
// Each measurement runs once per round; the median round is reported. Ratios are
// "other time / quiver time": > 1 means quiver is faster (for a floor, 1.0 = at the floor).
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "arrow/compare.h"
#include "arrow/ipc/io.h"
#include "arrow/ipc/writer.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "format/internal/file_container.h"
#include "store/local_store.h"
#include "table/dataset.h"
#include "table/scan.h"
#include "table/write.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace qa = quiver::arrow;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "format_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Check(quiver::Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(r).value();
}
void Check(const quiver::Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

void Progress(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

// ---------------------------------------------------------------------------------------------
// The dataset

struct Dataset {
  std::shared_ptr<const qa::Schema> schema;
  std::vector<qa::RecordBatch> batches;
  int64_t rows = 0;
  std::map<std::string, uint64_t> decoded_bytes;  // per column, Arrow buffer bytes
  uint64_t total_bytes() const {
    uint64_t t = 0;
    for (const auto& [k, v] : decoded_bytes) t += v;
    return t;
  }
};

std::shared_ptr<qa::ArrayData> NewArray(const qa::DataType& type, int64_t length) {
  auto a = std::make_shared<qa::ArrayData>();
  a->type = type;
  a->length = length;
  return a;
}

Dataset Generate(int64_t rows, int64_t batch_rows) {
  const qa::DataType v_type =
      qa::DataType::FixedSizeList(qa::Field("item", qa::DataType::Float32(), true), 128);
  auto schema = std::make_shared<qa::Schema>();
  schema->fields = {qa::Field("id", qa::DataType::Int64()), qa::Field("x", qa::DataType::Float64()),
                    qa::Field("s", qa::DataType::Utf8()), qa::Field("v", v_type)};
  Dataset d;
  d.schema = schema;
  d.rows = rows;
  std::mt19937_64 rng(20261129);
  auto random_string = [&rng] {
    const int len = 8 + static_cast<int>(rng() % 57);  // 8..64
    std::string s(static_cast<size_t>(len), ' ');
    for (char& c : s) c = static_cast<char>(33 + rng() % 94);  // printable ASCII
    return s;
  };
  std::vector<std::string> distinct;
  for (int i = 0; i < 1000; ++i) distinct.push_back(random_string());
  for (int64_t start = 0; start < rows; start += batch_rows) {
    const int64_t n = std::min(batch_rows, rows - start);
    qa::RecordBatch b;
    b.schema = schema;
    b.length = n;
    // id
    auto id = NewArray(qa::DataType::Int64(), n);
    auto id_buf = Check(qa::Buffer::Allocate(static_cast<uint64_t>(n) * 8), "alloc");
    auto* idp = reinterpret_cast<int64_t*>(id_buf->mutable_data());
    for (int64_t i = 0; i < n; ++i) idp[i] = start + i;
    id->buffers = {nullptr, id_buf};
    // x
    auto x = NewArray(qa::DataType::Float64(), n);
    auto x_buf = Check(qa::Buffer::Allocate(static_cast<uint64_t>(n) * 8), "alloc");
    auto* xp = reinterpret_cast<double*>(x_buf->mutable_data());
    for (int64_t i = 0; i < n; ++i) xp[i] = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    x->buffers = {nullptr, x_buf};
    // s
    std::string data;
    std::vector<int32_t> offsets(static_cast<size_t>(n) + 1, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (rng() % 10 < 3) {
        data += distinct[rng() % distinct.size()];
      } else {
        data += random_string();
      }
      offsets[static_cast<size_t>(i) + 1] = static_cast<int32_t>(data.size());
    }
    auto s = NewArray(qa::DataType::Utf8(), n);
    auto off_buf = Check(qa::Buffer::CopyOf(std::string_view(
                             reinterpret_cast<const char*>(offsets.data()), offsets.size() * 4)),
                         "alloc");
    auto data_buf = Check(qa::Buffer::CopyOf(data), "alloc");
    s->buffers = {nullptr, off_buf, data_buf};
    // v
    auto items = NewArray(qa::DataType::Float32(), n * 128);
    auto v_buf = Check(qa::Buffer::Allocate(static_cast<uint64_t>(n) * 128 * 4), "alloc");
    auto* vp = reinterpret_cast<float*>(v_buf->mutable_data());
    for (int64_t i = 0; i < n * 128; ++i) {
      vp[i] = static_cast<float>(static_cast<double>(rng() >> 40) * 0x1.0p-23 - 1.0);
    }
    items->buffers = {nullptr, v_buf};
    auto v = NewArray(v_type, n);
    v->buffers = {nullptr};
    v->children = {items};

    d.decoded_bytes["id"] += static_cast<uint64_t>(n) * 8;
    d.decoded_bytes["x"] += static_cast<uint64_t>(n) * 8;
    d.decoded_bytes["s"] += offsets.size() * 4 + data.size();
    d.decoded_bytes["v"] += static_cast<uint64_t>(n) * 512;
    b.columns = {id, x, s, v};
    Check(b.Validate(true), "generated batch");
    d.batches.push_back(std::move(b));
  }
  return d;
}

void WriteIpcStream(const Dataset& d, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("open " + path + ": " + std::strerror(errno));
  qa::ipc::FdSink sink(fd);
  auto writer = Check(qa::ipc::StreamWriter::Open(&sink, d.schema), "ipc open");
  for (const auto& b : d.batches) Check(writer->Write(b), "ipc write");
  Check(writer->Finish(), "ipc finish");
  ::close(fd);
}

// ---------------------------------------------------------------------------------------------
// The LanceDB peer: `node SCRIPT`, one JSON line in, one "@@ JSON" line out.

class Peer {
 public:
  explicit Peer(const std::string& script) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) Die("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<std::string> args = {"node", script};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, "node", &fa, nullptr, argv.data(), environ) != 0) Die("spawn node");
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_ = ::fdopen(in[1], "w");
    from_ = ::fdopen(out[0], "r");
  }
  ~Peer() {
    std::fputs("{\"op\":\"quit\"}\n", to_);
    std::fclose(to_);
    std::fclose(from_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  json Call(const json& cmd) {
    const std::string line = cmd.dump() + "\n";
    std::fputs(line.c_str(), to_);
    std::fflush(to_);
    std::string got;
    char buf[1 << 16];
    while (true) {
      got.clear();
      while (true) {
        if (std::fgets(buf, sizeof buf, from_) == nullptr) Die("the LanceDB peer exited");
        got += buf;
        if (!got.empty() && got.back() == '\n') break;
      }
      if (got.rfind("@@ ", 0) == 0) break;
      std::fputs(got.c_str(), stderr);  // not a reply: pass through
    }
    json reply = json::parse(got.substr(3));
    if (!reply.value("ok", false)) Die("LanceDB peer: " + reply.value("error", std::string("?")));
    return reply;
  }

 private:
  pid_t pid_ = 0;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Files of a table

std::vector<std::string> DataFiles(const std::string& table_dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(table_dir) / "data")) {
    if (e.is_regular_file() && e.path().extension() == ".lance") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

uint64_t DataBytes(const std::string& table_dir) {
  uint64_t total = 0;
  for (const auto& f : DataFiles(table_dir)) total += fs::file_size(f);
  return total;
}

// The file format versions the table's data files say in their footers ("2.1", "2.1+2.2").
std::string FooterVersions(const std::string& table_dir) {
  std::set<std::string> versions;
  for (const auto& f : DataFiles(table_dir)) {
    std::ifstream in(f, std::ios::binary);
    in.seekg(-8, std::ios::end);
    uint16_t major = 0, minor = 0;
    in.read(reinterpret_cast<char*>(&major), 2);
    in.read(reinterpret_cast<char*>(&minor), 2);
    versions.insert(fmt::format("{}.{}", major, minor));
  }
  std::string out;
  for (const auto& v : versions) out += (out.empty() ? "" : "+") + v;
  return out;
}

uint64_t TreeBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().string().find("/.qv-store/") == std::string::npos) {
      total += e.file_size();
    }
  }
  return total;
}

// A compact name of the set message fields of a page layout ("mini_block_layout{value_
// compression{flat}}"), for the encoding summary.
void Shape(const google::protobuf::Message& m, std::string* out, int depth = 0) {
  const auto* refl = m.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  bool first = true;
  for (const auto* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->name() == "bits_per_value" || f->name() == "uncompressed_bits_per_value" ||
          f->name() == "compressed_bits_per_value" || f->name() == "scheme") {
        if (!first) *out += ",";
        first = false;
        using FD = google::protobuf::FieldDescriptor;
        std::string v = "?";
        if (!f->is_repeated()) {
          switch (f->cpp_type()) {
            case FD::CPPTYPE_ENUM:
              v = refl->GetEnum(m, f)->name();
              break;
            case FD::CPPTYPE_UINT32:
              v = std::to_string(refl->GetUInt32(m, f));
              break;
            case FD::CPPTYPE_UINT64:
              v = std::to_string(refl->GetUInt64(m, f));
              break;
            case FD::CPPTYPE_INT32:
              v = std::to_string(refl->GetInt32(m, f));
              break;
            case FD::CPPTYPE_INT64:
              v = std::to_string(refl->GetInt64(m, f));
              break;
            default:
              break;
          }
        }
        *out += f->name() + "=" + v;
      }
      continue;
    }
    if (f->is_repeated() || depth > 8) continue;
    if (!first) *out += ",";
    first = false;
    *out += f->name();
    const auto& sub = refl->GetMessage(m, f);
    std::string inner;
    Shape(sub, &inner, depth + 1);
    if (!inner.empty()) *out += "{" + inner + "}";
  }
}

struct ColumnPages {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // merged [offset, end)
  uint64_t bytes = 0;
  size_t pages = 0;
  std::map<std::string, size_t> layouts;  // shape -> pages
};

// Per data file, per column: the byte ranges of its pages.
std::vector<std::pair<std::string, std::vector<ColumnPages>>> FilePages(
    const std::string& table_dir) {
  std::vector<std::pair<std::string, std::vector<ColumnPages>>> out;
  auto store = Check(quiver::LocalObjectStore::Open(table_dir + "/data", {false}), "open store");
  for (const auto& path : DataFiles(table_dir)) {
    const std::string key = fs::path(path).filename();
    auto container = Check(quiver::format::internal::ReadFileContainer(*store, key, 0), key);
    std::vector<ColumnPages> cols;
    for (const auto& c : container->columns) {
      ColumnPages cp;
      for (const auto& p : c.pages) {
        ++cp.pages;
        std::string shape;
        Shape(p.layout, &shape);
        ++cp.layouts[shape];
        for (const auto& b : p.buffers) {
          if (b.size == 0) continue;
          cp.bytes += b.size;
          if (!cp.ranges.empty() && cp.ranges.back().second >= b.offset) {
            cp.ranges.back().second = std::max(cp.ranges.back().second, b.offset + b.size);
          } else {
            cp.ranges.push_back({b.offset, b.offset + b.size});
          }
        }
      }
      cols.push_back(std::move(cp));
    }
    out.push_back({path, std::move(cols)});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Floors

// Cold sequential read: drop the ranges from the page cache, then pread them in order.
double ColdRead(
    const std::vector<std::pair<std::string, std::vector<std::pair<uint64_t, uint64_t>>>>& files,
    std::vector<uint8_t>* scratch) {
  ::sync();
  std::vector<int> fds;
  for (const auto& [path, ranges] : files) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Die("open " + path);
    for (const auto& [b, e] : ranges) {
      ::posix_fadvise(fd, static_cast<off_t>(b), static_cast<off_t>(e - b), POSIX_FADV_DONTNEED);
    }
    fds.push_back(fd);
  }
  const size_t chunk = scratch->size();
  const auto t0 = Clock::now();
  for (size_t i = 0; i < files.size(); ++i) {
    for (const auto& [b, e] : files[i].second) {
      for (uint64_t at = b; at < e;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, e - at));
        const ssize_t got = ::pread(fds[i], scratch->data(), n, static_cast<off_t>(at));
        if (got <= 0) Die("pread");
        at += static_cast<uint64_t>(got);
      }
    }
  }
  const double s = Since(t0);
  for (int fd : fds) ::close(fd);
  return s;
}

// The ranges a projection reads: the whole file for a full scan, else the columns' pages.
std::vector<std::pair<std::string, std::vector<std::pair<uint64_t, uint64_t>>>> ProjectionRanges(
    const std::vector<std::pair<std::string, std::vector<ColumnPages>>>& pages,
    const std::vector<int>& columns) {
  std::vector<std::pair<std::string, std::vector<std::pair<uint64_t, uint64_t>>>> out;
  for (const auto& [path, cols] : pages) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    if (columns.empty()) {
      ranges.push_back({0, fs::file_size(path)});
    } else {
      for (int c : columns) {
        for (const auto& r : cols[static_cast<size_t>(c)].ranges) ranges.push_back(r);
      }
      std::sort(ranges.begin(), ranges.end());
    }
    out.push_back({path, std::move(ranges)});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// quiver's side

// The Lance file format quiver writes (--storage-version): 2.1, or 2.2 against LanceDB 0.39.
std::string g_storage_version = "2.1";

double QuiverWrite(const Dataset& d, const std::string& dir) {
  auto store = Check(quiver::LocalObjectStore::Open(dir), "open " + dir);
  auto stream = qa::MakeVectorStream(d.schema, d.batches);
  quiver::table::WriteOptions options;
  options.mode = quiver::table::WriteMode::kCreate;
  options.commit.new_table_storage_version = g_storage_version;
  ::sync();
  const auto t0 = Clock::now();
  auto written = Check(
      quiver::table::WriteData(quiver::table::CommitTarget{store, std::nullopt}, *stream, options),
      "WriteData");
  const double s = Since(t0);
  if (static_cast<int64_t>(written.rows) != d.rows) Die("WriteData wrote a different row count");
  return s;
}

struct ScanResult {
  double seconds = 0;
  int64_t rows = 0;
};

// Scans `dir`; with `check`, compares every row against the generated data.
ScanResult QuiverScan(const std::string& dir, const std::vector<std::string>& columns,
                      const Dataset* check = nullptr) {
  auto store = Check(quiver::LocalObjectStore::Open(dir, {false}), "open " + dir);
  auto dataset = Check(quiver::table::Dataset::Open(store), "Dataset::Open " + dir);
  quiver::table::ScanOptions options;
  options.columns = columns;
  ::sync();
  ScanResult r;
  const auto t0 = Clock::now();
  auto stream = Check(quiver::table::Scan(dataset, options), "Scan");
  while (true) {
    auto batch = Check(stream->Next(), "Scan::Next " + dir);
    if (!batch) break;
    if (check != nullptr) {
      // Compare against the generated batch(es) holding these rows.
      const auto& cols = columns;
      for (size_t c = 0; c < batch->columns.size(); ++c) {
        const std::string& name = batch->schema->fields[c].name;
        const int gi = check->schema->FieldIndex(name);
        if (gi < 0) Die("scan returned unknown column " + name);
        int64_t at = r.rows, done = 0;
        while (done < batch->length) {
          const int64_t bi = at / check->batches[0].length;
          const auto& gb = check->batches[static_cast<size_t>(bi)];
          const int64_t in = at - bi * check->batches[0].length;
          const int64_t n = std::min(batch->length - done, gb.length - in);
          auto want = qa::Slice(gb.columns[static_cast<size_t>(gi)], in, n);
          auto got = qa::Slice(batch->columns[c], done, n);
          if (auto diff = qa::Diff(*got, *want)) {
            Die(fmt::format("{}: column {} rows {}..: {}", dir, name, at, *diff));
          }
          at += n;
          done += n;
        }
      }
      (void)cols;
    }
    r.rows += batch->length;
  }
  r.seconds = Since(t0);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Rounds and the table

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::map<std::string, std::vector<double>> g_samples;
void Record(const std::string& key, double seconds) { g_samples[key].push_back(seconds); }
double Med(const std::string& key) { return Median(g_samples[key]); }

struct Projection {
  std::string label;
  std::vector<std::string> columns;  // empty = all
  std::vector<int> column_indices;   // leaf columns in the files
};

std::string Fmt(double v, int digits = 3) {
  if (std::isnan(v)) return "–";
  return fmt::format("{:.{}f}", v, digits);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 1000000, batch_rows = 65536;
  int rounds = 7;
  std::string work, peer_script = "bench/format/lancedb_format_bench.mjs", json_out;
  std::string scan_only, scan_columns, write_only;
  bool keep = false;
  if (const char* e = std::getenv("FORMAT_BENCH_ROWS")) rows = std::atoll(e);
  if (const char* e = std::getenv("FORMAT_BENCH_ROUNDS")) rounds = std::atoi(e);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--rows")
      rows = std::atoll(next().c_str());
    else if (a == "--rounds")
      rounds = std::atoi(next().c_str());
    else if (a == "--work")
      work = next();
    else if (a == "--peer")
      peer_script = next();
    else if (a == "--json")
      json_out = next();
    else if (a == "--batch-rows")
      batch_rows = std::atoll(next().c_str());
    else if (a == "--keep")
      keep = true;
    else if (a == "--scan-only")
      scan_only = next();
    else if (a == "--write-only")
      write_only = next();
    else if (a == "--columns")
      scan_columns = next();
    else if (a == "--storage-version")
      g_storage_version = next();
    else
      Die("unknown argument " + a);
  }
  if (rows <= 0 || rounds <= 0 || batch_rows <= 0 || batch_rows % 8192 != 0) {
    Die("--rows and --rounds must be positive, --batch-rows a multiple of 8192");
  }
  if (!scan_only.empty()) {  // profiling aid: scan one table repeatedly, no peer
    std::vector<std::string> cols;
    for (size_t at = 0; at < scan_columns.size();) {
      size_t comma = scan_columns.find(',', at);
      if (comma == std::string::npos) comma = scan_columns.size();
      if (comma > at) cols.push_back(scan_columns.substr(at, comma - at));
      at = comma + 1;
    }
    for (int r = 0; r < rounds; ++r) {
      ScanResult res = QuiverScan(scan_only, cols);
      std::printf("scan %s [%s]: %" PRId64 " rows in %.4f s\n", scan_only.c_str(),
                  scan_columns.c_str(), res.rows, res.seconds);
    }
    return 0;
  }
  if (!write_only.empty()) {  // profiling aid: quiver writes of the generated data, no peer
    const Dataset d = Generate(rows, batch_rows);
    for (int r = 0; r < rounds; ++r) {
      const std::string dir = fmt::format("{}/w{}.lance", write_only, r);
      rusage u0, u1;
      ::getrusage(RUSAGE_SELF, &u0);
      const double wall = QuiverWrite(d, dir);
      ::getrusage(RUSAGE_SELF, &u1);
      auto cpu = [](const timeval& a, const timeval& b) {
        return static_cast<double>(b.tv_sec - a.tv_sec) + (b.tv_usec - a.tv_usec) / 1e6;
      };
      std::printf("write %" PRId64 " rows to %s: %.4f s wall, %.4f s user, %.4f s sys\n", rows,
                  dir.c_str(), wall, cpu(u0.ru_utime, u1.ru_utime), cpu(u0.ru_stime, u1.ru_stime));
    }
    return 0;
  }
  bool own_work = false;
  if (work.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "format_bench.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp");
    work = tmpl;
    own_work = true;
  }
  fs::create_directories(work);
  work = fs::absolute(work);

  Progress(fmt::format("generating {} rows...", rows));
  auto t0 = Clock::now();
  const Dataset data = Generate(rows, batch_rows);
  const std::string ipc = work + "/data.arrows";
  WriteIpcStream(data, ipc);
  Progress(fmt::format("  {:.1f} s, {:.1f} MB decoded, IPC stream {:.1f} MB", Since(t0),
                       data.total_bytes() / 1e6, fs::file_size(ipc) / 1e6));

  Peer peer(peer_script);
  json loaded = peer.Call({{"op", "load"}, {"data", ipc}});
  if (loaded["rows"].get<int64_t>() != rows) Die("the peer loaded a different row count");

  const std::string qroot = work + "/quiver", lroot = work + "/lancedb";
  fs::create_directories(qroot);
  fs::create_directories(lroot);

  // ---- write rounds ----
  std::string qlast, llast_name;
  for (int r = 0; r < rounds; ++r) {
    const std::string qdir = fmt::format("{}/w{}.lance", qroot, r);
    const std::string lname = fmt::format("w{}", r);
    auto run_quiver = [&] { Record("write.quiver", QuiverWrite(data, qdir)); };
    auto run_lance = [&] {
      ::sync();
      json w = peer.Call({{"op", "write"}, {"root", lroot}, {"name", lname}});
      Record("write.lance.e2e", w["e2e_s"].get<double>());
      Record("write.lance.rust", w["rust_s"].get<double>());
      Record("write.lance.fsync", w["fsync_s"].get<double>());
      Record("write.lance.nofsync_e2e", w["nofsync_e2e_s"].get<double>());
    };
    if (r % 2 == 0) {
      run_quiver();
      run_lance();
    } else {
      run_lance();
      run_quiver();
    }
    Progress(fmt::format("write round {}/{}: quiver {:.3f} s, LanceDB {:.3f} s (Rust side {:.3f})",
                         r + 1, rounds, g_samples["write.quiver"].back(),
                         g_samples["write.lance.e2e"].back(),
                         g_samples["write.lance.rust"].back()));
    // Keep only the newest tables.
    if (!qlast.empty()) {
      fs::remove_all(qlast);
      fs::remove_all(fmt::format("{}/{}.lance", lroot, llast_name));
    }
    qlast = qdir;
    llast_name = lname;
  }
  const std::string ldir = fmt::format("{}/{}.lance", lroot, llast_name);
  const uint64_t qsize = DataBytes(qlast), lsize = DataBytes(ldir);
  const uint64_t qtree = TreeBytes(qlast), ltree = TreeBytes(ldir);
  const auto qpages = FilePages(qlast), lpages = FilePages(ldir);

  // ---- scan rounds ----
  std::vector<Projection> projections = {
      {"full scan (all columns)", {}, {}},
      {"projected scan: x", {"x"}, {1}},
      {"projected scan: v", {"v"}, {3}},
  };
  auto decoded_of = [&](const Projection& p) {
    if (p.columns.empty()) return data.total_bytes();
    uint64_t b = 0;
    for (const auto& c : p.columns) b += data.decoded_bytes.at(c);
    return b;
  };
  std::vector<uint8_t> src(data.total_bytes()), dst(data.total_bytes());
  std::memset(src.data(), 1, src.size());
  std::memset(dst.data(), 2, dst.size());
  std::vector<uint8_t> scratch(8 << 20);

  Progress("warm-up and check: every scan once, rows compared with the generated data...");
  for (const auto& p : projections) {
    for (const std::string& dir : {qlast, ldir}) {
      ScanResult r = QuiverScan(dir, p.columns, &data);
      if (r.rows != rows) Die(fmt::format("quiver scan of {} returned {} rows", dir, r.rows));
    }
    json cols = p.columns.empty() ? json(nullptr) : json(p.columns);
    json a = peer.Call({{"op", "scan"},
                        {"root", lroot},
                        {"name", llast_name},
                        {"columns", cols},
                        {"how", "arrow"}});
    if (a["rows"].get<int64_t>() != rows) Die("LanceDB toArrow returned a different row count");
    json z = peer.Call({{"op", "scan"},
                        {"root", lroot},
                        {"name", llast_name},
                        {"columns", cols},
                        {"how", "analyze"},
                        {"want_plan", true}});
    if (z["rust_s"].is_null()) Die("no AnalyzeExec elapsed in: " + z.value("plan", std::string()));
    Progress("  LanceDB plan (" + p.label + "):\n" + z.value("plan", std::string()));
  }

  for (int r = 0; r < rounds; ++r) {
    for (size_t pi = 0; pi < projections.size(); ++pi) {
      const Projection& p = projections[pi];
      const std::string k = "scan" + std::to_string(pi);
      json cols = p.columns.empty() ? json(nullptr) : json(p.columns);
      std::vector<std::function<void()>> steps = {
          [&] { Record(k + ".quiver", QuiverScan(qlast, p.columns).seconds); },
          [&] {
            ::sync();
            json a = peer.Call({{"op", "scan"},
                                {"root", lroot},
                                {"name", llast_name},
                                {"columns", cols},
                                {"how", "arrow"}});
            Record(k + ".lance.e2e", a["seconds"].get<double>());
            ::sync();
            json z = peer.Call({{"op", "scan"},
                                {"root", lroot},
                                {"name", llast_name},
                                {"columns", cols},
                                {"how", "analyze"}});
            Record(k + ".lance.rust", z["rust_s"].get<double>());
            Record(k + ".lance.analyze_wall", z["wall_s"].get<double>());
          },
          [&] { Record(k + ".quiver_on_lance", QuiverScan(ldir, p.columns).seconds); },
          [&] {
            const uint64_t n = decoded_of(p);
            const auto t = Clock::now();
            std::memcpy(dst.data(), src.data(), n);
            Record(k + ".memcpy", Since(t));
            if (dst[n / 2] != 1) Die("memcpy");
          },
          [&] {
            Record(k + ".cold", ColdRead(ProjectionRanges(qpages, p.column_indices), &scratch));
            Record(k + ".cold_lance",
                   ColdRead(ProjectionRanges(lpages, p.column_indices), &scratch));
          },
      };
      if (r % 2 == 1) std::reverse(steps.begin(), steps.end());
      for (auto& s : steps) s();
    }
    Progress(fmt::format("scan round {}/{}: full quiver {:.3f} s, LanceDB {:.3f} s (Rust {:.3f})",
                         r + 1, rounds, g_samples["scan0.quiver"].back(),
                         g_samples["scan0.lance.e2e"].back(),
                         g_samples["scan0.lance.rust"].back()));
  }

  // ---- the table ----
  const double gb = 1e9;
  std::printf("dataset: %" PRId64
              " rows (id int64, x float64, s utf8, v fixed_size_list<float32,128>), "
              "%.1f MB decoded; %d rounds, median; ratio = LanceDB time / quiver time (> 1: quiver "
              "faster); "
              "floor ratio = floor time / quiver time (1.0 = at the floor)\n\n",
              rows, data.total_bytes() / 1e6, rounds);
  std::printf(
      "| row | quiver s | LanceDB s (e2e) | LanceDB s (Rust side) | ratio e2e | ratio Rust | "
      "quiver GB/s | LanceDB GB/s (Rust) | memcpy floor s | ×memcpy | cold read s | ×cold |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  {
    const double q = Med("write.quiver"), le = Med("write.lance.e2e"), lr = Med("write.lance.rust");
    const double bytes = static_cast<double>(data.total_bytes());
    std::printf(
        "| write %" PRId64
        " rows (fsync included on both sides) | %s | %s | %s | %s | %s | %s | %s | | | | |\n",
        rows, Fmt(q).c_str(), Fmt(le).c_str(), Fmt(lr).c_str(), Fmt(le / q, 2).c_str(),
        Fmt(lr / q, 2).c_str(), Fmt(bytes / q / gb, 2).c_str(), Fmt(bytes / lr / gb, 2).c_str());
  }
  for (size_t pi = 0; pi < projections.size(); ++pi) {
    const Projection& p = projections[pi];
    const std::string k = "scan" + std::to_string(pi);
    const double bytes = static_cast<double>(decoded_of(p));
    const double q = Med(k + ".quiver"), le = Med(k + ".lance.e2e"), lr = Med(k + ".lance.rust");
    const double m = Med(k + ".memcpy"), c = Med(k + ".cold");
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.label.c_str(),
                Fmt(q).c_str(), Fmt(le).c_str(), Fmt(lr).c_str(), Fmt(le / q, 2).c_str(),
                Fmt(lr / q, 2).c_str(), Fmt(bytes / q / gb, 2).c_str(),
                Fmt(bytes / lr / gb, 2).c_str(), Fmt(m, 4).c_str(), Fmt(m / q, 2).c_str(),
                Fmt(c, 4).c_str(), Fmt(c / q, 2).c_str());
  }
  for (size_t pi = 0; pi < projections.size(); ++pi) {
    const Projection& p = projections[pi];
    const std::string k = "scan" + std::to_string(pi);
    const double bytes = static_cast<double>(decoded_of(p));
    const double q = Med(k + ".quiver_on_lance"), le = Med(k + ".lance.e2e"),
                 lr = Med(k + ".lance.rust");
    const double m = Med(k + ".memcpy"), c = Med(k + ".cold_lance");
    std::printf(
        "| quiver reads LanceDB's table: %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
        "|\n",
        p.label.c_str(), Fmt(q).c_str(), Fmt(le).c_str(), Fmt(lr).c_str(), Fmt(le / q, 2).c_str(),
        Fmt(lr / q, 2).c_str(), Fmt(bytes / q / gb, 2).c_str(), Fmt(bytes / lr / gb, 2).c_str(),
        Fmt(m, 4).c_str(), Fmt(m / q, 2).c_str(), Fmt(c, 4).c_str(), Fmt(c / q, 2).c_str());
  }
  std::printf(
      "\n| file size (data files: quiver %s, LanceDB %s) | quiver bytes | LanceDB bytes | quiver / "
      "LanceDB |\n|---|---:|---:|---:|\n",
      FooterVersions(qlast).c_str(), FooterVersions(ldir).c_str());
  std::printf("| data files | %" PRIu64 " | %" PRIu64 " | %.3f |\n", qsize, lsize,
              static_cast<double>(qsize) / static_cast<double>(lsize));
  std::printf("| whole table directory | %" PRIu64 " | %" PRIu64 " | %.3f |\n", qtree, ltree,
              static_cast<double>(qtree) / static_cast<double>(ltree));

  std::printf(
      "\nwrite detail (medians): LanceDB JS-side IPC serialization %.3f s, LanceDB fsync of "
      "its new files %.3f s, LanceDB without that fsync %.3f s e2e; analyzePlan() wall "
      "times (Rust + plan formatting): full %.3f s, x %.3f s, v %.3f s\n",
      Med("write.lance.e2e") - Med("write.lance.rust"), Med("write.lance.fsync"),
      Med("write.lance.nofsync_e2e"), Med("scan0.lance.analyze_wall"),
      Med("scan1.lance.analyze_wall"), Med("scan2.lance.analyze_wall"));
  std::printf("cold-read floor of LanceDB's files: full %.3f s, x %.3f s, v %.3f s\n",
              Med("scan0.cold_lance"), Med("scan1.cold_lance"), Med("scan2.cold_lance"));
  const char* names[] = {"id", "x", "s", "v"};
  for (const auto* which : {"quiver", "LanceDB"}) {
    const auto& pages = std::string(which) == "quiver" ? qpages : lpages;
    std::printf("\n%s encodings (per column: pages, bytes, page layouts):\n", which);
    for (const auto& [path, cols] : pages) {
      for (size_t c = 0; c < cols.size(); ++c) {
        std::string layouts;
        for (const auto& [shape, n] : cols[c].layouts) {
          layouts += fmt::format("{}{}×{}", layouts.empty() ? "" : "; ", n, shape);
        }
        std::printf("  %s: %zu pages, %" PRIu64 " bytes, %s\n", c < 4 ? names[c] : "?",
                    cols[c].pages, cols[c].bytes, layouts.c_str());
      }
    }
  }

  if (!json_out.empty()) {
    json j;
    j["rows"] = rows;
    j["rounds"] = rounds;
    j["samples"] = g_samples;
    j["sizes"] = {{"quiver_data", qsize},
                  {"lancedb_data", lsize},
                  {"quiver_tree", qtree},
                  {"lancedb_tree", ltree}};
    std::ofstream(json_out) << j.dump(1) << "\n";
  }
  if (own_work && !keep) fs::remove_all(work);
  return 0;
}
