#include "server/error_response.h"

#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/logging.h"

namespace quiver::server {

std::string ErrorTypeUri(StatusCode code) {
  std::string out = "/errors/";
  std::string_view name = StatusCodeName(code);
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0) out += '-';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

HttpResponse MakeErrorResponse(const Status& status, const std::string& request_id,
                               int http_status) {
  StatusCode code = status.ok() ? StatusCode::kInternal : status.code();
  int http = http_status != 0 ? http_status : HttpStatusForCode(code);
  std::string error =
      status.message().empty() ? std::string(StatusCodeName(code)) : status.message();
  std::string detail = status.ToString();
  // A server-side failure's message is for the operator: an I/O error names paths on the
  // server's disks, an internal one the code's own state. The client gets the request id to
  // quote and the log gets the message. (Corruption stays: it names the caller's own table's
  // object, which is what the caller needs to repair or report.)
  if (http == 500 && status.subcode() != Subcode::kCorruption) {
    QV_LOG_ERROR("internal error", {{"request_id", request_id}, {"error", detail}});
    error = fmt::format("internal error; the server's log has the details under request id {}",
                        request_id);
    detail = std::string(StatusCodeName(code));
  }
  nlohmann::json body = {
      {"error", error},
      {"code", static_cast<int>(code)},
      {"detail", detail},
      {"instance", request_id},
      {"type", ErrorTypeUri(code)},
      {"title", std::string(StatusCodeName(code))},
      {"status", http},
  };
  HttpResponse response;
  response.status = http;
  response.content_type = "application/json";
  // Replace invalid UTF-8 (e.g. echoed from a bad request) instead of failing to serialize.
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (code == StatusCode::kServiceUnavailable || code == StatusCode::kThrottling) {
    response.headers.emplace_back("Retry-After", "1");
  }
  return response;
}

}  // namespace quiver::server
