// Lance's reader/writer feature flags (lance-table-format.md §7.1) and the checks Lance 8.0
// applies: any bit it does not know (>= 64) makes a dataset unreadable/unwritable.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace quiver::format {

inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagUseV2Format = 4;  // deprecated, ignored
inline constexpr uint64_t kFlagTableConfig = 8;
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagDisableTransactionFile = 32;
inline constexpr uint64_t kKnownFlags = 63;

// "deletion_files|base_paths" (unknown bits as "bit64" etc.); "none" for 0.
std::string FeatureFlagNames(uint64_t flags);

// Unsupported (code 0) naming `what` (e.g. the manifest path) when a flag >= 64 is set.
Status CheckReaderFlags(uint64_t flags, const std::string& what);
Status CheckWriterFlags(uint64_t flags, const std::string& what);

}  // namespace quiver::format
