// ASCII string helpers shared across components (protocol tokens, header names, SQL keywords:
// all ASCII by definition, so no locale is involved).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace quiver {

// `s` with A-Z mapped to a-z; other bytes (UTF-8 included) unchanged.
std::string AsciiLower(std::string_view s);

// Whether a and b are equal ignoring ASCII case.
bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace quiver
