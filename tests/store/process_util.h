// Running test code in child processes (fork, no exec): a start barrier so that all children
// begin together, and exit codes collected by the parent.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace quiver::testing {

// Forks `n` children; each waits until all are forked, runs body(i) and exits with its return
// value. Returns each child's exit code (or 128 + signal if it was killed).
std::vector<int> RunInChildren(int n, const std::function<int(int)>& body);

std::string ReadFileOrEmpty(const std::string& path);
bool WriteFile(const std::string& path, const std::string& data);

}  // namespace quiver::testing
