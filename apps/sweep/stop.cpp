#include "apps/sweep/stop.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/error.hpp"
#include "core/printable.hpp"
#include "datasets/folder_lock.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

constexpr const char* kClaim = ".loci-sweep-lock";

// The pid of a claim "pid N on HOST" made on this host; UserError otherwise.
pid_t local_pid(const fs::path& folder, const std::string& holder) {
  const auto on = holder.find(" on ");
  const long pid = holder.rfind("pid ", 0) == 0 ? std::strtol(holder.c_str() + 4, nullptr, 10) : 0;
  if (pid <= 0 || on == std::string::npos)
    throw UserError(folder.string() + ": its sweep claim is held by '" + printable(holder) + "', not a loci sweep");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (holder.substr(on + 4) != host)
    throw UserError(folder.string() + ": its sweep runs on another host (" + printable(holder) + "); stop it there");
  // A pid reused by another program since would still hold no claim, but say so rather than signal a stranger.
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  const std::string command(std::istreambuf_iterator<char>(cmdline), {});
  if (command.find("loci") == std::string::npos)
    throw UserError(folder.string() + ": pid " + std::to_string(pid) + " holds its sweep claim but is not loci");
  return static_cast<pid_t>(pid);
}

}  // namespace

std::string stop_sweep(const fs::path& folder, std::chrono::seconds wait) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw UserError(folder.string() + ": no such folder");
  const std::string holder = datasets::folder_writer(folder, kClaim);
  if (holder.empty()) throw UserError(folder.string() + ": no sweep is running there (nothing holds " + kClaim + ")");
  const pid_t pid = local_pid(folder, holder);
  if (::kill(pid, SIGTERM) != 0)
    throw UserError(folder.string() + ": cannot signal pid " + std::to_string(pid) + " (" + std::strerror(errno) + ")");
  const auto until = std::chrono::steady_clock::now() + wait;
  while (!datasets::folder_writer(folder, kClaim).empty()) {
    if (std::chrono::steady_clock::now() > until)
      throw UserError(folder.string() + ": pid " + std::to_string(pid) + " was asked to stop and still runs after " +
                      std::to_string(wait.count()) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return holder;
}

}  // namespace loci::apps
