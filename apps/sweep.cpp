#include "apps/sweep.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <cstdio>

#include "plugins/api/config/overrides.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

namespace fs = std::filesystem;

Sweep plan_sweep(const std::vector<std::string>& sweep_args) {
  Sweep sweep;
  std::vector<std::string> varying;
  for (const auto& arg : sweep_args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) throw UserError("command line '" + arg + "': a sweep is written key=v1,v2");
    const auto values = config::sweep_values(arg.substr(0, eq), std::string_view(arg).substr(eq + 1));
    if (values.size() == 1) sweep.fixed.push_back(arg.substr(0, eq) + "=" + values.front());
    else varying.push_back(arg);
  }
  auto& points = sweep.points;
  for (auto& overrides : config::expand_sweep(varying)) {
    SweepPoint p;
    for (const auto& o : overrides) {
      std::string part = o;
      for (auto& c : part)
        if (c == '/' || c == ' ') c = '_';  // a value must not open a sub-folder
      p.name += (p.name.empty() ? "" : ",") + part;
    }
    if (p.name.empty()) p.name = "run";
    p.overrides = std::move(overrides);
    points.push_back(std::move(p));
  }
  return sweep;
}

std::vector<std::string> point_arguments(const SweepRequest& r, const SweepPoint& p) {
  std::vector<std::string> args{"train", r.config};
  for (const auto& o : r.fixed_overrides) args.push_back(o);
  for (const auto& o : p.overrides) args.push_back(o);
  args.push_back("out=" + (fs::path(r.out) / p.name).string());
  args.push_back("train.progress=false");
  return args;
}

namespace {

pid_t launch(const SweepRequest& r, const SweepPoint& p, const fs::path& run) {
  fs::create_directories(run);
  std::vector<std::string> args{"/proc/self/exe"};
  for (auto& a : point_arguments(r, p)) args.push_back(std::move(a));
  args.push_back("train.threads=" + std::to_string(r.threads_per_job));
  if (r.resume || fs::exists(run / "checkpoints" / "last.pt") || fs::exists(run / "summary.json"))
    args.push_back("--resume");
  const std::string log = (run / "train.log").string();
  const pid_t pid = fork();
  if (pid < 0) throw UserError("cannot start a sweep process (fork failed)");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// The last non-empty line a failed run wrote: its `loci: error:` line, shown beside the sweep's own.
std::string last_line(const fs::path& log) {
  FILE* f = std::fopen(log.c_str(), "r");
  if (!f) return "";
  std::string line, last;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) {
    line = buf;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) last = line;
  }
  std::fclose(f);
  return last.size() > 300 ? last.substr(0, 297) + "..." : last;
}

// A finished point is still handed to its run: the trainer compares what the run was made from with what the
// sweep asks now (and refuses a difference, naming the keys), or extends it when train.epochs grew.
std::optional<fs::file_time_type> finished_at(const fs::path& run) {
  std::error_code ec;
  const auto t = fs::last_write_time(run / "summary.json", ec);
  if (ec) return std::nullopt;
  return t;
}

}  // namespace

int run_sweep(const SweepRequest& r, const std::vector<SweepPoint>& points) {
  std::map<pid_t, std::size_t> running;
  std::map<std::size_t, std::optional<fs::file_time_type>> finished_before;
  std::size_t next = 0, finished = 0, skipped = 0;
  int failed = 0;
  const std::size_t total = points.size();
  auto reap_one = [&] {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid <= 0) return;
    const auto it = running.find(pid);
    if (it == running.end()) return;
    const auto& p = points[it->second];
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const fs::path run = fs::path(r.out) / p.name;
    const auto before = finished_before[it->second];
    const bool kept = ok && before && finished_at(run) == before;
    ++finished;
    std::cerr << "loci: [" << finished + skipped << "/" << total << "] " << (kept ? "kept   " : ok ? "done   " : "FAILED ")
              << p.name;
    if (!ok) {
      ++failed;
      const std::string why = last_line(run / "train.log");
      std::cerr << " (see " << (run / "train.log").string() << ")" << (why.empty() ? "" : ": " + why);
    }
    std::cerr << "\n";
    running.erase(it);
  };
  while (next < points.size() || !running.empty()) {
    while (next < points.size() && static_cast<int>(running.size()) < r.jobs) {
      const fs::path run = fs::path(r.out) / points[next].name;
      finished_before[next] = finished_at(run);
      running[launch(r, points[next], run)] = next;
      ++next;
    }
    if (!running.empty()) reap_one();
  }
  return failed;
}

}  // namespace loci::app
