// Registry: the catalog's control records in the object store (design.md §3).
//
//   _quiver/format.json                          {"format":1}; another number is refused
//   _quiver/ns/<h1>/.../<h(n-1)>/@<hn>.json      the namespace [n1..nn]
//   _quiver/tables/<h1>/.../<hn>/@<ht>.json      the table t in namespace [n1..nn]
//   _quiver/warehouses/<hp>/@<hw>.json           the warehouse w of project p
//   _quiver/log/<16>/<20 digits>.json            change log: one object per batch of events,
//                                                named by its first seq (digits = u64::MAX -
//                                                first, partitioned by its leading 16 digits),
//                                                so the newest batch is the first one listed
//
// h = EncodeName (hex, order-preserving), so the records of a namespace's direct children are
// exactly the keys under "<dir>/@", in name order, and a page continues with a keyed
// start-after listing. Every write is conditional (create-only or if-match); readers get the
// etag they must present to change or delete a record.
//
// Thread-safety: safe for concurrent use by many threads; several processes may share a root
// (all arbitration goes through the store's conditional puts).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/object_id.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "store/object_store.h"

namespace quiver::catalog {

// 2: namespace ids start with their project (a project is a depth-1 namespace record).
inline constexpr int kRegistryFormat = 2;
inline constexpr std::string_view kRegistryDir = "_quiver";

enum class RecordKind { kNamespace, kTable, kWarehouse };

struct Record {
  nlohmann::json body;
  std::string etag;
};

struct NamePage {
  std::vector<std::string> names;  // sorted by bytes
  bool truncated = false;
};

class Registry {
 public:
  // Reads (or, on an empty root, writes) _quiver/format.json. Unsupported when the root was
  // written by a quiver with another registry format; Corruption when the stamp is unreadable.
  static Result<std::unique_ptr<Registry>> Open(std::shared_ptr<ObjectStore> root,
                                                const Clock* clock = nullptr);
  // Writes what is still queued for the change log, then stops its writer thread.
  ~Registry();

  ObjectStore& store() const { return *root_; }
  const std::shared_ptr<ObjectStore>& store_ptr() const { return root_; }

  // REQUIRES: a valid non-root id.
  static std::string RecordKey(RecordKind kind, const ObjectId& id);
  // The directory holding the records of `parent`'s children of `kind` (ends with '/').
  static std::string ChildrenDir(RecordKind kind, const ObjectId& parent);

  // NotFound (Status::IsNotFound) when absent.
  Result<Record> Get(RecordKind kind, const ObjectId& id);
  // Whether the record exists; the store's error when that cannot be told (an id no store could
  // hold is simply absent).
  Result<bool> Exists(RecordKind kind, const ObjectId& id);
  // AlreadyExists when taken. Returns the new etag.
  Result<std::string> Create(RecordKind kind, const ObjectId& id, const nlohmann::json& body);
  // Conflict when the record changed (or vanished) since `etag` was read.
  Result<std::string> Replace(RecordKind kind, const ObjectId& id, const nlohmann::json& body,
                              const std::string& etag);
  // Deletes the record if it still has `etag` (Conflict otherwise; NotFound if gone). Stores
  // have no conditional delete, so the check and the delete are two steps: a writer replacing
  // the record in between loses its write, which callers avoid by retiring records first.
  Status Delete(RecordKind kind, const ObjectId& id, const std::string& etag);

  // Direct children of `parent`, names strictly after `start_after`, at most `limit`
  // (0 = no limit).
  Result<NamePage> ListChildren(RecordKind kind, const ObjectId& parent,
                                const std::string& start_after, size_t limit);
  // True if `parent` has any descendant of `kind` at any depth.
  Result<bool> HasDescendants(RecordKind kind, const ObjectId& parent);
  // Every descendant id of `kind` under `parent` (any depth), in key order.
  Result<std::vector<ObjectId>> ListDescendants(RecordKind kind, const ObjectId& parent);

  // One page of every record of `kind` below `under` (any depth) in key order, after the opaque
  // position `after` (a key suffix below that directory, as returned in `next`).
  // limit: 1..kMaxListLimit.
  struct IdPage {
    std::vector<ObjectId> ids;
    std::optional<std::string> next;  // set when more may follow
  };
  Result<IdPage> ListIds(RecordKind kind, const ObjectId& under, const std::string& after,
                         size_t limit);

  // Appends one change-log record ({"seq", "at", + event}) and returns its sequence number,
  // which becomes the catalog generation. One writer thread per registry group-commits: it
  // writes every queued event in one create-only put (seqs stay contiguous and in append
  // order); another process's batch at the same seq makes it re-read and retry.
  Result<uint64_t> AppendLog(nlohmann::json event);
  // The same without waiting for the write (a failure is logged). Events keep their order. An
  // event whose write finds the storage full is kept and written with the next append (or when
  // the registry closes), so a mutation that frees space (a drop) is still logged.
  void AppendLogAsync(nlohmann::json event);
  // Waits until every event appended so far is written (or has failed).
  void FlushLog();
  // The newest sequence number in storage (0 for a catalog without mutations), after FlushLog:
  // 1 LIST + 1 GET.
  Result<uint64_t> Generation();
  // The newest sequence number this process has written or read (no I/O).
  uint64_t LastKnownGeneration();
  // Change-log records with seq > since, oldest first, at most limit. Corruption when a batch
  // holds an event that is not an object with an unsigned integer "seq".
  Result<std::vector<nlohmann::json>> ReadLog(uint64_t since, size_t limit);

  const Clock* clock() const { return clock_; }

 private:
  Registry(std::shared_ptr<ObjectStore> root, const Clock* clock)
      : root_(std::move(root)), clock_(clock) {}

  static Result<ObjectId> IdFromRecordKey(RecordKind kind, std::string_view key);
  Result<uint64_t> ReadNewestSeq();

  std::shared_ptr<ObjectStore> root_;
  const Clock* clock_;
  struct PendingEvent;
  // Writes `batch` as one log object starting at `first` (retrying after newer batches of other
  // processes); returns the seq given to batch[0].
  Result<uint64_t> WriteLogBatch(const std::vector<std::shared_ptr<PendingEvent>>& batch,
                                 uint64_t first);
  void Enqueue(std::shared_ptr<PendingEvent> pending);
  void LogWriterLoop();

  Mutex log_mu_;
  std::condition_variable log_cv_;  // queue changes, batches finish, shutdown
  std::deque<std::shared_ptr<PendingEvent>> log_queue_ GUARDED_BY(log_mu_);
  // Unwaited events whose write found the storage full: written, first, with the next batch
  // (or at shutdown).
  std::deque<std::shared_ptr<PendingEvent>> log_deferred_ GUARDED_BY(log_mu_);
  bool log_writing_ GUARDED_BY(log_mu_) = false;  // a batch is in flight
  bool log_stop_ GUARDED_BY(log_mu_) = false;
  uint64_t last_seq_ GUARDED_BY(log_mu_) = 0;  // newest seq this process has seen
  std::thread log_writer_;
};

}  // namespace quiver::catalog
