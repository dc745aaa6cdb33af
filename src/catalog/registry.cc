#include "catalog/registry.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "common/json.h"
#include "common/logging.h"
#include "common/numbers.h"
#include "store/key.h"

namespace quiver::catalog {

namespace {

constexpr std::string_view kFormatKey = "_quiver/format.json";
constexpr std::string_view kLogDir = "_quiver/log/";
constexpr uint64_t kMaxSeq = std::numeric_limits<uint64_t>::max();

std::string_view KindDir(RecordKind kind) {
  switch (kind) {
    case RecordKind::kNamespace:
      return "_quiver/ns/";
    case RecordKind::kTable:
      return "_quiver/tables/";
    case RecordKind::kWarehouse:
      return "_quiver/warehouses/";
  }
  return "_quiver/unknown/";
}

// The batch starting at `seq`: "_quiver/log/<first 16 of the 20 digits>/<20 digits>.json".
// Partitions keep directories small, so "the newest batch" never reads a huge directory.
std::string LogKey(uint64_t seq) {
  std::string digits = fmt::format("{:020}", kMaxSeq - seq);
  return fmt::format("{}{}/{}.json", kLogDir, digits.substr(0, 16), digits);
}

// The first seq of the batch stored at `key`.
Result<uint64_t> SeqFromLogKey(std::string_view key) {
  std::string_view name = key.substr(kLogDir.size());
  if (name.size() != 42 || name[16] != '/' || name.substr(37) != ".json") {
    return Status::Corruption(fmt::format("unexpected change-log object '{}'", key));
  }
  name = name.substr(17);
  // Checked: 20 digits can exceed 2^64 (a planted "99999999999999999999" wrapped).
  auto inverted = ParseUint64(name.substr(0, 20));
  if (!inverted.ok()) return Status::Corruption(fmt::format("bad change-log key '{}'", key));
  return kMaxSeq - *inverted;
}

Result<nlohmann::json> ParseRecord(const std::string& data, std::string_view key) {
  auto body = ParseJson(data);
  if (!body.ok() || !body->is_object()) {
    return Status::Corruption(
        fmt::format("registry record '{}' is not a JSON object{}", key,
                    body.ok() ? std::string() : std::string(": ") + body.status().message()));
  }
  return std::move(*body);
}

}  // namespace

Result<std::unique_ptr<Registry>> Registry::Open(std::shared_ptr<ObjectStore> root,
                                                 const Clock* clock) {
  if (clock == nullptr) clock = Clock::Real();
  auto stamp = root->Get(kFormatKey);
  if (!stamp.ok() && stamp.status().IsNotFound()) {
    nlohmann::json body = {{"format", kRegistryFormat},
                           {"created_at", FormatIso8601Millis(clock->NowNanos())}};
    auto put = root->Put(kFormatKey, body.dump(2) + "\n", PutOptions::CreateOnly());
    if (!put.ok() && !put.status().IsAlreadyExists()) return put.status();
    stamp = root->Get(kFormatKey);
  }
  if (!stamp.ok()) return stamp.status().WithContext("reading the registry format stamp");
  auto parsed = ParseJson(stamp->data);
  nlohmann::json body = parsed.ok() ? std::move(*parsed) : nlohmann::json();
  if (!body.is_object() || !body.contains("format") || !body["format"].is_number_integer()) {
    return Status::Corruption(
        fmt::format("{} in {} is not a registry format stamp", kFormatKey, root->Describe()));
  }
  const nlohmann::json& format = body["format"];  // compared as JSON: no narrowing
  if (format != kRegistryFormat) {
    return Status::Unsupported(fmt::format(
        "the root {} holds a quiver registry of format {}; this quiver reads format {} only",
        root->Describe(), format.dump(), kRegistryFormat));
  }
  return std::unique_ptr<Registry>(new Registry(std::move(root), clock));
}

std::string Registry::ChildrenDir(RecordKind kind, const ObjectId& parent) {
  std::string key(KindDir(kind));
  for (const std::string& name : parent) {
    key += EncodeName(name);
    key += '/';
  }
  return key;
}

std::string Registry::RecordKey(RecordKind kind, const ObjectId& id) {
  return ChildrenDir(kind, ParentOf(id)) + "@" + EncodeName(LeafOf(id)) + ".json";
}

Result<ObjectId> Registry::IdFromRecordKey(RecordKind kind, std::string_view key) {
  std::string_view rest = key.substr(KindDir(kind).size());
  ObjectId id;
  while (true) {
    size_t slash = rest.find('/');
    std::string name;
    if (slash == std::string_view::npos) {
      if (rest.size() < 7 || rest[0] != '@' || rest.substr(rest.size() - 5) != ".json") break;
      QV_RETURN_IF_ERROR(DecodeName(rest.substr(1, rest.size() - 6), &name));
      id.push_back(std::move(name));
      return id;
    }
    QV_RETURN_IF_ERROR(DecodeName(rest.substr(0, slash), &name));
    id.push_back(std::move(name));
    rest = rest.substr(slash + 1);
  }
  return Status::Corruption(fmt::format("unexpected registry object '{}'", key));
}

namespace {

// A record key the store could never hold (an id longer than the naming rules allow, looked up
// by a read or destructive door): nothing is stored there, so it is simply not found, exactly
// like any missing record, and the store's complaint (which names the key) never surfaces.
bool Unstorable(std::string_view key) { return !ValidateKey(key).ok(); }
bool UnstorablePrefix(std::string_view prefix) { return !ValidateListPrefix(prefix).ok(); }
Status NoSuchRecord() { return Status::NotFound("no such record"); }
Status TooLongToStore() {
  return Status::InvalidInput(
      fmt::format("the identifier is too long to be stored (names of at most {} bytes, at most {} "
                  "bytes together)",
                  kMaxNameBytes, kMaxIdBytes));
}

}  // namespace

Result<Record> Registry::Get(RecordKind kind, const ObjectId& id) {
  std::string key = RecordKey(kind, id);
  if (Unstorable(key)) return NoSuchRecord();
  QV_ASSIGN_OR_RETURN(GetResult got, root_->Get(key));
  QV_ASSIGN_OR_RETURN(nlohmann::json body, ParseRecord(got.data, key));
  return Record{std::move(body), std::move(got.meta.etag)};
}

Result<bool> Registry::Exists(RecordKind kind, const ObjectId& id) {
  std::string key = RecordKey(kind, id);
  if (Unstorable(key)) return false;
  auto head = root_->Head(key);
  if (head.ok()) return true;
  if (head.status().IsNotFound()) return false;
  return head.status();
}

Result<std::string> Registry::Create(RecordKind kind, const ObjectId& id,
                                     const nlohmann::json& body) {
  std::string key = RecordKey(kind, id);
  if (Unstorable(key)) return TooLongToStore();
  QV_ASSIGN_OR_RETURN(ObjectMeta meta,
                      root_->Put(key, body.dump(2) + "\n", PutOptions::CreateOnly()));
  return std::move(meta.etag);
}

Result<std::string> Registry::Replace(RecordKind kind, const ObjectId& id,
                                      const nlohmann::json& body, const std::string& etag) {
  std::string key = RecordKey(kind, id);
  if (Unstorable(key)) return NoSuchRecord();
  QV_ASSIGN_OR_RETURN(ObjectMeta meta,
                      root_->Put(key, body.dump(2) + "\n", PutOptions::IfMatch(etag)));
  return std::move(meta.etag);
}

Status Registry::Delete(RecordKind kind, const ObjectId& id, const std::string& etag) {
  std::string key = RecordKey(kind, id);
  if (Unstorable(key)) return NoSuchRecord();
  QV_ASSIGN_OR_RETURN(ObjectMeta meta, root_->Head(key));
  if (meta.etag != etag) {
    return Status::Conflict(fmt::format("registry record '{}' changed concurrently", key));
  }
  return root_->Delete(key);
}

Result<NamePage> Registry::ListChildren(RecordKind kind, const ObjectId& parent,
                                        const std::string& start_after, size_t limit) {
  std::string prefix = ChildrenDir(kind, parent) + "@";
  NamePage page;
  if (UnstorablePrefix(prefix)) return page;  // a parent that cannot exist has no children
  ListOptions options;
  options.prefix = prefix;
  if (!start_after.empty()) options.start_after = prefix + EncodeName(start_after) + ".json";
  while (true) {
    size_t want = limit == 0 ? 1000 : std::min<size_t>(limit - page.names.size(), 1000);
    options.limit = want;
    QV_ASSIGN_OR_RETURN(ListPage listed, root_->List(options));
    for (const ObjectMeta& object : listed.objects) {
      std::string_view rest = std::string_view(object.key).substr(prefix.size());
      if (rest.size() < 6 || rest.substr(rest.size() - 5) != ".json") continue;  // not a record
      std::string name;
      if (!DecodeName(rest.substr(0, rest.size() - 5), &name).ok()) continue;
      page.names.push_back(std::move(name));
    }
    if (!listed.objects.empty()) options.start_after = listed.objects.back().key;
    if (!listed.truncated) return page;
    if (limit != 0 && page.names.size() >= limit) {
      page.truncated = true;
      return page;
    }
  }
}

Result<bool> Registry::HasDescendants(RecordKind kind, const ObjectId& parent) {
  ListOptions options;
  options.prefix = ChildrenDir(kind, parent);
  if (UnstorablePrefix(options.prefix)) return false;
  options.limit = 1;
  QV_ASSIGN_OR_RETURN(ListPage listed, root_->List(options));
  return !listed.objects.empty();
}

Result<std::vector<ObjectId>> Registry::ListDescendants(RecordKind kind, const ObjectId& parent) {
  if (UnstorablePrefix(ChildrenDir(kind, parent))) return std::vector<ObjectId>{};
  QV_ASSIGN_OR_RETURN(std::vector<ObjectMeta> objects, root_->ListAll(ChildrenDir(kind, parent)));
  std::vector<ObjectId> ids;
  ids.reserve(objects.size());
  for (const ObjectMeta& object : objects) {
    auto id = IdFromRecordKey(kind, object.key);
    if (id.ok()) ids.push_back(std::move(*id));
  }
  return ids;
}

Result<Registry::IdPage> Registry::ListIds(RecordKind kind, const ObjectId& under,
                                           const std::string& after, size_t limit) {
  std::string dir = ChildrenDir(kind, under);
  if (UnstorablePrefix(dir)) return IdPage{};
  ListOptions options;
  options.prefix = dir;
  if (!after.empty()) options.start_after = dir + after;
  options.limit = std::clamp<size_t>(limit, 1, kMaxListLimit);
  QV_ASSIGN_OR_RETURN(ListPage listed, root_->List(options));
  IdPage page;
  for (const ObjectMeta& object : listed.objects) {
    auto id = IdFromRecordKey(kind, object.key);
    if (id.ok()) page.ids.push_back(std::move(*id));
  }
  if (listed.truncated && !listed.objects.empty()) {
    page.next = listed.objects.back().key.substr(dir.size());
  }
  return page;
}

namespace {
// A batch object: {"first": N, "events": [...]}; the events carry their own "seq".
Result<nlohmann::json> ParseBatch(const std::string& data, std::string_view key) {
  QV_ASSIGN_OR_RETURN(nlohmann::json batch, ParseRecord(data, key));
  if (!batch.contains("events") || !batch["events"].is_array() || batch["events"].empty()) {
    return Status::Corruption(fmt::format("change-log object '{}' holds no events", key));
  }
  // Each event's seq is read below; one that is not an unsigned integer is not read as 0.
  for (const nlohmann::json& e : batch["events"]) {
    auto seq = e.is_object() ? e.find("seq") : e.end();
    if (!e.is_object() || seq == e.end() || !seq->is_number_unsigned()) {
      return Status::Corruption(fmt::format(
          "change-log object '{}' holds an event without an unsigned integer 'seq'", key));
    }
  }
  return batch;
}
}  // namespace

Result<uint64_t> Registry::ReadNewestSeq() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    ListOptions options;
    options.prefix = std::string(kLogDir);
    options.limit = 1;
    QV_ASSIGN_OR_RETURN(ListPage listed, root_->List(options));
    if (listed.objects.empty()) return uint64_t{0};
    const std::string& key = listed.objects.front().key;
    QV_ASSIGN_OR_RETURN(uint64_t first, SeqFromLogKey(key));
    auto got = root_->Get(key);
    if (!got.ok()) {
      if (got.status().IsNotFound()) continue;  // removed while we looked
      return got.status();
    }
    QV_ASSIGN_OR_RETURN(nlohmann::json batch, ParseBatch(got->data, key));
    return first + batch["events"].size() - 1;
  }
  return Status::ServiceUnavailable("the change log changed while it was read; try again");
}

struct Registry::PendingEvent {
  nlohmann::json event;
  bool detached = false;  // nobody waits for it (AppendLogAsync)
  bool done = false;
  Result<uint64_t> seq = Status::Internal("not written");
};

Result<uint64_t> Registry::WriteLogBatch(const std::vector<std::shared_ptr<PendingEvent>>& batch,
                                         uint64_t first) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    nlohmann::json events = nlohmann::json::array();
    std::string at = FormatIso8601Millis(clock_->NowNanos());
    for (size_t i = 0; i < batch.size(); ++i) {
      nlohmann::json e = batch[i]->event;
      e["seq"] = first + i;
      e["at"] = at;
      events.push_back(std::move(e));
    }
    nlohmann::json body = {{"first", first}, {"events", std::move(events)}};
    auto put = root_->Put(LogKey(first), body.dump() + "\n", PutOptions::CreateOnly());
    if (put.ok()) return first;
    if (!put.status().IsAlreadyExists()) return put.status();
    // Another process appended: continue after the newest batch.
    QV_ASSIGN_OR_RETURN(uint64_t newest, ReadNewestSeq());
    first = std::max(newest, first) + 1;
  }
  return Status(StatusCode::kServiceUnavailable, "the change log is too contended; try again",
                Subcode::kNone, true);
}

void Registry::LogWriterLoop() {
  constexpr size_t kMaxBatch = 256;
  constexpr size_t kMaxDeferred = 10'000;
  MutexLock lock(&log_mu_);
  while (true) {
    while (!log_stop_ && log_queue_.empty()) log_mu_.Await(log_cv_);
    if (log_queue_.empty() && log_deferred_.empty()) return;  // stopping, everything written
    // Stopping with only deferred events: one last try.
    const bool last_try = log_queue_.empty();
    // Every deferred event (they are older, and capped below) and then the queued ones: a batch
    // always takes some of the queue, so the queue drains and the wait above cannot spin on a
    // queue that a full batch of deferred events keeps out.
    std::vector<std::shared_ptr<PendingEvent>> batch;
    batch.reserve(log_deferred_.size() + std::min(kMaxBatch, log_queue_.size()));
    for (auto& pending : log_deferred_) batch.push_back(std::move(pending));
    log_deferred_.clear();
    for (size_t taken = 0; !log_queue_.empty() && taken < kMaxBatch; ++taken) {
      batch.push_back(std::move(log_queue_.front()));
      log_queue_.pop_front();
    }
    log_writing_ = true;
    uint64_t first = last_seq_ + 1;
    lock.Unlock();
    Result<uint64_t> written = WriteLogBatch(batch, first);
    const bool defer = !written.ok() && written.status().IsStorageFull() && !last_try;
    if (!written.ok()) {
      QV_LOG_WARN(defer ? "change-log append failed; the events are kept for the next append"
                        : "change-log append failed; these events are lost",
                  {{"events", batch.size()}, {"error", written.status().ToString()}});
    }
    lock.Lock();
    std::vector<std::shared_ptr<PendingEvent>> kept;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (defer && batch[i]->detached) {
        kept.push_back(std::move(batch[i]));
        continue;
      }
      batch[i]->seq =
          written.ok() ? Result<uint64_t>(*written + i) : Result<uint64_t>(written.status());
      batch[i]->done = true;
    }
    // Kept in their order (the deferred list was emptied into the batch). Bounded: while the
    // disk stays full the oldest are given up, counted in the log.
    if (kept.size() > kMaxDeferred) {
      const size_t lost = kept.size() - kMaxDeferred;
      QV_LOG_WARN("change-log events given up while storage stays full", {{"events", lost}});
      for (size_t i = 0; i < lost; ++i) {
        kept[i]->seq = Result<uint64_t>(written.status());
        kept[i]->done = true;
      }
      kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(lost));
    }
    log_deferred_.assign(std::make_move_iterator(kept.begin()),
                         std::make_move_iterator(kept.end()));
    if (written.ok()) last_seq_ = std::max(last_seq_, *written + batch.size() - 1);
    log_writing_ = false;
    log_cv_.notify_all();
  }
}

void Registry::Enqueue(std::shared_ptr<PendingEvent> pending) {
  MutexLock lock(&log_mu_);
  if (!log_writer_.joinable()) log_writer_ = std::thread([this] { LogWriterLoop(); });
  log_queue_.push_back(std::move(pending));
  log_cv_.notify_all();
}

Result<uint64_t> Registry::AppendLog(nlohmann::json event) {
  auto pending = std::make_shared<PendingEvent>();
  pending->event = std::move(event);
  Enqueue(pending);
  MutexLock lock(&log_mu_);
  while (!pending->done) log_mu_.Await(log_cv_);
  return pending->seq;
}

void Registry::AppendLogAsync(nlohmann::json event) {
  auto pending = std::make_shared<PendingEvent>();
  pending->event = std::move(event);
  pending->detached = true;
  Enqueue(std::move(pending));
}

void Registry::FlushLog() {
  MutexLock lock(&log_mu_);
  while (!log_queue_.empty() || log_writing_) log_mu_.Await(log_cv_);
}

Registry::~Registry() {
  {
    MutexLock lock(&log_mu_);
    log_stop_ = true;
    log_cv_.notify_all();
  }
  if (log_writer_.joinable()) log_writer_.join();
}

Result<uint64_t> Registry::Generation() {
  FlushLog();
  QV_ASSIGN_OR_RETURN(uint64_t newest, ReadNewestSeq());
  MutexLock lock(&log_mu_);
  last_seq_ = std::max(last_seq_, newest);
  return last_seq_;
}

uint64_t Registry::LastKnownGeneration() {
  MutexLock lock(&log_mu_);
  return last_seq_;
}

Result<std::vector<nlohmann::json>> Registry::ReadLog(uint64_t since, size_t limit) {
  FlushLog();
  std::vector<nlohmann::json> out;
  if (limit == 0 || since == kMaxSeq) return out;
  limit = std::min(limit, kMaxListLimit);
  uint64_t last = since > kMaxSeq - limit ? kMaxSeq : since + limit;  // newest seq wanted
  // Batches are listed newest first; start at the one holding `last` (first <= last) and walk
  // back to the one holding since + 1.
  ListOptions options;
  options.prefix = std::string(kLogDir);
  if (last < kMaxSeq) options.start_after = LogKey(last + 1);
  std::vector<nlohmann::json> batches;
  bool reached = false;
  while (!reached) {
    options.limit = 100;
    QV_ASSIGN_OR_RETURN(ListPage listed, root_->List(options));
    for (const ObjectMeta& object : listed.objects) {
      QV_ASSIGN_OR_RETURN(uint64_t first, SeqFromLogKey(object.key));
      auto got = root_->Get(object.key);
      if (!got.ok()) {
        if (got.status().IsNotFound()) continue;
        return got.status();
      }
      QV_ASSIGN_OR_RETURN(nlohmann::json batch, ParseBatch(got->data, object.key));
      batches.push_back(std::move(batch));
      if (first <= since + 1) {
        reached = true;
        break;
      }
    }
    if (!listed.truncated || listed.objects.empty()) break;
    options.start_after = listed.objects.back().key;
  }
  for (auto it = batches.rbegin(); it != batches.rend(); ++it) {
    for (nlohmann::json& e : (*it)["events"]) {
      uint64_t seq = e["seq"].get<uint64_t>();  // checked by ParseBatch
      if (seq > since && seq <= last) out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace quiver::catalog
