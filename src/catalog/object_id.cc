#include "catalog/object_id.h"

#include <fmt/format.h>

namespace quiver::catalog {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t extra;
    if (c < 0x80) {
      extra = 0;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      return false;  // continuation byte, overlong lead (c0/c1) or beyond U+10FFFF
    }
    if (s.size() - i <= extra) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    unsigned char c1 = static_cast<unsigned char>(extra > 0 ? s[i + 1] : 0);
    if (c == 0xe0 && c1 < 0xa0) return false;   // overlong
    if (c == 0xed && c1 >= 0xa0) return false;  // surrogates
    if (c == 0xf0 && c1 < 0x90) return false;   // overlong
    if (c == 0xf4 && c1 >= 0x90) return false;  // beyond U+10FFFF
    i += extra + 1;
  }
  return true;
}

namespace {

Status ValidateNameShape(std::string_view name, std::string_view what, bool check_length) {
  if (name.empty()) return Status::InvalidInput(fmt::format("{} name must not be empty", what));
  if (check_length && name.size() > kMaxNameBytes) {
    return Status::InvalidInput(fmt::format("{} name is {} bytes; at most {} are allowed", what,
                                            name.size(), kMaxNameBytes));
  }
  if (name == "." || name == "..") {
    return Status::InvalidInput(fmt::format("{} name must not be '{}'", what, name));
  }
  if (!IsValidUtf8(name)) {
    return Status::InvalidInput(fmt::format("{} name is not valid UTF-8", what));
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidInput(
          fmt::format("{} name must not contain control characters (found 0x{:02x})", what, c));
    }
    if (c == '/' || c == '\\') {
      return Status::InvalidInput(
          fmt::format("{} name '{}' must not contain '{}'", what, name, static_cast<char>(c)));
    }
  }
  return Status::OK();
}

Status ValidateIdShape(const ObjectId& id, std::string_view what, bool allow_root,
                       bool check_length) {
  if (id.empty() && !allow_root) {
    return Status::InvalidInput(
        fmt::format("the {} identifier must not be empty (the root)", what));
  }
  if (id.size() > kMaxIdDepth) {
    return Status::InvalidInput(fmt::format(
        "the {} identifier has {} levels; at most {} are allowed", what, id.size(), kMaxIdDepth));
  }
  size_t total = 0;
  for (size_t i = 0; i < id.size(); ++i) {
    std::string_view kind = i + 1 == id.size() ? what : std::string_view("namespace");
    QV_RETURN_IF_ERROR(ValidateNameShape(id[i], kind, check_length));
    total += id[i].size();
  }
  if (check_length && total > kMaxIdBytes) {
    return Status::InvalidInput(
        fmt::format("the {} identifier's names are {} bytes together; at most {} are allowed", what,
                    total, kMaxIdBytes));
  }
  return Status::OK();
}

}  // namespace

Status ValidateName(std::string_view name, std::string_view what) {
  return ValidateNameShape(name, what, /*check_length=*/true);
}

Status ValidateId(const ObjectId& id, std::string_view what, bool allow_root) {
  return ValidateIdShape(id, what, allow_root, /*check_length=*/true);
}

Status ValidateLookupId(const ObjectId& id, std::string_view what, bool allow_root) {
  return ValidateIdShape(id, what, allow_root, /*check_length=*/false);
}

std::string JoinId(const ObjectId& id, std::string_view delimiter) {
  std::string out;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i > 0) out += delimiter;
    out += id[i];
  }
  return out;
}

ObjectId ParentOf(const ObjectId& id) { return ObjectId(id.begin(), id.end() - 1); }

const std::string& LeafOf(const ObjectId& id) { return id.back(); }

ObjectId ChildOf(const ObjectId& parent, std::string_view name) {
  ObjectId child = parent;
  child.emplace_back(name);
  return child;
}

std::string EncodeName(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(name.size() * 2);
  for (unsigned char c : name) {
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
  }
  return out;
}

namespace {
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

Status DecodeName(std::string_view hex, std::string* name) {
  if (hex.empty() || hex.size() % 2 != 0) {
    return Status::InvalidInput(fmt::format("'{}' is not an encoded name", hex));
  }
  name->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]);
    int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return Status::InvalidInput(fmt::format("'{}' is not an encoded name", hex));
    name->push_back(static_cast<char>(hi * 16 + lo));
  }
  return Status::OK();
}

}  // namespace quiver::catalog
