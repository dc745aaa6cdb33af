#include "common/status.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace quiver {
namespace {

struct CodeInfo {
  std::string_view name;
  int http;
};

// Index = wire code. HTTP statuses follow the Rust reference adapter (namespace-spec.md §4.1).
constexpr CodeInfo kCodes[kNumStatusCodes] = {
    {"Unsupported", 406},
    {"NamespaceNotFound", 404},
    {"NamespaceAlreadyExists", 409},
    {"NamespaceNotEmpty", 409},
    {"TableNotFound", 404},
    {"TableAlreadyExists", 409},
    {"TableIndexNotFound", 404},
    {"TableIndexAlreadyExists", 409},
    {"TableTagNotFound", 404},
    {"TableTagAlreadyExists", 409},
    {"TransactionNotFound", 404},
    {"TableVersionNotFound", 404},
    {"TableColumnNotFound", 404},
    {"InvalidInput", 400},
    {"ConcurrentModification", 409},
    {"PermissionDenied", 403},
    {"Unauthenticated", 401},
    {"ServiceUnavailable", 503},
    {"Internal", 500},
    {"InvalidTableState", 409},
    {"TableSchemaValidationError", 400},
    {"Throttling", 429},
    {"TableBranchNotFound", 404},
    {"TableBranchAlreadyExists", 409},
};

const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}

}  // namespace

std::string_view StatusCodeName(StatusCode code) {
  int v = static_cast<int>(code);
  if (v < 0 || v >= kNumStatusCodes) return "Unknown";
  return kCodes[v].name;
}

int HttpStatusForCode(StatusCode code) {
  int v = static_cast<int>(code);
  if (v < 0 || v >= kNumStatusCodes) return 500;
  return kCodes[v].http;
}

std::optional<StatusCode> StatusCodeFromInt(int value) {
  if (value < 0 || value >= kNumStatusCodes) return std::nullopt;
  return static_cast<StatusCode>(value);
}

std::string_view SubcodeName(Subcode subcode) {
  switch (subcode) {
    case Subcode::kNone:
      return "";
    case Subcode::kNotFound:
      return "NotFound";
    case Subcode::kAlreadyExists:
      return "AlreadyExists";
    case Subcode::kConflict:
      return "Conflict";
    case Subcode::kIOError:
      return "IOError";
    case Subcode::kCorruption:
      return "Corruption";
    case Subcode::kInjected:
      return "Injected";
    case Subcode::kStorageFull:
      return "StorageFull";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message, Subcode subcode, bool retryable)
    : state_(std::make_shared<const State>(State{code, subcode, retryable, std::move(message)})) {}

Status Status::NotFound(std::string message) {
  return Status(StatusCode::kInternal, std::move(message), Subcode::kNotFound);
}
Status Status::AlreadyExists(std::string message) {
  return Status(StatusCode::kConcurrentModification, std::move(message), Subcode::kAlreadyExists);
}
Status Status::Conflict(std::string message) {
  return Status(StatusCode::kConcurrentModification, std::move(message), Subcode::kConflict,
                /*retryable=*/true);
}
Status Status::IOError(std::string message, bool retryable) {
  return Status(StatusCode::kInternal, std::move(message), Subcode::kIOError, retryable);
}
Status Status::Corruption(std::string message) {
  return Status(StatusCode::kInternal, std::move(message), Subcode::kCorruption);
}
Status Status::StorageFull(std::string message) {
  return Status(StatusCode::kServiceUnavailable, std::move(message), Subcode::kStorageFull,
                /*retryable=*/true);
}
Status Status::InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
Status Status::Unsupported(std::string message) {
  return Status(StatusCode::kUnsupported, std::move(message));
}
Status Status::Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}
Status Status::ServiceUnavailable(std::string message) {
  return Status(StatusCode::kServiceUnavailable, std::move(message), Subcode::kNone,
                /*retryable=*/true);
}

StatusCode Status::code() const { return ok() ? StatusCode::kInternal : state_->code; }
Subcode Status::subcode() const { return ok() ? Subcode::kNone : state_->subcode; }
bool Status::retryable() const { return ok() ? false : state_->retryable; }
const std::string& Status::message() const { return ok() ? EmptyString() : state_->message; }

Status Status::WithRetryable(bool retryable) const {
  if (ok()) return *this;
  return Status(state_->code, state_->message, state_->subcode, retryable);
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(state_->code, fmt::format("{}: {}", context, state_->message), state_->subcode,
                state_->retryable);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(state_->code));
  if (state_->subcode != Subcode::kNone) {
    out += "/";
    out += SubcodeName(state_->subcode);
  }
  if (state_->retryable) out += " (retryable)";
  out += ": ";
  out += state_->message;
  return out;
}

bool operator==(const Status& a, const Status& b) {
  if (a.ok() || b.ok()) return a.ok() == b.ok();
  return a.code() == b.code() && a.subcode() == b.subcode() && a.retryable() == b.retryable() &&
         a.message() == b.message();
}

Status StatusFromErrno(int err, std::string_view what) {
  if (err == ENOSPC || err == EDQUOT) {
    return Status::StorageFull(fmt::format("storage is full: {}: {}", what, std::strerror(err)));
  }
  bool retryable = err == EAGAIN || err == EINTR || err == EBUSY || err == EMFILE ||
                   err == ENFILE || err == ENOMEM;
  return Status::IOError(fmt::format("{}: {}", what, std::strerror(err)), retryable);
}

}  // namespace quiver
