// Identifiers: ULIDs (time-ordered, 26 Crockford base32 characters) and UUID v4.
//
// Randomness comes from the kernel (getrandom), never from a seeded PRNG, so ids from different
// processes started in the same instant cannot collide by construction of the seed.
// Thread-safety: all functions are safe to call from any thread. ULIDs made in one process are
// strictly increasing (monotonic within a millisecond, as the ULID spec allows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"

namespace quiver {

// Fills `out` with `n` cryptographically random bytes. Aborts if the kernel cannot supply them
// (there is no safe fallback for id generation).
void RandomBytes(void* out, size_t n);

// A new ULID from `clock` (Clock::Real() when null): 48-bit millisecond timestamp + 80 random
// bits, Crockford base32, upper case.
std::string NewUlid(const Clock* clock = nullptr);
// The millisecond timestamp encoded in a ULID; InvalidInput if `ulid` is not one.
Result<int64_t> UlidTimestampMillis(std::string_view ulid);

// A random (version 4, variant 1) UUID in canonical lower-case 8-4-4-4-12 form.
std::string NewUuidV4();
// True when `s` is a canonical 8-4-4-4-12 hex UUID (any version).
bool IsCanonicalUuid(std::string_view s);

// `n` random bytes as lower-case hex (2n characters).
std::string RandomHex(size_t n);

}  // namespace quiver
