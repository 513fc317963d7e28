#include "test_util.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

extern char** environ;

namespace loci::test {

namespace fs = std::filesystem;

namespace {

// Scratch folders go when the test program ends, unless LOCI_KEEP_SCRATCH is set (to look at what a test wrote).
struct Scratch {
  std::vector<fs::path> dirs;
  ~Scratch() {
    if (std::getenv("LOCI_KEEP_SCRATCH")) return;
    std::error_code ec;
    for (const auto& d : dirs) fs::remove_all(d, ec);
  }
};
Scratch scratch;

}  // namespace

fs::path fresh_dir(const std::string& name) {
  const fs::path root = fs::path(LOCI_BUILD_DIR) / "tests" / "datasets-scratch";
  const fs::path dir = root / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& p : {root.parent_path(), root, dir})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  scratch.dirs.push_back(dir);
  return dir;
}

namespace {

pid_t spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> argv_s = {LOCI_TEST_GENERATE};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace

Run run_helper(const std::vector<std::string>& args) {
  const fs::path logs = fs::temp_directory_path();
  const std::string out = (logs / ("loci-helper-" + std::to_string(::getpid()) + ".out")).string();
  const std::string err = (logs / ("loci-helper-" + std::to_string(::getpid()) + ".err")).string();
  Run r;
  const pid_t pid = spawn(args, out, err);
  if (pid < 0) return r;
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

pid_t spawn_helper(const std::vector<std::string>& args) { return spawn(args, "/dev/null", "/dev/null"); }

std::map<std::string, std::vector<std::uint8_t>> read_everything(const datasets::Dataset& ds) {
  std::map<std::string, std::vector<std::uint8_t>> out;
  for (const auto& split : ds.splits()) {
    const std::int64_t n = ds.samples(split);
    out[split + "/sample_id"].resize(static_cast<std::size_t>(n) * 8);
    ds.read(split, "sample_id", 0, n, out[split + "/sample_id"].data(), datasets::DType::i64);
    for (const auto& a : ds.arrays()) {
      auto& bytes = out[split + "/" + a.name];
      bytes.resize(a.bytes() * static_cast<std::size_t>(n));
      ds.read(split, a.name, 0, n, bytes.data(), a.dtype);
    }
  }
  return out;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))  // a writer's claim (.loci-lock) is not the dataset's
    if (e.path().filename().string().rfind(".loci-lock", 0) != 0) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loci::test
