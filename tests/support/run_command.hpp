// Runs the built `loci` the way a user does and captures what it prints (stdout and stderr) and its exit code.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

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

// The output of a command refused as a user's mistake (exit status 1); any other ending reads "exit status N: ..."
// so that a check of the expected words fails and shows what happened.
inline std::string refusal(const CommandResult& r) {
  return r.exit_code == 1 ? r.output : "exit status " + std::to_string(r.exit_code) + ": " + r.output;
}

}  // namespace loci::test
