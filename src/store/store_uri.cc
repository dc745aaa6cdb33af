#include "store/store_uri.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "store/local_store.h"
#include "store/memory_store.h"

namespace quiver {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view s, std::string_view uri) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return Status::InvalidInput(fmt::format("bad percent-escape in '{}'", uri));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (out.find('\0') != std::string::npos) {
    return Status::InvalidInput(fmt::format("'{}' decodes to a path with a NUL byte", uri));
  }
  return out;
}

// The scheme of "scheme://...", or empty when `uri` has none (a plain path).
std::string_view SchemeOf(std::string_view uri) {
  size_t sep = uri.find("://");
  if (sep == std::string_view::npos || sep == 0) return {};
  for (size_t i = 0; i < sep; ++i) {
    char c = uri[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
    if (!ok) return {};
  }
  return uri.substr(0, sep);
}

// The segments of `path`, without empty and "." ones; ".." pops one (at the top it stays at the
// top, as the kernel does for "/..").
std::vector<std::string_view> NormalSegments(std::string_view path, bool apply_dotdot) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t end = slash == std::string_view::npos ? path.size() : slash;
    std::string_view seg = path.substr(start, end - start);
    if (apply_dotdot && seg == "..") {
      if (!out.empty()) out.pop_back();
    } else if (!seg.empty() && !(apply_dotdot && seg == ".")) {
      out.push_back(seg);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

std::string JoinSegments(const std::vector<std::string_view>& segments, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    out += '/';
    out += segments[i];
  }
  return out.empty() ? "/" : out;
}

// An absolute, normalised path with the links of its longest existing ancestor resolved.
Result<std::string> CanonicalPath(std::string_view path) {
  std::string abs(path);
  if (abs.empty() || abs.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) {
      return StatusFromErrno(errno, "reading the working directory");
    }
    abs = std::string(cwd) + "/" + abs;
  }
  // ".." is applied by the kernel (through links) in the existing part, lexically after it.
  std::vector<std::string_view> raw = NormalSegments(abs, /*apply_dotdot=*/false);
  for (size_t keep = raw.size() + 1; keep-- > 0;) {
    std::string prefix = JoinSegments(raw, keep);
    char resolved[PATH_MAX];
    if (::realpath(prefix.c_str(), resolved) == nullptr) continue;
    std::string rest = resolved;
    for (size_t i = keep; i < raw.size(); ++i) rest += "/" + std::string(raw[i]);
    std::vector<std::string_view> segments = NormalSegments(rest, /*apply_dotdot=*/true);
    return JoinSegments(segments, segments.size());
  }
  std::vector<std::string_view> segments = NormalSegments(abs, /*apply_dotdot=*/true);
  return JoinSegments(segments, segments.size());
}

}  // namespace

Result<std::string> CanonicalLocation(std::string_view uri) {
  if (SchemeOf(uri) == "s3") {
    std::string_view rest = uri.substr(5);
    size_t slash = rest.find('/');
    std::string_view bucket = rest.substr(0, slash);
    if (bucket.empty()) return Status::InvalidInput(fmt::format("'{}' names no bucket", uri));
    std::string out = "s3://" + std::string(bucket);
    if (slash != std::string_view::npos) {
      for (std::string_view seg : NormalSegments(rest.substr(slash), /*apply_dotdot=*/false)) {
        out += '/';
        out += seg;
      }
    }
    return out;
  }
  QV_ASSIGN_OR_RETURN(StoreLocation location, ParseStoreUri(uri));
  switch (location.scheme) {
    case StoreScheme::kLocal: {
      QV_ASSIGN_OR_RETURN(std::string path, CanonicalPath(location.path));
      return "file://" + path;
    }
    case StoreScheme::kMemory:
      return "memory://" + location.path;
  }
  return Status::Internal("unreachable store scheme");
}

std::string JoinLocation(std::string_view canonical, std::string_view rel) {
  std::string out(canonical);
  for (std::string_view seg : NormalSegments(rel, /*apply_dotdot=*/false)) {
    if (out.empty() || out.back() != '/') out += '/';
    out += seg;
  }
  return out;
}

bool LocationWithin(std::string_view inner, std::string_view outer) {
  if (inner.size() < outer.size() || inner.substr(0, outer.size()) != outer) return false;
  if (inner.size() == outer.size()) return true;
  return outer.back() == '/' || inner[outer.size()] == '/';
}

bool LocationsOverlap(std::string_view a, std::string_view b) {
  return LocationWithin(a, b) || LocationWithin(b, a);
}

Result<StoreLocation> ParseStoreUri(std::string_view uri) {
  if (uri.empty()) return Status::InvalidInput("storage URI is empty");
  if (uri.find('\0') != std::string_view::npos) {
    return Status::InvalidInput("storage URI contains a NUL byte");
  }
  std::string_view scheme = SchemeOf(uri);
  if (scheme.empty()) {
    if (uri.substr(0, 5) == "file:") {
      return Status::InvalidInput(
          fmt::format("'{}': file URIs must be absolute, as file:///abs/path", uri));
    }
    return StoreLocation{StoreScheme::kLocal, std::string(uri)};
  }
  std::string_view rest = uri.substr(scheme.size() + 3);
  if (scheme == "file") {
    size_t slash = rest.find('/');
    std::string_view host = rest.substr(0, slash);
    if (slash == std::string_view::npos || (!host.empty() && host != "localhost")) {
      return Status::InvalidInput(
          fmt::format("'{}': file URIs must name a local absolute path, as file:///abs/path", uri));
    }
    QV_ASSIGN_OR_RETURN(std::string path, PercentDecode(rest.substr(slash), uri));
    return StoreLocation{StoreScheme::kLocal, std::move(path)};
  }
  if (scheme == "memory") {
    if (rest.empty() || rest.find('/') != std::string_view::npos) {
      return Status::InvalidInput(fmt::format("'{}': memory URIs are memory://name", uri));
    }
    return StoreLocation{StoreScheme::kMemory, std::string(rest)};
  }
  return Status::InvalidInput(fmt::format(
      "unsupported storage scheme '{}' in '{}' (supported: a plain path, file:///abs/path, "
      "memory://name)",
      scheme, uri));
}

Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri,
                                               const OpenStoreOptions& options) {
  QV_ASSIGN_OR_RETURN(StoreLocation location, ParseStoreUri(uri));
  switch (location.scheme) {
    case StoreScheme::kLocal: {
      LocalStoreOptions local;
      local.create_if_missing = options.create_if_missing;
      local.clock = options.clock;
      local.sync_points = options.sync_points;
      QV_ASSIGN_OR_RETURN(auto store, LocalObjectStore::Open(location.path, local));
      return std::shared_ptr<ObjectStore>(std::move(store));
    }
    case StoreScheme::kMemory: {
      MemoryStoreOptions memory;
      memory.clock = options.clock;
      memory.sync_points = options.sync_points;
      return std::shared_ptr<ObjectStore>(MemoryObjectStore::Named(location.path, memory));
    }
  }
  return Status::Internal("unreachable store scheme");
}

}  // namespace quiver
