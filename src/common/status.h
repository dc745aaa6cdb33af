// Status: the outcome of an operation that can fail, and Result<T> (in result.h) built on it.
//
// Every quiver component reports errors as a Status, never by throwing across a component
// boundary. A Status carries:
//   - a StatusCode: exactly the Lance Namespace error codes 0-23 (same number, same name), so the
//     server turns any Status into the spec's error body without a lookup table of its own;
//   - a Subcode: a finer, machine-checkable condition used below the catalog (the object store's
//     "object missing", "object exists", "precondition failed", I/O failures), so that a layer
//     can react to a storage condition without parsing messages. The Subcode never reaches the
//     wire; the code does;
//   - a retryable flag: true when the same request may succeed if simply tried again (lost
//     optimistic-concurrency races, transient I/O), false otherwise;
//   - a human-readable message.
//
// The OK status allocates nothing. Status is a value type; copies are cheap (shared immutable
// state). Thread-safety: a Status is immutable after construction and safe to share.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace quiver {

// The Lance Namespace error codes (namespace-spec.md §4.1). The numeric values are the wire
// values and must never change.
enum class StatusCode : int {
  kUnsupported = 0,
  kNamespaceNotFound = 1,
  kNamespaceAlreadyExists = 2,
  kNamespaceNotEmpty = 3,
  kTableNotFound = 4,
  kTableAlreadyExists = 5,
  kTableIndexNotFound = 6,
  kTableIndexAlreadyExists = 7,
  kTableTagNotFound = 8,
  kTableTagAlreadyExists = 9,
  kTransactionNotFound = 10,
  kTableVersionNotFound = 11,
  kTableColumnNotFound = 12,
  kInvalidInput = 13,
  kConcurrentModification = 14,
  kPermissionDenied = 15,
  kUnauthenticated = 16,
  kServiceUnavailable = 17,
  kInternal = 18,
  kInvalidTableState = 19,
  kTableSchemaValidationError = 20,
  kThrottling = 21,
  kTableBranchNotFound = 22,
  kTableBranchAlreadyExists = 23,
};

inline constexpr int kNumStatusCodes = 24;

// Storage-level conditions below the catalog. Each comes with a fixed StatusCode (see the
// factories below) so that an untranslated storage error still leaves the server with an
// honest code. One exception: kNotFound also marks, with code InvalidInput, a row that a Take
// or DeleteRows names and the table version does not have (table::RowNotFound); Take turns the
// store's NotFound for a file the manifest names into Corruption, so the two never mix there.
enum class Subcode : int {
  kNone = 0,
  kNotFound,       // the object/key does not exist                 (code Internal; see above)
  kAlreadyExists,  // CreateOnly found the key taken                 (code ConcurrentModification)
  kConflict,       // IfMatch found a different etag (or no object)  (code ConcurrentModification)
  kIOError,        // the operating system or device failed          (code Internal)
  kCorruption,     // stored bytes are not what they must be         (code Internal)
  kInjected,       // a fault injected by a test decorator           (code of the injected status)
  kStorageFull,    // the device or quota is full (ENOSPC, EDQUOT)   (code ServiceUnavailable)
};

// The spec's name for a code ("TableNotFound"); "Unknown" for values outside 0-23.
std::string_view StatusCodeName(StatusCode code);
// The HTTP status the server answers with for a code (namespace-spec.md §4.1).
int HttpStatusForCode(StatusCode code);
// Parses a numeric wire code; nullopt when outside 0-23.
std::optional<StatusCode> StatusCodeFromInt(int value);
std::string_view SubcodeName(Subcode subcode);

class [[nodiscard]] Status {
 public:
  // OK.
  Status() noexcept = default;
  Status(StatusCode code, std::string message, Subcode subcode = Subcode::kNone,
         bool retryable = false);

  static Status OK() { return Status(); }

  // Factories for the storage-level conditions (fixed code, subcode and retryability).
  static Status NotFound(std::string message);
  static Status AlreadyExists(std::string message);
  static Status Conflict(std::string message);  // retryable: re-read and try again
  static Status IOError(std::string message, bool retryable = false);
  static Status Corruption(std::string message);
  // Nothing more fits (ENOSPC, EDQUOT): ServiceUnavailable (503 with Retry-After), retryable, so a
  // client backs off and the operator frees space; what only deletes may still succeed.
  static Status StorageFull(std::string message);
  // Factories for the codes used everywhere.
  static Status InvalidInput(std::string message);
  static Status Unsupported(std::string message);
  static Status Internal(std::string message);
  static Status ServiceUnavailable(std::string message);  // retryable

  bool ok() const { return state_ == nullptr; }
  // REQUIRES: !ok() for meaningful values; an OK status reports kInternal/kNone/"".
  StatusCode code() const;
  Subcode subcode() const;
  bool retryable() const;
  const std::string& message() const;

  bool IsNotFound() const { return subcode() == Subcode::kNotFound; }
  bool IsAlreadyExists() const { return subcode() == Subcode::kAlreadyExists; }
  bool IsConflict() const { return subcode() == Subcode::kConflict; }
  bool IsIOError() const { return subcode() == Subcode::kIOError; }
  bool IsStorageFull() const { return subcode() == Subcode::kStorageFull; }
  bool IsInvalidInput() const { return !ok() && code() == StatusCode::kInvalidInput; }

  // A copy with a different retryable flag / with context prepended to the message
  // ("reading manifest: <original>").
  Status WithRetryable(bool retryable) const;
  Status WithContext(std::string_view context) const;

  // "OK" or "<CodeName>[/<Subcode>][ (retryable)]: <message>".
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b);

 private:
  struct State {
    StatusCode code;
    Subcode subcode;
    bool retryable;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

// Builds an IOError status from errno: "<what>: <strerror(err)>". EAGAIN/EINTR-like errors are
// marked retryable. ENOSPC and EDQUOT are StorageFull ("storage is full: <what>: ...").
Status StatusFromErrno(int err, std::string_view what);

}  // namespace quiver

// Returns the status from the enclosing function if `expr` (a Status) is not OK.
#define QV_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::quiver::Status _qv_status = (expr);    \
    if (!_qv_status.ok()) return _qv_status; \
  } while (false)
