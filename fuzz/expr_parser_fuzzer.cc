// libFuzzer target: ParseExpression must never crash, hang or overflow the stack on any input,
// and whatever it accepts must print (Expr::ToString) as SQL that parses back to the same tree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "expr/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view sql(reinterpret_cast<const char*>(data), size);
  auto parsed = quiver::expr::ParseExpression(sql);
  if (!parsed.ok()) return 0;
  const std::string once = (*parsed)->ToString();
  auto again = quiver::expr::ParseExpression(once);
  // Printing adds parentheses, which may push an accepted tree past the depth limit.
  if (!again.ok()) {
    if (again.status().message().find("nested deeper than") != std::string::npos) return 0;
    std::abort();
  }
  if ((*again)->ToString() != once) std::abort();
  return 0;
}
