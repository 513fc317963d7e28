// The processes a test started through `loci` (sweeps' runs, the report's script), read from /proc.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace loci::test {

// /proc/<pid>/stat past the command name: "state ppid ..." (the name, in parentheses, may hold spaces); "" when the
// process is gone.
inline std::string stat_after_name(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close == std::string::npos ? "" : stat.substr(close + 1);
}

// The processes whose parent is `parent`.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> kids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat_after_name(name).c_str(), " %c %d", &state, &ppid) == 2 && ppid == parent)
      kids.push_back(std::stoi(name));
  }
  return kids;
}

// Gone, or a zombie nobody has reaped yet (a container's init may not reap): either way no longer running.
inline bool has_ended(pid_t pid) {
  const std::string rest = stat_after_name(std::to_string(pid));
  return rest.size() < 2 || rest[1] == 'Z' || rest[1] == 'X';
}

}  // namespace loci::test
