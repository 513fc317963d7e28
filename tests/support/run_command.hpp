// Runs the built `loci` the way a user does and captures what it prints (stdout and stderr) and its exit code.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace loci::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Any shell command line, its stderr with its stdout.
inline CommandResult run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CommandResult run_loci(const std::string& args, const std::string& env = "") {
  return run_command(env + (env.empty() ? "" : " ") + LOCI_BIN + std::string(" ") + args);
}

// A shell command's exit status (-1 when it did not exit), its output left to the caller's redirections.
inline int shell_status(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// `text` split into its lines, without their line ends.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The output of a command refused as a user's mistake (exit status 1); any other ending reads "exit status N: ..."
// so that a check of the expected words fails and shows what happened.
inline std::string refusal(const CommandResult& r) {
  return r.exit_code == 1 ? r.output : "exit status " + std::to_string(r.exit_code) + ": " + r.output;
}

}  // namespace loci::test
