#include "server/http_types.h"

namespace quiver::server {

const std::string& HttpRequest::Header(const std::string& lower_name) const {
  static const std::string kEmpty;
  auto it = headers.find(lower_name);
  return it == headers.end() ? kEmpty : it->second;
}

namespace {
int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

bool PercentDecode(std::string_view s, bool form_plus, std::string* out) {
  out->clear();
  out->reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return false;
      int hi = HexDigit(s[i + 1]);
      int lo = HexDigit(s[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && form_plus) {
      out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
  return true;
}

std::multimap<std::string, std::string> ParseQueryString(std::string_view query) {
  std::multimap<std::string, std::string> out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    std::string_view pair =
        query.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string_view raw_key = pair.substr(0, eq);
      std::string_view raw_value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
      std::string key, value;
      if (!PercentDecode(raw_key, true, &key)) key = std::string(raw_key);
      if (!PercentDecode(raw_value, true, &value)) value = std::string(raw_value);
      out.emplace(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
  return out;
}

}  // namespace quiver::server
