// Sweep emitters: `loci train CONFIG -m ... --emit FORMAT` prints the sweep for another scheduler instead of running
// it. One function per format in the table at the bottom; each command is absolute (program, config, run folder)
// and starts in the folder loci was called from, where the config's relative paths resolve.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

#include "apps/invocation.hpp"
#include "apps/script_values.hpp"
#include "apps/sweep/manifest.hpp"
#include "apps/sweep/sweep.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "core/shell_words.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

struct Context {
  SweepRequest request;  // config and out absolute
  std::string program;   // this loci, absolute
  std::string cwd;
};

std::string command(const Context& c, const SweepPoint& p) {
  std::string line = shell_word(c.program);
  for (const auto& a : point_arguments(c.request, p)) line += " " + shell_word(a);
  return line + " --resume";
}

std::string emit_list(const Context& c, const std::vector<SweepPoint>& points) {
  std::ostringstream o;
  for (const auto& p : points) o << "cd " << shell_word(c.cwd) << " && " << command(c, p) << "\n";
  return o.str();
}

// `--sbatch KEY[=VALUE]` options as #SBATCH lines; one the user gives replaces loci's own of that key.
std::vector<std::pair<std::string, std::string>> sbatch_lines(const Context& c, const std::vector<SweepPoint>& points) {
  const std::string out = c.request.out;
  std::vector<std::pair<std::string, std::string>> lines{
      {"job-name", "loci-sweep"},
      {"array", "0-" + std::to_string(points.size() - 1)},
      {"output", (fs::path(out) / "slurm-%A_%a.out").string()},
      {"open-mode", "append"},
      // Two minutes before the time limit: loci ends its epoch with a checkpoint and the task requeues itself.
      {"signal", "B:USR1@120"},
      {"requeue", ""}};
  for (const auto& option : c.request.scheduler_options) {
    const auto eq = option.find('=');
    const std::string key = option.substr(0, eq), value = eq == std::string::npos ? "" : option.substr(eq + 1);
    const auto same = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == key; });
    if (same != lines.end())
      same->second = value;
    else
      lines.emplace_back(key, value);
  }
  return lines;
}

std::string emit_slurm(const Context& c, const std::vector<SweepPoint>& points) {
  const std::string last = std::to_string(points.size() - 1);
  const std::string out = c.request.out;
  const std::string log = shell_word((fs::path(out) / "sweep.log").string());
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# A Slurm job array: one task per point of the sweep, " << points.size() << " in all."
    << (invocation_for_script().empty() ? "" : " Made by\n#   " + invocation_for_script()) << "\n"
    << "# Submit it with `sbatch THIS_FILE`, or pipe the command into sbatch. Set scheduler options on the loci "
       "command\n"
    << "# (--sbatch partition=NAME --sbatch time=4:00:00 --sbatch cpus-per-task=8 --sbatch array=0-" << last << "%4),\n"
    << "# not here. Every task runs its point with --resume: submitting again skips finished points and continues\n"
    << "# interrupted ones from their last checkpoint; `sbatch --array=K THIS_FILE` runs point K alone. Near the time\n"
    << "# limit Slurm sends SIGUSR1: loci ends its epoch with a checkpoint and the task requeues itself; scancel ends "
       "a\n"
    << "# task, keeping its last checkpoint. Each task ends with one line in " << (fs::path(out) / "sweep.log").string()
    << ";\n"
    << "# `loci sweep status " << out << "` says where every point stands.\n";
  for (const auto& [key, value] : sbatch_lines(c, points))
    o << "#SBATCH --" << key << (value.empty() ? "" : "=" + value) << "\n";
  o << "set -uo pipefail\n"
    << "# train.threads: 0 means LibTorch's default, OpenMP's thread count: make it the task's CPUs.\n"
    << "export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n"
    << "cd " << shell_word(c.cwd) << " || exit 1\n"
    << "task=\"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\"\n"
    << "case \"$task\" in\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    o << "  " << i << ") name=" << shell_word(points[i].name) << "\n     cmd=(" << shell_word(c.program);
    for (const auto& a : point_arguments(c.request, points[i])) o << " " << shell_word(a);
    o << " --resume) ;;\n";
  }
  o << "  *) echo \"loci: no sweep point $task (0-" << last << ")\" >&2; exit 1 ;;\n"
    << "esac\n"
    << "run=" << shell_word(out) << "/\"$name\"\n"
    << "say() { line=\"$(date -u +%Y-%m-%dT%H:%M:%SZ) [${SLURM_ARRAY_JOB_ID:-}_$task] $*\"; echo \"$line\"; echo "
       "\"$line\" >> "
    << log << "; }\n"
    << "mkdir -p \"$run\"\n"
    << "\"${cmd[@]}\" >> \"$run/train.log\" 2>&1 &\n"
    << "pid=$!\n"
    << "paused=0 stopped=0\n"
    << "trap 'paused=1; kill -USR1 \"$pid\" 2>/dev/null' USR1\n"
    << "trap 'stopped=1; kill -TERM \"$pid\" 2>/dev/null' TERM INT\n"
    << "# A trap interrupts wait while loci still runs (or is not yet reaped): wait again until it has ended.\n"
    << "while :; do wait \"$pid\"; status=$?; kill -0 \"$pid\" 2>/dev/null || break; done\n"
    << "if [ \"$paused\" = 1 ] && [ ! -e \"$run/summary.json\" ] && [ \"$status\" = 0 ]; then\n"
    << "  say \"requeued $name: the time limit is near; checkpointed, it continues when the task starts again\"\n"
    << "  scontrol requeue \"${SLURM_ARRAY_JOB_ID}_${task}\"\n"
    << "  exit 0\n"
    << "fi\n"
    << "if [ \"$status\" = 0 ]; then say \"done $name\"\n"
    << "elif [ \"$stopped\" = 1 ]; then say \"stopped $name: its last checkpoint is kept; submitting again continues "
       "it\"\n"
    << "else say \"FAILED $name: $(grep -v '^[[:space:]]*$' \"$run/train.log\" | tail -n 1) (see $run/train.log)\"; "
       "fi\n"
    << "exit \"$status\"\n";
  return o.str();
}

// Every value the script will hold, at its key: each reaches the script as one shell word, but a line break
// would still end a comment, an #SBATCH line or `--emit list`'s one line per point.
void refuse_multiline_values(const Context& c, const std::vector<SweepPoint>& points) {
  check_script_value("out", c.request.out);
  check_script_value("the config's path", c.request.config);
  check_script_value("the current folder", c.cwd);
  check_script_value("loci's own path", c.program);
  for (const auto& p : points) {
    check_script_overrides(point_arguments(c.request, p));
    check_script_value("the sweep point's name", p.name);
  }
}

using Emitter = std::string (*)(const Context&, const std::vector<SweepPoint>&);

const std::map<std::string, Emitter>& emitters() {
  static const std::map<std::string, Emitter> table{{"list", emit_list}, {"slurm", emit_slurm}};
  return table;
}

}  // namespace

std::vector<std::string> sweep_emitters() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : emitters()) names.push_back(name);
  return names;
}

std::string emit_sweep(const std::string& format, const SweepRequest& request, const std::vector<SweepPoint>& points) {
  const auto it = emitters().find(format);
  if (it == emitters().end()) throw UserError("--emit " + format + ": unknown format (list or slurm)");
  if (format != "slurm" && !request.scheduler_options.empty())
    throw UserError("--sbatch " + printable(request.scheduler_options.front()) +
                    ": --sbatch options are for --emit slurm");
  for (const auto& option : request.scheduler_options) {
    const std::string key = option.substr(0, option.find('='));
    const bool word = !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
      return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-';
    });
    if (word && !fits_one_line(option))
      throw UserError("--sbatch " + key + ": its value holds a line break or NUL, which cannot be an #SBATCH line");
    if (!word)
      throw UserError("--sbatch " + printable(key) +
                      ": expected an sbatch long option without its dashes, KEY or KEY=VALUE "
                      "(partition=debug, time=1:00:00, cpus-per-task=4)");
  }
  Context c{request, fs::read_symlink("/proc/self/exe").string(), fs::current_path().string()};
  c.request.config = fs::absolute(request.config).lexically_normal().string();
  c.request.out = fs::absolute(request.out).lexically_normal().string();
  refuse_multiline_values(c, points);
  // The point list beside the runs, for `loci sweep status` (the scheduler never tells loci which points it ran).
  write_sweep_manifest(c.request, points);
  return it->second(c, points);
}

}  // namespace loci::apps
