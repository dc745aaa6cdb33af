#include "store/object_store.h"

#include <cstring>

#include <fmt/format.h>

#include "store/key.h"

namespace quiver {

std::string_view StoreOpName(StoreOp op) {
  switch (op) {
    case StoreOp::kGet:
      return "get";
    case StoreOp::kHead:
      return "head";
    case StoreOp::kPut:
      return "put";
    case StoreOp::kDelete:
      return "delete";
    case StoreOp::kList:
      return "list";
    case StoreOp::kCopy:
      return "copy";
    case StoreOp::kSweep:
      return "sweep";
    case StoreOp::kReadAt:
      return "read_at";
  }
  return "unknown";
}

std::string_view PutModeName(PutMode mode) {
  switch (mode) {
    case PutMode::kOverwrite:
      return "overwrite";
    case PutMode::kCreateOnly:
      return "create_only";
    case PutMode::kIfMatch:
      return "if_match";
  }
  return "unknown";
}

Status ValidatePutOptions(const PutOptions& options) {
  if (options.mode == PutMode::kIfMatch && options.if_match.empty()) {
    return Status::InvalidInput("an if-match put needs the expected etag");
  }
  return Status::OK();
}

Status ValidateListOptions(const ListOptions& options) {
  QV_RETURN_IF_ERROR(ValidateListPrefix(options.prefix));
  QV_RETURN_IF_ERROR(ValidateStartAfter(options.start_after));
  if (options.limit == 0 || options.limit > kMaxListLimit) {
    return Status::InvalidInput(
        fmt::format("list limit {} is outside 1..{}", options.limit, kMaxListLimit));
  }
  return Status::OK();
}

Status CheckReadAtRange(std::string_view key, uint64_t offset, uint64_t length, uint64_t size) {
  // Written so that offset + length cannot overflow.
  if (offset > size || length > size - offset) {
    return Status::InvalidInput(
        fmt::format("reading {} bytes at offset {} of '{}' goes past its end ({} bytes)", length,
                    offset, key, size));
  }
  return Status::OK();
}

Result<std::pair<uint64_t, uint64_t>> ResolveRange(std::optional<ByteRange> range, uint64_t size) {
  if (!range) return std::make_pair(uint64_t{0}, size);
  if (range->offset > size) {
    return Status::InvalidInput(
        fmt::format("range offset {} is past the end of a {}-byte object", range->offset, size));
  }
  uint64_t available = size - range->offset;
  uint64_t length = range->length ? std::min(*range->length, available) : available;
  return std::make_pair(range->offset, range->offset + length);
}

Status ObjectWriter::Append(std::string_view bytes) {
  if (state_ != State::kOpen) return NotOpen();
  Status s = AppendImpl(bytes);
  if (!s.ok()) {
    // A failed append may have stored part of `bytes`: nothing written so far can be trusted,
    // so the writer gives up now rather than let Finish publish a gap.
    state_ = State::kFailed;
    failure_ = s;
    AbortImpl();
    return s;
  }
  bytes_written_ += bytes.size();
  return Status::OK();
}

Result<ObjectMeta> ObjectWriter::Finish() {
  if (state_ != State::kOpen) return NotOpen();
  Result<ObjectMeta> result = FinishImpl();
  if (result.ok()) {
    state_ = State::kFinished;
  } else {
    state_ = State::kFailed;
    failure_ = result.status();
  }
  return result;
}

void ObjectWriter::Abort() {
  if (state_ != State::kOpen) return;
  state_ = State::kAborted;
  AbortImpl();
}

Status ObjectWriter::NotOpen() const {
  switch (state_) {
    case State::kOpen:
      break;
    case State::kFinished:
      return Status::InvalidInput(fmt::format("the writer of '{}' is already finished", key_));
    case State::kAborted:
      return Status::InvalidInput(fmt::format("the writer of '{}' was aborted", key_));
    case State::kFailed:
      return Status::InvalidInput(
          fmt::format("the writer of '{}' failed earlier: {}", key_, failure_.ToString()));
  }
  return Status::Internal("writer state check on an open writer");
}

namespace {

// The portable writer: the whole object in memory, one Put on Finish. Right for the memory
// backend (which holds the bytes anyway) and for stores that cannot stream.
class BufferingWriter final : public ObjectWriter {
 public:
  BufferingWriter(ObjectStore* store, std::string key, PutOptions options)
      : ObjectWriter(std::move(key)), store_(store), options_(std::move(options)) {}
  ~BufferingWriter() override { Abort(); }

 protected:
  Status AppendImpl(std::string_view bytes) override {
    buffer_.append(bytes);
    return Status::OK();
  }
  Result<ObjectMeta> FinishImpl() override {
    Result<ObjectMeta> put = store_->Put(key(), buffer_, options_);
    std::string().swap(buffer_);
    return put;
  }
  void AbortImpl() override { std::string().swap(buffer_); }

 private:
  ObjectStore* store_;
  PutOptions options_;
  std::string buffer_;
};

}  // namespace

Status ObjectStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  Result<GetResult> got = Get(key, ByteRange{offset, dst.size()});
  if (!got.ok()) {
    // Get's own range error does not name the key.
    if (got.status().IsInvalidInput()) {
      return got.status().WithContext(
          fmt::format("reading {} bytes at offset {} of '{}'", dst.size(), offset, key));
    }
    return got.status();
  }
  // Get clips a range at the end of the object; ReadAt must fill all of `dst`.
  QV_RETURN_IF_ERROR(CheckReadAtRange(key, offset, dst.size(), got->meta.size));
  if (got->data.size() != dst.size()) {
    return Status::Internal(fmt::format("a ranged get of '{}' returned {} bytes, expected {}", key,
                                        got->data.size(), dst.size()));
  }
  if (!dst.empty()) std::memcpy(dst.data(), got->data.data(), dst.size());
  return Status::OK();
}

Result<std::unique_ptr<ObjectWriter>> ObjectStore::OpenWriter(std::string_view key,
                                                              const PutOptions& options) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  QV_RETURN_IF_ERROR(ValidatePutOptions(options));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<BufferingWriter>(this, std::string(key), options));
}

Result<std::vector<ObjectMeta>> ObjectStore::ListAll(std::string_view prefix, size_t page_size) {
  std::vector<ObjectMeta> all;
  ListOptions options;
  options.prefix = std::string(prefix);
  options.limit = page_size;
  while (true) {
    QV_ASSIGN_OR_RETURN(ListPage page, List(options));
    for (ObjectMeta& m : page.objects) all.push_back(std::move(m));
    if (!page.truncated || all.empty()) break;
    options.start_after = all.back().key;
  }
  return all;
}

}  // namespace quiver
