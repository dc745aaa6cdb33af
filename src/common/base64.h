// Base64url (RFC 4648 §5, RFC 7515 §2): the URL-safe alphabet without padding, as JWTs and
// quiver's API keys use it.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace quiver {

std::string Base64UrlEncode(std::string_view bytes);
// Strict: the URL-safe alphabet only, no padding, no whitespace, and unused trailing bits zero,
// so that every byte string has exactly one accepted encoding. False on anything else.
bool Base64UrlDecode(std::string_view text, std::string* out);

}  // namespace quiver
