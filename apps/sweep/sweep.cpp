#include "apps/sweep/sweep.hpp"
#include "apps/signal_pipe.hpp"
#include "apps/sweep/manifest.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/overrides.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "core/provenance.hpp"
#include "datasets/bounded_read.hpp"
#include "datasets/folder_lock.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

Sweep plan_sweep(const std::vector<std::string>& sweep_args) {
  Sweep sweep;
  std::vector<std::string> varying;
  for (const auto& arg : sweep_args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) throw UserError("command line '" + printable(arg) + "': a sweep is written key=v1,v2");
    const auto values = config::sweep_values(arg.substr(0, eq), std::string_view(arg).substr(eq + 1));
    if (values.size() == 1)
      sweep.fixed.push_back(arg.substr(0, eq) + "=" + values.front());
    else
      varying.push_back(arg);
  }
  auto& points = sweep.points;
  for (auto& overrides : config::expand_sweep(varying)) {
    SweepPoint p;
    // A one-point sweep (every key given one value) is named after that point, as any other run is.
    p.name = point_folder_name(overrides.empty() ? sweep.fixed : overrides);
    if (p.name.empty()) p.name = "run";
    p.overrides = std::move(overrides);
    points.push_back(std::move(p));
  }
  return sweep;
}

std::string point_folder_name(const std::vector<std::string>& overrides) {
  std::string name;
  for (const auto& o : overrides) {
    if (!name.empty()) name += ",";
    for (const char c : o)
      name += c == '/'   ? std::string("%2F")
              : c == ' ' ? std::string("%20")
              : c == '%' ? std::string("%25")
                         : std::string(1, c);
  }
  return name;
}

std::vector<std::string> point_arguments(const SweepRequest& r, const SweepPoint& p) {
  std::vector<std::string> args{"train", r.config};
  // The sweep's own `out=` names the folder of all its runs; each run's out= below replaces it.
  for (const auto& o : r.fixed_overrides)
    if (o.rfind("out=", 0) != 0) args.push_back(o);
  for (const auto& o : p.overrides) args.push_back(o);
  args.push_back("out=" + (fs::path(r.out) / p.name).string());
  args.push_back("train.progress=false");
  return args;
}

namespace {

constexpr int kHeldSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD};

sigset_t sweep_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kHeldSignals) sigaddset(&set, sig);
  return set;
}

pid_t launch(const SweepRequest& r, const SweepPoint& p, const fs::path& run) {
  fs::create_directories(run);
  // argv[0] is this loci's own path, so the run's recorded command can be pasted.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> args{ec ? std::string("loci") : exe.string()};
  for (auto& a : point_arguments(r, p)) args.push_back(std::move(a));
  // The machine's cores shared between the jobs, unless the user chose the threads (config, override or sweep).
  auto sets_threads = [](const std::vector<std::string>& overrides) {
    return std::any_of(overrides.begin(), overrides.end(),
                       [](const std::string& o) { return o.rfind("train.threads=", 0) == 0; });
  };
  if (r.threads_per_job > 0 && !sets_threads(r.fixed_overrides) && !sets_threads(p.overrides))
    args.push_back("train.threads=" + std::to_string(r.threads_per_job));
  if (r.resume || datasets::name_exists(run / "checkpoints" / "last.pt") || datasets::name_exists(run / "summary.json"))
    args.push_back("--resume");
  const std::string log = (run / "train.log").string();
  const pid_t parent = getpid();
  // Until the run's own loci takes them (catch_pause_requests), the signals a sweep handles are held: the child
  // would otherwise run the sweep's handler, which writes into the sweep's pipe, and a stop sent between fork and
  // exec would be lost while the run trained on. Held, it waits and reaches the run.
  const sigset_t held = sweep_signals();
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &held, &before);
  const pid_t pid = fork();
  if (pid < 0) {
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    throw UserError("cannot start a sweep process (fork failed)");
  }
  if (pid == 0) {
    for (const int sig : kHeldSignals) signal(sig, SIG_DFL);
    // A sweep killed outright (SIGKILL, no chance to pass anything on) still stops its runs.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return pid;
}

}  // namespace

bool user_threads(const config::Node& train_config) {
  const auto* threads = train_config.find_path("train.threads");
  return threads && threads->is_scalar() && threads->text() != "0";
}

// The last non-empty line a failed run wrote: its `loci: error:` line, shown beside the sweep's own.
std::string last_line(const fs::path& log) {
  // Only the log's end is read, and only from a regular file: a log linked to /dev/zero or a FIFO gives "".
  std::istringstream in(datasets::read_tail(log, 64 * 1024));
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) last = line;
  }
  return last.size() > 300 ? last.substr(0, 297) + "..." : last;
}

namespace {

// A finished point is still handed to its run: the trainer compares what the run was made from with what the
// sweep asks now (and refuses a difference, naming the keys), or extends it when train.epochs grew.
std::optional<fs::file_time_type> finished_at(const fs::path& run) {
  std::error_code ec;
  const auto t = fs::last_write_time(run / "summary.json", ec);
  if (ec) return std::nullopt;
  return t;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

}  // namespace

// The headline of a finished run, from its summary.json: the human split's accuracy when there is one, else the
// first split's accuracy or masked MSE ("human 93.5%", "test mse 0.0123").
std::string headline(const fs::path& run) {
  try {
    const auto text = datasets::read_bounded(run / "summary.json", 16u << 20);
    if (!text) return "";
    const auto j = nlohmann::json::parse(*text);
    const auto& final_metrics = j.at("final");
    if (final_metrics.empty()) return "";
    const auto& [split, m] =
        final_metrics.contains("human")
            ? std::pair<std::string, nlohmann::json>{"human", final_metrics.at("human")}
            : std::pair<std::string, nlohmann::json>{final_metrics.begin().key(), final_metrics.begin().value()};
    char buf[96];
    if (m.contains("accuracy"))
      std::snprintf(buf, sizeof buf, "%s %.1f%%", split.c_str(), 100.0 * m["accuracy"].get<double>());
    else if (m.contains("mse"))
      std::snprintf(buf, sizeof buf, "%s mse %.4g", split.c_str(), m["mse"].get<double>());
    else
      return "";
    return buf;
  } catch (const std::exception&) {
    return "";
  }
}

namespace {

// Each run records the command that started the sweep beside its own (provenance.json, sweep_command); only while
// the sweep runs, so that a pipeline's later stages in this process do not claim it.
struct SweepCommandInEnvironment {
  SweepCommandInEnvironment() { setenv(kSweepCommandVariable, this_command().c_str(), 1); }
  ~SweepCommandInEnvironment() { unsetenv(kSweepCommandVariable); }
};

bool is_stop_signal(int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP; }

// The sweep's processes, r.jobs at a time, and the line each run's end prints.
class SweepRunner {
 public:
  SweepRunner(const SweepRequest& r, const std::vector<SweepPoint>& points) : r_(r), points_(points) {}

  // Runs every point, or until a signal stops the sweep; returns the number of runs that failed.
  int run() {
    const SignalPipe signals;
    while ((next_ < points_.size() || !running_.empty()) && !stopped_by_) {
      start_while_slots_free();
      if (running_.empty()) break;
      // A stop comes before the runs' ends taken with it: a shell's kill of the whole process group ends the runs
      // too, and their ends must read as stopped, with nothing started after them.
      const std::vector<int> taken = signals.take();
      const auto stop_signal = std::find_if(taken.begin(), taken.end(), is_stop_signal);
      if (stop_signal != taken.end()) {
        stop(*stop_signal);
        break;
      }
      if (std::find(taken.begin(), taken.end(), SIGUSR1) != taken.end()) pause();
      if (std::find(taken.begin(), taken.end(), SIGCHLD) != taken.end()) reap_finished();
      // A run stopped from outside the sweep (its own pid, or a group whose signal the sweep has not taken yet):
      // whoever sent it is stopping the work, so the sweep stops too rather than start the next run.
      if (stopped_from_outside_) stop(stopped_from_outside_);
    }
    if (paused_)
      std::cerr << "loci: SIGUSR1: the sweep paused, each running run at the end of its epoch with a checkpoint; "
                << points_.size() - next_ << " not started; the same command resumes\n";
    if (stopped_by_) end_as_the_signal();
    if (made_ > 0) std::cerr << "loci: sweep done in " << clock_text(seconds_since(start_)) << "\n";
    return failed_;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

  void start_while_slots_free() {
    while (!paused_ && next_ < points_.size() && static_cast<int>(running_.size()) < r_.jobs) {
      const fs::path run = fs::path(r_.out) / points_[next_].name;
      finished_before_[next_] = finished_at(run);
      started_[next_] = Clock::now();
      if (!finished_before_[next_])
        std::cerr << "loci: [" << next_ + 1 << "/" << points_.size() << "] start  " << points_[next_].name << "\n";
      running_[launch(r_, points_[next_], run)] = next_;
      ++next_;
    }
  }

  void finish(pid_t pid, int status) {
    const auto it = running_.find(pid);
    if (it == running_.end()) return;
    const std::size_t index = it->second;
    const fs::path run = fs::path(r_.out) / points_[index].name;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const auto before = finished_before_[index];
    const bool kept = ok && before && finished_at(run) == before;
    const bool interrupted = !ok && WIFSIGNALED(status) && is_stop_signal(WTERMSIG(status));
    if (interrupted && !stopped_by_ && !stopped_from_outside_) stopped_from_outside_ = WTERMSIG(status);
    // A run that paused (SIGUSR1) ends well without a summary: it is not done.
    std::error_code ec;
    const bool paused = ok && paused_ && !fs::exists(run / "summary.json", ec);
    ++finished_;
    // The run's own number, as on its start line: runs of a parallel sweep end out of order.
    std::cerr << "loci: [" << index + 1 << "/" << points_.size() << "] "
              << (paused        ? "paused "
                  : kept        ? "kept   "
                  : ok          ? "done   "
                  : interrupted ? "stopped "
                                : "FAILED ")
              << points_[index].name;
    if (ok && !kept && !paused) report_made(run, seconds_since(started_[index]));
    if (!ok && !interrupted) report_failed(run);
    std::cerr << "\n";
    running_.erase(it);
  }

  void report_made(const fs::path& run, double took) {
    made_seconds_ += took, ++made_;
    const std::string h = headline(run);
    std::cerr << ": " << (h.empty() ? "" : h + " ") << "in " << clock_text(took);
    const std::size_t left = points_.size() - finished_;
    if (left == 0) return;
    // Runs go r.jobs at a time: what is left takes about its share of the mean run, per slot.
    const double eta =
        made_seconds_ / static_cast<double>(made_) * static_cast<double>(left) / static_cast<double>(r_.jobs);
    std::cerr << "; " << left << " to go, about " << clock_text(eta) << " left";
  }

  void report_failed(const fs::path& run) {
    ++failed_;
    const std::string why = last_line(run / "train.log");
    std::cerr << " (see " << (run / "train.log").string() << ")" << (why.empty() ? "" : ": " + why);
  }

  void reap_finished() {
    int status = 0;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) finish(pid, status);
  }

  // A pause asked of the sweep is asked of every run in it; none starts after.
  void pause() {
    if (paused_) return;
    paused_ = true;
    for (const auto& [pid, index] : running_) kill(pid, SIGUSR1);
  }

  void stop(int sig) {
    stopped_by_ = sig;
    std::cerr << "loci: " << strsignal(sig) << ": stopping " << running_.size() << " run(s); finished work is kept, "
              << "the same command resumes\n";
    for (const auto& [pid, index] : running_) kill(pid, sig);
    int status = 0;
    while (!running_.empty()) {
      const pid_t pid = waitpid(-1, &status, 0);
      if (pid > 0)
        finish(pid, status);
      else if (errno != EINTR)
        break;
    }
  }

  // End as the signal would have ended an unswept run, so that shells and schedulers see what happened.
  [[noreturn]] void end_as_the_signal() const {
    sigset_t just_it;
    sigemptyset(&just_it);
    sigaddset(&just_it, stopped_by_);
    signal(stopped_by_, SIG_DFL);
    sigprocmask(SIG_UNBLOCK, &just_it, nullptr);
    raise(stopped_by_);
    _exit(128 + stopped_by_);
  }

  const SweepRequest& r_;
  const std::vector<SweepPoint>& points_;
  std::map<pid_t, std::size_t> running_;
  std::map<std::size_t, std::optional<fs::file_time_type>> finished_before_;
  std::map<std::size_t, Clock::time_point> started_;
  const Clock::time_point start_ = Clock::now();
  std::size_t next_ = 0, finished_ = 0, made_ = 0;
  double made_seconds_ = 0;  // wall time of the runs that trained, for the ETA
  int failed_ = 0, stopped_by_ = 0;
  bool paused_ = false;           // SIGUSR1: the running runs pause, no new one starts
  int stopped_from_outside_ = 0;  // the stop signal that ended a run the sweep had not stopped
};

}  // namespace

int run_sweep(const SweepRequest& r, const std::vector<SweepPoint>& points) {
  // One sweep per folder at a time: a second one would hand its points to runs the first is training, and their
  // refusals would land in the first one's train.log files; it is refused here instead, on its own terminal.
  const datasets::FolderLock sweep_claim(r.out, ".loci-sweep-lock");
  const SweepCommandInEnvironment sweep_command;
  write_sweep_manifest(r, points);
  return SweepRunner(r, points).run();
}

}  // namespace loci::apps
