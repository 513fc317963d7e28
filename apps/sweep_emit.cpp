// Sweep emitters: `loci train CONFIG -m ... --emit FORMAT` prints the sweep for another scheduler instead of running
// it. One function per format in the table at the bottom; each command is absolute (program, config, run folder)
// and starts in the folder loci was called from, where the config's relative paths resolve.
#include <filesystem>
#include <map>
#include <sstream>

#include "apps/invocation.hpp"
#include "apps/sweep.hpp"
#include "plugins/api/error.hpp"
#include "plugins/api/shell_words.hpp"

namespace loci::app {

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

std::string emit_slurm(const Context& c, const std::vector<SweepPoint>& points) {
  const std::string last = std::to_string(points.size() - 1);
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# A Slurm job array: one task per point of the sweep, " << points.size() << " in all. Made by\n"
    << "#   " << invocation() << "\n"
    << "# Submit with `sbatch THIS_FILE`, adding your site's #SBATCH lines (partition, time, memory). Every task passes\n"
    << "# --resume: submitting again skips finished points and continues interrupted ones from their last checkpoint;\n"
    << "# `sbatch --array=K THIS_FILE` runs point K alone.\n"
    << "#SBATCH --job-name=loci-sweep\n"
    << "#SBATCH --array=0-" << last << "\n"
    << "##SBATCH --cpus-per-task=8\n"
    << "set -euo pipefail\n"
    << "# train.threads: 0 means LibTorch's default, OpenMP's thread count: make it the task's CPUs.\n"
    << "export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n"
    << "cd " << shell_word(c.cwd) << "\n"
    << "case \"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\" in\n";
  for (std::size_t i = 0; i < points.size(); ++i)
    o << "  " << i << ")  # " << points[i].name << "\n    exec " << command(c, points[i]) << " ;;\n";
  o << "  *) echo \"loci: no sweep point ${SLURM_ARRAY_TASK_ID} (0-" << last << ")\" >&2; exit 1 ;;\n"
    << "esac\n";
  return o.str();
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
  Context c{request, fs::read_symlink("/proc/self/exe").string(), fs::current_path().string()};
  c.request.config = fs::absolute(request.config).lexically_normal().string();
  c.request.out = fs::absolute(request.out).lexically_normal().string();
  return it->second(c, points);
}

}  // namespace loci::app
