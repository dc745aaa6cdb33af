#include "process_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace quiver::testing {

std::vector<int> RunInChildren(int n, const std::function<int(int)>& body) {
  int start[2];
  if (::pipe(start) != 0) return std::vector<int>(n, -1);
  std::vector<pid_t> pids;
  std::fflush(nullptr);  // nothing buffered may be written twice
  for (int i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(start[1]);
      char c;
      while (::read(start[0], &c, 1) > 0) {
      }  // EOF once the parent closes its end: everyone starts together
      int code = body(i);
      std::fflush(nullptr);
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) {
      codes.push_back(-1);
    } else if (WIFEXITED(status)) {
      codes.push_back(WEXITSTATUS(status));
    } else {
      codes.push_back(128 + WTERMSIG(status));
    }
  }
  return codes;
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  return static_cast<bool>(out);
}

}  // namespace quiver::testing
