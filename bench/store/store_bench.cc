// Object-store benchmark: ops/s of the local backend next to the physical floor measured in the
// same run on the same directory (bare syscall loops doing the least work the operation could
// possibly do), printed as a table with ratios.
//
//   build/bench/store_bench [--dir DIR] [--seconds S] [--json]
//
// Floors:
//   create   open(O_EXCL)/write/fsync/close + link + unlink(temp)      vs Put(kCreateOnly)
//   replace  open(O_EXCL)/write/fsync/close + rename                   vs Put(kIfMatch)
//   read     open/pread/close of a 1 KiB file                          vs Get
//   list     opendir/readdir/closedir of a 1,000-file directory        vs List(limit 1000)
// The quiver operations also fsync the parent directory (durability of the new name), take the
// key lock and stamp the mtime; the floors do not, which is what the ratio measures.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "store/local_store.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Measure {
  std::string name;
  double ours = 0;
  double floor = 0;
};

// Runs `op(i)` for i = first, first+1, ... until `seconds` have passed; returns ops/s and
// advances `first` past the iterations used (so that keys stay unique across rounds).
double OpsPerSecond(double seconds, const std::function<bool(uint64_t)>& op, uint64_t& first) {
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration<double>(seconds);
  uint64_t n = 0;
  while (true) {
    if (!op(first + n)) {
      std::fprintf(stderr, "benchmark operation failed at iteration %llu\n",
                   static_cast<unsigned long long>(n));
      std::exit(1);
    }
    ++n;
    if ((n & 15) == 0 && Clock::now() >= deadline) break;
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  first += n;
  return static_cast<double>(n) / elapsed;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// This machine is noisy: floor and quiver run in alternating short rounds, and each side's
// median round is reported, so that a burst of outside load hits both sides alike.
constexpr int kRounds = 7;

Measure Compare(std::string name, double seconds, const std::function<bool(uint64_t)>& floor_op,
                const std::function<bool(uint64_t)>& our_op) {
  std::vector<double> floor_rates;
  std::vector<double> our_rates;
  uint64_t floor_next = 0;
  uint64_t our_next = 0;
  for (int r = 0; r < kRounds; ++r) {
    floor_rates.push_back(OpsPerSecond(seconds / kRounds, floor_op, floor_next));
    our_rates.push_back(OpsPerSecond(seconds / kRounds, our_op, our_next));
  }
  return Measure{std::move(name), Median(our_rates), Median(floor_rates)};
}

bool WriteSyncClose(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
            ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

void RemoveTree(const std::string& path) {
  ::nftw(
      path.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); },
      16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace

int main(int argc, char** argv) {
  std::string base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  double seconds = 7.0;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      base = argv[++i];
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--json") {
      json = true;
    } else {
      std::fprintf(stderr, "usage: store_bench [--dir DIR] [--seconds S] [--json]\n");
      return 2;
    }
  }
  std::string dir = base + "/quiver-store-bench-" + std::to_string(::getpid());
  std::string floor_dir = dir + "/floor";
  std::string store_dir = dir + "/store";
  ::mkdir(dir.c_str(), 0755);
  ::mkdir(floor_dir.c_str(), 0755);
  ::mkdir((floor_dir + "/data").c_str(), 0755);
  auto opened = quiver::LocalObjectStore::Open(store_dir);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  auto store = *opened;
  const std::string payload(1024, 'q');
  std::vector<Measure> rows;

  // create
  rows.push_back(Compare(
      "CreateOnly put (1 KiB)", seconds,
      [&](uint64_t i) {
        std::string tmp = floor_dir + "/tmp-" + std::to_string(i);
        std::string final_path = floor_dir + "/data/c" + std::to_string(i);
        return WriteSyncClose(tmp, payload) && ::link(tmp.c_str(), final_path.c_str()) == 0 &&
               ::unlink(tmp.c_str()) == 0;
      },
      [&](uint64_t i) {
        return store->Put("data/c" + std::to_string(i), payload, quiver::PutOptions::CreateOnly())
            .ok();
      }));

  // replace (read-modify-write of one object)
  {
    std::string final_path = floor_dir + "/counter";
    auto first = store->Put("counter", payload);
    if (!first.ok()) return 1;
    std::string etag = first->etag;
    rows.push_back(Compare(
        "IfMatch put (1 KiB)", seconds,
        [&](uint64_t i) {
          std::string tmp = floor_dir + "/tmp-r" + std::to_string(i);
          return WriteSyncClose(tmp, payload) && ::rename(tmp.c_str(), final_path.c_str()) == 0;
        },
        [&](uint64_t) {
          auto put = store->Put("counter", payload, quiver::PutOptions::IfMatch(etag));
          if (!put.ok()) return false;
          etag = put->etag;
          return true;
        }));
  }

  // read
  {
    std::string path = floor_dir + "/counter";
    std::string buf(2048, '\0');
    rows.push_back(Compare(
        "Get (1 KiB)", seconds,
        [&](uint64_t) {
          int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
          if (fd < 0) return false;
          bool ok = ::pread(fd, buf.data(), buf.size(), 0) == 1024;
          return ::close(fd) == 0 && ok;
        },
        [&](uint64_t) { return store->Get("counter").ok(); }));
  }

  // list: a directory of exactly 1,000 objects on both sides
  {
    std::string list_floor = floor_dir + "/list";
    ::mkdir(list_floor.c_str(), 0755);
    for (int i = 0; i < 1000; ++i) {
      std::string key = fmt::format("list/k{:04}", i);
      if (!store->Put(key, "x").ok()) return 1;
      if (!WriteSyncClose(floor_dir + "/" + key, "x")) return 1;
    }
    quiver::ListOptions options;
    options.prefix = "list/";
    options.limit = 1000;
    rows.push_back(Compare(
        "List (1,000 keys)", seconds,
        [&](uint64_t) {
          DIR* d = ::opendir(list_floor.c_str());
          if (d == nullptr) return false;
          int n = 0;
          while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
          ::closedir(d);
          return n == 1000;
        },
        [&](uint64_t) {
          auto page = store->List(options);
          return page.ok() && page->objects.size() == 1000;
        }));
  }

  RemoveTree(dir);

  if (json) {
    std::printf("[");
    for (size_t i = 0; i < rows.size(); ++i) {
      std::printf("%s{\"op\":\"%s\",\"quiver_ops\":%.0f,\"floor_ops\":%.0f,\"ratio\":%.3f}",
                  i ? "," : "", rows[i].name.c_str(), rows[i].ours, rows[i].floor,
                  rows[i].ours / rows[i].floor);
    }
    std::printf("]\n");
    return 0;
  }
  std::printf("| operation | quiver local (ops/s) | physical floor (ops/s) | ratio |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (const Measure& m : rows) {
    std::printf("| %s | %.0f | %.0f | %.2f |\n", m.name.c_str(), m.ours, m.floor, m.ours / m.floor);
  }
  return 0;
}
