#include "apps/report/report.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/config_file.hpp"
#include "core/error.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

fs::path report_script() {
  if (const char* s = std::getenv("LOCI_REPORT_SCRIPT")) return s;
  std::error_code ec;
  // The build tree mirrors the install: bin/loci and share/loci/loci_report.py.
  const fs::path script = share_folder() / "loci_report.py";
  if (!fs::is_regular_file(script, ec))
    throw UserError("cannot find the report script " + script.string() + " (set LOCI_REPORT_SCRIPT)");
  return script;
}

// Debian's interpreter, where python3-matplotlib is installed, unless the user names another (a virtualenv).
std::string python() {
  if (const char* p = std::getenv("LOCI_PYTHON")) return p;
  std::error_code ec;
  return fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

}  // namespace

void make_report(const fs::path& analysis, const fs::path& out) {
  std::error_code ec;
  if (!fs::is_regular_file(analysis / "summary.csv", ec))
    throw UserError(analysis.string() + ": no summary.csv (run `loci analyze` on the runs first)");
  std::vector<std::string> args{python(), report_script().string(), analysis.string(), out.string()};
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw UserError("cannot start the report script (pipe failed)");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw UserError("cannot start the report script (fork failed)");
  if (pid == 0) {
    // A loci killed outright (SIGKILL) takes its report script with it instead of leaving it drawing alone.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);
    close(pipe_fd[0]);
    dup2(pipe_fd[1], 2);
    close(pipe_fd[1]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(pipe_fd[1]);
  std::string errors;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fd[0], buf, sizeof buf)) > 0;) errors.append(buf, static_cast<std::size_t>(n));
  close(pipe_fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw UserError("cannot run " + args[0] + " for the report (set LOCI_PYTHON to a Python with matplotlib)");
  // The script's own message is its last line; a Python traceback ends with the exception.
  while (!errors.empty() && errors.back() == '\n') errors.pop_back();
  const auto nl = errors.rfind('\n');
  throw UserError("report: " +
                  (errors.empty() ? "the report script failed" : errors.substr(nl == std::string::npos ? 0 : nl + 1)));
}

}  // namespace loci::apps
