// Starts the built `loci` as the ranks of a multi-process run on this machine, the way torchrun does: one process per
// rank with RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT in its environment, each logging to its own file.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace loci::test {

struct RankProcess {
  pid_t pid = -1;
  std::filesystem::path log;

  std::string output() const {
    std::ifstream in(log);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

// A port unlikely to collide with another test run on this machine (derived from this process's pid), and a new one
// for every launch, so that one rendezvous never meets the remains of the last.
inline int free_port() {
  static int launches = 0;
  return 20000 + static_cast<int>(::getpid() % 2000) * 16 + (launches++ % 16);
}

// Where a rank runs: by default this host's loopback; or, say, inside a network namespace (`ip netns exec NS`) that
// reaches rank 0 at another address, with more environment (GLOO_SOCKET_IFNAME=...).
struct RankHost {
  std::string prefix;  // a command the rank runs under, e.g. "ip netns exec loci_a"
  std::string master_addr = "127.0.0.1";
  std::string env;  // extra "KEY=value ..." for the rank
};

// Runs `loci ARGS` as rank `rank` of `world` in the background, in folder `cwd` when given.
inline RankProcess start_rank(int rank, int world, int port, const std::string& args, const std::filesystem::path& log,
                              const std::filesystem::path& cwd = {}, const RankHost& host = {}) {
  const std::string cmd = (cwd.empty() ? "" : "cd '" + cwd.string() + "' && ") + "exec " + host.prefix +
                          " env RANK=" + std::to_string(rank) + " WORLD_SIZE=" + std::to_string(world) +
                          " LOCAL_RANK=" + std::to_string(rank) + " MASTER_ADDR=" + host.master_addr +
                          " MASTER_PORT=" + std::to_string(port) + " " + host.env + " " + LOCI_BIN + " " + args +
                          " > '" + log.string() + "' 2>&1";
  RankProcess p;
  p.log = log;
  p.pid = ::fork();
  if (p.pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return p;
}

// The exit code, or 128 + signal; a process still running after `limit` is killed and reported as -1, so a hang
// fails the test instead of stalling the suite.
inline int wait_rank(const RankProcess& p, std::chrono::seconds limit = std::chrono::seconds(300)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(p.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs every rank of a world at once and returns their exit codes in rank order; rank r runs on hosts[r] when given.
inline std::vector<int> run_ranks(int world, const std::string& args, const std::filesystem::path& logs,
                                  const std::filesystem::path& cwd = {}, const std::vector<RankHost>& hosts = {}) {
  const int port = free_port();
  std::vector<RankProcess> ps;
  for (int r = 0; r < world; ++r)
    ps.push_back(start_rank(r, world, port, args, logs / ("rank" + std::to_string(r) + ".log"), cwd,
                            hosts.empty() ? RankHost{} : hosts[static_cast<std::size_t>(r)]));
  std::vector<int> codes;
  for (const auto& p : ps) codes.push_back(wait_rank(p));
  return codes;
}

}  // namespace loci::test
