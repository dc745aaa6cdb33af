#include "common/base64.h"

#include <array>
#include <cstdint>

namespace quiver {

namespace {
constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// RFC 4648 §4, for renderings read by general JSON tooling.
constexpr std::string_view kStandardAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Encode(std::string_view bytes, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(acc << (6 - bits)) & 0x3f]);
  if (pad) {
    while (out.size() % 4 != 0) out.push_back('=');
  }
  return out;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) { return Encode(bytes, kAlphabet, false); }

std::string Base64Encode(std::string_view bytes) { return Encode(bytes, kStandardAlphabet, true); }

bool Base64UrlDecode(std::string_view in, std::string* out) {
  static constexpr std::array<int8_t, 256> kTable = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (size_t i = 0; i < kAlphabet.size(); ++i) {
      t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    }
    return t;
  }();
  if (in.size() % 4 == 1) return false;
  out->clear();
  out->reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = kTable[static_cast<unsigned char>(c)];
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return (acc & ((1u << bits) - 1)) == 0;
}

}  // namespace quiver
