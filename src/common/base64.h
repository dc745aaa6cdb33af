// Base64url (RFC 4648 §5, RFC 7515 §2): the URL-safe alphabet without padding, as JWTs and
// quiver's API keys use it. Also plain base64 (RFC 4648 §4: '+', '/', '=' padding), which is what
// JSON renderings of binary values use (arrow/json_lines.h), because that is what JavaScript's
// Buffer.toString("base64") and most JSON tooling produce.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace quiver {

std::string Base64UrlEncode(std::string_view bytes);
// The standard alphabet with '=' padding to a multiple of 4 characters.
std::string Base64Encode(std::string_view bytes);
// Strict: the URL-safe alphabet only, no padding, no whitespace, and unused trailing bits zero,
// so that every byte string has exactly one accepted encoding. False on anything else.
bool Base64UrlDecode(std::string_view text, std::string* out);

}  // namespace quiver
