#include "common/ids.h"
#include "common/mutex.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace quiver {
namespace {

__extension__ typedef unsigned __int128 Uint128;

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int CrockfordValue(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  for (int i = 0; i < 32; ++i) {
    if (kCrockford[i] == c) return i;
  }
  return -1;
}

}  // namespace

void RandomBytes(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::abort();
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
}

std::string NewUlid(const Clock* clock) {
  if (clock == nullptr) clock = Clock::Real();
  uint64_t millis = static_cast<uint64_t>(clock->NowMillis()) & ((uint64_t{1} << 48) - 1);

  // 80 random bits; within one millisecond the previous value is incremented instead, so that
  // ULIDs of one process sort in creation order.
  struct Last {
    Mutex mu;
    uint64_t millis GUARDED_BY(mu) = 0;
    uint8_t rand[10] GUARDED_BY(mu) = {};
  };
  static Last* last = new Last();  // leaked: ULIDs may be made while statics are destroyed
  uint8_t rand[10];
  {
    MutexLock lock(&last->mu);
    if (millis <= last->millis && last->millis != 0) {
      millis = last->millis;
      std::memcpy(rand, last->rand, sizeof(rand));
      for (int i = 9; i >= 0; --i) {
        if (++rand[i] != 0) break;
      }
    } else {
      RandomBytes(rand, sizeof(rand));
    }
    last->millis = millis;
    std::memcpy(last->rand, rand, sizeof(rand));
  }

  // 128 bits = 48-bit time + 80-bit randomness, encoded as 26 base32 digits (the first digit
  // carries only 3 bits).
  Uint128 v = millis;
  for (uint8_t b : rand) v = (v << 8) | b;
  std::string out(26, '0');
  for (int i = 25; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kCrockford[static_cast<int>(v & 31)];
    v >>= 5;
  }
  return out;
}

Result<int64_t> UlidTimestampMillis(std::string_view ulid) {
  if (ulid.size() != 26) return Status::InvalidInput(fmt::format("not a ULID: '{}'", ulid));
  uint64_t millis = 0;
  for (size_t i = 0; i < 10; ++i) {
    int d = CrockfordValue(ulid[i]);
    if (d < 0) return Status::InvalidInput(fmt::format("not a ULID: '{}'", ulid));
    millis = (millis << 5) | static_cast<uint64_t>(d);
  }
  for (size_t i = 10; i < 26; ++i) {
    if (CrockfordValue(ulid[i]) < 0) {
      return Status::InvalidInput(fmt::format("not a ULID: '{}'", ulid));
    }
  }
  // 10 digits hold 50 bits; a valid ULID's first digit is at most 7 (48-bit time).
  if (millis >> 48) return Status::InvalidInput(fmt::format("ULID out of range: '{}'", ulid));
  return static_cast<int64_t>(millis);
}

std::string NewUuidV4() {
  uint8_t b[16];
  RandomBytes(b, sizeof(b));
  b[6] = static_cast<uint8_t>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3F) | 0x80);  // variant 1 (RFC 4122)
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
      "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

bool IsCanonicalUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

std::string RandomHex(size_t n) {
  std::string bytes(n, '\0');
  RandomBytes(bytes.data(), n);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 15];
  }
  return out;
}

}  // namespace quiver
