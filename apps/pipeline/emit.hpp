// `loci run PIPELINE --emit slurm`: the pipeline as Slurm jobs, printed for `| sbatch`. That job generates the data,
// submits the train stage's job array (its own script, <out>/train-array.sh, as `loci train -m --emit slurm` writes
// it) and a job that analyses and reports once every task of the array has ended.
#pragma once

#include <string>
#include <vector>

#include "core/config/node.hpp"

namespace loci::apps {

struct PipelineEmit {
  std::string file;                    // the pipeline config as given
  std::vector<std::string> overrides;  // as given
  std::vector<std::string> sbatch;     // --sbatch KEY=VALUE options
};

std::string emit_pipeline_slurm(const config::Node& resolved, const PipelineEmit& request);

}  // namespace loci::apps
