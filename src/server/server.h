// Server: `quiver serve` as a library: binds the listen address first (so that a bad or taken
// address leaves the root untouched), then opens the root (counted for /metrics), the catalog
// (recovering interrupted renames) and the namespace service, and serves.
// Thread-safety: Start/Shutdown/Wait from any thread.
#pragma once

#include <memory>
#include <string>

#include "catalog/access_control.h"
#include "common/config.h"
#include "common/result.h"

namespace quiver::server {

// The access control a configuration asks for: server admins from `admins` (plus everyone, as
// user:anonymous, when authentication is off) and the refresh interval.
Result<std::unique_ptr<catalog::AccessControl>> OpenAccessControl(catalog::Catalog& catalog,
                                                                  const Config& config);

class Server {
 public:
  static Result<std::unique_ptr<Server>> Start(const Config& config);
  ~Server();

  uint16_t port() const;
  std::string url() const;   // "http://127.0.0.1:2333"
  std::string root() const;  // the store's description
  void Shutdown();
  void Wait();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::server
