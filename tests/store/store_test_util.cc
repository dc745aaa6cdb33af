#include "store_test_util.h"

#include <dirent.h>
#include <ftw.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "common/clock.h"
#include "store/counting_store.h"
#include "store/fault_store.h"
#include "store/latency_store.h"
#include "store/local_store.h"
#include "store/memory_store.h"
#include "store/prefix_store.h"

namespace quiver::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/quiver-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  ::nftw(
      path_.c_str(),
      [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

int CountFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") ++n;
  }
  ::closedir(d);
  return n;
}

void PrintTo(const StackSpec& spec, std::ostream* os) { *os << spec.name; }

namespace {

std::shared_ptr<ObjectStore> Local(const std::string& dir, SyncPoints* sp) {
  LocalStoreOptions options;
  options.sync_points = sp;
  auto store = LocalObjectStore::Open(dir, options);
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return *store;
}

std::shared_ptr<ObjectStore> Memory(SyncPoints* sp) {
  MemoryStoreOptions options;
  options.sync_points = sp;
  return MemoryObjectStore::Create(options);
}

std::shared_ptr<ObjectStore> Prefixed(std::shared_ptr<ObjectStore> inner) {
  auto store = PrefixStore::Make(std::move(inner), "tenant/wh1");
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return *store;
}

// Latency stacks run on a ManualClock: the decorator's delays advance it instead of sleeping.
ManualClock* SharedManualClock() {
  static ManualClock* clock = new ManualClock();
  return clock;
}

std::shared_ptr<ObjectStore> WithLatency(std::shared_ptr<ObjectStore> inner) {
  auto store = std::make_shared<LatencyStore>(std::move(inner), SharedManualClock());
  store->SetAllDelays(std::chrono::milliseconds(5));
  return store;
}

// Every decorator at once, in the order a server would stack them.
std::shared_ptr<ObjectStore> FullStack(std::shared_ptr<ObjectStore> backend, SyncPoints* sp) {
  auto faults =
      std::make_shared<FaultInjectingStore>(WithLatency(Prefixed(std::move(backend))), sp);
  return std::make_shared<CountingStore>(std::move(faults));
}

}  // namespace

std::vector<StackSpec> AllStacks() {
  std::vector<StackSpec> stacks = {
      {"memory", false, [](const std::string&, SyncPoints* sp) { return Memory(sp); }},
      {"local", true, [](const std::string& dir, SyncPoints* sp) { return Local(dir, sp); }},
      {"prefix_memory", false,
       [](const std::string&, SyncPoints* sp) { return Prefixed(Memory(sp)); }},
      {"prefix_local", true,
       [](const std::string& dir, SyncPoints* sp) { return Prefixed(Local(dir, sp)); }},
      {"counting_local", true,
       [](const std::string& dir, SyncPoints* sp) -> std::shared_ptr<ObjectStore> {
         return std::make_shared<CountingStore>(Local(dir, sp));
       }},
      {"faults_local", true,
       [](const std::string& dir, SyncPoints* sp) -> std::shared_ptr<ObjectStore> {
         return std::make_shared<FaultInjectingStore>(Local(dir, sp), nullptr);
       }},
      {"latency_memory", false,
       [](const std::string&, SyncPoints* sp) { return WithLatency(Memory(sp)); }},
      {"full_stack_memory", false,
       [](const std::string&, SyncPoints* sp) { return FullStack(Memory(sp), nullptr); }},
      {"full_stack_local", true,
       [](const std::string& dir, SyncPoints* sp) { return FullStack(Local(dir, sp), nullptr); }},
  };
  return stacks;
}

std::vector<StackSpec> ProcessSharedStacks() {
  std::vector<StackSpec> shared;
  for (StackSpec& s : AllStacks()) {
    if (s.shared_across_processes) shared.push_back(std::move(s));
  }
  return shared;
}

}  // namespace quiver::testing
