#include "apps/sweep/manifest.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/invocation.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/bounded_read.hpp"
#include "datasets/error.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

// A sweep's own small files, read within bounds and inside their folder: a planted FIFO, a link to /dev/zero or to
// a file elsewhere is one line, not a hang or a read of somebody else's file.
constexpr std::uintmax_t kMaxRecordBytes = 16u << 20;

std::string slurp(const fs::path& file, std::uintmax_t limit = kMaxRecordBytes) {
  return datasets::read_inside(file.parent_path(), file.filename().string(), limit).value_or("");
}

// "pid N on HOST" of the run's claim, when that process is alive here; "" when nobody holds it. A claim made on
// another host cannot be checked from here and is shown as it is.
std::string live_claim(const fs::path& run) {
  std::string claim;
  try {
    claim = slurp(run / ".loci-lock", 4096);
  } catch (const datasets::DataError&) {
    return "";  // not a claim loci wrote: nobody holds the folder through it
  }
  while (!claim.empty() && (claim.back() == '\n' || claim.back() == ' ')) claim.pop_back();
  if (claim.rfind("pid ", 0) != 0) return "";
  const auto on = claim.find(" on ");
  if (on == std::string::npos) return "";
  const long pid = std::strtol(claim.c_str() + 4, nullptr, 10);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (claim.substr(on + 4) != host) return claim + " (another host: not checked)";
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) return "";
  // A live process of that number that holds no lock on the folder is another program: the claim is stale.
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  const std::string command(std::istreambuf_iterator<char>(cmdline), {});
  return command.find("loci") == std::string::npos ? "" : claim;
}

// "finished, human 93.5%": the run's status and its headline.
std::string done_detail(const fs::path& run) {
  std::string status = "finished";
  try {
    status = nlohmann::json::parse(slurp(run / "summary.json")).value("status", status);
  } catch (const datasets::DataError& e) {
    return std::string("summary.json unreadable: ") + e.what();
  } catch (const std::exception&) {
    return "summary.json unreadable";
  }
  const std::string h = headline(run);
  return h.empty() ? status : status + ", " + h;
}

PointState state_of(const fs::path& run, const std::string& name) {
  PointState p{name, "not started", ""};
  if (!datasets::name_exists(run)) return p;
  const std::string claim = live_claim(run);
  if (datasets::name_exists(run / "summary.json")) {
    p.state = "done", p.detail = done_detail(run);
  } else if (!claim.empty()) {
    p.state = "running", p.detail = claim;
  } else {
    const std::string said = last_line(run / "train.log");
    const bool error = said.rfind("loci: error:", 0) == 0 || said.rfind("loci: internal", 0) == 0;
    if (error)
      p.state = "failed", p.detail = said;
    else if (datasets::name_exists(run / "checkpoints" / "last.pt"))
      p.state = "interrupted", p.detail = "continues from its last checkpoint with --resume (or the same sweep again)";
    else if (!said.empty())
      // No error and no checkpoint: stopped (or killed) before its first evaluation, not failed.
      p.state = "interrupted",
      p.detail = "before its first checkpoint: it starts afresh when run again (its log ends: " + said + ")";
  }
  return p;
}

}  // namespace

void write_sweep_manifest(const SweepRequest& r, const std::vector<SweepPoint>& points) {
  nlohmann::ordered_json j;
  j["command"] = invocation();
  j["config"] = fs::absolute(r.config).lexically_normal().string();
  j["fixed_overrides"] = r.fixed_overrides;
  auto list = nlohmann::ordered_json::array();
  for (const auto& p : points) list.push_back({{"name", p.name}, {"overrides", p.overrides}});
  j["points"] = list;
  fs::create_directories(r.out);
  // Paths come from the file system, which allows bytes that are not UTF-8: those are written as U+FFFD.
  datasets::write_file_atomically(fs::path(r.out) / "sweep.json",
                                  j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::vector<PointState> sweep_status(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw UserError(folder.string() + ": no such folder");
  std::vector<std::string> names;
  const fs::path manifest = folder / "sweep.json";
  if (datasets::name_exists(manifest)) {
    try {
      const auto j = nlohmann::json::parse(slurp(manifest));
      for (const auto& p : j.at("points")) {
        const auto name = p.at("name").get<std::string>();
        // A point is a folder of its own: a name that leads elsewhere (../x, a/b) would read outside the sweep.
        if (name.empty() || name == "." || name == ".." ||
            name.find_first_of(std::string("/\0", 2)) != std::string::npos)
          throw UserError(manifest.string() + ": point name '" + printable(name) + "' is not a folder name (damaged?)");
        names.push_back(name);
      }
    } catch (const nlohmann::json::exception&) {
      throw UserError(manifest.string() + ": is not a sweep's point list (damaged?)");
    }
  }
  // Runs in the folder that the point list does not name (another sweep wrote into the same folder, and its list
  // was replaced) are listed too, after the list's own: status shows every run there is.
  std::vector<std::string> found;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path run = it->path();
    const bool a_run = it->is_directory(ec) &&
                       (datasets::name_exists(run / "config.yaml") || datasets::name_exists(run / "train.log"));
    if (a_run && std::find(names.begin(), names.end(), run.filename().string()) == names.end())
      found.push_back(run.filename().string());
  }
  std::sort(found.begin(), found.end());
  names.insert(names.end(), found.begin(), found.end());
  if (names.empty()) throw UserError(folder.string() + ": holds no sweep (no sweep.json and no run folders)");
  std::vector<PointState> out;
  for (const auto& n : names) out.push_back(state_of(folder / n, n));
  return out;
}

}  // namespace loci::apps
