// ObjectStore: the storage contract every quiver component writes through (design.md §3).
//
// Keys are '/'-separated relative paths (see key.h for the exact rules). The contract:
//   Get(key, range)   bytes + metadata of one consistent version of the object.
//   ReadAt(key, offset, dst)
//                     exactly dst.size() bytes from `offset` into the caller's buffer (the I/O
//                     primitive of the Lance file reader: no intermediate string). A read that
//                     would pass the end of the object is InvalidInput (naming key, offset,
//                     length and size); a read of 0 bytes at offset <= size is OK.
//   Head(key)         size, etag, last-modified.
//   Put(key, bytes, mode)
//       kOverwrite    replace or create, atomically (readers see old or new, never a mix).
//       kCreateOnly   create; if the key exists: AlreadyExists, nothing written.
//       kIfMatch      replace only if the current etag equals the given one; otherwise (changed
//                     or missing): Conflict (retryable), nothing written.
//   OpenWriter(key, mode)
//                     a streaming Put, for objects too large to hold in memory (Lance data
//                     files): Append bytes, then Finish publishes them with exactly Put's
//                     semantics for the mode. Nothing is visible under `key` before Finish
//                     succeeds; Abort, a failure, or destroying an unfinished writer leaves the
//                     store as it was (local: the temp file is removed; after a crash, Sweep
//                     removes it).
//   Delete(key)       idempotent: deleting a missing key is OK.
//   List(prefix, start_after, limit)
//                     keys strictly after start_after, in byte-wise lexicographic order, at most
//                     limit of them; `truncated` says whether more follow (continue with
//                     start_after = last key returned).
//   Copy(src, dst)    dst := src's bytes (overwrite semantics); NotFound if src is missing.
//   Sweep(min_age)    removes leftovers of interrupted writes older than min_age (local: temp
//                     files of a crashed writer); never touches committed objects.
//
// A successful Put (or writer Finish) is durable (local: file and directory fsynced) before it
// returns, unless PutOptions::durable is false.
// Etags change whenever an object is replaced; last-modified precision is per backend (local:
// nanoseconds, stamped by quiver; memory: nanoseconds of the store's clock).
//
// ReadAt and OpenWriter have portable defaults here (ReadAt through a ranged Get and a copy;
// a writer that buffers everything and Puts it on Finish), so a backend or test double that only
// implements the core calls still honours the whole contract; backends override them to avoid the
// copy (local: pread straight into `dst`) and the buffering (local: appends stream to a temp
// file, so memory stays bounded).
//
// Errors: bad keys are InvalidInput and touch nothing; a missing object is NotFound
// (Status::IsNotFound); OS failures are IOError. Thread-safety: every implementation is safe for
// concurrent use by many threads; local stores are also safe across processes sharing a root.
// An ObjectWriter is used by one thread at a time (separate writers may run concurrently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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

// Operation kinds, for counting and fault injection. A writer's Finish is a kPut (it publishes
// one object, as a Put does); its Appends are not requests of their own. New kinds go at the end:
// the values index counters and label metrics.
enum class StoreOp { kGet = 0, kHead, kPut, kDelete, kList, kCopy, kSweep, kReadAt };
inline constexpr int kNumStoreOps = 8;
static_assert(static_cast<int>(StoreOp::kReadAt) + 1 == kNumStoreOps,
              "kNumStoreOps must count every StoreOp (arrays are sized by it)");
std::string_view StoreOpName(StoreOp op);
std::string_view PutModeName(PutMode mode);

// Names of the sync points backends reach during a Put, and during a writer's Finish (see
// common/sync_point.h). A callback that returns an error at a point makes the Put stop right
// there, as a crash would: no cleanup runs, so a temp file may be left for Sweep.
namespace store_points {
inline constexpr char kPutTempWritten[] = "store.put.temp_written";  // bytes written, not synced
inline constexpr char kPutTempSynced[] = "store.put.temp_synced";    // temp file fsynced
inline constexpr char kPutBeforePublish[] = "store.put.before_publish";  // checks passed
inline constexpr char kPutAfterPublish[] = "store.put.after_publish";    // visible, dir not synced
inline constexpr char kPutDone[] = "store.put.done";                     // durable
}  // namespace store_points

// A streaming Put, from ObjectStore::OpenWriter. Append adds bytes; Finish publishes them under
// the key with the PutOptions given to OpenWriter (exactly as Put would: AlreadyExists, Conflict,
// durability) and returns the new object's metadata. Nothing is visible under the key before
// Finish succeeds.
//
// A writer is single-use. After Finish (successful or not), Abort, or a failed Append it is
// closed: its data is discarded (unless it was published), and further Append/Finish calls are
// InvalidInput. A failed Finish does not leave a retryable writer: the caller starts over (for a
// CreateOnly that lost, under another key). Destroying a writer that was not finished aborts it.
//
// The public calls keep that state machine in one place for every implementation; backends and
// decorators implement the protected *Impl hooks and call Abort() from their destructor (the
// base destructor cannot reach a derived hook).
// Thread-safety: one thread at a time. REQUIRES: the store that opened it outlives it.
class ObjectWriter {
 public:
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;
  virtual ~ObjectWriter() = default;

  Status Append(std::string_view bytes);
  Result<ObjectMeta> Finish();
  // Discards everything written; a no-op on a closed writer.
  void Abort();

  // Bytes accepted by successful Appends.
  uint64_t bytes_written() const { return bytes_written_; }
  // The key as given to OpenWriter.
  const std::string& key() const { return key_; }

 protected:
  explicit ObjectWriter(std::string key) : key_(std::move(key)) {}

  // Called only while the writer is open. A failed AppendImpl is followed by AbortImpl.
  virtual Status AppendImpl(std::string_view bytes) = 0;
  // Called at most once. On failure it leaves nothing visible under the key and releases its
  // temp data itself (except where a sync point simulates a crash); AbortImpl is not called.
  virtual Result<ObjectMeta> FinishImpl() = 0;
  // Called at most once, instead of FinishImpl. Must not fail (best-effort cleanup).
  virtual void AbortImpl() = 0;

 private:
  enum class State { kOpen, kFinished, kAborted, kFailed };
  Status NotOpen() const;

  std::string key_;
  State state_ = State::kOpen;
  Status failure_;  // what closed the writer when state_ == kFailed
  uint64_t bytes_written_ = 0;
};

// A writer that forwards every call to another store's writer: the base of the decorators'
// writers, which override the hooks they add behaviour to and call these for the rest. Destroying
// it destroys the inner writer, which aborts itself if unfinished.
class ForwardingWriter : public ObjectWriter {
 protected:
  // `key` is the key as the decorator's caller named it (a prefix store's inner writer has the
  // prefixed one).
  ForwardingWriter(std::string key, std::unique_ptr<ObjectWriter> inner)
      : ObjectWriter(std::move(key)), inner_(std::move(inner)) {}

  Status AppendImpl(std::string_view bytes) override { return inner_->Append(bytes); }
  Result<ObjectMeta> FinishImpl() override { return inner_->Finish(); }
  void AbortImpl() override { inner_->Abort(); }
  ObjectWriter& inner() { return *inner_; }

 private:
  std::unique_ptr<ObjectWriter> inner_;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) = 0;
  // Fills all of `dst` with the object's bytes [offset, offset + dst.size()), or fails (the
  // contents of `dst` are then unspecified). Default: a ranged Get, copied into `dst`.
  virtual Status ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst);
  virtual Result<ObjectMeta> Head(std::string_view key) = 0;
  virtual Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                                 const PutOptions& options = {}) = 0;
  // A writer for `key` (see ObjectWriter). A bad key or bad options fail here, before any byte
  // is written. Default: buffers the bytes in memory and Puts them on Finish.
  virtual Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view key,
                                                           const PutOptions& options = {});
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
// ReadAt's bounds check: InvalidInput naming the key, offset, length and size unless
// [offset, offset + length) lies within an object of `size` bytes.
Status CheckReadAtRange(std::string_view key, uint64_t offset, uint64_t length, uint64_t size);
// Applies `range` to an object of `size` bytes: the [begin, end) to return, or InvalidInput when
// the range starts past the end of the object.
Result<std::pair<uint64_t, uint64_t>> ResolveRange(std::optional<ByteRange> range, uint64_t size);

}  // namespace quiver
