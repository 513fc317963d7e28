#include "apps/pipeline/emit.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/invocation.hpp"
#include "apps/pipeline/stage_sweep.hpp"
#include "apps/script_values.hpp"
#include "core/error.hpp"
#include "core/shell_words.hpp"
#include "datasets/atomic_file.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

// The options of the one-off jobs (the pipeline's own and the analysis): the user's, but for those that only a job
// array takes or that loci sets per job.
std::vector<std::string> job_options(const std::vector<std::string>& sbatch) {
  std::vector<std::string> out;
  for (const auto& o : sbatch) {
    const std::string key = o.substr(0, o.find('='));
    if (key != "array" && key != "signal" && key != "requeue" && key != "output" && key != "job-name") out.push_back(o);
  }
  return out;
}

// `loci run` of this pipeline with the user's overrides and --stages `stages`, absolute and pasteable.
std::string run_command(const PipelineEmit& r, const std::string& program, const std::string& stages) {
  std::string line = shell_word(program) + " run " + shell_word(fs::absolute(r.file).lexically_normal().string());
  for (const auto& o : r.overrides) line += " " + shell_word(o);
  return line + " --stages " + stages;
}

}  // namespace

std::string emit_pipeline_slurm(const config::Node& resolved, const PipelineEmit& r) {
  const config::Node* train = resolved.find("train");
  if (!train || train->is_null())
    throw UserError(r.file + ": --emit slurm spreads a pipeline's train stage over a job array; this one has none");
  const fs::path out = fs::absolute(resolved.at("out").text()).lexically_normal();
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  const std::string cwd = fs::current_path().string();
  // Each value reaches the script as one shell word; a line break would still end a comment or #SBATCH line.
  check_script_value("out", out.string());
  check_script_value("the pipeline's path", r.file);
  check_script_value("the current folder", cwd);
  check_script_value("loci's own path", program);
  check_script_overrides(r.overrides);

  // The train stage's array script, written where the pipeline's outputs go.
  const auto [stage, sweep] = stage_sweep(*train);
  SweepRequest req = sweep_request(stage, sweep, out);
  req.scheduler_options = r.sbatch;
  const fs::path array_script = out / "train-array.sh";
  datasets::write_file_atomically(array_script, emit_sweep("slurm", req, sweep.points));
  fs::permissions(array_script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);

  std::vector<std::string> after;
  for (const char* s : {"analyze", "report"})
    if (const auto* n = resolved.find(s); n && !n->is_null()) after.push_back(s);
  const bool generate = resolved.find("generate") && !resolved.at("generate").is_null();
  const std::string log = (out / "slurm-%j.out").string();

  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# The pipeline " << r.file << " as Slurm jobs."
    << (invocation_for_script().empty() ? "" : " Made by\n#   " + invocation_for_script()) << "\n"
    << "# Submit it with sbatch (pipe the command into it). This job " << (generate ? "generates the data, then " : "")
    << "submits the train\n"
    << "# stage's job array (" << array_script.string() << ", one task per run)"
    << (after.empty() ? ""
                      : " and a job that analyses and reports\n# once every task has ended (a failed run leaves "
                        "the others analysed; `loci sweep status " +
                            req.out + "` names it)")
    << ". Submitting\n# again keeps every finished stage and run.\n"
    << "#SBATCH --job-name=loci-pipeline\n"
    << "#SBATCH --output=" << log << "\n";
  for (const auto& option : job_options(r.sbatch)) o << "#SBATCH --" << option << "\n";
  o << "set -euo pipefail\n"
    << "cd " << shell_word(cwd) << "\n";
  if (generate) o << run_command(r, program, "generate") << "\n";
  o << "array=\"$(sbatch --parsable " << shell_word(array_script.string()) << " | cut -d';' -f1)\"\n"
    << "echo \"loci: train stage: job array $array, " << sweep.points.size() << " runs under\" " << shell_word(req.out)
    << "\n";
  if (!after.empty()) {
    std::string stages;
    for (const auto& s : after) stages += (stages.empty() ? "" : ",") + s;
    const std::string wrap = "cd " + shell_word(cwd) + " && " + run_command(r, program, stages);
    o << "after=\"$(sbatch --parsable --dependency=afterany:$array --job-name=loci-"
      << stages.substr(0, stages.find(',')) << " --output=" << shell_word(log);
    for (const auto& option : job_options(r.sbatch)) o << " " << shell_word("--" + option);
    o << " --wrap " << shell_word(wrap) << " | cut -d';' -f1)\"\n"
      << "echo \"loci: " << stages << ": job $after, after the array\"\n";
  }
  return o.str();
}

}  // namespace loci::apps
