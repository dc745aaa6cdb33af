// ObjectStore: the storage contract every quiver component writes through (design.md §3).
//
// Keys are '/'-separated relative paths (see key.h for the exact rules). The contract:
//   Get(key, range)   bytes + metadata of one consistent version of the object.
//   Head(key)         size, etag, last-modified.
//   Put(key, bytes, mode)
//       kOverwrite    replace or create, atomically (readers see old or new, never a mix).
//       kCreateOnly   create; if the key exists: AlreadyExists, nothing written.
//       kIfMatch      replace only if the current etag equals the given one; otherwise (changed
//                     or missing): Conflict (retryable), nothing written.
//   Delete(key)       idempotent: deleting a missing key is OK.
//   List(prefix, start_after, limit)
//                     keys strictly after start_after, in byte-wise lexicographic order, at most
//                     limit of them; `truncated` says whether more follow (continue with
//                     start_after = last key returned).
//   Copy(src, dst)    dst := src's bytes (overwrite semantics); NotFound if src is missing.
//   Sweep(min_age)    removes leftovers of interrupted writes older than min_age (local: temp
//                     files of a crashed writer); never touches committed objects.
//
// A successful Put is durable (local: file and directory fsynced) before it returns, unless
// PutOptions::durable is false.
// Etags change whenever an object is replaced; last-modified precision is per backend (local:
// nanoseconds, stamped by quiver; memory: nanoseconds of the store's clock).
//
// Errors: bad keys are InvalidInput and touch nothing; a missing object is NotFound
// (Status::IsNotFound); OS failures are IOError. Thread-safety: every implementation is safe for
// concurrent use by many threads; local stores are also safe across processes sharing a root.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace quiver {

enum class PutMode { kOverwrite, kCreateOnly, kIfMatch };

struct PutOptions {
  PutMode mode = PutMode::kOverwrite;
  std::string if_match;  // the expected etag; REQUIRES: non-empty when mode == kIfMatch
  // false: the put may be lost by a crash (never torn, never half-visible) and returns without
  // waiting for the device: for objects whose loss is harmless (markers), not for records.
  bool durable = true;

  static PutOptions Overwrite() { return {}; }
  static PutOptions CreateOnly() { return {PutMode::kCreateOnly, {}}; }
  static PutOptions IfMatch(std::string etag) { return {PutMode::kIfMatch, std::move(etag)}; }
  PutOptions NotDurable() const {
    PutOptions copy = *this;
    copy.durable = false;
    return copy;
  }
};

struct ByteRange {
  uint64_t offset = 0;
  std::optional<uint64_t> length;  // nullopt: to the end of the object
};

struct ObjectMeta {
  std::string key;
  uint64_t size = 0;
  std::string etag;
  int64_t last_modified_nanos = 0;  // since the Unix epoch
};

struct GetResult {
  std::string data;  // the requested range (the whole object when no range was given)
  ObjectMeta meta;   // of the whole object the bytes came from
};

struct ListOptions {
  std::string prefix;       // keys starting with this (need not end at a '/')
  std::string start_after;  // exclusive lower bound; empty = from the start
  size_t limit = 1000;      // 1..kMaxListLimit
};

inline constexpr size_t kMaxListLimit = 100'000;

struct ListPage {
  std::vector<ObjectMeta> objects;
  bool truncated = false;  // more keys follow the last one returned
};

struct SweepReport {
  uint64_t files_removed = 0;
  uint64_t bytes_removed = 0;
};

// Operation kinds, for counting and fault injection.
enum class StoreOp { kGet = 0, kHead, kPut, kDelete, kList, kCopy, kSweep };
inline constexpr int kNumStoreOps = 7;
std::string_view StoreOpName(StoreOp op);
std::string_view PutModeName(PutMode mode);

// Names of the sync points backends reach during a Put (see common/sync_point.h). A callback that
// returns an error at a point makes the Put stop right there, as a crash would.
namespace store_points {
inline constexpr char kPutTempWritten[] = "store.put.temp_written";  // bytes written, not synced
inline constexpr char kPutTempSynced[] = "store.put.temp_synced";    // temp file fsynced
inline constexpr char kPutBeforePublish[] = "store.put.before_publish";  // checks passed
inline constexpr char kPutAfterPublish[] = "store.put.after_publish";    // visible, dir not synced
inline constexpr char kPutDone[] = "store.put.done";                     // durable
}  // namespace store_points

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) = 0;
  virtual Result<ObjectMeta> Head(std::string_view key) = 0;
  virtual Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                                 const PutOptions& options = {}) = 0;
  virtual Status Delete(std::string_view key) = 0;
  virtual Result<ListPage> List(const ListOptions& options) = 0;
  virtual Status Copy(std::string_view src, std::string_view dst) = 0;
  virtual Result<SweepReport> Sweep(Duration min_age) = 0;

  // "local:/abs/root", "memory://name", "prefix(p/)+local:/abs/root", ...
  virtual std::string Describe() const = 0;

  // How tools outside quiver address `key` (or the store's root, for ""): an absolute path for
  // the local backend, "memory://name/key" for memory. Lance records such paths in manifests
  // (a branch's base paths), so they must be what Lance itself would open.
  virtual std::string ExternalPath(std::string_view key) const = 0;

  // Lists every key under `prefix` by paging through List (for tools and tests).
  Result<std::vector<ObjectMeta>> ListAll(std::string_view prefix, size_t page_size = 1000);
};

// Validates the parts of a request every backend checks the same way.
Status ValidatePutOptions(const PutOptions& options);
Status ValidateListOptions(const ListOptions& options);
// Applies `range` to an object of `size` bytes: the [begin, end) to return, or InvalidInput when
// the range starts past the end of the object.
Result<std::pair<uint64_t, uint64_t>> ResolveRange(std::optional<ByteRange> range, uint64_t size);

}  // namespace quiver
